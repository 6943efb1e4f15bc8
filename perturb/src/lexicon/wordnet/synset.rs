//! [`Synset`] and [`Lemma`], the borrowed views of one synset and one of its lemmas, with their
//! relations, names and glosses.

use std::fmt;

use super::store::{LemmaEntry, Pointer, Span, SynsetRecord, WordNet};
use super::types::{Pos, Relation, SynsetId};

/// A synset of a loaded [`WordNet`]: a cheap, copyable view.
#[derive(Clone, Copy)]
pub struct Synset<'a> {
    pub(super) wn: &'a WordNet,
    pub(super) id: SynsetId,
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
