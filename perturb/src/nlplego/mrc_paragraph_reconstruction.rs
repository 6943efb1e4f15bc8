//! NLPLego's reading-comprehension relation (seed-003 §1.5 and §2.1, `NLPLego-MRC`): a
//! paragraph rebuilt from synonym-mutated sentences must get the same answer.
//!
//! As the paper does on SQuAD 2.0:
//! * every sentence of the paragraph is disassembled alone and its derivation tree assembled
//!   with **WordNet synonyms only** (or, with `[perturb.nlplego] lm`, the causal LM's own
//!   predictions for each slot, see [`super::mutation`]); its **leaves** (the full sentence
//!   with one word changed per mutated adjunct) are its rewrites, at most
//!   `mrc_candidates_per_sentence` (the paper's beam of 4; fit in context, see
//!   [`crate::lexicon::in_context`], stands in for the word-vector score);
//! * adjuncts holding a gold answer or a content word of the question are not mutated, so the
//!   answer text survives and its offsets are recomputed;
//! * up to `mrc_sentences` sentences with rewrites (the paper's 4; our default 1, see
//!   [`super::NlpLegoConfig::mrc_sentences`]) are picked at random (seeded by the case id) and
//!   the new paragraphs are the Cartesian product of their rewrites, of which at most
//!   `max_cases_per_source` are kept (a seeded sample); with `mrc_sentence_groups` above 1,
//!   further groups of as many sentences follow, each group's paragraphs its own cases (one
//!   group rewritten per case), within the same cap;
//! * the question is unchanged.
//!
//! **Oracle.** The paper judges the new paragraph against the gold answers and screens the seed
//! failures out, which is the same as requiring the source's answer whenever the source is right.
//! This relation judges answer invariance directly ([`Expectation::SameAnswer`], SQuAD
//! normalisation, `answer_metric` exact match or F1 at `answer_threshold`): it needs no gold
//! answer, so it also covers unanswerable questions (no answer must stay no answer), and a seed
//! failure is still reported when the rewrite changes the wrong answer. The follow-up carries the
//! gold answers at their new offsets.

use std::collections::BTreeSet;
use std::ops::Range;

use metamorph_data::{Answer, Case, Expectation, ParsedText, Result, Task};

use super::assembly::{LevelsRead, TreeBuilder};
use super::disassembly::Disassembly;
use super::mutation::{is_stop_word, Predictions};
use super::FAMILY;
use crate::edit::{apply, indefinite_article, match_case, Replacement};
use crate::lexicon::lm_choice::SubstitutionChooser;
use crate::{case_id, shuffle, MetamorphicRelation, Resources, Source};

/// The relation's name.
pub const NAME: &str = "NLPLego-MRC";

/// The reading-comprehension relation (see the module docs).
#[derive(Debug)]
pub struct ParagraphReconstruction {
    builder: TreeBuilder,
}

impl ParagraphReconstruction {
    /// The relation over the shared resources and `[perturb.nlplego]`.
    ///
    /// # Errors
    /// When a resource cannot be loaded or a setting is out of range.
    pub fn new(resources: &Resources) -> Result<Self> {
        let config = resources.nlplego_config();
        let mut builder = TreeBuilder::new(
            resources,
            false,
            config.mrc_candidates_per_sentence,
            LevelsRead::Leaves,
        )?;
        if let Some(lm) = resources.nlplego_lm()? {
            let chooser = SubstitutionChooser::new(lm, config.lm_max_cost, config.lm_per_site);
            builder = builder.with_causal_lm(Predictions::new(
                chooser,
                resources.wordnet()?,
                resources.parser()?,
                config.lm_top_k,
            ));
        }
        Ok(ParagraphReconstruction { builder })
    }

    /// The rewrites of the sentence at characters `span` of `context`: each a list of one-word
    /// replacements in context offsets, at most `mrc_candidates_per_sentence`, none empty.
    fn sentence_rewrites(
        &self,
        context: &[char],
        span: Range<usize>,
        answers: &[Range<usize>],
        question_words: &BTreeSet<String>,
    ) -> Result<Vec<Vec<Replacement>>> {
        let text: String = context[span.clone()].iter().collect();
        let offset = span.start;
        // An adjunct holding an answer character or a question word is frozen whole.
        let frozen = |d: &Disassembly, i: usize| {
            let tokens = &d.parsed.tokens;
            d.adjuncts
                .iter()
                .find(|a| a.tokens.contains(&i))
                .is_some_and(|a| {
                    a.tokens.clone().any(|j| {
                        let t = &tokens[j];
                        let chars = offset + t.start as usize..offset + t.end as usize;
                        answers
                            .iter()
                            .any(|ans| ans.start < chars.end && chars.start < ans.end)
                            || question_words.contains(&t.text.to_lowercase())
                            || question_words.contains(&t.lemma.to_lowercase())
                    })
                })
        };
        let Some(tree) = self.builder.build(&text, &frozen)? else {
            return Ok(Vec::new());
        };
        let tokens = &tree.disassembly.parsed.tokens;
        let mut rewrites: Vec<Vec<Replacement>> = Vec::new();
        for (n, _) in tree.leaves() {
            let replaced = tree.replaced_tokens(n);
            let mut replacements: Vec<Replacement> = Vec::new();
            for &(i, word) in &replaced {
                let at = |t: &metamorph_data::Token, text: String| {
                    Replacement::new(offset + t.start as usize, offset + t.end as usize, text)
                };
                if let Some((j, article)) = article_for(tokens, &replaced, i, word) {
                    replacements.push(at(&tokens[j], article));
                }
                replacements.push(at(&tokens[i], word.to_string()));
            }
            if !replacements.is_empty() && !rewrites.contains(&replacements) {
                rewrites.push(replacements);
            }
            if rewrites.len() == self.builder.config().mrc_candidates_per_sentence {
                break;
            }
        }
        Ok(rewrites)
    }
}

/// The indefinite article token before replaced token `i` rewritten for its new `word` ("a
/// unique" → "an only", "an old" → "a former"), when it needs to change and is not replaced
/// itself: `(article token, new article)`.
fn article_for(
    tokens: &[metamorph_data::Token],
    replaced: &[(usize, &str)],
    i: usize,
    word: &str,
) -> Option<(usize, String)> {
    let j = i.checked_sub(1)?;
    let before = &tokens[j].text;
    let is_article = before.eq_ignore_ascii_case("a") || before.eq_ignore_ascii_case("an");
    if !is_article || replaced.iter().any(|r| r.0 == j) {
        return None;
    }
    let article = match_case(before, indefinite_article(word));
    (article != *before).then_some((j, article))
}

/// The content words of the question, lower case (text and lemma): what the paper freezes.
fn question_words(question: &str, parse: Option<&ParsedText>) -> BTreeSet<String> {
    let mut words = BTreeSet::new();
    match parse {
        Some(p) => {
            for t in &p.tokens {
                if t.text.chars().all(char::is_alphabetic) && !is_stop_word(&t.text) {
                    words.insert(t.text.to_lowercase());
                    words.insert(t.lemma.to_lowercase());
                }
            }
        }
        None => {
            for w in question.split(|c: char| !c.is_alphanumeric()) {
                if !w.is_empty() && !is_stop_word(w) {
                    words.insert(w.to_lowercase());
                }
            }
        }
    }
    words
}

/// `answer` moved through the replacements (character offsets of the old context); `None` when
/// it has no offset or a replacement touches it.
fn moved(answer: &Answer, replacements: &[Replacement]) -> Option<u32> {
    let start = answer.start? as usize;
    let end = start + answer.text.chars().count();
    let mut shift: isize = 0;
    for r in replacements {
        if r.start < end && start < r.end {
            return None;
        }
        if r.end <= start {
            shift += r.after.chars().count() as isize - (r.end - r.start) as isize;
        }
    }
    u32::try_from(start as isize + shift).ok()
}

/// `answer` with its offset moved through the replacements (unchanged without an offset);
/// `None` when a replacement touches it.
fn moved_answer(answer: &Answer, replacements: &[Replacement]) -> Option<Answer> {
    let start = match answer.start {
        None => None,
        Some(_) => Some(moved(answer, replacements)?),
    };
    Some(Answer {
        text: answer.text.clone(),
        start,
    })
}

impl MetamorphicRelation for ParagraphReconstruction {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::Squad]
    }

    fn parsed_fields(&self) -> &'static [&'static str] {
        &["context"]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let example = source.example;
        let (Some(context), Some(parsed)) = (example.context.as_deref(), source.parse("context"))
        else {
            return Ok(Vec::new());
        };
        let question = example.question.as_deref().unwrap_or_default();
        let question_words = question_words(question, source.parse("question"));
        let chars: Vec<char> = context.chars().collect();
        let answers: Vec<Range<usize>> = example
            .answers
            .iter()
            .flatten()
            .filter_map(|a| {
                let start = a.start? as usize;
                Some(start..start + a.text.chars().count())
            })
            .collect();
        let mut per_sentence: Vec<Vec<Vec<Replacement>>> = Vec::new();
        for sentence in &parsed.sentences {
            let (first, last) = (sentence.start as usize, sentence.end as usize);
            if first >= last || last > parsed.tokens.len() {
                continue;
            }
            let span = parsed.tokens[first].start as usize..parsed.tokens[last - 1].end as usize;
            let rewrites = self.sentence_rewrites(&chars, span, &answers, &question_words)?;
            if !rewrites.is_empty() {
                per_sentence.push(rewrites);
            }
        }
        if per_sentence.is_empty() {
            return Ok(Vec::new());
        }
        let seed = self.builder.seed(&example.id, NAME);
        shuffle(&mut per_sentence, seed);
        let config = self.builder.config();
        // Groups of `mrc_sentences` sentences, each group's rewrites the Cartesian product of
        // its sentences' rewrites, sampled; the first group is seeded as a lone group is.
        let mut groups: Vec<(&[Vec<Vec<Replacement>>], usize)> = Vec::new();
        let mut left = config.max_cases_per_source;
        for (g, group) in per_sentence
            .chunks(config.mrc_sentences)
            .take(config.mrc_sentence_groups)
            .enumerate()
        {
            let total: usize = group.iter().map(Vec::len).product();
            let mut picks: Vec<usize> = (0..total).collect();
            shuffle(&mut picks, seed.rotate_left(17) ^ g as u64);
            picks.truncate(left);
            picks.sort_unstable();
            left -= picks.len();
            groups.extend(picks.into_iter().map(|pick| (group, pick)));
            if left == 0 {
                break;
            }
        }
        let expectation = Expectation::SameAnswer {
            metric: config.answer_metric,
            threshold: config.answer_threshold,
        };
        let mut cases = Vec::new();
        for (group, pick) in groups {
            let mut rest = pick;
            let mut replacements = Vec::new();
            for rewrites in group {
                replacements.extend(rewrites[rest % rewrites.len()].iter().cloned());
                rest /= rewrites.len();
            }
            let Some((new_context, edits)) = apply("context", context, replacements.clone()) else {
                continue;
            };
            // The frozen adjuncts keep answers intact; a rewrite that still touches one is
            // dropped rather than given a wrong gold offset.
            let answers = match &example.answers {
                None => None,
                Some(list) => {
                    let Some(moved) = list
                        .iter()
                        .map(|a| moved_answer(a, &replacements))
                        .collect::<Option<Vec<_>>>()
                    else {
                        continue;
                    };
                    Some(moved)
                }
            };
            let mut followup = example.clone();
            followup.id = case_id(&example.id, NAME, cases.len());
            followup.context = Some(new_context);
            followup.answers = answers;
            let mut case = Case::new(FAMILY, NAME, vec![example.clone()], followup, &expectation);
            case.edits = edits;
            case.seed = seed;
            cases.push(case);
        }
        Ok(cases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{pipeline, resources};
    use metamorph_data::Example;

    fn squad(context: &str, question: &str, answer: &str) -> (Example, Vec<ParsedText>) {
        let mut e = Example::new("sq1", Task::Squad);
        e.context = Some(context.into());
        e.question = Some(question.into());
        let start = context.find(answer).unwrap();
        e.answers = Some(vec![Answer {
            text: answer.into(),
            start: Some(context[..start].chars().count() as u32),
        }]);
        let parses = crate::source::parse_examples(
            pipeline(),
            std::slice::from_ref(&e),
            &["context", "question"],
        )
        .unwrap();
        (e, parses)
    }

    #[test]
    fn rewritten_paragraphs_keep_the_answer_and_change_one_word_per_adjunct() {
        let context = "On May 3, downtown Jacksonville was ravaged by a fire that burned a \
                       large market. The old city hall burned to the ground in the late evening.";
        let (example, parses) = squad(context, "What ravaged downtown Jacksonville?", "a fire");
        let relation = ParagraphReconstruction::new(resources()).unwrap();
        let cases = relation
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        assert!(!cases.is_empty());
        assert!(
            cases.len() <= 16,
            "at most 4 rewrites of each of two sentences"
        );
        for case in &cases {
            let new = case.followup.context.as_deref().unwrap();
            assert_ne!(new, context);
            assert_eq!(case.followup.question, example.question);
            let answer = &case.followup.answers.as_ref().unwrap()[0];
            let start = answer.start.unwrap() as usize;
            let found: String = new
                .chars()
                .skip(start)
                .take(answer.text.chars().count())
                .collect();
            assert_eq!(found, "a fire");
            for edit in &case.edits {
                assert_eq!(edit.before.split_whitespace().count(), 1, "{edit:?}");
                // Question words ("ravaged", "downtown", "Jacksonville") never change.
                assert!(!["ravaged", "downtown", "Jacksonville"].contains(&edit.before.as_str()));
            }
            assert_eq!(
                case.expectation().unwrap(),
                Expectation::SameAnswer {
                    metric: metamorph_data::AnswerMetric::ExactMatch,
                    threshold: 1.0
                }
            );
        }
        // Reproducible from the seed.
        let again = relation
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        assert_eq!(again, cases);
    }

    /// With two sentence groups, a question gets cases from both rewritable sentences, each
    /// case rewriting one; the first group's cases are those of the default.
    #[test]
    fn sentence_groups_rewrite_one_sentence_per_case() {
        let context = "On May 3, downtown Jacksonville was ravaged by a fire that burned a \
                       large market. A week later, a flood damaged a large bridge near the river.";
        let (example, parses) = squad(context, "What ravaged downtown Jacksonville?", "a fire");
        let source = Source::new(&example, &parses);
        let one = ParagraphReconstruction::new(resources())
            .unwrap()
            .follow_ups(&source)
            .unwrap();
        let config: crate::PerturbConfig =
            toml::from_str("[nlplego]\nmrc_sentence_groups = 2\n").unwrap();
        let two = ParagraphReconstruction::new(&crate::Resources::from_config(&config))
            .unwrap()
            .follow_ups(&source)
            .unwrap();
        let first_sentence_end = context.find("market.").unwrap() as u32;
        let sentence_of = |case: &Case| {
            let starts: BTreeSet<bool> = case
                .edits
                .iter()
                .map(|e| e.start < first_sentence_end)
                .collect();
            assert_eq!(starts.len(), 1, "one sentence per case: {:?}", case.edits);
            starts.into_iter().next().unwrap()
        };
        let sentences: BTreeSet<bool> = two.iter().map(sentence_of).collect();
        assert_eq!(sentences.len(), 2, "both sentences rewritten: {two:?}");
        assert!(two.len() > one.len());
        let edits = |cases: &[Case]| -> Vec<Vec<metamorph_data::Edit>> {
            cases.iter().map(|c| c.edits.clone()).collect()
        };
        assert_eq!(edits(&two)[..one.len()], edits(&one)[..]);
    }

    #[test]
    fn articles_follow_the_replaced_word() {
        let token = crate::testing::token;
        let tokens: Vec<_> = ["An", "old", "man", "saw", "a", "unique", "bird"]
            .into_iter()
            .map(token)
            .collect();
        assert_eq!(
            article_for(&tokens, &[(1, "former")], 1, "former"),
            Some((0, "A".to_string()))
        );
        assert_eq!(
            article_for(&tokens, &[(5, "only")], 5, "only"),
            Some((4, "an".to_string()))
        );
        assert_eq!(article_for(&tokens, &[(5, "single")], 5, "single"), None);
        assert_eq!(article_for(&tokens, &[(2, "person")], 2, "person"), None);
    }

    #[test]
    fn answers_move_with_earlier_replacements() {
        let answer = Answer {
            text: "fire".into(),
            start: Some(20),
        };
        assert_eq!(moved(&answer, &[Replacement::new(2, 5, "abcde")]), Some(22));
        assert_eq!(moved(&answer, &[Replacement::new(30, 35, "x")]), Some(20));
        assert_eq!(moved(&answer, &[Replacement::new(21, 22, "x")]), None);
    }
}
