//! The JSONL subprocess protocol.
//!
//! metamorph starts the model program once and keeps it running. For each batch it writes one
//! request per line to the program's stdin and flushes, then reads one response per request from
//! its stdout, matched by `id` (any order). Anything the program prints on stderr is logged.
//!
//! Request (fields that the example lacks are omitted):
//! ```json
//! {"id": "boolq-3:MR1-3:0", "task": "boolq", "context": "…", "question": "…"}
//! ```
//! Other tasks add `text`, `text_b`, `title`, `tokens`, `head`, `tail` as in the `example`
//! record.
//!
//! Response, one of:
//! ```json
//! {"id": "…", "label": "yes", "probabilities": {"yes": 0.91, "no": 0.09}}
//! {"id": "…", "answer": {"text": "the Volga", "start": 52}}
//! {"id": "…", "generated": "return …"}
//! {"id": "…", "clusters": [[[0, 12], [67, 70]], [[25, 40]]]}
//! {"id": "…", "error": "what went wrong"}
//! ```
//! `clusters` (coreference) lists the predicted entities, each as its mentions' `[start, end)`
//! character offsets (Unicode scalar values, as Python indexes strings) into the request's
//! `text`; singleton clusters may be given or left out (links are judged, see
//! `judge/src/coref_links.rs`).
//! For BoolQ the label may be `yes`/`no`, `true`/`false` or `1`/`0` (any case) and is normalised
//! to `yes`/`no`.

use std::collections::{BTreeMap, HashMap};

use metamorph_data::{AnswerSpan, CharSpan, EntitySpan, Example, LabelProb, Prediction, Task};
use serde::{Deserialize, Serialize};

/// One request line.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub struct Request<'a> {
    /// The example id; the response must carry it back.
    pub id: &'a str,
    /// The task.
    pub task: Task,
    /// Title of the passage's page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    /// Passage.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<&'a str>,
    /// Question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<&'a str>,
    /// Single text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
    /// Second text of a pair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_b: Option<&'a str>,
    /// Tokens (relation extraction).
    #[serde(skip_serializing_if = "Option::is_none", borrow)]
    pub tokens: Option<Vec<&'a str>>,
    /// Relation head.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<EntitySpan>,
    /// Relation tail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tail: Option<EntitySpan>,
}

impl<'a> Request<'a> {
    /// The request for an example.
    pub fn from_example(example: &'a Example) -> Self {
        Request {
            id: &example.id,
            task: example.task,
            title: example.title.as_deref(),
            context: example.context.as_deref(),
            question: example.question.as_deref(),
            text: example.text.as_deref(),
            text_b: example.text_b.as_deref(),
            tokens: example
                .tokens
                .as_ref()
                .map(|t| t.iter().map(String::as_str).collect()),
            head: example.head.clone(),
            tail: example.tail.clone(),
        }
    }
}

/// One response line.
#[derive(Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Response {
    /// The request's id.
    pub id: String,
    /// Predicted label.
    #[serde(default)]
    pub label: Option<serde_json::Value>,
    /// Label probabilities.
    #[serde(default)]
    pub probabilities: Option<BTreeMap<String, f32>>,
    /// Predicted answer: an object `{text, start?, end?, score?}` or a plain string.
    #[serde(default)]
    pub answer: Option<AnswerField>,
    /// Generated text.
    #[serde(default)]
    pub generated: Option<String>,
    /// Coreference clusters: mentions as `[start, end)` character offsets into `text`.
    #[serde(default)]
    pub clusters: Option<Vec<Vec<[u32; 2]>>>,
    /// The model's own error for this request.
    #[serde(default)]
    pub error: Option<String>,
}

/// An answer given as an object or as bare text.
#[derive(Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum AnswerField {
    /// `{"text": …, "start": …}`.
    Span {
        /// Answer text.
        text: String,
        /// Character offset in the context.
        #[serde(default)]
        start: Option<u32>,
        /// Character offset one past the end.
        #[serde(default)]
        end: Option<u32>,
        /// Score.
        #[serde(default)]
        score: Option<f32>,
    },
    /// `"the Volga"`.
    Text(String),
}

/// How far the probabilities of a response may sum from 1 (float rounding in the model's
/// softmax and in JSON).
pub const PROBABILITY_SUM_TOLERANCE: f64 = 1e-3;

/// Checks that `probs` is a distribution: every probability finite and in [0, 1], the sum 1
/// within [`PROBABILITY_SUM_TOLERANCE`]. Judge compares them across source and follow-up, so a
/// logit or a percentage passed off as a probability would give wrong verdicts silently.
fn check_distribution(probs: &[LabelProb]) -> Result<(), String> {
    if let Some(p) = probs
        .iter()
        .find(|p| !p.prob.is_finite() || !(0.0..=1.0).contains(&p.prob))
    {
        return Err(format!(
            "the probability of {:?} is {}, not a number in [0, 1]",
            p.label, p.prob
        ));
    }
    let sum: f64 = probs.iter().map(|p| f64::from(p.prob)).sum();
    if !probs.is_empty() && (sum - 1.0).abs() > PROBABILITY_SUM_TOLERANCE {
        return Err(format!(
            "the probabilities sum to {sum:.6}, not 1 (give every label's probability, \
             softmax-normalised)"
        ));
    }
    Ok(())
}

/// Turns a response into a prediction for `task`, or says what is wrong with it.
///
/// # Errors
/// A message naming the field: the model's own `error`, an unknown BoolQ label, or a response
/// with no output at all.
pub fn to_prediction(
    response: Response,
    task: Task,
    model: &str,
    latency_ms: f32,
) -> Result<Prediction, String> {
    if let Some(error) = response.error {
        return Err(format!(
            "the model reported an error for `{}`: {error}",
            response.id
        ));
    }
    let label = match response.label {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) => Some(s),
        Some(serde_json::Value::Bool(b)) => Some(b.to_string()),
        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
        Some(other) => {
            return Err(format!(
                "field `label` of `{}`: expected a string, found {other}",
                response.id
            ))
        }
    };
    let label = match (task, label) {
        (Task::BoolQ, Some(l)) => Some(normalise_yes_no(&l).ok_or_else(|| {
            format!("field `label` of `{}`: unknown BoolQ label {l:?} (expected yes/no, true/false or 1/0)", response.id)
        })?),
        (_, l) => l,
    };
    let mut probabilities: Option<Vec<LabelProb>> = response.probabilities.map(|p| {
        p.into_iter()
            .map(|(label, prob)| LabelProb { label, prob })
            .collect()
    });
    if task == Task::BoolQ {
        if let Some(probs) = probabilities.as_mut() {
            for p in probs.iter_mut() {
                p.label = normalise_yes_no(&p.label).ok_or_else(|| {
                    format!(
                        "field `probabilities` of `{}`: unknown BoolQ label {:?}",
                        response.id, p.label
                    )
                })?;
            }
        }
    }
    if let Some(probs) = &probabilities {
        check_distribution(probs)
            .map_err(|e| format!("field `probabilities` of `{}`: {e}", response.id))?;
    }
    let answer = response.answer.map(|a| match a {
        AnswerField::Span {
            text,
            start,
            end,
            score,
        } => AnswerSpan {
            text,
            start,
            end,
            score,
        },
        AnswerField::Text(text) => AnswerSpan {
            text,
            start: None,
            end: None,
            score: None,
        },
    });
    let clusters = match response.clusters {
        Some(clusters) => Some(
            clusters
                .into_iter()
                .enumerate()
                .map(|(c, mentions)| {
                    mentions
                        .into_iter()
                        .map(|[start, end]| {
                            if start < end {
                                Ok(CharSpan { start, end })
                            } else {
                                Err(format!(
                                    "field `clusters` of `{}`: mention [{start}, {end}] of \
                                     cluster {c} is empty or reversed",
                                    response.id
                                ))
                            }
                        })
                        .collect::<Result<Vec<_>, String>>()
                })
                .collect::<Result<Vec<_>, String>>()?,
        ),
        None => None,
    };
    if label.is_none() && answer.is_none() && response.generated.is_none() && clusters.is_none() {
        return Err(format!(
            "response for `{}` has no `label`, `answer`, `generated` or `clusters` field",
            response.id
        ));
    }
    Ok(Prediction {
        example_id: response.id,
        model: model.to_string(),
        task,
        label,
        probabilities,
        answer,
        clusters,
        generated: response.generated,
        latency_ms,
    })
}

/// A batch's responses matched to its requests by `id`: each request answered once, no unknown
/// id; the responses may come in any order. Shared by the subprocess and HTTP adapters.
pub struct BatchAnswers<'b> {
    batch: &'b [&'b Example],
    model: &'b str,
    index: HashMap<&'b str, usize>,
    predictions: Vec<Option<Prediction>>,
    missing: usize,
}

impl<'b> BatchAnswers<'b> {
    /// Expects one response per example of `batch`, for the model called `model`.
    ///
    /// # Errors
    /// A message naming an id that occurs twice in the batch.
    pub fn new(model: &'b str, batch: &'b [&'b Example]) -> Result<Self, String> {
        let mut index = HashMap::with_capacity(batch.len());
        for (i, example) in batch.iter().enumerate() {
            if index.insert(example.id.as_str(), i).is_some() {
                return Err(format!("duplicate id `{}` in one batch", example.id));
            }
        }
        Ok(BatchAnswers {
            batch,
            model,
            index,
            predictions: vec![None; batch.len()],
            missing: batch.len(),
        })
    }

    /// How many requests are still unanswered.
    pub fn missing(&self) -> usize {
        self.missing
    }

    /// Takes one response.
    ///
    /// # Errors
    /// A message for an unknown id, an id answered twice, or a response [`to_prediction`]
    /// refuses.
    pub fn accept(&mut self, response: Response) -> Result<(), String> {
        let Some(&i) = self.index.get(response.id.as_str()) else {
            return Err(format!("answered unknown id `{}`", response.id));
        };
        if self.predictions[i].is_some() {
            return Err(format!("answered id `{}` twice", response.id));
        }
        self.predictions[i] = Some(to_prediction(
            response,
            self.batch[i].task,
            self.model,
            0.0,
        )?);
        self.missing -= 1;
        Ok(())
    }

    /// The predictions in the batch's order, each with `latency_ms`.
    ///
    /// # Errors
    /// A message naming the first unanswered ids.
    pub fn finish(self, latency_ms: f32) -> Result<Vec<Prediction>, String> {
        if self.missing > 0 {
            let unanswered: Vec<String> = self
                .batch
                .iter()
                .zip(&self.predictions)
                .filter(|(_, p)| p.is_none())
                .take(5)
                .map(|(e, _)| format!("`{}`", e.id))
                .collect();
            return Err(format!(
                "{} of {} requests unanswered ({}{})",
                self.missing,
                self.batch.len(),
                unanswered.join(", "),
                if self.missing > unanswered.len() {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        Ok(self
            .predictions
            .into_iter()
            .flatten()
            .map(|mut p| {
                p.latency_ms = latency_ms;
                p
            })
            .collect())
    }
}

fn normalise_yes_no(label: &str) -> Option<String> {
    match label.trim().to_ascii_lowercase().as_str() {
        "yes" | "true" | "1" => Some("yes".into()),
        "no" | "false" | "0" => Some("no".into()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(json: &str) -> Response {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn boolq_labels_are_normalised() {
        for raw in [r#""Yes""#, "true", r#""TRUE""#, "1"] {
            let r = response(&format!(r#"{{"id": "a", "label": {raw}}}"#));
            assert_eq!(
                to_prediction(r, Task::BoolQ, "m", 1.0)
                    .unwrap()
                    .label
                    .as_deref(),
                Some("yes")
            );
        }
        let r = response(r#"{"id": "a", "label": "maybe"}"#);
        assert!(to_prediction(r, Task::BoolQ, "m", 1.0)
            .unwrap_err()
            .contains("unknown BoolQ label"));
    }

    #[test]
    fn probabilities_must_be_a_distribution() {
        let prediction = |probs: &str| {
            let r = response(&format!(
                r#"{{"id": "a", "label": "yes", "probabilities": {probs}}}"#
            ));
            to_prediction(r, Task::BoolQ, "m", 1.0)
        };
        assert!(prediction(r#"{"yes": 0.9, "no": 0.1}"#).is_ok());
        assert!(prediction(r#"{"yes": 0.9004, "no": 0.1}"#).is_ok());
        let e = prediction(r#"{"yes": 0.9}"#).unwrap_err();
        assert!(
            e.contains("`probabilities` of `a`") && e.contains("sum to 0.9"),
            "{e}"
        );
        let e = prediction(r#"{"yes": 1.5, "no": -0.5}"#).unwrap_err();
        assert!(e.contains("not a number in [0, 1]"), "{e}");
        let e = prediction(r#"{"yes": 2.3, "no": -1.1}"#).unwrap_err();
        assert!(e.contains("not a number in [0, 1]"), "{e}");
    }

    #[test]
    fn coreference_clusters_are_character_spans() {
        let r = response(r#"{"id": "a", "clusters": [[[0, 12], [67, 70]], [[25, 40]]]}"#);
        let clusters = to_prediction(r, Task::Coref, "m", 1.0)
            .unwrap()
            .clusters
            .unwrap();
        assert_eq!(clusters.len(), 2);
        assert_eq!(clusters[0][1], CharSpan { start: 67, end: 70 });
        let r = response(r#"{"id": "a", "clusters": [[[5, 5]]]}"#);
        let err = to_prediction(r, Task::Coref, "m", 1.0).unwrap_err();
        assert!(
            err.contains("field `clusters` of `a`") && err.contains("[5, 5]"),
            "{err}"
        );
        assert!(
            serde_json::from_str::<Response>(r#"{"id": "a", "clusters": [[[1, 2, 3]]]}"#).is_err()
        );
    }

    #[test]
    fn answers_errors_and_empty_responses() {
        let r = response(r#"{"id": "a", "answer": "the Volga"}"#);
        assert_eq!(
            to_prediction(r, Task::Squad, "m", 1.0)
                .unwrap()
                .answer
                .unwrap()
                .text,
            "the Volga"
        );
        let r = response(r#"{"id": "a", "answer": {"text": "x", "start": 3}}"#);
        assert_eq!(
            to_prediction(r, Task::Squad, "m", 1.0)
                .unwrap()
                .answer
                .unwrap()
                .start,
            Some(3)
        );
        let r = response(r#"{"id": "a", "error": "out of memory"}"#);
        assert!(to_prediction(r, Task::Squad, "m", 1.0)
            .unwrap_err()
            .contains("out of memory"));
        let r = response(r#"{"id": "a"}"#);
        assert!(to_prediction(r, Task::Squad, "m", 1.0)
            .unwrap_err()
            .contains("no `label`"));
        assert!(serde_json::from_str::<Response>(r#"{"id": "a", "lable": "yes"}"#).is_err());
    }

    #[test]
    fn requests_omit_missing_fields() {
        let mut ex = Example::new("x", Task::BoolQ);
        ex.question = Some("is it".into());
        let line = serde_json::to_string(&Request::from_example(&ex)).unwrap();
        assert_eq!(line, r#"{"id":"x","task":"boolq","question":"is it"}"#);
    }
}
