//! Break-Perturb-Build as metamorphic relations: one contrast set per reading-comprehension
//! question that has a QDMR decomposition.
//!
//! For a source (a DROP or SQuAD example with its context, question and gold answer) the family
//! emits the `ORIG` case — the question itself, expected to get its gold answer — and one case
//! per perturbation of its QDMR (relations `AppendBool`, `ChangeLast`, `ReplaceArith`,
//! `ReplaceBool`, `ReplaceComp`, `PruneStep`). A perturbation's follow-up keeps the context,
//! carries the perturbed QDMR in `steps` and asks the `generate` stage to write its question
//! (a [`GenerationRequest::Question`], BPB's *Build*); its expectation is the answer the
//! perturbation's rule computes from the gold answer, else its answer constraint
//! ([`Expectation::Answer`], judged with F1 ≥ `min_f1`, BPB's 0.8). The judge's consistency
//! metric groups the cases of a source into its contrast set.
//!
//! Decisions:
//! * **Where the QDMR comes from**: the example's own `steps` (e.g. filled by the generate
//!   stage's *Break* with `example_steps`), else a BREAK file (`[perturb.bpb] decompositions`)
//!   looked up by the question's text (lower-cased, whitespace collapsed), since BREAK's ids
//!   and the QA datasets' ids differ. Without either the source yields nothing, so the family
//!   is silent in runs that do not configure it.
//! * **The evaluator's QA model**: perturbations whose answer rule is
//!   [`AnswerRule::Evaluate`] are answered by the step-by-step evaluator when the resources
//!   carry a single-step QA model ([`Resources::with_step_qa`]; `cargo xtask pipeline` passes
//!   the `[[execute.models]]` entry `[perturb.bpb] step_qa_model` names), bound to the source's
//!   unchanged context. Without one, or when the evaluator finds no answer, they fall back to
//!   their constraint, and are skipped when they have none. ReplaceArith's pair rule reads the
//!   context's numbers; ReplaceComp's takes the comparison's two candidates from the QDMR (each
//!   compared reference followed back to its `select` step).
//! * The lookup file is read when the relation is built (once per stage).
//!

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use metamorph_data::{
    Case, DatasetFormat, DatasetReader, Example, Expectation, GenerationRequest, ReadOptions,
    Result, Task,
};
use serde::Deserialize;

use super::answer::{other_candidate, replace_arith_answer, AnswerRule};
use super::evaluator::{evaluate, BoundContext, ContextQa};
use super::perturbation::{perturb, BpbConfig, Dataset, PerturbInput, PerturbationKind, Variant};
use super::qdmr::Qdmr;
use super::FAMILY;
use crate::{case_id, source_seed, MetamorphicRelation, Resources, Source};

/// The name of the identity relation: the original question with its gold answer.
pub const ORIG: &str = "ORIG";

/// The `[perturb.bpb]` table.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BpbRelationConfig {
    /// A BREAK csv whose decompositions are looked up by question text (relative paths are
    /// taken from the config file's folder by `cargo xtask pipeline`).
    pub decompositions: Option<PathBuf>,
    /// The least F1 with the expected answer that counts as right (BPB: 0.8).
    pub min_f1: f32,
    /// `paper` (default) or `code`: whose rules every configurable perturbation follows.
    pub variant: String,
    /// At most this many AppendBool perturbations per QDMR, a seeded sample (the authors'
    /// `--limit_append_boolean_step_per_qdmr`); default: all.
    pub append_bool_limit: Option<usize>,
    /// The `[[execute.models]]` entry (by name, an extractive QA model) that answers the
    /// evaluator's single-step questions (`cargo xtask pipeline` passes it in); without one,
    /// answers that need the evaluator fall back to constraints.
    pub step_qa_model: Option<String>,
}

impl Default for BpbRelationConfig {
    fn default() -> Self {
        BpbRelationConfig {
            decompositions: None,
            min_f1: 0.8,
            variant: "paper".into(),
            append_bool_limit: None,
            step_qa_model: None,
        }
    }
}

/// The numbers of a context (digits with `,` separators and a decimal point), for
/// ReplaceArith's pair rule.
fn context_numbers(context: &str) -> Vec<f64> {
    context
        .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .map(|t| t.trim_matches(|c| c == '.' || c == ',').replace(',', ""))
        .filter(|t| !t.is_empty())
        .filter_map(|t| t.parse::<f64>().ok())
        .collect()
}

/// An answer number as text: whole numbers without a fraction.
fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// The two candidates a final comparison step compares: each reference followed back through
/// its first reference to a step without one (a `select`), whose text is the candidate
/// ("return the Danube" → "the Danube").
fn comparison_candidates(qdmr: &Qdmr) -> Option<(String, String)> {
    let refs = qdmr.last().references();
    let [a, b] = refs.as_slice() else {
        return None;
    };
    let root = |mut k: usize| -> Option<String> {
        for _ in 0..qdmr.len() {
            let step = qdmr.step(k)?;
            match step.references().first() {
                Some(&next) if next < k => k = next,
                Some(_) => return None,
                None => {
                    let text = step.text();
                    return Some(
                        text.strip_prefix("return ")
                            .unwrap_or(&text)
                            .trim()
                            .to_string(),
                    );
                }
            }
        }
        None
    };
    Some((root(*a)?, root(*b)?))
}

/// Question text as the lookup keys it.
fn lookup_key(question: &str) -> String {
    question
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// One BPB relation: `ORIG` (`kind` none) or one perturbation.
pub struct ContrastSetRelation {
    kind: Option<PerturbationKind>,
    step_qa: Option<Arc<dyn ContextQa>>,
    decompositions: Arc<HashMap<String, Vec<String>>>,
    config: BpbConfig,
    min_f1: f32,
    base_seed: u64,
}

impl ContrastSetRelation {
    /// The relation for `kind` (`None`: `ORIG`) under `[perturb.bpb]`.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Config`] for a bad variant or threshold; reading errors of the
    /// decompositions file, naming it.
    pub fn new(resources: &Resources, kind: Option<PerturbationKind>) -> Result<Self> {
        let table = resources.bpb_config();
        let variant = match table.variant.as_str() {
            "paper" => Variant::Paper,
            "code" => Variant::Code,
            other => {
                return Err(metamorph_data::Error::Config(format!(
                    "[perturb.bpb] variant: expected \"paper\" or \"code\", found {other:?}"
                )))
            }
        };
        if !(0.0..=1.0).contains(&table.min_f1) {
            return Err(metamorph_data::Error::Config(format!(
                "[perturb.bpb] min_f1 must be in [0, 1], found {}",
                table.min_f1
            )));
        }
        let mut decompositions = HashMap::new();
        if let Some(path) = &table.decompositions {
            let reader = DatasetReader::open(path, DatasetFormat::Break, ReadOptions::default())?;
            for example in reader.examples() {
                let example = example?;
                if let (Some(q), Some(steps)) = (&example.question, example.steps) {
                    decompositions.insert(lookup_key(q), steps);
                }
            }
        }
        Ok(ContrastSetRelation {
            kind,
            step_qa: resources.step_qa(),
            decompositions: Arc::new(decompositions),
            config: BpbConfig {
                append_bool: variant,
                change_last: variant,
                replace_arith: variant,
                replace_bool: variant,
                replace_comp: variant,
                prune_step: variant,
                append_bool_limit: table.append_bool_limit,
            },
            min_f1: table.min_f1,
            base_seed: resources.seed(),
        })
    }

    /// The source's QDMR steps: its own, else the looked-up ones.
    fn steps(&self, example: &Example) -> Option<Vec<String>> {
        example.steps.clone().or_else(|| {
            let question = example.question.as_deref()?;
            self.decompositions.get(&lookup_key(question)).cloned()
        })
    }
}

impl std::fmt::Debug for ContrastSetRelation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContrastSetRelation")
            .field("kind", &self.kind)
            .field("step_qa", &self.step_qa.is_some())
            .finish_non_exhaustive()
    }
}

impl MetamorphicRelation for ContrastSetRelation {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        self.kind.map_or(ORIG, PerturbationKind::name)
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::Drop, Task::Squad]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let ex = source.example;
        let gold = ex
            .answers
            .as_ref()
            .and_then(|a| a.first())
            .map(|a| a.text.trim().to_string())
            .filter(|t| !t.is_empty());
        let (Some(gold), Some(_), Some(_)) = (gold, &ex.question, &ex.context) else {
            return Ok(Vec::new());
        };
        let Some(steps) = self.steps(ex) else {
            return Ok(Vec::new());
        };
        let Ok(qdmr) = Qdmr::from_texts(&steps) else {
            return Ok(Vec::new());
        };
        let name = self.name();
        let seed = source_seed(self.base_seed, &ex.id, name);
        let Some(kind) = self.kind else {
            let mut followup = ex.clone();
            followup.id = case_id(&ex.id, name, 0);
            followup.steps = Some(steps);
            let expectation = Expectation::Answer {
                value: Some(gold.clone()),
                constraint: None,
                original: gold,
                min_f1: self.min_f1,
            };
            let case = Case::new(FAMILY, name, vec![ex.clone()], followup, &expectation);
            return Ok(vec![case.with_seed(seed)]);
        };
        let input = PerturbInput {
            answer: Some(&gold),
            dataset: if ex.task == Task::Drop {
                Dataset::Drop
            } else {
                Dataset::Other
            },
            seed,
        };
        let mut cases = Vec::new();
        for p in perturb(&qdmr, &input, &self.config)
            .into_iter()
            .filter(|p| p.kind == kind)
        {
            let mut value = p.answer.from_original(&gold).or_else(|| match p.answer {
                // ReplaceArith sum ↔ difference: the unique pair of context numbers.
                AnswerRule::FlipArithmetic { from, to } => {
                    let numbers = context_numbers(ex.context.as_deref().unwrap_or(""));
                    replace_arith_answer(&gold, &numbers, from, to)
                        .ok()
                        .map(format_number)
                }
                // ReplaceComp: the other of the comparison's two candidates.
                AnswerRule::OtherCandidate => comparison_candidates(&qdmr)
                    .and_then(|(x, y)| other_candidate((&x, &y), &gold).map(str::to_string)),
                _ => None,
            });
            if value.is_none() && matches!(p.answer, AnswerRule::Evaluate) {
                if let (Some(qa), Some(context)) = (&self.step_qa, ex.context.as_deref()) {
                    let bound = BoundContext {
                        qa: qa.as_ref(),
                        context,
                    };
                    value = evaluate(&p.qdmr, &bound)?.ok().map(|v| v.to_string());
                }
            }
            if value.is_none() && p.constraint.is_none() {
                continue;
            }
            let perturbed = p.qdmr.texts();
            let mut followup = ex.clone();
            followup.id = case_id(&ex.id, name, cases.len());
            followup.steps = Some(perturbed.clone());
            followup.operators = None;
            followup.answers = None;
            let expectation = Expectation::Answer {
                value,
                constraint: p.constraint,
                original: gold.clone(),
                min_f1: self.min_f1,
            };
            let request = GenerationRequest::Question {
                steps: perturbed,
                field: "question".into(),
                original: Some(qdmr.texts()),
                detail: Some(p.detail.clone()),
            };
            cases.push(
                Case::new(FAMILY, name, vec![ex.clone()], followup, &expectation)
                    .with_generation(&request)
                    .with_seed(seed),
            );
        }
        Ok(cases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::answer_value::Constraint;
    use metamorph_data::Answer;

    fn resources(decompositions: Option<PathBuf>) -> Resources {
        let config = crate::PerturbConfig {
            bpb: BpbRelationConfig {
                decompositions,
                ..BpbRelationConfig::default()
            },
            ..crate::PerturbConfig::default()
        };
        Resources::from_config(&config)
    }

    fn drop_example(question: &str, answer: &str) -> Example {
        let mut ex = Example::new("nfl-1", Task::Drop);
        ex.context = Some("Mason Crosby kicked field goals of 40 and 27 yards.".into());
        ex.question = Some(question.into());
        ex.answers = Some(vec![Answer {
            text: answer.into(),
            start: None,
        }]);
        ex
    }

    fn bundled_break() -> PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/samples/break.csv")
    }

    #[test]
    fn a_contrast_set_from_a_looked_up_decomposition() {
        let r = resources(Some(bundled_break()));
        // BREAK's SAMPLE_dev_1, asked with other spacing and case.
        let ex = drop_example("how many field goals  did Mason Crosby kick?", "2");
        let orig = ContrastSetRelation::new(&r, None).unwrap();
        let cases = orig.follow_ups(&Source::unparsed(&ex)).unwrap();
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].followup.question, ex.question);
        assert_eq!(cases[0].generation().unwrap(), None);
        assert_eq!(
            cases[0].expectation().unwrap(),
            Expectation::Answer {
                value: Some("2".into()),
                constraint: None,
                original: "2".into(),
                min_f1: 0.8
            }
        );
        // AppendBool: "if #3 is higher than …" with the answer computed from 2.
        let append = ContrastSetRelation::new(&r, Some(PerturbationKind::AppendBool)).unwrap();
        let cases = append.follow_ups(&Source::unparsed(&ex)).unwrap();
        assert!(!cases.is_empty());
        for case in &cases {
            case.validate().unwrap();
            let steps = case.followup.steps.clone().unwrap();
            assert_eq!(steps.len(), 4, "{steps:?}");
            match case.generation().unwrap() {
                Some(GenerationRequest::Question {
                    steps: s, field, ..
                }) => {
                    assert_eq!((s, field.as_str()), (steps, "question"));
                }
                other => panic!("{other:?}"),
            }
            let Expectation::Answer { value, .. } = case.expectation().unwrap() else {
                panic!("not an answer expectation");
            };
            assert!(matches!(value.as_deref(), Some("yes" | "no")), "{value:?}");
        }
    }

    #[test]
    fn change_last_falls_back_to_its_constraint() {
        let r = resources(Some(bundled_break()));
        // SAMPLE_dev_3: the last step is an arithmetic difference.
        let ex = drop_example(
            "How many yards longer was Crosby's longest field goal than his shortest?",
            "13",
        );
        let change = ContrastSetRelation::new(&r, Some(PerturbationKind::ChangeLast)).unwrap();
        let cases = change.follow_ups(&Source::unparsed(&ex)).unwrap();
        assert!(!cases.is_empty());
        for case in cases {
            let Expectation::Answer {
                value, constraint, ..
            } = case.expectation().unwrap()
            else {
                panic!("not an answer expectation");
            };
            assert!(
                value.is_some()
                    || matches!(constraint, Some(Constraint::Numeric | Constraint::Boolean))
            );
        }
    }

    /// A context QA model that answers every question with one span and records the questions.
    struct Scripted(std::sync::Mutex<Vec<(String, String)>>);

    impl ContextQa for Scripted {
        fn answer(&self, context: &str, question: &str) -> Result<Option<String>> {
            let mut asked = self.0.lock().unwrap();
            asked.push((context.to_string(), question.to_string()));
            Ok(Some("40 yards".into()))
        }
    }

    #[test]
    fn evaluate_rules_use_the_step_qa_model_on_the_unchanged_context() {
        let ex = drop_example("How many field goals did Mason Crosby kick?", "2");
        let without = resources(Some(bundled_break()));
        let prune = ContrastSetRelation::new(&without, Some(PerturbationKind::PruneStep)).unwrap();
        assert!(prune.follow_ups(&Source::unparsed(&ex)).unwrap().is_empty());

        let qa = Arc::new(Scripted(std::sync::Mutex::new(Vec::new())));
        let with = without.with_step_qa(qa.clone());
        let prune = ContrastSetRelation::new(&with, Some(PerturbationKind::PruneStep)).unwrap();
        let cases = prune.follow_ups(&Source::unparsed(&ex)).unwrap();
        assert!(
            !cases.is_empty(),
            "PruneStep of a filter step is answered by the evaluator"
        );
        for case in &cases {
            let Expectation::Answer { value, .. } = case.expectation().unwrap() else {
                panic!("not an answer expectation");
            };
            assert!(value.is_some(), "{}", case.case_id);
        }
        let asked = qa.0.lock().unwrap();
        assert!(!asked.is_empty());
        assert!(asked
            .iter()
            .all(|(c, _)| Some(c.as_str()) == ex.context.as_deref()));
    }

    #[test]
    fn replace_comp_answers_with_the_other_candidate() {
        let r = resources(Some(bundled_break()));
        // SAMPLE_dev_4: "which is highest of #3 and #4" over the Danube and the Rhine.
        let mut ex = drop_example(
            "Which river is longer, the Danube or the Rhine?",
            "the Danube",
        );
        ex.context = Some("The Danube is 2,850 km long; the Rhine is 1,230 km long.".into());
        let comp = ContrastSetRelation::new(&r, Some(PerturbationKind::ReplaceComp)).unwrap();
        let cases = comp.follow_ups(&Source::unparsed(&ex)).unwrap();
        assert_eq!(cases.len(), 1);
        let Expectation::Answer { value, .. } = cases[0].expectation().unwrap() else {
            panic!("not an answer expectation");
        };
        assert_eq!(value.as_deref(), Some("the Rhine"));
        assert_eq!(
            context_numbers("The Danube is 2,850 km, the Rhine 1,230.5."),
            [2850.0, 1230.5]
        );
    }

    #[test]
    fn sources_without_qdmr_answer_or_context_yield_nothing() {
        let r = resources(None);
        let orig = ContrastSetRelation::new(&r, None).unwrap();
        let ex = drop_example("How many field goals did Mason Crosby kick?", "2");
        assert!(orig.follow_ups(&Source::unparsed(&ex)).unwrap().is_empty());
        let mut with_steps = ex.clone();
        with_steps.steps = Some(vec![
            "return field goals".into(),
            "return number of #1".into(),
        ]);
        assert_eq!(
            orig.follow_ups(&Source::unparsed(&with_steps))
                .unwrap()
                .len(),
            1
        );
        with_steps.answers = None;
        assert!(orig
            .follow_ups(&Source::unparsed(&with_steps))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn bad_settings_are_config_errors() {
        let mut config = crate::PerturbConfig::default();
        config.bpb.variant = "fast".into();
        let err = ContrastSetRelation::new(&Resources::from_config(&config), None).unwrap_err();
        assert!(err.to_string().contains("variant"), "{err}");
        let mut config = crate::PerturbConfig::default();
        config.bpb.decompositions = Some("/nonexistent/break.csv".into());
        let err = ContrastSetRelation::new(&Resources::from_config(&config), None).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/break.csv"), "{err}");
    }
}
