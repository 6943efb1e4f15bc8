//! Header-led delimited files (TSV, CSV): open with the required columns checked, then map each
//! data row, whose fields are looked up by column name, into an example.

use std::path::Path;

use crate::record::Example;
use crate::{Error, Result};

/// A delimited file with a header row.
pub(super) struct Table {
    path: std::path::PathBuf,
    header: Vec<String>,
    rows: csv::StringRecordsIntoIter<std::fs::File>,
}

impl Table {
    /// A tab-separated file without quoting (PAWS, SST, QQP, GAP); `required` lists, for each
    /// needed column, the names it may have.
    pub(super) fn tsv(path: &Path, required: &[&[&str]]) -> Result<Self> {
        Self::open(
            path,
            csv::ReaderBuilder::new()
                .delimiter(b'\t')
                .quoting(false)
                .flexible(true),
            required,
        )
    }

    /// A comma-separated file with standard quoting (BREAK).
    pub(super) fn csv(path: &Path, required: &[&[&str]]) -> Result<Self> {
        Self::open(path, &csv::ReaderBuilder::new(), required)
    }

    fn open(path: &Path, builder: &csv::ReaderBuilder, required: &[&[&str]]) -> Result<Self> {
        let mut reader = builder
            .from_path(path)
            .map_err(|e| Error::malformed(path, "line 1", "-", e.to_string()))?;
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| Error::malformed(path, "line 1", "-", e.to_string()))?
            .iter()
            .map(str::to_string)
            .collect();
        for alternatives in required {
            if !alternatives
                .iter()
                .any(|name| header.iter().any(|h| h == name))
            {
                return Err(Error::malformed(
                    path,
                    "line 1",
                    alternatives.join("|"),
                    "missing column in the header",
                ));
            }
        }
        Ok(Table {
            path: path.to_path_buf(),
            header,
            rows: reader.into_records(),
        })
    }

    /// True when the header has column `name`.
    pub(super) fn has(&self, name: &str) -> bool {
        self.header.iter().any(|h| h == name)
    }
}

/// One data row.
pub(super) struct Row<'a> {
    path: &'a Path,
    header: &'a [String],
    record: csv::StringRecord,
    /// 1-based line number.
    pub(super) line: u64,
}

impl Row<'_> {
    /// `line N`.
    pub(super) fn location(&self) -> String {
        format!("line {}", self.line)
    }

    /// The raw value of column `name`.
    pub(super) fn get(&self, name: &str) -> Result<&str> {
        let i = self
            .header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| self.error(name, "no such column in the header"))?;
        self.record.get(i).ok_or_else(|| {
            Error::malformed(
                self.path,
                self.location(),
                name,
                format!(
                    "row has {} of {} columns",
                    self.record.len(),
                    self.header.len()
                ),
            )
        })
    }

    /// A non-blank value of column `name`.
    pub(super) fn text(&self, name: &str) -> Result<String> {
        let v = self.get(name)?;
        if v.trim().is_empty() {
            return Err(Error::malformed(
                self.path,
                self.location(),
                name,
                "empty text",
            ));
        }
        Ok(v.to_string())
    }

    /// Malformed-record error for column `field` of this row.
    pub(super) fn error(&self, field: &str, message: impl Into<String>) -> Error {
        Error::malformed(self.path, self.location(), field, message)
    }

    /// `file:line N`.
    pub(super) fn origin(&self) -> String {
        format!("{}:{}", self.path.display(), self.location())
    }
}

impl Table {
    /// Maps every data row through `f`.
    pub(super) fn map<F>(self, mut f: F) -> impl Iterator<Item = Result<Example>> + Send
    where
        F: FnMut(&Row<'_>) -> Result<Example> + Send,
    {
        let Table { path, header, rows } = self;
        rows.map(move |record| {
            let record = record.map_err(|e| {
                let line = e.position().map(|p| p.line()).unwrap_or(0);
                Error::malformed(&path, format!("line {line}"), "-", e.to_string())
            })?;
            let line = record.position().map(|p| p.line()).unwrap_or(0);
            // A row with more fields than the header has a stray delimiter (a tab inside a
            // text, say): which field is which cannot be known, so it is refused like a short
            // row, not read shifted.
            if record.len() > header.len() {
                return Err(Error::malformed(
                    &path,
                    format!("line {line}"),
                    "-",
                    format!(
                        "row has {} columns, the header {} (a stray delimiter inside a field?)",
                        record.len(),
                        header.len()
                    ),
                ));
            }
            f(&Row {
                path: &path,
                header: &header,
                record,
                line,
            })
        })
    }
}
