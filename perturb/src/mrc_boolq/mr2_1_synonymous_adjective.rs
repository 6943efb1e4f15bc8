//! MT4MRC MR2-1, "Consistence with Synonymous Adjective": replace an adjective of the question by
//! a WordNet synonym; the answer must stay the same ("can a tight hat give you a headache" →
//! "can a taut hat give you a headache"). No precondition.
//!
//! Where paper and script (`tool/MR2_1.py`) differ, and what we chose:
//! * The paper says the MR1-1 patterns apply, yet its own example starts with "can"; the script
//!   takes every JJ token anywhere in the question. We follow **the script**: any adjective
//!   tagged JJ (comparatives and superlatives are left alone, as in the script).
//! * The paper replaces **all** occurrences ("social" → "societal" twice); the script replaces
//!   the first occurrence of one adjective. We follow **the paper**: every occurrence of the
//!   chosen adjective in the question is replaced.
//! * The script emits one follow-up per (adjective, synonym) over every lemma of every synset,
//!   with no word-sense disambiguation, which yields many odd substitutes ("good" → "full",
//!   "commodity", "dear"). We keep only synonyms that share the adjective's dominant meaning: the
//!   synonym must come from one of the adjective's first two senses (WordNet orders senses by
//!   frequency), and that sense must be the synonym's own first sense, so both words are most
//!   often read in the shared meaning ("tight" → "taut", "social" → "societal", "big" →
//!   "large"; "good" → "full" is refused because "full" mostly means something else). Multiword,
//!   hyphenated and capitalised names are skipped. Each adjective gets at most one follow-up
//!   (its first such synonym in WordNet order) and a source at most [`MAX_CASES`], for its first
//!   adjectives in question order: deterministic, and no source dominates the violation rate.
//! * Adjectives in named entities, capitalised titles, hyphenated compounds and determiner-like
//!   words ("same", "other", "many") are not replaced, and an indefinite article before a
//!   replaced adjective is adjusted ("an old car" → "a former car" would be fixed to agree).

use std::sync::Arc;

use metamorph_data::{Case, Expectation, Result, Task};

use super::mr1_1_antonymous_adjective::{article_fix, is_free_adjective};
use super::FAMILY;
use crate::edit::{apply, match_case, Replacement};
use crate::lexicon::wordnet::{Pos, WordNet};
use crate::syntax::Tree;
use crate::{case_id, MetamorphicRelation, Resources, Source};

const NAME: &str = "MR2-1";

/// At most this many follow-ups per source (one per adjective, first adjectives first).
pub const MAX_CASES: usize = 3;

/// How many of the adjective's senses, most frequent first, a synonym may come from.
const SENSES: usize = 2;

/// MT4MRC MR2-1 (see the module docs).
#[derive(Debug)]
pub struct SynonymousAdjective {
    wordnet: Arc<WordNet>,
}

impl SynonymousAdjective {
    /// The relation over the shared WordNet.
    ///
    /// # Errors
    /// When WordNet cannot be loaded.
    pub fn new(resources: &Resources) -> Result<Self> {
        Ok(SynonymousAdjective {
            wordnet: resources.wordnet()?,
        })
    }

    /// The synonym to substitute for the adjective `word` (lower case), if one shares its
    /// dominant meaning (see the module docs).
    fn synonym(&self, word: &str) -> Option<String> {
        let wn = &*self.wordnet;
        for synset in wn.synsets(word, Pos::Adj).into_iter().take(SENSES) {
            for lemma in synset.lemmas() {
                let name = lemma.name();
                if name == word || name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase())
                {
                    continue;
                }
                let dominant = wn.synsets(name, Pos::Adj).into_iter().next();
                if dominant == Some(synset) {
                    return Some(name.to_string());
                }
            }
        }
        None
    }
}

impl MetamorphicRelation for SynonymousAdjective {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::BoolQ]
    }

    fn parsed_fields(&self) -> &'static [&'static str] {
        &["question"]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let example = source.example;
        let (Some(question), Some(parsed)) =
            (example.question.as_deref(), source.parse("question"))
        else {
            return Ok(Vec::new());
        };
        let tree = Tree::new(parsed);
        let adjectives: Vec<usize> = (0..tree.len())
            .filter(|&i| tree.token(i).tag == "JJ" && is_free_adjective(&tree, i))
            .collect();
        let mut done: Vec<String> = Vec::new();
        let mut cases = Vec::new();
        for &i in &adjectives {
            if cases.len() == MAX_CASES {
                break;
            }
            let word = tree.lower(i);
            if done.contains(&word) {
                continue;
            }
            done.push(word.clone());
            let Some(synonym) = self.synonym(&word) else {
                continue;
            };
            let mut replacements = Vec::new();
            for &j in adjectives.iter().filter(|&&j| tree.lower(j) == word) {
                let token = tree.token(j);
                let new_word = match_case(&token.text, &synonym);
                replacements.extend(article_fix(&tree, j, &new_word));
                replacements.push(Replacement::new(
                    token.start as usize,
                    token.end as usize,
                    new_word,
                ));
            }
            let Some((followup_question, edits)) = apply("question", question, replacements) else {
                continue;
            };
            let mut followup = example.clone();
            followup.id = case_id(&example.id, NAME, cases.len());
            followup.question = Some(followup_question);
            followup.label = None;
            let case = Case::new(
                FAMILY,
                NAME,
                vec![example.clone()],
                followup,
                &Expectation::Equal,
            )
            .with_edits(edits);
            cases.push(case);
        }
        Ok(cases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{boolq, resources};

    fn relation() -> SynonymousAdjective {
        SynonymousAdjective::new(resources()).unwrap()
    }

    fn followups(question: &str) -> Vec<String> {
        let (example, parses) = boolq(question, "Some passage.");
        let cases = relation()
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        for (k, case) in cases.iter().enumerate() {
            case.validate().unwrap();
            assert_eq!(case.case_id, format!("q1:MR2-1:{k}"));
            assert_eq!(case.expectation().unwrap(), Expectation::Equal);
            assert_eq!(case.precondition().unwrap(), None);
            let chars: Vec<char> = question.chars().collect();
            for edit in &case.edits {
                let before: String = chars[edit.start as usize..edit.end as usize]
                    .iter()
                    .collect();
                assert_eq!(before, edit.before);
            }
        }
        cases
            .into_iter()
            .map(|c| c.followup.question.unwrap())
            .collect()
    }

    #[test]
    fn papers_examples() {
        assert_eq!(
            followups("can a tight hat give you a headache"),
            vec!["can a taut hat give you a headache"]
        );
        assert_eq!(
            followups("are social studies and social science the same"),
            vec!["are societal studies and societal science the same"]
        );
    }

    #[test]
    fn synonyms_share_the_dominant_sense() {
        let r = relation();
        assert_eq!(r.synonym("big").as_deref(), Some("large"));
        // "full" is a sense of "good" but not what "full" mostly means.
        assert_ne!(r.synonym("good").as_deref(), Some("full"));
        assert_eq!(r.synonym("same"), r.synonym("same"));
    }

    #[test]
    fn articles_agree_and_case_is_kept() {
        // "an" would be wrong before a consonant-initial synonym and vice versa.
        let out = followups("is an enormous house expensive to heat");
        assert!(!out.is_empty());
        for q in &out {
            let words: Vec<&str> = q.split(' ').collect();
            if words[1] == "a" || words[1] == "an" {
                assert_eq!(words[1], crate::edit::indefinite_article(words[2]), "{q}");
            }
        }
    }

    #[test]
    fn names_and_determiner_like_words_are_left_alone() {
        assert!(followups("is the Good Wife on netflix").is_empty());
        assert!(followups("are the other players the same").is_empty());
        let (example, _) = boolq("is it a tight hat", "Some passage.");
        assert!(relation()
            .follow_ups(&Source::unparsed(&example))
            .unwrap()
            .is_empty());
    }
}
