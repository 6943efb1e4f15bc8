//! The TOML configuration file shared by the pipeline and every stage binary: one table per
//! stage (`[perturb]`, `[execute]`, `[judge]`, …), read by each stage into its own typed config.

use std::collections::BTreeMap;
use std::path::Path;

use serde::de::DeserializeOwned;

use crate::{Error, Result};

/// A parsed configuration file (empty when none was given).
#[derive(Clone, Debug, Default)]
pub struct ConfigFile {
    table: toml::Table,
    origin: String,
}

/// The largest config file read (a config is a few KiB; this only stops a wrong path, such as a
/// device or a huge data file, from being read whole).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

impl ConfigFile {
    /// Reads and parses `path`.
    ///
    /// # Errors
    /// [`Error::Io`] if unreadable; [`Error::Config`] naming the file, line and column on a syntax
    /// error.
    pub fn load(path: &Path) -> Result<Self> {
        let size = crate::input_file::regular_file(path)?;
        if size > MAX_CONFIG_BYTES {
            return Err(Error::Config(format!(
                "{}: {size} bytes; a config file is at most {} MiB",
                path.display(),
                MAX_CONFIG_BYTES >> 20
            )));
        }
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses TOML text; `origin` names it in errors.
    ///
    /// # Errors
    /// [`Error::Config`] on a syntax error.
    pub fn parse(text: &str, origin: &str) -> Result<Self> {
        let table = text
            .parse::<toml::Table>()
            .map_err(|e| Error::Config(format!("{origin}: {e}")))?;
        Ok(ConfigFile {
            table,
            origin: origin.to_string(),
        })
    }

    /// Loads `path` if given, else an empty config.
    ///
    /// # Errors
    /// As [`ConfigFile::load`].
    pub fn load_optional(path: Option<&Path>) -> Result<Self> {
        path.map(Self::load)
            .transpose()
            .map(Option::unwrap_or_default)
    }

    /// Where the config came from (its path, or the name given to [`ConfigFile::parse`]).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The names of the file's top-level tables (`pipeline`, `perturb`, …), in file order.
    pub fn section_names(&self) -> impl Iterator<Item = &str> {
        self.table.keys().map(String::as_str)
    }

    /// The `[name]` table deserialised as `T`; `T::default()` when the table is absent. Unknown
    /// keys are rejected when `T` says `#[serde(deny_unknown_fields)]`.
    ///
    /// # Errors
    /// [`Error::Config`] naming the file and table when a value has the wrong type.
    pub fn section<T: DeserializeOwned + Default>(&self, name: &str) -> Result<T> {
        match self.table.get(name) {
            None => Ok(T::default()),
            Some(value) => value
                .clone()
                .try_into()
                .map_err(|e| Error::Config(format!("{}: [{name}]: {e}", self.origin))),
        }
    }
}

impl ConfigFile {
    /// The `[name]` table as TOML text (empty when absent): what a stage's [`Fingerprint`]
    /// records of its settings, so editing the table makes a resumed run redo its shards.
    ///
    /// [`Fingerprint`]: crate::Fingerprint
    pub fn section_text(&self, name: &str) -> String {
        self.table
            .get(name)
            .map(|value| value.to_string())
            .unwrap_or_default()
    }

    /// A [`Fingerprint`] of the `sections` a stage reads (each as [`ConfigFile::section_text`]),
    /// to which the stage adds its flag overrides and [`run_stage`] its inputs. Files a table
    /// names (model weights, lexicons) are recorded by name, not by content.
    ///
    /// [`Fingerprint`]: crate::Fingerprint
    /// [`run_stage`]: crate::run_stage
    pub fn fingerprint(&self, sections: &[&str]) -> crate::Fingerprint {
        sections
            .iter()
            .fold(crate::Fingerprint::new(1), |fingerprint, name| {
                fingerprint.with_setting(&format!("[{name}]"), &self.section_text(name))
            })
    }
}

/// Whether `c` may appear in a dataset or model name: ASCII letters, digits, `-`, `_`, `.`.
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// Keys of a config table that the struct of its `kind` did not declare: a variant of a table
/// typed by `kind` collects them in a `#[serde(flatten)]` field, since serde's
/// `deny_unknown_fields` cannot be combined with the flattened key groups kinds share.
pub type UnknownKeys = BTreeMap<String, serde_json::Value>;

/// Reads the struct of `kind` from the rest of its table and refuses a key it does not know.
/// Errors are messages without the table's name (the caller adds it).
///
/// # Errors
/// The deserialisation error, or the first key that is not one of `kind`'s.
pub fn parse_kind_keys<T: DeserializeOwned>(
    kind: &str,
    table: serde_json::Map<String, serde_json::Value>,
    unknown: impl FnOnce(&T) -> &UnknownKeys,
) -> std::result::Result<T, String> {
    let parsed: T =
        serde_json::from_value(serde_json::Value::Object(table)).map_err(|e| e.to_string())?;
    if let Some(key) = unknown(&parsed).keys().next() {
        return Err(format!(
            "`{key}` is not a key of kind `{kind}` (see the configuration reference for the \
             keys of each kind)"
        ));
    }
    Ok(parsed)
}

/// Checks the names a config gives its datasets or models (`what`: "dataset", "model"): each
/// is made of ASCII letters, digits, `-`, `_` and `.` (it names output folders and appears in
/// every record), is not `.` or `..`, and no two are equal.
///
/// # Errors
/// [`Error::Config`] naming the offending name.
pub fn check_names<'a>(what: &str, names: impl IntoIterator<Item = &'a str>) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for name in names {
        if name.is_empty() {
            return Err(Error::Config(format!("{what} name is empty")));
        }
        if name == "." || name == ".." {
            return Err(Error::Config(format!(
                "{what} name {name:?}: a name cannot be `.` or `..` (it names an output folder)"
            )));
        }
        if !name.chars().all(is_name_char) {
            return Err(Error::Config(format!(
                "{what} name {name:?}: use letters, digits, `-`, `_` and `.` only (it names \
                 output folders and records)"
            )));
        }
        if !seen.insert(name) {
            return Err(Error::Config(format!(
                "{what} name `{name}` is used twice: every {what} needs a name of its own"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod name_tests {
    use super::check_names;

    #[test]
    fn names_are_plain_and_unique() {
        assert!(check_names("dataset", ["boolq", "squad-v2", "a_b.c"]).is_ok());
        for bad in ["", ".", "..", "../../x", "a/b", "a b", "naïve"] {
            let e = check_names("dataset", [bad]).unwrap_err().to_string();
            assert!(e.contains("dataset name"), "{bad}: {e}");
        }
        let e = check_names("model", ["m", "m"]).unwrap_err().to_string();
        assert!(e.contains("`m` is used twice"), "{e}");
    }
}
