//! Loading the database: reading and parsing the `data.*` and `index.*` files into the store,
//! resolving pointers, and the errors for a malformed record.

use std::collections::HashMap;
use std::path::Path;

use metamorph_data::{Error, Result};

use super::store::{Interner, LemmaEntry, Pointer, Span, SynsetRecord, WordNet};
use super::types::{Pos, Relation};

/// A pointer not yet resolved: target POS and offset, and the line it came from.
struct PendingPointer {
    relation: Relation,
    pos: Pos,
    offset: u32,
    source_word: u8,
    target_word: u8,
    /// The data file and line the pointer was read from.
    file_pos: Pos,
    line: usize,
}

pub(super) fn malformed(
    path: &Path,
    line: usize,
    field: &str,
    message: impl Into<String>,
) -> Error {
    Error::malformed(path, format!("line {line}"), field, message)
}

pub(super) fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    String::from_utf8(bytes).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        malformed(path, line, "-", "not UTF-8")
    })
}

/// Lines of a WordNet file with their 1-based number and byte offset, license lines (which
/// start with a space) and blank lines skipped.
pub(super) fn records(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    let mut offset = 0usize;
    text.split_inclusive('\n')
        .enumerate()
        .filter_map(move |(i, raw)| {
            let at = offset;
            offset += raw.len();
            let line = raw.trim_end_matches(['\n', '\r']);
            (!line.starts_with(' ') && !line.trim().is_empty()).then_some((i + 1, at, line))
        })
}

/// Whitespace-separated fields of one line, erroring with the file, line and field name.
struct Fields<'a> {
    path: &'a Path,
    line: usize,
    iter: std::str::SplitAsciiWhitespace<'a>,
}

impl<'a> Fields<'a> {
    fn next(&mut self, field: &str) -> Result<&'a str> {
        self.iter
            .next()
            .ok_or_else(|| malformed(self.path, self.line, field, "missing"))
    }

    fn number<T: TryFrom<u64>>(&mut self, field: &str, radix: u32) -> Result<T> {
        let token = self.next(field)?;
        u64::from_str_radix(token, radix)
            .ok()
            .and_then(|n| T::try_from(n).ok())
            .ok_or_else(|| {
                malformed(
                    self.path,
                    self.line,
                    field,
                    format!("`{token}` is not a valid number"),
                )
            })
    }

    fn error(&self, field: &str, message: impl Into<String>) -> Error {
        malformed(self.path, self.line, field, message)
    }
}

impl WordNet {
    /// Loads the database from the `dict` folder `dir` (the eight `index.*` and `data.*` files).
    ///
    /// # Errors
    /// [`Error::Io`] for a missing or unreadable file; [`Error::Malformed`] naming the file and
    /// line for a malformed record, a line whose offset does not match its position, or a
    /// pointer or index entry to a synset that does not exist.
    pub fn load(dir: impl AsRef<Path>) -> Result<WordNet> {
        let dir = dir.as_ref();
        let mut wn = WordNet {
            dir: dir.to_path_buf(),
            synsets: Vec::with_capacity(120_000),
            by_pos: [0..0, 0..0, 0..0, 0..0],
            lemmas: Vec::with_capacity(210_000),
            pointers: Vec::with_capacity(400_000),
            glosses: String::with_capacity(16 << 20),
            names: Interner::default(),
            index: HashMap::with_capacity(160_000),
            index_synsets: Vec::with_capacity(210_000),
            exceptions: None,
            sense_counts: std::sync::OnceLock::new(),
        };
        // Pointers are parsed into `pending` (each synset's span already final: pending[i]
        // becomes pointers[i]) and resolved once every data file is in.
        let mut pending: Vec<PendingPointer> = Vec::with_capacity(400_000);
        for pos in Pos::ALL {
            let path = dir.join(format!("data.{}", pos.file_suffix()));
            let text = read_text(&path)?;
            let start = wn.synsets.len() as u32;
            for (line, at, record) in records(&text) {
                wn.parse_data_line(&path, pos, line, at, record, &mut pending)?;
            }
            wn.by_pos[pos.index()] = start..wn.synsets.len() as u32;
        }
        for p in &pending {
            let error = |message: String| {
                let path = dir.join(format!("data.{}", p.file_pos.file_suffix()));
                malformed(&path, p.line, "pointer", message)
            };
            let target = wn
                .find_offset(p.pos, p.offset)
                .ok_or_else(|| error(format!("no {} synset at offset {:08}", p.pos, p.offset)))?;
            if p.target_word as u32 > wn.synsets[target.0 as usize].lemmas.len {
                return Err(error(format!("target word {} out of range", p.target_word)));
            }
            wn.pointers.push(Pointer {
                relation: p.relation,
                target,
                source_word: p.source_word,
                target_word: p.target_word,
            });
        }
        drop(pending);
        for pos in Pos::ALL {
            let path = dir.join(format!("index.{}", pos.file_suffix()));
            let text = read_text(&path)?;
            for (line, _, record) in records(&text) {
                wn.parse_index_line(&path, pos, line, record)?;
            }
        }
        wn.names.ids = HashMap::new();
        wn.shrink();
        Ok(wn)
    }

    /// Loads the `wordnet` asset, fetching it first when missing
    /// ([`metamorph_data::assets::ensure`]).
    ///
    /// # Errors
    /// As [`metamorph_data::assets::ensure`] and [`WordNet::load`].
    pub fn from_assets() -> Result<WordNet> {
        WordNet::load(metamorph_data::assets::ensure("wordnet")?)
    }

    fn shrink(&mut self) {
        self.synsets.shrink_to_fit();
        self.lemmas.shrink_to_fit();
        self.pointers.shrink_to_fit();
        self.glosses.shrink_to_fit();
        self.names.text.shrink_to_fit();
        self.names.spans.shrink_to_fit();
        self.index_synsets.shrink_to_fit();
    }

    /// Parses one `data.*` line: `offset lex_filenum ss_type w_cnt (word lex_id)… p_cnt
    /// (ptr offset pos src/tgt)… [frames] | gloss`.
    fn parse_data_line(
        &mut self,
        path: &Path,
        file_pos: Pos,
        line: usize,
        at: usize,
        record: &str,
        pending: &mut Vec<PendingPointer>,
    ) -> Result<()> {
        let (columns, gloss) = match record.split_once('|') {
            Some((c, g)) => (c, g.trim()),
            None => (record, ""),
        };
        let mut f = Fields {
            path,
            line,
            iter: columns.split_ascii_whitespace(),
        };
        let offset: u32 = f.number("synset_offset", 10)?;
        if offset as usize != at {
            return Err(f.error(
                "synset_offset",
                format!("{offset:08} but the line starts at byte {at}"),
            ));
        }
        let lex_filenum: u8 = f.number("lex_filenum", 10)?;
        let ss_type = f.next("ss_type")?;
        let satellite = ss_type == "s";
        if Pos::from_tag(ss_type) != Some(file_pos) {
            return Err(f.error(
                "ss_type",
                format!("`{ss_type}` in the {} file", file_pos.file_suffix()),
            ));
        }
        let w_cnt: usize = f.number("w_cnt", 16)?;
        if w_cnt == 0 || w_cnt > 255 {
            return Err(f.error("w_cnt", format!("{w_cnt} words")));
        }
        let lemma_start = self.lemmas.len() as u32;
        for _ in 0..w_cnt {
            let word = f.next("word")?;
            let lex_id: u8 = f.number("lex_id", 16)?;
            let (name, marker) = split_marker(word);
            if name.is_empty() {
                return Err(f.error("word", format!("empty lemma in `{word}`")));
            }
            let name = self.names.intern(name);
            let marker = marker.map_or(u32::MAX, |m| self.names.intern(m));
            self.lemmas.push(LemmaEntry {
                name,
                lex_id,
                marker,
            });
        }
        let p_cnt: usize = f.number("p_cnt", 10)?;
        let pointer_start = pending.len() as u32;
        for _ in 0..p_cnt {
            let symbol = f.next("pointer_symbol")?;
            let relation = Relation::from_symbol(symbol)
                .ok_or_else(|| f.error("pointer_symbol", format!("unknown symbol `{symbol}`")))?;
            let offset: u32 = f.number("synset_offset", 10)?;
            let tag = f.next("pos")?;
            let pos =
                Pos::from_tag(tag).ok_or_else(|| f.error("pos", format!("unknown POS `{tag}`")))?;
            let words = f.next("source/target")?;
            if words.len() != 4 {
                return Err(f.error("source/target", format!("`{words}` is not 4 hex digits")));
            }
            let parse = |s: &str| u8::from_str_radix(s, 16).ok();
            let (Some(source_word), Some(target_word)) = (
                words.get(..2).and_then(parse),
                words.get(2..).and_then(parse),
            ) else {
                return Err(f.error("source/target", format!("`{words}` is not 4 hex digits")));
            };
            if (source_word == 0) != (target_word == 0) || source_word as usize > w_cnt {
                return Err(f.error("source/target", format!("`{words}` out of range")));
            }
            pending.push(PendingPointer {
                relation,
                pos,
                offset,
                source_word,
                target_word,
                file_pos,
                line,
            });
        }
        let gloss_start = self.glosses.len() as u32;
        self.glosses.push_str(gloss);
        self.synsets.push(SynsetRecord {
            offset,
            pos: file_pos,
            satellite,
            lex_filenum,
            lemmas: Span {
                start: lemma_start,
                len: w_cnt as u32,
            },
            pointers: Span {
                start: pointer_start,
                len: p_cnt as u32,
            },
            gloss: Span {
                start: gloss_start,
                len: gloss.len() as u32,
            },
        });
        Ok(())
    }

    /// Parses one `index.*` line: `lemma pos synset_cnt p_cnt ptr… sense_cnt tagsense_cnt
    /// offset…`.
    fn parse_index_line(
        &mut self,
        path: &Path,
        file_pos: Pos,
        line: usize,
        record: &str,
    ) -> Result<()> {
        let mut f = Fields {
            path,
            line,
            iter: record.split_ascii_whitespace(),
        };
        let lemma = f.next("lemma")?;
        let tag = f.next("pos")?;
        if Pos::from_tag(tag) != Some(file_pos) {
            return Err(f.error(
                "pos",
                format!("`{tag}` in the {} index", file_pos.file_suffix()),
            ));
        }
        let synset_cnt: usize = f.number("synset_cnt", 10)?;
        if synset_cnt == 0 {
            return Err(f.error("synset_cnt", "0 synsets"));
        }
        let p_cnt: usize = f.number("p_cnt", 10)?;
        for _ in 0..p_cnt {
            f.next("ptr_symbol")?;
        }
        let sense_cnt: usize = f.number("sense_cnt", 10)?;
        if sense_cnt != synset_cnt {
            return Err(f.error(
                "sense_cnt",
                format!("{sense_cnt} senses but {synset_cnt} synsets"),
            ));
        }
        f.number::<u32>("tagsense_cnt", 10)?;
        let start = self.index_synsets.len() as u32;
        for _ in 0..synset_cnt {
            let offset: u32 = f.number("synset_offset", 10)?;
            let id = self.find_offset(file_pos, offset).ok_or_else(|| {
                f.error(
                    "synset_offset",
                    format!(
                        "no synset at offset {offset:08} in data.{}",
                        file_pos.file_suffix()
                    ),
                )
            })?;
            self.index_synsets.push(id);
        }
        let entry = self.index.entry(lemma.into()).or_default();
        entry[file_pos.index()] = Span {
            start,
            len: synset_cnt as u32,
        };
        Ok(())
    }
}

/// Splits a data-file word into its name and trailing syntactic marker, as NLTK's
/// `(.*?)(\(.*\))?$`: the marker starts at the first `(` when the word ends with `)`.
pub(super) fn split_marker(word: &str) -> (&str, Option<&str>) {
    if word.ends_with(')') {
        if let Some(i) = word.find('(') {
            return (&word[..i], Some(&word[i..]));
        }
    }
    (word, None)
}
