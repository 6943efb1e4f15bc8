//! CREST's protected words (seed-004 §2.1, Eq. 2): the tokens a follow-up must never change.
//!
//! * every token of every gold mention (index-based, as the paper describes it, not the
//!   artifact's string-based freezing of every occurrence of a mention word — seed G5);
//! * both ends of every `nsubj` or `amod` dependency arc that touches a *pronoun mention*: a
//!   single-token mention tagged `PRP` (the artifact's exact rule; so `nsubjpass` and possessive
//!   `PRP$` are not expanded, seed G2). In Figure 1, "The fish in the clean lake ate the worm
//!   because it is tasty", `nsubj(tasty, it)` protects "tasty": "hungry" would make "it" the
//!   fish.
//!
//!   The paper's parser (CoreNLP, UD) heads a copular clause by its predicate: `nsubj(tasty,
//!   it)`. spaCy's English models (ClearNLP labels) head it by the copula: `nsubj(is, it)`,
//!   `acomp(is, tasty)`. So that the rule protects the same words, when a pronoun's `nsubj` head
//!   is a form of *be*, its predicate dependents (`acomp`, `attr`) are protected too.
//!
//! Besides positions, the mention words themselves (lower-cased) are kept so that no replacement
//! may *create* another copy of a mention word (the artifact's candidate filter, seed G5).

use std::collections::BTreeSet;
use std::ops::Range;

use metamorph_data::{CharSpan, ParsedText};

/// Dependency relations that, touching a pronoun mention, protect both of their ends.
pub const PRONOUN_RELATIONS: [&str; 2] = ["nsubj", "amod"];

/// The dependents of a copula that are the predicate UD would make the head of the subject.
pub const COPULA_PREDICATES: [&str; 2] = ["acomp", "attr"];

/// The tokens of one parsed text that CREST must leave alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtectedWords {
    /// `protected[i]`: token `i` lies in a mention or is linked to a pronoun mention.
    pub protected: Vec<bool>,
    /// The token range of every mention, in cluster then mention order (mentions that cover no
    /// token are left out).
    pub mentions: Vec<Range<usize>>,
    /// The lower-cased words of every mention: a replacement must not be one of them.
    pub mention_words: BTreeSet<String>,
}

impl ProtectedWords {
    /// The protected words of `parsed` for the gold `clusters` (character spans of its text).
    pub fn new(parsed: &ParsedText, clusters: &[Vec<CharSpan>]) -> ProtectedWords {
        let tokens = &parsed.tokens;
        let mut protected = vec![false; tokens.len()];
        let mut mentions = Vec::new();
        let mut mention_words = BTreeSet::new();
        for span in clusters.iter().flatten() {
            let Some(range) = token_range(parsed, *span) else {
                continue;
            };
            for i in range.clone() {
                protected[i] = true;
                mention_words.insert(tokens[i].text.to_lowercase());
            }
            mentions.push(range);
        }
        let is_pronoun = |i: usize| {
            tokens[i].tag == "PRP" && mentions.iter().any(|m| m.len() == 1 && m.start == i)
        };
        for (j, token) in tokens.iter().enumerate() {
            let head = token.head as usize;
            if head >= tokens.len() || head == j || !PRONOUN_RELATIONS.contains(&token.dep.as_str())
            {
                continue;
            }
            if is_pronoun(j) || is_pronoun(head) {
                protected[j] = true;
                protected[head] = true;
                if token.dep == "nsubj" && is_pronoun(j) && tokens[head].lemma == "be" {
                    for (k, t) in tokens.iter().enumerate() {
                        if t.head as usize == head
                            && k != head
                            && COPULA_PREDICATES.contains(&t.dep.as_str())
                        {
                            protected[k] = true;
                        }
                    }
                }
            }
        }
        ProtectedWords {
            protected,
            mentions,
            mention_words,
        }
    }

    /// Whether token `i` is protected.
    pub fn is_protected(&self, i: usize) -> bool {
        self.protected.get(i).copied().unwrap_or(true)
    }
}

/// The tokens of `parsed` that overlap the character span `span` (`None` when none does).
pub fn token_range(parsed: &ParsedText, span: CharSpan) -> Option<Range<usize>> {
    let mut overlapping = parsed
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.start < span.end && t.end > span.start)
        .map(|(i, _)| i);
    let first = overlapping.next()?;
    let last = overlapping.next_back().unwrap_or(first);
    Some(first..last + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::pipeline;

    fn parsed(text: &str) -> ParsedText {
        let docs = pipeline().process(&[text]).unwrap();
        metamorph_parse::to_parsed_text("x", "text", &docs[0])
    }

    fn span(text: &str, word: &str, nth: usize) -> CharSpan {
        let (byte, _) = text.match_indices(word).nth(nth).unwrap();
        let start = text[..byte].chars().count() as u32;
        CharSpan {
            start,
            end: start + word.chars().count() as u32,
        }
    }

    #[test]
    fn figure_1_protects_the_mentions_and_the_pronouns_predicate_only() {
        let text = "The fish in the clean lake ate the worm because it is tasty.";
        let p = parsed(text);
        let clusters = vec![vec![span(text, "the worm", 0), span(text, "it", 0)]];
        let words = ProtectedWords::new(&p, &clusters);
        let protected: Vec<&str> = p
            .tokens
            .iter()
            .enumerate()
            .filter(|(i, _)| words.is_protected(*i))
            .map(|(_, t)| t.text.as_str())
            .collect();
        // "the worm" and "it" are mentions; nsubj(is, it) protects "is", and the copula's
        // predicate "tasty" (UD's nsubj(tasty, it)).
        assert_eq!(protected, ["the", "worm", "it", "is", "tasty"]);
        let clean = p.tokens.iter().position(|t| t.text == "clean").unwrap();
        assert!(!words.is_protected(clean), "\"clean\" is replaceable");
        assert_eq!(words.mentions, [7..9, 10..11]);
        assert!(words.mention_words.contains("worm") && words.mention_words.contains("the"));
    }

    #[test]
    fn only_personal_pronoun_mentions_widen_the_protection() {
        // "John" is a mention, not a pronoun: its nsubj head "smiled" stays replaceable.
        let text = "John smiled because he was happy.";
        let p = parsed(text);
        let clusters = vec![vec![span(text, "John", 0), span(text, "he", 0)]];
        let words = ProtectedWords::new(&p, &clusters);
        let at = |w: &str| p.tokens.iter().position(|t| t.text == w).unwrap();
        assert!(!words.is_protected(at("smiled")));
        // nsubj(was, he): the copula and its predicate are protected.
        assert!(words.is_protected(at("was")));
        assert!(words.is_protected(at("happy")));
    }

    #[test]
    fn a_span_maps_to_the_tokens_it_overlaps() {
        let p = parsed("Ada Lovelace wrote.");
        assert_eq!(token_range(&p, CharSpan { start: 0, end: 12 }), Some(0..2));
        assert_eq!(token_range(&p, CharSpan { start: 40, end: 42 }), None);
    }
}
