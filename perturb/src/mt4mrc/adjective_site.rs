//! Where an adjective may be swapped for another word and which swap reads best: the checks and
//! the choice that MR1-1 (antonyms) and MR2-1 (synonyms) share. A leaf module, so that neither
//! relation imports the other.

use metamorph_data::{Case, Result};

use crate::edit::{indefinite_article, match_case, Replacement};
use crate::lexicon::in_context::ContextualLexicon;
#[cfg(doc)]
use crate::lexicon::in_context::{MIN_ANTONYM_SIMILARITY, MIN_SENTENCE_SIMILARITY};
use crate::lexicon::wordnet::{Pos, WordNet};
use crate::syntax::{quotations, Tree};

/// Of `cases` (edits of one question), the one whose follow-up question is closest to `source`
/// in the sentence encoder among those that fit ([`crate::lexicon::in_context::Fit::fits`]:
/// the question stays within `threshold`, [`MIN_SENTENCE_SIMILARITY`] for synonyms,
/// [`MIN_ANTONYM_SIMILARITY`] for antonyms, and the new word, read in it, within `min_word` of
/// the old one: [`crate::lexicon::in_context::MIN_WORD_SIMILARITY`] for synonyms,
/// [`crate::lexicon::in_context::NO_WORD_CHECK`] for antonyms).
pub(super) fn best_fit(
    lexicon: &ContextualLexicon,
    source: Option<&str>,
    cases: Vec<Case>,
    (threshold, min_word): (f32, f32),
) -> Result<Option<Case>> {
    let Some(source) = source else {
        return Ok(None);
    };
    if cases.is_empty() {
        return Ok(None);
    }
    // The replaced word's byte range in the source and in each follow-up: the last question
    // edit is the word (an article fix comes before it).
    let mut sources = Vec::with_capacity(cases.len());
    let mut follow_ups = Vec::with_capacity(cases.len());
    for (k, case) in cases.iter().enumerate() {
        let followup = case.followup.question.as_deref().unwrap_or("");
        let edits: Vec<_> = case
            .edits
            .iter()
            .filter(|e| e.field == "question")
            .collect();
        let Some(word) = edits.last() else {
            return Ok(None);
        };
        let shift: i64 = edits[..edits.len() - 1]
            .iter()
            .map(|e| e.after.chars().count() as i64 - i64::from(e.end - e.start))
            .sum();
        let start = (i64::from(word.start) + shift).max(0) as usize;
        let end = start + word.after.chars().count();
        sources.push((
            source,
            byte_at(source, word.start as usize)..byte_at(source, word.end as usize),
        ));
        follow_ups.push((
            k,
            followup,
            byte_at(followup, start)..byte_at(followup, end),
        ));
    }
    let fits = lexicon.fit(&sources, &follow_ups)?;
    Ok(cases
        .into_iter()
        .zip(fits)
        .filter(|(_, fit)| fit.fits(threshold, min_word))
        .max_by(|a, b| a.1.sentence.total_cmp(&b.1.sentence))
        .map(|(c, _)| c))
}

/// The byte offset of character `chars` of `text` (its length past the end).
pub(super) fn byte_at(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(b, _)| b)
}

/// Adjectives whose antonym or synonym does not fit their slot: determiner-like words ("the
/// same", "the other", "many"), and "only"/"own"/"whole"-type restrictors.
pub(super) const DETERMINER_LIKE: &[&str] = &[
    "same", "other", "such", "own", "only", "many", "much", "few", "several", "various", "certain",
    "next", "last", "former", "latter", "whole", "entire", "main", "more", "most", "less", "least",
    "further", "final", "worth", "set",
];

/// Whether token `i` is an ordinary adjective that may be swapped for another word: lower-case
/// (not part of a title), outside named entities and quotations, not half of a hyphenated
/// compound, not a determiner-like word.
pub(super) fn is_free_adjective(tree: &Tree<'_>, i: usize, wordnet: &WordNet) -> bool {
    let token = tree.token(i);
    let lower = token.text.to_lowercase();
    let capitalised = token.text.chars().next().is_some_and(char::is_uppercase);
    let hyphen_before =
        i > 0 && tree.token(i - 1).text == "-" && tree.token(i - 1).whitespace.is_empty();
    let hyphen_after =
        i + 1 < tree.len() && tree.token(i + 1).text == "-" && token.whitespace.is_empty();
    let title_word = capitalised && i > 0;
    let compound = hyphen_before || hyphen_after;
    let word = token.text.chars().all(char::is_alphabetic);
    let named = !token.ent_type.is_empty();
    // The parser tags some nouns JJ ("round of 16", "the port mann bridge"); an adjective
    // modifies a noun or completes a copula.
    let adjectival_role = matches!(
        token.dep.as_str(),
        "amod"
            | "acomp"
            | "conj"
            | "oprd"
            | "attr"
            | "advmod"
            | "npadvmod"
            | "ccomp"
            | "xcomp"
            | "ROOT"
    );
    word && adjectival_role
        && !title_word
        && !compound
        && !named
        && !DETERMINER_LIKE.contains(&lower.as_str())
        && !in_wordnet_compound(tree, i, wordnet)
        && !nominalised(tree, i)
        && !quoted(tree, i)
}

/// Whether token `i` lies between a pair of double quotation marks: a quotation is someone's
/// words, and a word changed in it misquotes them ("considered \"one of the most completed
/// … bands\"", a blind reading of BREAK's test questions, 2026-12-02).
fn quoted(tree: &Tree<'_>, i: usize) -> bool {
    quotations(tree.tokens()).iter().any(|q| q.contains(&i))
}

/// Whether `word` appears capitalised inside a sentence of the passage ("Rotten Tomatoes",
/// "Dirty Dancing", "Pretty Little Liars"): BoolQ questions are lower case, so a title or name
/// they mention shows its capitals only in the Wikipedia passage, and an adjective in a name
/// must not be swapped. Capitals at the start of the passage or of a sentence do not count.
pub(super) fn named_in_passage(passage: Option<&str>, word: &str) -> bool {
    let Some(passage) = passage else {
        return false;
    };
    let lower = word.to_lowercase();
    let capitalised = crate::edit::capitalize(&lower);
    if capitalised == lower {
        return false;
    }
    let is_word_char = |c: char| c.is_alphanumeric() || c == '\'';
    let mut from = 0;
    while let Some(pos) = passage[from..].find(&capitalised).map(|p| p + from) {
        let end = pos + capitalised.len();
        from = end;
        let before = passage[..pos].chars().next_back();
        let after = passage[end..].chars().next();
        if before.is_some_and(is_word_char) || after.is_some_and(is_word_char) {
            continue;
        }
        let previous = passage[..pos].trim_end().chars().next_back();
        let sentence_start = match previous {
            None => true,
            Some(c) => matches!(c, '.' | '!' | '?' | ':' | '"' | '-' | '(' | '\u{201c}'),
        };
        if !sentence_start {
            return true;
        }
    }
    false
}

/// Whether token `i` and a neighbour form a WordNet multiword or compound term ("social
/// security", "civil war", "high school", "toll free", "fresh water" as "freshwater"): the
/// adjective is then part of a name, not a free modifier.
fn in_wordnet_compound(tree: &Tree<'_>, i: usize, wordnet: &WordNet) -> bool {
    let pairs = [
        (i.checked_sub(1), Some(i)),
        (Some(i), (i + 1 < tree.len()).then_some(i + 1)),
    ];
    // The noun is also tried in its lemma ("short ribs" → short_rib), and the term may run on
    // to a third word ("central nervous system").
    let word = |j: usize| tree.lower(j);
    let lemma = |j: usize| tree.token(j).lemma.to_lowercase();
    let mut terms: Vec<String> = Vec::new();
    // Only content words make a term with the adjective ("a real" is not the adjective
    // "areal"); the closed-up spelling only for adjective + noun ("fresh water", "freshwater").
    let content = |j: usize| {
        matches!(
            tree.token(j).pos.as_str(),
            "NOUN" | "PROPN" | "ADJ" | "VERB" | "ADV" | "NUM"
        )
    };
    for (a, b) in pairs.into_iter().filter_map(|p| Some((p.0?, p.1?))) {
        if !content(a) || !content(b) {
            continue;
        }
        let separators: &[&str] = if a == i { &["_", "-", ""] } else { &["_", "-"] };
        for sep in separators {
            terms.push(format!("{}{sep}{}", word(a), word(b)));
            terms.push(format!("{}{sep}{}", word(a), lemma(b)));
        }
    }
    if i + 2 < tree.len() {
        terms.push(format!("{}_{}_{}", word(i), word(i + 1), lemma(i + 2)));
    }
    if i >= 1 && i + 1 < tree.len() {
        terms.push(format!("{}_{}_{}", word(i - 1), word(i), lemma(i + 1)));
    }
    terms.iter().any(|term| {
        [Pos::Noun, Pos::Adj]
            .iter()
            .any(|&pos| !wordnet.index_entry(term, pos).is_empty())
    })
}

/// Whether the adjective `i` heads a noun phrase of its own after "the" ("the dead", "the
/// walking dead", "the bold and the beautiful"): mostly a title or a group of people, where an
/// antonym or synonym does not keep the reference.
fn nominalised(tree: &Tree<'_>, i: usize) -> bool {
    if tree.token(i).tag != "JJ" {
        return false;
    }
    let the_before = (1..=2).any(|d| {
        i.checked_sub(d).is_some_and(|j| {
            tree.lower(j) == "the"
                && (j + 1..i).all(|k| matches!(tree.token(k).tag.as_str(), "VBG" | "JJ"))
        })
    });
    let noun_after = i + 1 < tree.len()
        && (matches!(tree.token(i + 1).pos.as_str(), "NOUN" | "PROPN" | "NUM")
            || tree.token(i + 1).dep == "amod");
    the_before && !noun_after
}

/// The replacement that keeps an indefinite article right before token `i` in agreement with
/// `new_word`, the word that will stand at `i` ("an honest" → "a dishonest").
pub(super) fn article_fix(tree: &Tree<'_>, i: usize, new_word: &str) -> Option<Replacement> {
    let article = tree.token(i.checked_sub(1)?);
    let lower = article.text.to_lowercase();
    if !matches!(lower.as_str(), "a" | "an") || article.tag != "DT" {
        return None;
    }
    let wanted = indefinite_article(new_word);
    (wanted != lower).then(|| {
        Replacement::new(
            article.start as usize,
            article.end as usize,
            match_case(&article.text, wanted),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::boolq;

    #[test]
    fn a_word_in_a_quotation_is_quoted() {
        for (question, word, inside) in [
            (
                "Is the band considered \"one of the most accomplished bands\" of the decade?",
                "accomplished",
                true,
            ),
            (
                "Is the accomplished band considered \"the best\" of the decade?",
                "accomplished",
                false,
            ),
            ("Is a \"big\" house expensive", "big", true),
        ] {
            let (_, parses) = boolq(question, "Some passage.");
            let tree = Tree::new(&parses[0]);
            let i = (0..tree.len()).find(|&i| tree.lower(i) == word).unwrap();
            assert_eq!(quoted(&tree, i), inside, "{question}");
        }
    }
}
