//! Coreference: GAP TSV and CoNLL-2012 (OntoNotes layout; LitBank ships the same format).
//!
//! Both become a `text` with `clusters` of character spans. A CoNLL document's text is its
//! tokens joined by single spaces, with sentences separated by `\n`; the tokens are kept in
//! `tokens`. A GAP row gives one cluster per name that corefers with the pronoun (pronoun + name)
//! and singleton clusters for the other mentions; `label` is `A`, `B` or `NEITHER`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{char_len, char_slice, lines};
use crate::record::{CharSpan, Example, Task};
use crate::{Error, Result};

pub(super) fn read_gap(path: &Path) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .quoting(false)
        .from_path(path)
        .map_err(|e| Error::malformed(path, "line 1", "-", e.to_string()))?;
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| Error::malformed(path, "line 1", "-", e.to_string()))?
        .iter()
        .map(str::to_string)
        .collect();
    const COLUMNS: [&str; 10] = [
        "ID",
        "Text",
        "Pronoun",
        "Pronoun-offset",
        "A",
        "A-offset",
        "A-coref",
        "B",
        "B-offset",
        "B-coref",
    ];
    let mut index = [0usize; 10];
    for (slot, name) in index.iter_mut().zip(COLUMNS) {
        *slot = header.iter().position(|h| h == name).ok_or_else(|| {
            Error::malformed(path, "line 1", name, "missing column in the header")
        })?;
    }
    let p = path.to_path_buf();
    Ok(reader.into_records().map(move |record| {
        let record = record.map_err(|e| {
            let line = e.position().map(|pos| pos.line()).unwrap_or(0);
            Error::malformed(&p, format!("line {line}"), "-", e.to_string())
        })?;
        let line = record.position().map(|pos| pos.line()).unwrap_or(0);
        let location = format!("line {line}");
        let field = |k: usize| record.get(index[k]).unwrap_or_default();
        let err = |k: usize, msg: String| Error::malformed(&p, location.clone(), COLUMNS[k], msg);
        let text = field(1);
        if text.trim().is_empty() {
            return Err(err(1, "empty text".into()));
        }
        let mention = |name_col: usize, offset_col: usize| -> Result<CharSpan> {
            let name = field(name_col);
            let start: u32 = field(offset_col)
                .trim()
                .parse()
                .map_err(|_| err(offset_col, "expected an offset".into()))?;
            let end = start + char_len(name);
            if char_slice(text, start as usize, end as usize) != Some(name) {
                return Err(err(
                    offset_col,
                    format!("offset {start} does not point at {name:?} in the text"),
                ));
            }
            Ok(CharSpan { start, end })
        };
        let flag = |col: usize| -> Result<bool> {
            match field(col).trim().to_ascii_uppercase().as_str() {
                "TRUE" => Ok(true),
                "FALSE" => Ok(false),
                other => Err(err(
                    col,
                    format!("unknown label {other:?}: expected TRUE or FALSE"),
                )),
            }
        };
        let pronoun = mention(2, 3)?;
        let a = mention(4, 5)?;
        let b = mention(7, 8)?;
        let (a_coref, b_coref) = (flag(6)?, flag(9)?);
        if a_coref && b_coref {
            return Err(err(
                9,
                "both A and B are marked coreferent with the pronoun".into(),
            ));
        }
        let clusters = match (a_coref, b_coref) {
            (true, _) => vec![vec![a, pronoun], vec![b]],
            (_, true) => vec![vec![b, pronoun], vec![a]],
            _ => vec![vec![a], vec![b], vec![pronoun]],
        };
        let id = field(0);
        let mut ex = Example::new(
            if id.is_empty() {
                format!("gap-line{line}")
            } else {
                id.to_string()
            },
            Task::Coref,
        );
        ex.text = Some(text.to_string());
        ex.clusters = Some(clusters);
        ex.label = Some(
            if a_coref {
                "A"
            } else if b_coref {
                "B"
            } else {
                "NEITHER"
            }
            .to_string(),
        );
        ex.origin = Some(format!("{}:{location}", p.display()));
        Ok(ex)
    }))
}

/// A CoNLL-2012 document being assembled.
struct Document {
    id: String,
    begin_line: usize,
    tokens: Vec<String>,
    /// Character span of each token in the text.
    spans: Vec<CharSpan>,
    text: String,
    text_chars: u32,
    sentence_open: bool,
    /// Open mentions per entity: stack of start token indices.
    open: BTreeMap<String, Vec<usize>>,
    clusters: BTreeMap<String, Vec<CharSpan>>,
}

impl Document {
    fn new(id: String, begin_line: usize) -> Self {
        Document {
            id,
            begin_line,
            tokens: Vec::new(),
            spans: Vec::new(),
            text: String::new(),
            text_chars: 0,
            sentence_open: false,
            open: BTreeMap::new(),
            clusters: BTreeMap::new(),
        }
    }

    fn push_token(&mut self, word: &str) {
        if !self.text.is_empty() {
            self.text.push(if self.sentence_open { ' ' } else { '\n' });
            self.text_chars += 1;
        }
        let start = self.text_chars;
        self.text.push_str(word);
        self.text_chars += char_len(word);
        self.tokens.push(word.to_string());
        self.spans.push(CharSpan {
            start,
            end: self.text_chars,
        });
        self.sentence_open = true;
    }

    /// Applies a coreference column (`(3`, `3)`, `(3)`, joined by `|`) to the last token.
    fn apply_coref(&mut self, column: &str) -> std::result::Result<(), String> {
        let token = self.tokens.len() - 1;
        for part in column
            .split('|')
            .filter(|p| !p.is_empty() && *p != "-" && *p != "_")
        {
            let opens = part.starts_with('(');
            let closes = part.ends_with(')');
            let entity = part.trim_start_matches('(').trim_end_matches(')');
            if entity.is_empty() || !(opens || closes) {
                return Err(format!("bad coreference marker {part:?}"));
            }
            if opens {
                self.open.entry(entity.to_string()).or_default().push(token);
            }
            if closes {
                let start = self
                    .open
                    .get_mut(entity)
                    .and_then(Vec::pop)
                    .ok_or_else(|| {
                        format!("mention of entity {entity} closes but was never opened")
                    })?;
                let span = CharSpan {
                    start: self.spans[start].start,
                    end: self.spans[token].end,
                };
                self.clusters
                    .entry(entity.to_string())
                    .or_default()
                    .push(span);
            }
        }
        Ok(())
    }

    fn finish(self, path: &Path) -> Result<Example> {
        if let Some((entity, _)) = self.open.iter().find(|(_, starts)| !starts.is_empty()) {
            return Err(Error::malformed(
                path,
                format!("line {}", self.begin_line),
                "coreference",
                format!(
                    "document `{}`: mention of entity {entity} is never closed",
                    self.id
                ),
            ));
        }
        if self.tokens.is_empty() {
            return Err(Error::malformed(
                path,
                format!("line {}", self.begin_line),
                "-",
                format!("document `{}` has no tokens", self.id),
            ));
        }
        let mut ex = Example::new(self.id, Task::Coref);
        let mut clusters: Vec<Vec<CharSpan>> = self.clusters.into_values().collect();
        for cluster in &mut clusters {
            cluster.sort_by_key(|s| (s.start, s.end));
        }
        clusters.sort_by_key(|c| (c[0].start, c[0].end));
        ex.text = Some(self.text);
        ex.tokens = Some(self.tokens);
        ex.clusters = Some(clusters);
        ex.origin = Some(format!("{}:line {}", path.display(), self.begin_line));
        Ok(ex)
    }
}

/// Parses `#begin document (<id>); part <n>` into `<id>/part<n>`.
fn document_id(line: &str) -> Option<String> {
    let rest = line.strip_prefix("#begin document")?.trim();
    let (name, part) = match rest.split_once(';') {
        Some((name, part)) => (name.trim(), part.trim().strip_prefix("part").map(str::trim)),
        None => (rest, None),
    };
    let name = name.trim_start_matches('(').trim_end_matches(')');
    Some(match part {
        Some(p) => format!("{name}/part{}", p.trim_start_matches('0').max("0")),
        None => name.to_string(),
    })
}

struct ConllDocuments<I> {
    path: PathBuf,
    lines: I,
    done: bool,
}

impl<I: Iterator<Item = Result<(usize, String)>>> Iterator for ConllDocuments<I> {
    type Item = Result<Example>;

    fn next(&mut self) -> Option<Result<Example>> {
        if self.done {
            return None;
        }
        let mut doc: Option<Document> = None;
        let fail = |this: &mut Self, e: Error| {
            this.done = true;
            Some(Err(e))
        };
        loop {
            let (n, line) = match self.lines.next() {
                Some(Ok(item)) => item,
                Some(Err(e)) => return fail(self, e),
                None => {
                    self.done = true;
                    return doc.map(|d| {
                        Err(Error::malformed(
                            &self.path,
                            format!("line {}", d.begin_line),
                            "-",
                            format!("document `{}` has no #end document", d.id),
                        ))
                    });
                }
            };
            let location = format!("line {n}");
            if line.starts_with("#begin document") {
                if let Some(d) = &doc {
                    return fail(
                        self,
                        Error::malformed(
                            &self.path,
                            location,
                            "-",
                            format!("document `{}` is not closed before the next #begin", d.id),
                        ),
                    );
                }
                match document_id(&line) {
                    Some(id) => doc = Some(Document::new(id, n)),
                    None => {
                        return fail(
                            self,
                            Error::malformed(&self.path, location, "-", "bad #begin document line"),
                        )
                    }
                }
                continue;
            }
            if line.starts_with("#end document") {
                return match doc.take() {
                    Some(d) => Some(d.finish(&self.path)),
                    None => fail(
                        self,
                        Error::malformed(&self.path, location, "-", "#end document without #begin"),
                    ),
                };
            }
            let Some(d) = doc.as_mut() else {
                return fail(
                    self,
                    Error::malformed(&self.path, location, "-", "token line outside a document"),
                );
            };
            // Blank lines are dropped by `lines`, so sentence breaks show up as a gap in the
            // line numbers; token index 0 also starts a sentence.
            let columns: Vec<&str> = if line.contains('\t') {
                line.split('\t').collect()
            } else {
                line.split_whitespace().collect()
            };
            if columns.len() < 4 {
                return fail(
                    self,
                    Error::malformed(
                        &self.path,
                        location,
                        "-",
                        format!("expected at least 4 columns, found {}", columns.len()),
                    ),
                );
            }
            if columns[2] == "0" {
                d.sentence_open = false;
            }
            let word = columns[3];
            if word.is_empty() {
                return fail(
                    self,
                    Error::malformed(&self.path, location, "word", "empty token"),
                );
            }
            d.push_token(word);
            let coref = columns.last().copied().unwrap_or_default();
            if columns.len() >= 12 {
                if let Err(message) = d.apply_coref(coref) {
                    return fail(
                        self,
                        Error::malformed(&self.path, location, "coreference", message),
                    );
                }
            }
        }
    }
}

pub(super) fn read_conll(path: &Path) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    Ok(ConllDocuments {
        path: path.to_path_buf(),
        lines: lines(path)?,
        done: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_ids() {
        assert_eq!(
            document_id("#begin document (158_emma_brat); part 0").unwrap(),
            "158_emma_brat/part0"
        );
        assert_eq!(
            document_id("#begin document (bc/cctv/00/cctv_0001); part 003").unwrap(),
            "bc/cctv/00/cctv_0001/part3"
        );
    }
}
