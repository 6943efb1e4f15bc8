//! Coreference: GAP TSV and CoNLL-2012 (OntoNotes layout; LitBank ships the same format).
//!
//! Both become a `text` with `clusters` of character spans. A CoNLL document's text is its
//! tokens joined by single spaces, with sentences separated by `\n`; the tokens are kept in
//! `tokens`. A GAP row gives one cluster per name that corefers with the pronoun (pronoun + name)
//! and singleton clusters for the other mentions; `label` is `A`, `B` or `NEITHER`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::table::Table;
use super::{char_len, char_slice, lines};
use crate::record::{CharSpan, Example, Task};
use crate::{Error, Result};

pub(super) fn read_gap(path: &Path) -> Result<impl Iterator<Item = Result<Example>> + Send> {
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
    let required: Vec<&[&str]> = COLUMNS.iter().map(std::slice::from_ref).collect();
    let table = Table::tsv(path, &required)?;
    Ok(table.map(|row| {
        let text = row.text("Text")?;
        let mention = |name_col: &str, offset_col: &str| -> Result<CharSpan> {
            let name = row.get(name_col)?;
            let start: u32 = row
                .get(offset_col)?
                .trim()
                .parse()
                .map_err(|_| row.error(offset_col, "expected an offset"))?;
            let end = start + char_len(name);
            if char_slice(&text, start as usize, end as usize) != Some(name) {
                return Err(row.error(
                    offset_col,
                    format!("offset {start} does not point at {name:?} in the text"),
                ));
            }
            Ok(CharSpan { start, end })
        };
        let flag = |col: &str| -> Result<bool> {
            match row.get(col)?.trim().to_ascii_uppercase().as_str() {
                "TRUE" => Ok(true),
                "FALSE" => Ok(false),
                other => Err(row.error(
                    col,
                    format!("unknown label {other:?}: expected TRUE or FALSE"),
                )),
            }
        };
        let pronoun = mention("Pronoun", "Pronoun-offset")?;
        let a = mention("A", "A-offset")?;
        let b = mention("B", "B-offset")?;
        let (a_coref, b_coref) = (flag("A-coref")?, flag("B-coref")?);
        if a_coref && b_coref {
            return Err(row.error(
                "B-coref",
                "both A and B are marked coreferent with the pronoun",
            ));
        }
        let clusters = match (a_coref, b_coref) {
            (true, _) => vec![vec![a, pronoun], vec![b]],
            (_, true) => vec![vec![b, pronoun], vec![a]],
            _ => vec![vec![a], vec![b], vec![pronoun]],
        };
        let id = row.get("ID")?;
        let id = if id.is_empty() {
            format!("gap-line{}", row.line)
        } else {
            id.to_string()
        };
        let mut ex = Example::new(id, Task::Coref);
        ex.text = Some(text);
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
        ex.origin = Some(row.origin());
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
