//! Dataset readers: each turns one public dataset format into a stream of [`Example`]s, and
//! [`DatasetReader::batches`] groups them into `example` record batches of a chosen size.
//!
//! Line-oriented formats (JSON Lines, TSV, CSV, CoNLL) are streamed; formats that are one JSON
//! document (SQuAD, DROP, FewRel, TACRED) are parsed whole and then streamed record by record.
//! A malformed record is an [`Error::Malformed`] naming the file, the line (or JSON path) and
//! the field; with [`ReadOptions::with_skip_bad`] it is skipped and counted instead.

mod boolq;
mod coref;
mod drop;
mod qdmr;
mod relation;
mod sentiment_paraphrase;
mod squad;
mod table;

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arrow::array::RecordBatch;
use serde_json::Value;

use crate::record::{Example, RecordBuilder};
use crate::{Error, Result};

/// The dataset formats the readers understand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum DatasetFormat {
    /// BoolQ JSON Lines (`question`, `passage`, `label`/`answer` as boolean or `"true"`/`"false"`).
    Boolq,
    /// SQuAD 1.1 / 2.0 JSON (`data[].paragraphs[].qas[]`).
    Squad,
    /// DROP JSON (object keyed by passage id with `qa_pairs`).
    Drop,
    /// BREAK QDMR CSV (`question_id,question_text,decomposition,operators,split`).
    Break,
    /// TACRED-style JSON: a list of `{id, token, subj_start, subj_end, obj_start, obj_end,
    /// subj_type, obj_type, relation}` with inclusive token ends.
    Tacred,
    /// FewRel JSON (object keyed by relation id; instances with `tokens`, `h`, `t`).
    Fewrel,
    /// Sentiment JSON Lines (DynaSent: `sentence`, `gold_label`, `text_id`; also `text`/`label`).
    SentimentJsonl,
    /// Sentiment TSV with a header (SST-2 in GLUE: `sentence`, `label`).
    SentimentTsv,
    /// Paraphrase TSV with a header (PAWS: `id,sentence1,sentence2,label`; QQP:
    /// `id,qid1,qid2,question1,question2,is_duplicate`).
    ParaphraseTsv,
    /// GAP coreference TSV.
    Gap,
    /// CoNLL-2012 coreference (`#begin document`, one token per line, coref in the last column).
    Conll2012,
}

impl DatasetFormat {
    /// Every format.
    pub const ALL: [DatasetFormat; 11] = [
        DatasetFormat::Boolq,
        DatasetFormat::Squad,
        DatasetFormat::Drop,
        DatasetFormat::Break,
        DatasetFormat::Tacred,
        DatasetFormat::Fewrel,
        DatasetFormat::SentimentJsonl,
        DatasetFormat::SentimentTsv,
        DatasetFormat::ParaphraseTsv,
        DatasetFormat::Gap,
        DatasetFormat::Conll2012,
    ];

    /// The task of the examples this format's reader makes.
    pub fn task(self) -> crate::Task {
        use crate::Task;
        match self {
            DatasetFormat::Boolq => Task::BoolQ,
            DatasetFormat::Squad => Task::Squad,
            DatasetFormat::Drop => Task::Drop,
            DatasetFormat::Break => Task::Qdmr,
            DatasetFormat::Tacred | DatasetFormat::Fewrel => Task::Relation,
            DatasetFormat::SentimentJsonl | DatasetFormat::SentimentTsv => Task::Sentiment,
            DatasetFormat::ParaphraseTsv => Task::Paraphrase,
            DatasetFormat::Gap | DatasetFormat::Conll2012 => Task::Coref,
        }
    }

    /// The format's name in configs and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            DatasetFormat::Boolq => "boolq",
            DatasetFormat::Squad => "squad",
            DatasetFormat::Drop => "drop",
            DatasetFormat::Break => "break",
            DatasetFormat::Tacred => "tacred",
            DatasetFormat::Fewrel => "fewrel",
            DatasetFormat::SentimentJsonl => "sentiment-jsonl",
            DatasetFormat::SentimentTsv => "sentiment-tsv",
            DatasetFormat::ParaphraseTsv => "paraphrase-tsv",
            DatasetFormat::Gap => "gap",
            DatasetFormat::Conll2012 => "conll2012",
        }
    }
}

impl fmt::Display for DatasetFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DatasetFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        DatasetFormat::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = DatasetFormat::ALL.iter().map(|f| f.as_str()).collect();
                format!(
                    "unknown dataset format `{s}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

impl TryFrom<String> for DatasetFormat {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<DatasetFormat> for String {
    fn from(f: DatasetFormat) -> String {
        f.as_str().to_string()
    }
}

/// Options for reading a dataset.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    batch_size: usize,
    skip_bad: bool,
    limit: Option<usize>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            batch_size: 1024,
            skip_bad: false,
            limit: None,
        }
    }
}

impl ReadOptions {
    /// Rows per record batch (at least 1; default 1024).
    pub fn with_batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// Skip and count malformed records instead of failing (default: fail).
    pub fn with_skip_bad(mut self, skip: bool) -> Self {
        self.skip_bad = skip;
        self
    }

    /// Read at most `n` examples.
    pub fn with_limit(mut self, n: Option<usize>) -> Self {
        self.limit = n;
        self
    }

    /// Rows per batch.
    pub fn batch_size(&self) -> usize {
        self.batch_size
    }
}

type ExampleIter = Box<dyn Iterator<Item = Result<Example>> + Send>;

/// An open dataset file, streaming examples.
pub struct DatasetReader {
    examples: ExampleIter,
    options: ReadOptions,
    skipped: Arc<AtomicUsize>,
    path: PathBuf,
}

impl DatasetReader {
    /// Opens `path` as `format`.
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be read; [`Error::Malformed`] if it is empty, binary, or
    /// (for whole-document formats) not valid JSON.
    pub fn open(
        path: impl AsRef<Path>,
        format: DatasetFormat,
        options: ReadOptions,
    ) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        check_text_file(&path)?;
        let examples: ExampleIter = match format {
            DatasetFormat::Boolq => Box::new(boolq::read(&path)?),
            DatasetFormat::Squad => Box::new(squad::read(&path)?),
            DatasetFormat::Drop => Box::new(drop::read(&path)?),
            DatasetFormat::Break => Box::new(qdmr::read(&path)?),
            DatasetFormat::Tacred => Box::new(relation::read_tacred(&path)?),
            DatasetFormat::Fewrel => Box::new(relation::read_fewrel(&path)?),
            DatasetFormat::SentimentJsonl => {
                Box::new(sentiment_paraphrase::read_sentiment_jsonl(&path)?)
            }
            DatasetFormat::SentimentTsv => {
                Box::new(sentiment_paraphrase::read_sentiment_tsv(&path)?)
            }
            DatasetFormat::ParaphraseTsv => {
                Box::new(sentiment_paraphrase::read_paraphrase_tsv(&path)?)
            }
            DatasetFormat::Gap => Box::new(coref::read_gap(&path)?),
            DatasetFormat::Conll2012 => Box::new(coref::read_conll(&path)?),
        };
        Ok(DatasetReader {
            examples,
            options,
            skipped: Arc::new(AtomicUsize::new(0)),
            path,
        })
    }

    /// A shared counter of the malformed records skipped so far (with `skip_bad`).
    pub fn skipped_counter(&self) -> Arc<AtomicUsize> {
        self.skipped.clone()
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The examples, one at a time, honouring `skip_bad` and `limit`. An example whose id an
    /// earlier one already has (e.g. BoolQ's `idx` 1 and `"1"`) is malformed, naming both
    /// records: its cases would otherwise be judged against the other example's prediction.
    pub fn examples(self) -> impl Iterator<Item = Result<Example>> + Send {
        let skip_bad = self.options.skip_bad;
        let skipped = self.skipped;
        let path = self.path;
        let limit = self.options.limit.unwrap_or(usize::MAX);
        let mut seen: HashMap<String, Option<String>> = HashMap::new();
        let dup_path = path.clone();
        self.examples
            .map(move |item| {
                let example = item?;
                match seen.get(&example.id) {
                    Some(first) => {
                        let here = location_in(&example, &dup_path);
                        let first = first.as_deref().map_or_else(
                            || "an earlier record".to_string(),
                            |o| format!("the record at {o}"),
                        );
                        Err(Error::malformed(
                            &dup_path,
                            here,
                            "id",
                            format!("duplicate example id `{}`: {first} has it too", example.id),
                        ))
                    }
                    None => {
                        seen.insert(example.id.clone(), example.origin.clone());
                        Ok(example)
                    }
                }
            })
            .filter(move |item| match item {
                Err(e @ Error::Malformed { .. }) if skip_bad => {
                    skipped.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(file = %path.display(), "skipped: {e}");
                    false
                }
                _ => true,
            })
            .take(limit)
    }

    /// The examples grouped into `example` record batches of `batch_size` rows.
    pub fn batches(self) -> impl Iterator<Item = Result<RecordBatch>> + Send {
        let batch_size = self.options.batch_size;
        let mut examples = self.examples();
        let mut failed = false;
        std::iter::from_fn(move || {
            if failed {
                return None;
            }
            let mut builder = RecordBuilder::<Example>::new();
            for item in examples.by_ref() {
                match item {
                    Ok(example) => builder.append(example),
                    Err(e) => {
                        failed = true;
                        return Some(Err(e));
                    }
                }
                if builder.len() == batch_size {
                    break;
                }
            }
            (!builder.is_empty()).then(|| builder.finish())
        })
    }
}

/// Where `example` sits in `path`, for an error message: its origin without the path
/// (`line 4`, `data[0].paragraphs[1].qas[2]`), or its id when it has no origin.
fn location_in(example: &Example, path: &Path) -> String {
    let prefix = format!("{}:", path.display());
    match example.origin.as_deref() {
        Some(origin) => origin.strip_prefix(&prefix).unwrap_or(origin).to_string(),
        None => format!("example `{}`", example.id),
    }
}

/// Rejects empty and binary files up front, so the user gets one clear message instead of a
/// parse error at an odd place. Binary means a NUL byte, or invalid UTF-8 in more than two lines
/// and more than one in eight of the first 8 KiB; a few bad bytes in a text file are reported at
/// their own line by the format's reader instead (and skipped with `skip_bad` in line formats).
fn check_text_file(path: &Path) -> Result<()> {
    crate::input_file::regular_file(path)?;
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut head = Vec::with_capacity(8192);
    file.by_ref()
        .take(8192)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(path, e))?;
    let head = head.strip_prefix(UTF8_BOM).unwrap_or(&head);
    if head.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(Error::malformed(path, "line 1", "-", "the file is empty"));
    }
    let (mut lines, mut bad_lines) = (0, 0);
    for line in head.split(|&b| b == b'\n') {
        lines += 1;
        // A multi-byte character cut at the 8 KiB boundary is fine.
        if std::str::from_utf8(line).is_err_and(|e| e.error_len().is_some()) {
            bad_lines += 1;
        }
    }
    if head.contains(&0) || bad_lines > 2.max(lines / 8) {
        return Err(Error::malformed(
            path,
            "line 1",
            "-",
            "not a UTF-8 text file (binary data)",
        ));
    }
    Ok(())
}

/// The byte order mark some editors write at the start of a UTF-8 file; readers ignore it.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads a whole-document JSON file (a leading byte order mark ignored).
fn read_json_document(path: &Path) -> Result<Value> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(&bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        Error::malformed(path, format!("line {line}"), "-", "invalid UTF-8")
    })?;
    serde_json::from_str(text).map_err(|e| {
        Error::malformed(
            path,
            format!("line {} column {}", e.line(), e.column()),
            "-",
            format!("invalid JSON: {e}"),
        )
    })
}

/// Iterates the non-blank lines of a text file as `(1-based line number, line)`, a byte order
/// mark at the start ignored; a line that is not UTF-8 is malformed at its own line.
fn lines(path: &Path) -> Result<impl Iterator<Item = Result<(usize, String)>> + Send> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let path = path.to_path_buf();
    Ok(BufReader::new(file)
        .split(b'\n')
        .enumerate()
        .filter_map(move |(i, line)| {
            let n = i + 1;
            let line = match line {
                Ok(l) => l,
                Err(e) => return Some(Err(Error::io(&path, e))),
            };
            let line = if n == 1 && line.starts_with(UTF8_BOM) {
                line[UTF8_BOM.len()..].to_vec()
            } else {
                line
            };
            match String::from_utf8(line) {
                Ok(mut s) => {
                    if s.ends_with('\r') {
                        s.pop();
                    }
                    (!s.trim().is_empty()).then_some(Ok((n, s)))
                }
                Err(_) => Some(Err(Error::malformed(
                    &path,
                    format!("line {n}"),
                    "-",
                    "invalid UTF-8",
                ))),
            }
        }))
}

/// Iterates a JSON Lines file as `(line number, object)`; a line that is not a JSON object is
/// malformed.
fn json_lines(path: &Path) -> Result<impl Iterator<Item = Result<(usize, Value)>> + Send> {
    let p = path.to_path_buf();
    Ok(lines(path)?.map(move |item| {
        let (n, line) = item?;
        let value: Value = serde_json::from_str(&line).map_err(|e| {
            Error::malformed(&p, format!("line {n}"), "-", format!("invalid JSON: {e}"))
        })?;
        if !value.is_object() {
            return Err(Error::malformed(
                &p,
                format!("line {n}"),
                "-",
                "expected a JSON object",
            ));
        }
        Ok((n, value))
    }))
}

/// Where a record sits, for error messages: a path, a location and the record itself.
pub(crate) struct At<'a> {
    path: &'a Path,
    location: String,
    value: &'a Value,
}

impl<'a> At<'a> {
    fn new(path: &'a Path, location: impl Into<String>, value: &'a Value) -> Self {
        At {
            path,
            location: location.into(),
            value,
        }
    }

    fn error(&self, field: &str, message: impl Into<String>) -> Error {
        Error::malformed(self.path, self.location.clone(), field, message)
    }

    fn origin(&self) -> String {
        format!("{}:{}", self.path.display(), self.location)
    }

    /// A required string field.
    fn str(&self, field: &str) -> Result<String> {
        match self.value.get(field) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(other) => {
                Err(self.error(field, format!("expected a string, found {}", kind(other))))
            }
            None => Err(self.error(field, "missing")),
        }
    }

    /// A required, non-blank string field.
    fn text(&self, field: &str) -> Result<String> {
        let s = self.str(field)?;
        if s.trim().is_empty() {
            return Err(self.error(field, "empty text"));
        }
        Ok(s)
    }

    /// An optional string field (null counts as missing).
    fn opt_str(&self, field: &str) -> Result<Option<String>> {
        match self.value.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.str(field).map(Some),
        }
    }

    /// A required non-negative integer field.
    fn uint(&self, field: &str) -> Result<u64> {
        match self.value.get(field) {
            Some(v) => v.as_u64().ok_or_else(|| {
                self.error(
                    field,
                    format!("expected a non-negative integer, found {}", kind(v)),
                )
            }),
            None => Err(self.error(field, "missing")),
        }
    }

    /// Whether `field` is absent or null.
    fn is_missing(&self, field: &str) -> bool {
        matches!(self.value.get(field), None | Some(Value::Null))
    }

    /// A required array field.
    fn array(&self, field: &str) -> Result<&'a Vec<Value>> {
        match self.value.get(field) {
            Some(Value::Array(a)) => Ok(a),
            Some(other) => {
                Err(self.error(field, format!("expected an array, found {}", kind(other))))
            }
            None => Err(self.error(field, "missing")),
        }
    }

    /// A required array of strings.
    fn strings(&self, field: &str) -> Result<Vec<String>> {
        self.array(field)?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    self.error(
                        &format!("{field}[{i}]"),
                        format!("expected a string, found {}", kind(v)),
                    )
                })
            })
            .collect()
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Character length of a string (offsets in records are in characters).
pub(crate) fn char_len(s: &str) -> u32 {
    s.chars().count() as u32
}

/// The substring of `text` between character offsets `[start, end)`, if in range (records'
/// offsets, and the edits of follow-ups, count characters, not bytes).
pub fn char_slice(text: &str, start: usize, end: usize) -> Option<&str> {
    if start > end {
        return None;
    }
    let mut indices = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()));
    let from = indices.nth(start)?;
    let to = if end == start {
        from
    } else {
        indices.nth(end - start - 1)?
    };
    Some(&text[from..to])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_slice_counts_characters() {
        assert_eq!(char_slice("héllo wörld", 6, 11), Some("wörld"));
        assert_eq!(char_slice("héllo", 1, 1), Some(""));
        assert_eq!(char_slice("héllo", 0, 5), Some("héllo"));
        assert_eq!(char_slice("héllo", 3, 6), None);
    }

    #[test]
    fn format_names_round_trip() {
        for f in DatasetFormat::ALL {
            assert_eq!(f.as_str().parse::<DatasetFormat>().unwrap(), f);
        }
        assert!("csv".parse::<DatasetFormat>().is_err());
    }
}
