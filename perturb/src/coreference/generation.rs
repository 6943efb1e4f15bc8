//! CREST's candidate replacements (seed-004 Algorithm 1, lines 9–12): for one unprotected word,
//! the single words that may replace it.
//!
//! * **Which words are mutated**: content words WordNet covers — common nouns, adjectives and
//!   adverbs (spaCy POS `NOUN ADJ ADV` with a Penn tag `NN* J* RB*`, the artifact's tag →
//!   WordNet POS map). **Deviation: verbs are not mutated** from WordNet. Two grammar reviews
//!   of 100 follow-ups each found 13 and then 12 ungrammatical, 9 and 8 of them verbs — WordNet
//!   verb synonyms and antonyms take other argument frames ("committed him responsibility",
//!   "was later happened in", "divested a string of lights around") even within the first
//!   sense. Verbs come back with the masked-LM source, whose predictions fit the context. Proper nouns, auxiliaries, words inside a named entity and words
//!   that are not purely alphabetic are left alone: their WordNet "synonyms" are other names or
//!   senses that do not fit a running sentence.
//! * **WordNet synonyms and antonyms** of the word's lemma in its POS ([`WordNet::synonyms`]:
//!   every lemma of every synset; [`WordNet::antonyms`]: the first antonym of each lemma, as the
//!   artifact), single words only (the artifact drops lemmas with `-` or `_`).
//! * **Inflected to the original's tag** with lemminflect's tables (`ran` → `sprinted`, `lakes`
//!   → `ponds`); a candidate the tables cannot inflect to that tag is dropped.
//! * Never a personal pronoun, the word itself, or a mention word (seed: a follow-up must not
//!   introduce a new mention); the letter case of the original is kept.
//!
//! **Masked-LM predictions** (`bert-large-cased`, every prediction with p ≥ 0.1 at the masked
//! position, seed G9) are the paper's third source. With `[perturb.crest] masked_lm` set, the
//! relation ([`super::mutation`]) masks each unprotected word (not names, pronouns, numbers or
//! punctuation) in its sentence and adds the `generate` crate's whole-word predictions above
//! `masked_lm_min_prob` that are not the word, a personal pronoun or a mention word, before the
//! same selection. Verbs are mutated through this source only.

use std::collections::BTreeSet;

use metamorph_data::Token;

use crate::edit::match_case;
use crate::lexicon::inflect::Inflections;
use crate::lexicon::wordnet::{Pos, WordNet};

/// The personal pronouns no candidate may be (the artifact's list).
pub const PERSONAL_PRONOUNS: [&str; 31] = [
    "he",
    "her",
    "hers",
    "him",
    "his",
    "i",
    "it",
    "its",
    "me",
    "mine",
    "my",
    "our",
    "ours",
    "she",
    "their",
    "theirs",
    "them",
    "they",
    "us",
    "we",
    "you",
    "your",
    "yours",
    "myself",
    "yourself",
    "himself",
    "herself",
    "itself",
    "ourselves",
    "yourselves",
    "themselves",
];

/// Where a candidate came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// A WordNet synonym.
    Synonym,
    /// A WordNet antonym.
    Antonym,
}

/// The replacements of one word, in WordNet order (synonyms first), without duplicates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Candidates {
    /// Each replacement as it is written into the text, with its origin.
    pub words: Vec<(String, Origin)>,
}

/// The WordNet POS CREST mutates `token` in, or `None` when the word is not mutated (see the
/// module docs).
pub fn mutable_pos(token: &Token) -> Option<Pos> {
    let wordnet_pos = match token.pos.as_str() {
        "NOUN" if token.tag.starts_with("NN") && !token.tag.starts_with("NNP") => Pos::Noun,
        "ADJ" if token.tag.starts_with('J') => Pos::Adj,
        "ADV" if token.tag.starts_with("RB") => Pos::Adv,
        _ => return None,
    };
    let plain = !token.text.is_empty() && token.text.chars().all(char::is_alphabetic);
    (plain && token.ent_type.is_empty()).then_some(wordnet_pos)
}

/// The candidates for `token`, none of which may be one of `mention_words` (lower case).
pub fn candidates(
    wordnet: &WordNet,
    inflections: &Inflections,
    token: &Token,
    mention_words: &BTreeSet<String>,
) -> Candidates {
    let Some(pos) = mutable_pos(token) else {
        return Candidates::default();
    };
    let original = token.text.to_lowercase();
    let lemma = token.lemma.to_lowercase();
    let synonyms: Vec<String> = wordnet
        .synonyms(&lemma, pos)
        .into_iter()
        .map(|w| w.raw)
        .collect();
    let lexical = synonyms.into_iter().map(|w| (w, Origin::Synonym)).chain(
        wordnet
            .antonyms(&lemma, pos)
            .into_iter()
            .map(|w| (w.raw.to_lowercase(), Origin::Antonym)),
    );
    let mut out = Candidates::default();
    for (word, origin) in lexical {
        if word == lemma || !word.chars().all(|c| c.is_ascii_lowercase()) {
            continue;
        }
        let Some(form) = inflect(inflections, &word, &token.tag) else {
            continue;
        };
        if form == original
            || PERSONAL_PRONOUNS.contains(&form.as_str())
            || mention_words.contains(&form)
            || out.words.iter().any(|(w, _)| w.eq_ignore_ascii_case(&form))
        {
            continue;
        }
        out.words.push((match_case(&token.text, &form), origin));
    }
    out
}

/// `lemma` in the form the Penn `tag` asks for: the lemma itself for base forms (`NN`, `VB`,
/// `VBP`, `JJ`, `RB`), lemminflect's first form otherwise (`None` when its tables have none).
pub fn inflect(inflections: &Inflections, lemma: &str, tag: &str) -> Option<String> {
    match tag {
        "NN" | "VB" | "VBP" | "JJ" | "RB" => Some(lemma.to_string()),
        _ => inflections.inflect(lemma, tag),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{pipeline, resources};

    fn token(text: &str, word: &str) -> Token {
        let docs = pipeline().process(&[text]).unwrap();
        let parsed = metamorph_parse::to_parsed_text("x", "text", &docs[0]);
        parsed.tokens.into_iter().find(|t| t.text == word).unwrap()
    }

    fn words(c: &Candidates) -> Vec<&str> {
        c.words.iter().map(|(w, _)| w.as_str()).collect()
    }

    #[test]
    fn figure_1_clean_has_synonyms_and_antonyms_as_single_adjectives() {
        let (wn, infl) = (
            resources().wordnet().unwrap(),
            resources().inflections().unwrap(),
        );
        // (en_core_web_sm tags Figure 1's "the clean lake" as a name, so "clean" is taken from
        // a predicate here.)
        let clean = token("The lake is clean.", "clean");
        let c = candidates(&wn, &infl, &clean, &BTreeSet::new());
        assert!(
            c.words.contains(&("unclean".into(), Origin::Antonym)),
            "{c:?}"
        );
        assert!(
            words(&c)
                .iter()
                .any(|w| *w == "clear" || *w == "uninfected"),
            "{c:?}"
        );
        assert!(words(&c)
            .iter()
            .all(|w| w.chars().all(|ch| ch.is_ascii_lowercase())));
        assert!(!words(&c).contains(&"clean"));
    }

    #[test]
    fn candidates_take_the_originals_inflection() {
        let (wn, infl) = (
            resources().wordnet().unwrap(),
            resources().inflections().unwrap(),
        );
        let cars = token("The cars stopped.", "cars");
        let c = candidates(&wn, &infl, &cars, &BTreeSet::new());
        assert!(words(&c).contains(&"automobiles"), "{c:?}");
        for (w, _) in &c.words {
            assert!(w.ends_with('s'), "{w}");
        }
        let stopped = token("The cars stopped.", "stopped");
        assert_eq!(mutable_pos(&stopped), None, "verbs are not mutated");
    }

    #[test]
    fn mention_words_pronouns_and_names_are_never_candidates() {
        let (wn, infl) = (
            resources().wordnet().unwrap(),
            resources().inflections().unwrap(),
        );
        let cars = token("The cars stopped.", "cars");
        let mention_words: BTreeSet<String> = ["automobiles".to_string()].into();
        let c = candidates(&wn, &infl, &cars, &mention_words);
        assert!(!words(&c).contains(&"automobiles") && !c.words.is_empty());
        let paris = token("Anna flew to Paris.", "Paris");
        assert!(candidates(&wn, &infl, &paris, &BTreeSet::new())
            .words
            .is_empty());
        let is = token("It is tasty.", "is");
        assert_eq!(mutable_pos(&is), None);
    }
}
