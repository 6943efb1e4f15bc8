//! `[generate.question] kind = "edit"`: BPB's *Build* without a trained generator. Each
//! perturbed question is written by the rules of `metamorph_perturb::bpb::build` from the
//! source question (parsed here with the spaCy port), its QDMR and the perturbed QDMR; where
//! the rules offer several renderings, a causal language model picks the most fluent (the
//! highest mean log-probability per token); a perturbation the rules cannot write is dropped
//! and counted by kind and reason ([`EditBuilder::unrendered`]), never emitted as a broken
//! question.
//!
//! Decision: the rules live with the perturbations in `perturb` (they read the same QDMR types
//! and perturbation details); this module is the stage's side: batching the parses, choosing
//! among renderings, counting.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use metamorph_data::{Case, Error, GenerationRequest, Result};
use metamorph_models::CausalLm;
use metamorph_parse::spacy::pipeline::Pipeline;
use metamorph_perturb::bpb::build::{build_question, BuildInput, Unrendered, Wording};
use metamorph_perturb::bpb::{PerturbationKind, Qdmr};
use metamorph_perturb::lexicon::inflect::Inflections;
use metamorph_perturb::lexicon::wordnet::WordNet;

/// The rule-based question builder (see the module docs).
pub struct EditBuilder {
    parser: Arc<Pipeline>,
    lm: Option<Arc<CausalLm>>,
    /// lemminflect's tables, for BREAK's wording made English (`None`: the steps' own words).
    inflections: Option<Arc<Inflections>>,
    /// WordNet: "Who" for nouns of people, misspelt steps declined.
    wordnet: Option<Arc<WordNet>>,
    /// (perturbation, reason) → perturbations not written.
    unrendered: Mutex<BTreeMap<(String, String), usize>>,
    /// perturbation → questions written.
    rendered: Mutex<BTreeMap<String, usize>>,
}

impl EditBuilder {
    /// A builder parsing with `parser`, choosing among renderings with `lm` (else the rules'
    /// first).
    pub fn new(parser: Arc<Pipeline>, lm: Option<Arc<CausalLm>>) -> Self {
        EditBuilder {
            parser,
            lm,
            inflections: None,
            wordnet: None,
            unrendered: Mutex::new(BTreeMap::new()),
            rendered: Mutex::new(BTreeMap::new()),
        }
    }

    /// The builder with `inflections` to write BREAK's step wording as English (past tense for
    /// "did V", agreement, do-support, dates and ages compared as English does; see
    /// `metamorph_perturb::bpb::build::wording`).
    pub fn with_inflections(mut self, inflections: Arc<Inflections>) -> Self {
        self.inflections = Some(inflections);
        self
    }

    /// The builder with WordNet: "Who" for every noun of people it knows, and a step carrying a
    /// word that is no English word (a misspelling) not written.
    pub fn with_wordnet(mut self, wordnet: Arc<WordNet>) -> Self {
        self.wordnet = Some(wordnet);
        self
    }

    /// Per (perturbation, reason): how many perturbations were not written.
    pub fn unrendered(&self) -> BTreeMap<(String, String), usize> {
        self.unrendered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Per perturbation: how many questions were written.
    pub fn rendered(&self) -> BTreeMap<String, usize> {
        self.rendered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The question of each case's question request (`None`: not written, counted).
    ///
    /// # Errors
    /// [`Error::Schema`] for a case whose request or source lacks what the rules read (the
    /// source question, the decompositions, a perturbation name this builder does not know);
    /// parser and language-model errors.
    pub fn build(&self, cases: &[&Case]) -> Result<Vec<Option<String>>> {
        let mut inputs = Vec::with_capacity(cases.len());
        for case in cases {
            inputs.push(Prepared::from_case(case)?);
        }
        let texts: Vec<&str> = inputs.iter().map(|p| p.question.as_str()).collect();
        let docs = self.parser.process(&texts).map_err(|e| Error::Model {
            model: self.parser.name().to_string(),
            message: format!("parsing source questions: {e}"),
        })?;
        let mut out = Vec::with_capacity(cases.len());
        for (prepared, doc) in inputs.iter().zip(&docs) {
            let input = BuildInput {
                question: &prepared.question,
                parse: Some(doc),
                original: &prepared.original,
                perturbed: &prepared.perturbed,
                kind: prepared.kind,
                detail: &prepared.detail,
                wording: self.inflections.as_deref().map(|inflections| Wording {
                    parser: &self.parser,
                    inflections,
                    wordnet: self.wordnet.as_deref(),
                }),
            };
            match build_question(&input) {
                Ok(candidates) => {
                    let chosen = self.choose(candidates)?;
                    *self
                        .rendered
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .entry(prepared.kind.name().to_string())
                        .or_default() += 1;
                    out.push(Some(chosen));
                }
                Err(Unrendered { reason }) => {
                    *self
                        .unrendered
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .entry((prepared.kind.name().to_string(), reason))
                        .or_default() += 1;
                    out.push(None);
                }
            }
        }
        Ok(out)
    }

    /// The most fluent of `candidates` (at least one) by the language model (mean
    /// log-probability per token), else the first.
    ///
    /// # Errors
    /// Language-model errors.
    pub fn choose(&self, mut candidates: Vec<String>) -> Result<String> {
        let (Some(lm), true) = (&self.lm, candidates.len() > 1) else {
            return Ok(candidates.swap_remove(0));
        };
        let ids = candidates
            .iter()
            .map(|c| lm.with_start(c))
            .collect::<Result<Vec<_>>>()?;
        let scores = lm.score(&ids)?;
        let mean = |s: &Vec<f32>| s.iter().sum::<f32>() / s.len().max(1) as f32;
        let best = scores
            .iter()
            .enumerate()
            .max_by(|a, b| mean(a.1).total_cmp(&mean(b.1)))
            .map_or(0, |(i, _)| i);
        Ok(candidates.swap_remove(best))
    }
}

/// What the rules read from one case.
struct Prepared {
    question: String,
    original: Qdmr,
    perturbed: Qdmr,
    kind: PerturbationKind,
    detail: String,
}

impl Prepared {
    fn from_case(case: &Case) -> Result<Prepared> {
        let bad = |message: String| Error::Schema {
            context: format!("case `{}`", case.case_id),
            message,
        };
        let Some(GenerationRequest::Question {
            steps,
            original,
            detail,
            ..
        }) = case.generation()?
        else {
            return Err(bad("not a question request".into()));
        };
        let source = case
            .sources
            .first()
            .ok_or_else(|| bad("no source example".into()))?;
        let question = source
            .question
            .clone()
            .filter(|q| !q.trim().is_empty())
            .ok_or_else(|| bad("the source has no question to edit".into()))?;
        let original = original.or_else(|| source.steps.clone()).ok_or_else(|| {
            bad(
                "the request carries no original decomposition (written by an older \
                 version: run perturb again)"
                    .into(),
            )
        })?;
        let kind = PerturbationKind::ALL
            .into_iter()
            .find(|k| k.name() == case.mr)
            .ok_or_else(|| {
                bad(format!(
                    "`{}` is not a BPB perturbation: the edit builder writes only BPB's questions",
                    case.mr
                ))
            })?;
        let qdmr = |steps: &[String], which: &str| {
            Qdmr::from_texts(steps).map_err(|e| bad(format!("{which} decomposition: {e}")))
        };
        Ok(Prepared {
            question,
            original: qdmr(&original, "the original")?,
            perturbed: qdmr(&steps, "the perturbed")?,
            kind,
            detail: detail.unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::{Example, Expectation, Task};

    fn case(mr: &str, question: &str, original: &[&str], steps: &[&str], detail: &str) -> Case {
        let mut source = Example::new("d", Task::Drop);
        source.question = Some(question.into());
        let followup = Example {
            id: format!("d:{mr}:0"),
            ..source.clone()
        };
        let owned = |s: &[&str]| s.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        Case::new("bpb", mr, vec![source], followup, &Expectation::Equal).with_generation(
            &GenerationRequest::Question {
                steps: owned(steps),
                field: "question".into(),
                original: Some(owned(original)),
                detail: Some(detail.into()),
            },
        )
    }

    #[test]
    fn questions_are_written_or_counted_as_unwritten() {
        let dir = metamorph_data::assets::ensure("en_core_web_sm").expect("en_core_web_sm");
        let builder = EditBuilder::new(Arc::new(Pipeline::load(&dir).unwrap()), None);
        let original = ["field goals", "#1 kicked by Nugent", "number of #2"];
        let mut appended = original.to_vec();
        appended.push("if #3 is higher than 2");
        let cases = [
            case(
                "AppendBool",
                "How many field goals did Nugent kick?",
                &original,
                &appended,
                "higher-than:2",
            ),
            // Not a how-many question: not written.
            case(
                "AppendBool",
                "Who kicked the field goals?",
                &original,
                &appended,
                "higher-than:2",
            ),
        ];
        let refs: Vec<&Case> = cases.iter().collect();
        let built = builder.build(&refs).unwrap();
        assert_eq!(
            built,
            [
                Some("Did Nugent kick more than 2 field goals?".to_string()),
                None
            ]
        );
        assert_eq!(builder.rendered()["AppendBool"], 1);
        assert_eq!(
            builder.unrendered()[&(
                "AppendBool".to_string(),
                "not a how-many question".to_string()
            )],
            1
        );
        // A case of another family is an error naming it.
        let other = case("MR1-3", "How many?", &original, &original, "");
        let e = builder.build(&[&other]).unwrap_err().to_string();
        assert!(e.contains("`MR1-3` is not a BPB perturbation"), "{e}");
    }
}
