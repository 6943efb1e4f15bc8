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
//! * **WordNet synonyms (and, with `[perturb.crest] antonyms = true`, antonyms) of the sense in
//!   context.** **Deviation: antonyms are off by default**: two reviews of 2026-11-26 found
//!   them behind most unnatural follow-ups (they keep the links but contradict the text: "keep
//!   a loose mouth", "innocent mastermind"). The artifact takes every lemma
//!   of every synset and the first antonym of each; a review of 25 GAP follow-ups found 14 with a
//!   wrong-sense word ("resigned from the seat" → "the arse", "phone call" → "phone yell"). Here
//!   the sense the sentence uses is chosen first and only its lemmas and its lemma's antonyms are
//!   candidates ([`ContextualLexicon`]); the relation then keeps a candidate only when the
//!   follow-up sentence stays close to the source in a sentence encoder
//!   ([`crate::lexicon::in_context::MIN_SENTENCE_SIMILARITY`]). Single words only (the artifact
//!   drops lemmas with `-` or `_`).
//! * **Inflected to the original's tag** with lemminflect's tables (`ran` → `sprinted`, `lakes`
//!   → `ponds`); a candidate the tables cannot inflect to that tag is dropped.
//! * Never a personal pronoun, the word itself, or a mention word (seed: a follow-up must not
//!   introduce a new mention); the letter case of the original is kept.
//!
//! **Masked-LM predictions** (`bert-large-cased`, every prediction with p ≥ 0.1 at the masked
//! position, seed G9) are the paper's third source. With `[perturb.crest] masked_lm` set, the
//! relation ([`super::relation`]) masks each unprotected word (not names, pronouns, numbers or
//! punctuation) in its sentence and adds the `generate` crate's whole-word predictions above
//! `masked_lm_min_prob` that are not the word, a personal pronoun or a mention word, before the
//! same selection. Verbs are mutated through this source only.

use std::collections::BTreeSet;

use metamorph_data::{Result, Token};

use crate::edit::match_case;
use crate::lexicon::frames::is_never_a_substitute;
use crate::lexicon::in_context::{ContextualLexicon, Substitution, WordInContext};
use crate::lexicon::inflect::Inflections;
use crate::lexicon::wordnet::Pos;

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

/// The candidates for the target of `word` in its sense in context ([`ContextualLexicon`]:
/// synonyms, then antonyms, of the sense the sentence uses), none of which may be one of
/// `mention_words` (lower case). `sentence` is the embedding of the target's sentence. The fit
/// check on the written follow-up sentence is the caller's (it batches every word's candidates
/// into one encoder call).
///
/// # Errors
/// When WordNet's `index.sense` cannot be read or the encoder fails.
pub fn candidates(
    lexicon: &ContextualLexicon,
    inflections: &Inflections,
    word: &WordInContext<'_>,
    sentence: &[f32],
    mention_words: &BTreeSet<String>,
) -> Result<Candidates> {
    let token = &word.tokens[word.index];
    if mutable_pos(token) != Some(word.pos) {
        return Ok(Candidates::default());
    }
    let original = token.text.to_lowercase();
    let lemma = token.lemma.to_lowercase();
    let lexical = lexicon
        .candidates(word, sentence, Substitution::Synonym)?
        .into_iter()
        .map(|w| (w, Origin::Synonym))
        .chain(
            lexicon
                .candidates(word, sentence, Substitution::Antonym)?
                .into_iter()
                .map(|w| (w, Origin::Antonym)),
        );
    let mut out = Candidates::default();
    let previous = word
        .index
        .checked_sub(1)
        .map_or("", |p| word.tokens[p].text.as_str());
    for (word, origin) in lexical {
        if word == lemma || !word.chars().all(|c| c.is_ascii_lowercase()) {
            continue;
        }
        // Checked on the lemma, so that no inflection of it gets in either ("littler").
        if !inflections.fits_after_degree_word(previous, &word) || is_never_a_substitute(&word) {
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
    Ok(out)
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

    fn words_for(text: &str, word: &str, mention_words: &BTreeSet<String>) -> Vec<String> {
        let docs = pipeline().process(&[text]).unwrap();
        let parsed = metamorph_parse::to_parsed_text("x", "text", &docs[0]);
        let index = parsed.tokens.iter().position(|t| t.text == word).unwrap();
        let Some(pos) = mutable_pos(&parsed.tokens[index]) else {
            return Vec::new();
        };
        let lexicon = resources().contextual_lexicon().unwrap();
        let infl = resources().inflections().unwrap();
        let target = WordInContext::new(&parsed.tokens, index, pos);
        let sentence = lexicon.embed(&[&target.sentence_text()]).unwrap().remove(0);
        candidates(&lexicon, &infl, &target, &sentence, mention_words)
            .unwrap()
            .words
            .into_iter()
            .map(|(w, _)| w)
            .collect()
    }

    #[test]
    fn compounds_and_function_adverbs_are_left_alone() {
        use crate::lexicon::frames::{in_hyphenated_compound, is_function_adverb};
        let docs = pipeline()
            .process(&["It was a two-part episode, and he was very tired then."])
            .unwrap();
        let tokens = metamorph_parse::to_parsed_text("x", "text", &docs[0]).tokens;
        let at = |w: &str| tokens.iter().position(|t| t.text == w).unwrap();
        assert!(in_hyphenated_compound(&tokens, at("two")));
        assert!(in_hyphenated_compound(&tokens, at("part")));
        assert!(!in_hyphenated_compound(&tokens, at("episode")));
        assert!(is_function_adverb(&tokens, at("very")));
        assert!(is_function_adverb(&tokens, at("then")));
        assert!(!is_function_adverb(&tokens, at("tired")));
    }

    #[test]
    fn figure_1_clean_has_an_antonym_of_its_sense() {
        // (en_core_web_sm tags Figure 1's "the clean lake" as a name, so "clean" is taken from
        // a predicate here.)
        let c = words_for(
            "The kitchen floor was clean after she washed it.",
            "clean",
            &BTreeSet::new(),
        );
        assert!(c.contains(&"dirty".to_string()), "{c:?}");
        assert!(c
            .iter()
            .all(|w| w.chars().all(|ch| ch.is_ascii_lowercase())));
        assert!(!c.contains(&"clean".to_string()));
    }

    #[test]
    fn candidates_take_the_originals_inflection() {
        let c = words_for(
            "The editor ignored the remarks of the critics.",
            "remarks",
            &BTreeSet::new(),
        );
        assert!(c.contains(&"comments".to_string()), "{c:?}");
        assert!(c.iter().all(|w| w.ends_with('s')), "{c:?}");
        assert!(words_for("The cars stopped.", "stopped", &BTreeSet::new()).is_empty());
    }

    #[test]
    fn mention_words_pronouns_and_names_are_never_candidates() {
        let mention_words: BTreeSet<String> = ["automobiles".to_string()].into();
        let c = words_for("The cars stopped at the lights.", "cars", &mention_words);
        // "automobiles" is the only candidate otherwise ("autos" is a clipping of it).
        assert!(!c.contains(&"automobiles".to_string()), "{c:?}");
        assert!(words_for("Anna flew to Paris.", "Paris", &BTreeSet::new()).is_empty());
        assert!(words_for("It is tasty.", "is", &BTreeSet::new()).is_empty());
    }
}
