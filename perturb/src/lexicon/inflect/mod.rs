//! English inflection and lemmatisation from the tables of lemminflect 0.2.3.
//!
//! The MT4MRC relations (seed-000) rewrite sentences: a tense change (MR1-2) needs the past
//! and the base form of a verb, a negation with a tag question (MR1-4) needs the base form
//! after `did`/`does`, the passive voice (MR2-3) needs the past participle and a form of `be`
//! that agrees with the new subject, and subject changes need plurals and third-person
//! singulars. The paper used Pattern's conjugation; this project reads lemminflect's lookup
//! tables instead, so that forms are those of a maintained, documented lexicon (SPECIALIST).
//!
//! # Design decisions
//! * **Same answers as lemminflect on its tables.** [`Inflections::inflect`] reproduces
//!   `getInflection(lemma, tag, inflect_oov=False)` and [`Inflections::lemma`] reproduces
//!   `getLemma(word, upos, lemmatize_oov=False)`, first spelling: the lemma is looked up in
//!   lower case (capitalised for `NNP`/`NNPS`/`PROPN`), the overrides files replace table
//!   forms tag by tag, the hard-coded modals and `be` replace their table entries entirely,
//!   `VBD`↔`VBN` and `JJ*`↔`RB*` are tried as alternates when a tag has no form, and the
//!   answer takes the capitalisation style of the input (all upper, first upper, lower).
//!   `tests/inflect.rs` checks this against real lemminflect output: a committed fixture of
//!   common verbs, nouns, adjectives and adverbs under every tag, and (ignored test, file
//!   from `scripts/lemminflect_golden.py --full`) every word of both tables under every tag
//!   and upos.
//! * **No neural OOV model.** lemminflect's pickled Keras models (`model_*.pkl.gz`) are not
//!   ported. For words the tables do not know, [`Inflections::inflect_or_rule`] applies this
//!   project's own regular-morphology rules (see [`rule_inflect`]) and marks the answer
//!   [`Source::Rule`], so a relation can refuse (or log) a guessed form;
//!   [`Inflections::lemma_or_rule`] does the same for lemmas with the inverse rules
//!   ([`rule_lemma`]).
//! * **Several spellings.** The tables list variants (`lay/lied`, `was/were`); `inflect`
//!   returns the first, as lemminflect's spaCy extension does, and
//!   [`Inflections::inflect_all`] returns all of them. For `be`, whose past and present forms
//!   depend on the subject, [`Inflections::be_form`] picks the spelling by person and number.
//! * **Compact storage.** Every string lives in one arena; each table is a vector of
//!   entries sorted by word (binary search), each pointing at a run of `(slot, spelling)`
//!   records (a spelling equal to its word reuses the word's bytes). Both tables together
//!   take about 5.4 MB of heap and load in about 0.2 s (release build).
//! * **Errors, not panics.** A malformed line is [`Error::Malformed`] naming the file and the
//!   line; lookups never panic and return `None` for anything they cannot answer.

#[cfg(doc)]
use metamorph_data::Error;

mod caps;
mod load;
mod lookup;
mod rules;
mod table;
mod tags;

pub use load::{installed_dir, INFL_LU, INFL_OVERRIDES, LEMMA_LU, LEMMA_OVERRIDES};
pub use rules::{rule_inflect, rule_lemma};
pub use table::Inflections;
pub use tags::{Inflected, Person, Source};

#[cfg(test)]
mod tests {
    use super::caps::{apply_caps, capitalize, caps_style, Caps};
    use super::rules::doubles_final;
    use super::*;

    #[test]
    fn caps_styles_follow_python() {
        assert_eq!(caps_style("WALK"), Caps::AllUpper);
        assert_eq!(caps_style("Walk"), Caps::FirstUpper);
        assert_eq!(caps_style("wALK"), Caps::Lower);
        assert_eq!(caps_style("I"), Caps::AllUpper);
        assert_eq!(caps_style(""), Caps::Lower);
        assert_eq!(apply_caps("walked", Caps::FirstUpper), "Walked");
        assert_eq!(capitalize("mcDONALD"), "Mcdonald");
    }

    #[test]
    fn doubling_needs_a_cvc_monosyllable() {
        for (w, d) in [
            ("stap", true),
            ("stop", true),
            ("quit", true),
            ("blorp", false),
            ("fix", false),
            ("snow", false),
            ("play", false),
            ("rain", false),
            ("visit", false),
            ("be", false),
        ] {
            assert_eq!(doubles_final(w.as_bytes()), d, "{w}");
        }
    }

    #[test]
    fn rules_reject_what_they_cannot_inflect() {
        assert_eq!(rule_inflect("", "VBD"), None);
        assert_eq!(rule_inflect("Blorp", "VBD"), None);
        assert_eq!(rule_inflect("blorp", "DT"), None);
        assert_eq!(rule_inflect("blorp", "VB").as_deref(), Some("blorp"));
    }
}
