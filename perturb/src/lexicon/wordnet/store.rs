//! How the database is held in memory: the [`WordNet`] arenas (synset records, lemmas, pointers,
//! interned strings) and the lookup of a synset by offset. Loading fills it, lookups read it.

use std::collections::HashMap;
use std::path::PathBuf;

use super::types::{Pos, Relation, SynsetId};
use crate::lexicon::inflect::Inflections;

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
pub(super) struct Span {
    pub(super) start: u32,
    pub(super) len: u32,
}

impl Span {
    pub(super) fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct LemmaEntry {
    /// Interned name, syntactic marker stripped, case kept.
    pub(super) name: u32,
    pub(super) lex_id: u8,
    /// Interned marker (`(p)`, …) or `u32::MAX`.
    pub(super) marker: u32,
}

#[derive(Debug)]
pub(super) struct SynsetRecord {
    pub(super) offset: u32,
    pub(super) pos: Pos,
    pub(super) satellite: bool,
    pub(super) lex_filenum: u8,
    pub(super) lemmas: Span,
    pub(super) pointers: Span,
    pub(super) gloss: Span,
}

/// Strings stored once: `spans[id]` is a slice of `text`.
#[derive(Debug, Default)]
pub(super) struct Interner {
    pub(super) text: String,
    pub(super) spans: Vec<Span>,
    pub(super) ids: HashMap<Box<str>, u32>,
}

impl Interner {
    pub(super) fn intern(&mut self, s: &str) -> u32 {
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

    pub(super) fn get(&self, id: u32) -> &str {
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
    pub(super) dir: PathBuf,
    pub(super) synsets: Vec<SynsetRecord>,
    /// Per POS, the range of `synsets` read from its data file (offsets ascending).
    pub(super) by_pos: [std::ops::Range<u32>; 4],
    pub(super) lemmas: Vec<LemmaEntry>,
    pub(super) pointers: Vec<Pointer>,
    pub(super) glosses: String,
    pub(super) names: Interner,
    /// Lowercase lemma → per POS, a span of `index_synsets`.
    pub(super) index: HashMap<Box<str>, [Span; 4]>,
    pub(super) index_synsets: Vec<SynsetId>,
    /// Where irregular forms are looked up (see [`WordNet::with_exceptions`]).
    pub(super) exceptions: Option<std::sync::Arc<Inflections>>,
    /// `index.sense`'s tag counts by (lemma, POS, offset), read on first use.
    pub(super) sense_counts: std::sync::OnceLock<SenseCounts>,
}

impl WordNet {
    pub(super) fn find_offset(&self, pos: Pos, offset: u32) -> Option<SynsetId> {
        let range = self.by_pos[pos.index()].clone();
        let slice = self.synsets.get(range.start as usize..range.end as usize)?;
        slice
            .binary_search_by_key(&offset, |s| s.offset)
            .ok()
            .map(|i| SynsetId(range.start + i as u32))
    }
}
