//! Loading lemminflect's files (the gzipped tables and their override files) into [`Inflections`],
//! with the errors for a malformed line.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;
use metamorph_data::Error;

use super::table::{set_slot, Inflections, Slots, Table};
use super::tags::{Tag, Upos};

/// The inflection table of lemminflect: `word,category,forms…`.
pub const INFL_LU: &str = "infl_lu.csv.gz";

/// lemminflect's corrections to the inflection table: `lemma,tag,form`.
pub const INFL_OVERRIDES: &str = "infl_overrides.csv";

/// The lemma table of lemminflect: `word,category,lemma/lemma…`.
pub const LEMMA_LU: &str = "lemma_lu.csv.gz";

/// lemminflect's corrections to the lemma table: `word,upos,lemma`.
pub const LEMMA_OVERRIDES: &str = "lemma_overrides.csv";

fn malformed(path: &Path, location: &str, field: &str, message: impl Into<String>) -> Error {
    Error::Malformed {
        path: path.to_path_buf(),
        location: location.to_string(),
        field: field.to_string(),
        message: message.into(),
    }
}

fn io_error(path: &Path, source: std::io::Error) -> Error {
    Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Calls `f(path, line number, line)` for each line of `path` (gunzipped when `gzip`),
/// stripped of surrounding whitespace, skipping blank lines (and `#` comments unless
/// `gzip`, as lemminflect's overrides reader does).
fn read_lines(
    path: &Path,
    gzip: bool,
    mut f: impl FnMut(&Path, usize, &str) -> Result<(), Error>,
) -> Result<(), Error> {
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    let reader: Box<dyn Read> = if gzip {
        Box::new(GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut reader = BufReader::new(reader);
    let mut buf = Vec::new();
    let mut n = 0;
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| io_error(path, e))?;
        if read == 0 {
            return Ok(());
        }
        n += 1;
        let line = std::str::from_utf8(&buf)
            .map_err(|e| malformed(path, &format!("line {n}"), "-", format!("not UTF-8: {e}")))?
            .trim();
        if line.is_empty() || (!gzip && line.starts_with('#')) {
            continue;
        }
        f(path, n, line)?;
    }
}

/// One line of `infl_lu.csv.gz`: `word,category,form1,form2,…`, each form a `/`-separated
/// list of spellings (lemminflect's `InflectionLUCodec.fromString`).
fn parse_infl_line(
    path: &Path,
    n: usize,
    line: &str,
    words: &mut BTreeMap<String, Slots>,
) -> Result<(), Error> {
    let mut parts = line.split(',');
    let word = parts.next().unwrap_or_default();
    let category = parts
        .next()
        .ok_or_else(|| malformed(path, &format!("line {n}"), "category", "missing"))?;
    let (tags, base): (&[Tag], &[Tag]) = match category {
        "noun" => (&[Tag::Nns], &[Tag::Nn]),
        "adj" => (&[Tag::Jjr, Tag::Jjs], &[Tag::Jj]),
        "adv" => (&[Tag::Rbr, Tag::Rbs], &[Tag::Rb]),
        "verb" => (
            &[Tag::Vbd, Tag::Vbn, Tag::Vbg, Tag::Vbz],
            &[Tag::Vb, Tag::Vbp],
        ),
        "aux" | "modal" => (&[], &[Tag::Vb]),
        other => {
            return Err(malformed(
                path,
                &format!("line {n}"),
                "category",
                format!("unknown category `{other}`"),
            ))
        }
    };
    if word.is_empty() {
        return Err(malformed(path, &format!("line {n}"), "word", "empty"));
    }
    let slots = words.entry(word.to_string()).or_default();
    for (tag, forms) in tags.iter().zip(parts) {
        let spellings: Vec<String> = forms.split('/').map(str::to_string).collect();
        if spellings.len() > 1 || !forms.is_empty() {
            set_slot(slots, *tag as u8, spellings);
        }
    }
    for tag in base {
        set_slot(slots, *tag as u8, vec![word.to_string()]);
    }
    Ok(())
}

/// lemminflect's `updateForAuxMod`: modals and `be` replace whatever the table says.
fn hard_code_aux_modal(words: &mut BTreeMap<String, Slots>) {
    let modals = [
        ("can", Some("could")),
        ("may", Some("might")),
        ("will", Some("would")),
        ("shall", Some("should")),
        ("must", Some("must")),
        ("ought", Some("ought")),
        ("dare", None),
    ];
    for (modal, past) in modals {
        let mut slots = vec![(Tag::Vb as u8, vec![modal.to_string()])];
        if let Some(past) = past {
            slots.push((Tag::Vbd as u8, vec![past.to_string()]));
        }
        words.insert(modal.to_string(), slots);
    }
    let be = |forms: &[&str]| forms.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    words.insert(
        "be".to_string(),
        vec![
            (Tag::Vb as u8, be(&["be"])),
            (Tag::Vbd as u8, be(&["was", "were"])),
            (Tag::Vbg as u8, be(&["being"])),
            (Tag::Vbn as u8, be(&["been"])),
            (Tag::Vbp as u8, be(&["am", "are"])),
            (Tag::Vbz as u8, be(&["is"])),
        ],
    );
}

/// One line of `lemma_lu.csv.gz`: `word,category,lemma1/lemma2` (lemminflect's
/// `LemmaLUCodec.fromString`: exactly three fields).
fn parse_lemma_line(
    path: &Path,
    n: usize,
    line: &str,
    words: &mut BTreeMap<String, Slots>,
) -> Result<(), Error> {
    let parts: Vec<&str> = line.split(',').collect();
    let [word, category, forms] = parts[..] else {
        return Err(malformed(
            path,
            &format!("line {n}"),
            "-",
            format!("expected 3 comma-separated fields, found {}", parts.len()),
        ));
    };
    let upos = Upos::from_category(category).ok_or_else(|| {
        malformed(
            path,
            &format!("line {n}"),
            "category",
            format!("unknown category `{category}`"),
        )
    })?;
    let spellings = forms.split('/').map(str::to_string).collect();
    set_slot(
        words.entry(word.to_string()).or_default(),
        upos as u8,
        spellings,
    );
    Ok(())
}

/// One line of an overrides file: `word,slot,form` (lemminflect's `OverridesCodec`).
fn parse_override(
    path: &Path,
    n: usize,
    line: &str,
    slot_name: &str,
    slot: impl Fn(&str) -> Option<u8>,
    words: &mut BTreeMap<String, Slots>,
) -> Result<(), Error> {
    let parts: Vec<&str> = line.split(',').collect();
    let [word, key, form] = parts[..] else {
        return Err(malformed(
            path,
            &format!("line {n}"),
            "-",
            format!("expected 3 comma-separated fields, found {}", parts.len()),
        ));
    };
    let slot = slot(key).ok_or_else(|| {
        malformed(
            path,
            &format!("line {n}"),
            slot_name,
            format!("unknown {slot_name} `{key}`"),
        )
    })?;
    set_slot(
        words.entry(word.to_string()).or_default(),
        slot,
        vec![form.to_string()],
    );
    Ok(())
}

/// The path of the `lemminflect` resources folder when the asset is already installed,
/// without fetching (for tools that must stay offline).
pub fn installed_dir() -> Option<PathBuf> {
    let spec = metamorph_data::assets::spec("lemminflect").ok()?;
    metamorph_data::assets::installed(&metamorph_data::assets::home(), spec)
}

impl Inflections {
    /// Loads the four table files from `dir` (lemminflect's `resources` folder).
    ///
    /// # Errors
    /// [`Error::Io`] if a file cannot be opened or read (or is not valid gzip);
    /// [`Error::Malformed`] naming the file and the line for a line that does not parse.
    pub fn load(dir: &Path) -> Result<Self, Error> {
        let mut infl = BTreeMap::new();
        read_lines(&dir.join(INFL_LU), true, |path, n, line| {
            parse_infl_line(path, n, line, &mut infl)
        })?;
        hard_code_aux_modal(&mut infl);
        read_lines(&dir.join(INFL_OVERRIDES), false, |path, n, line| {
            parse_override(
                path,
                n,
                line,
                "tag",
                |s| Tag::parse(s).map(|t| t as u8),
                &mut infl,
            )
        })?;
        let mut lemmas = BTreeMap::new();
        read_lines(&dir.join(LEMMA_LU), true, |path, n, line| {
            parse_lemma_line(path, n, line, &mut lemmas)
        })?;
        read_lines(&dir.join(LEMMA_OVERRIDES), false, |path, n, line| {
            parse_override(
                path,
                n,
                line,
                "upos",
                |s| Upos::parse(s).map(|u| u as u8),
                &mut lemmas,
            )
        })?;
        let built = |words, file: &str| {
            Table::build(words).map_err(|message| malformed(&dir.join(file), "-", "-", message))
        };
        Ok(Inflections {
            infl: built(infl, INFL_LU)?,
            lemmas: built(lemmas, LEMMA_LU)?,
        })
    }

    /// Loads the tables of the `lemminflect` asset (fetched on first use by
    /// [`metamorph_data::assets::ensure`]).
    ///
    /// # Errors
    /// Those of [`metamorph_data::assets::ensure`] and [`Inflections::load`].
    pub fn from_assets() -> Result<Self, Error> {
        Self::load(&metamorph_data::assets::ensure("lemminflect")?)
    }
}
