//! Sequence classification models under test: a `…ForSequenceClassification` checkpoint
//! answering sentiment (`text`), paraphrase (`text` + `text_b`) and BoolQ (question and passage
//! as a text pair; yes/no reading comprehension as pair classification).
//!
//! * **Inputs**: single texts and pairs are encoded with the checkpoint's tokenizer (special
//!   tokens and segment ids of its template), longest-first truncation to `max_length` (default:
//!   the model's positions). BoolQ pairs are question first by default, as the BoolQ fine-tunes
//!   are trained; `pair_order = "context-question"` flips them.
//! * **Outputs**: softmax over the logits, model labels (`id2label`) translated to the task's
//!   labels by a [`LabelMap`] (probabilities of model labels with one task label summed), the
//!   likeliest task label predicted, every task label's probability returned.
//! * **Tasks**: the model answers the tasks its labels have a meaning for (see
//!   [`LabelMap`]): a `positive`/`negative` model sentiment only, a `yes`/`no` model BoolQ (and
//!   paraphrase), a two-class `LABEL_0`/`LABEL_1` model all three; the stage sends it only
//!   those, and a model whose labels answer none is a configuration error naming them.
//! * **Batching** by [`Batcher`]: tokenization on a worker thread, rows packed to a token
//!   budget.

use std::collections::BTreeMap;
use std::time::Instant;

use metamorph_data::{Error, Example, Prediction, Result, Task};
use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationParams};

use super::batching::{Batch, BatchOptions, Batcher, Encoded, PaddingReport, Row};
use super::labels::{combine, LabelMap};
use super::{model_error, required, Head, TaskEncoder};
use crate::Model;

/// Which text of a BoolQ pair comes first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairOrder {
    /// Question, then passage (default; the BoolQ fine-tunes' order).
    #[default]
    QuestionContext,
    /// Passage, then question.
    ContextQuestion,
}

/// Settings of a [`SequenceClassificationModel`].
#[derive(Clone, Debug, Default)]
pub struct ClassificationOptions {
    max_length: Option<usize>,
    label_map: BTreeMap<String, String>,
    pair_order: PairOrder,
    batch: BatchOptions,
}

impl ClassificationOptions {
    /// Tokens per input, special tokens included (default: the model's positions).
    pub fn with_max_length(mut self, n: usize) -> Self {
        self.max_length = Some(n);
        self
    }

    /// Model label → task label entries that override the built-in readings.
    pub fn with_label_map(mut self, table: BTreeMap<String, String>) -> Self {
        self.label_map = table;
        self
    }

    /// The order of a BoolQ pair (default question first).
    pub fn with_pair_order(mut self, order: PairOrder) -> Self {
        self.pair_order = order;
        self
    }

    /// How inputs are packed into batches.
    pub fn with_batch(mut self, batch: BatchOptions) -> Self {
        self.batch = batch;
        self
    }
}

/// A classification model under test for sentiment, paraphrase and BoolQ.
pub struct SequenceClassificationModel {
    name: String,
    encoder: TaskEncoder,
    tokenizer: Tokenizer,
    labels: LabelMap,
    /// The task labels of the model's classes, for each task its labels have a meaning for.
    answerable: Vec<(Task, Vec<String>)>,
    pair_order: PairOrder,
    batcher: Batcher,
}

/// The tasks a classification model answers.
const TASKS: [Task; 3] = [Task::BoolQ, Task::Sentiment, Task::Paraphrase];

impl SequenceClassificationModel {
    /// The model `name` over `encoder`, which must have a sequence-classification head.
    ///
    /// # Errors
    /// [`Error::Config`] for another head or a `max_length` beyond the model's positions.
    pub fn try_new(
        name: &str,
        encoder: TaskEncoder,
        options: ClassificationOptions,
    ) -> Result<Self> {
        let config_err = |message: String| Error::Config(format!("model `{name}`: {message}"));
        if encoder.head() != Head::SequenceClassification {
            return Err(config_err(format!(
                "a sequence-classification model needs a sequence-classification head; the \
                 checkpoint has {}",
                encoder.head()
            )));
        }
        let max_positions = encoder.max_positions();
        let max_length = options.max_length.unwrap_or(max_positions);
        if max_length > max_positions || max_length < 4 {
            return Err(config_err(format!(
                "max_length {max_length} is outside 4..={max_positions} (the model's positions)"
            )));
        }
        let mut tokenizer = encoder.tokenizer().clone();
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                ..Default::default()
            }))
            .map_err(|e| config_err(format!("cannot set up the tokenizer: {e}")))?;
        let labels = LabelMap::new(options.label_map);
        let answerable: Vec<(Task, Vec<String>)> = TASKS
            .iter()
            .filter_map(|&task| {
                let mapped = labels.for_task(task, encoder.labels()).ok()?;
                Some((task, mapped))
            })
            .collect();
        if answerable.is_empty() {
            return Err(config_err(format!(
                "its labels [{}] have no meaning for boolq, sentiment or paraphrase; translate \
                 them with `label_map`",
                encoder.labels().join(", ")
            )));
        }
        let batcher = Batcher::new(name, options.batch, encoder.pad_id());
        Ok(SequenceClassificationModel {
            name: name.to_string(),
            encoder,
            tokenizer,
            labels,
            answerable,
            pair_order: options.pair_order,
            batcher,
        })
    }

    /// The task labels of the model's classes for `task`, in `id2label` order.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first model label with no meaning for `task`.
    pub fn task_labels(&self, task: Task) -> Result<Vec<String>> {
        self.labels
            .for_task(task, self.encoder.labels())
            .map_err(|e| Error::Config(format!("model `{}`: {e}", self.name)))
    }

    /// The encoder the model runs.
    pub fn encoder(&self) -> &TaskEncoder {
        &self.encoder
    }

    /// Padding totals since the model was loaded.
    pub fn padding_stats(&self) -> PaddingReport {
        self.batcher.stats()
    }

    /// The text (and second text) the model reads for `example`.
    fn texts<'a>(&self, example: &'a Example) -> Result<(&'a str, Option<&'a str>)> {
        let field =
            |name: &str, value: &'a Option<String>| required(&self.name, example, name, value);
        Ok(match example.task {
            Task::Sentiment => (field("text", &example.text)?, None),
            Task::Paraphrase => (
                field("text", &example.text)?,
                Some(field("text_b", &example.text_b)?),
            ),
            Task::BoolQ => {
                let question = field("question", &example.question)?;
                let context = field("context", &example.context)?;
                match self.pair_order {
                    PairOrder::QuestionContext => (question, Some(context)),
                    PairOrder::ContextQuestion => (context, Some(question)),
                }
            }
            other => {
                return Err(Error::Model {
                    model: self.name.clone(),
                    message: format!(
                        "example `{}`: task `{other}` is not a classification task this model \
                         answers (boolq, sentiment, paraphrase)",
                        example.id
                    ),
                })
            }
        })
    }

    fn encode(&self, example: &Example) -> Result<Encoded<()>> {
        let (a, b) = self.texts(example)?;
        let encoding = match b {
            Some(b) => self.tokenizer.encode((a, b), true),
            None => self.tokenizer.encode(a, true),
        }
        .map_err(|e| {
            model_error(
                &self.name,
                &format!("example `{}`: tokenization failed", example.id),
                e,
            )
        })?;
        Ok(Encoded {
            rows: vec![Row {
                ids: encoding.get_ids().to_vec(),
                type_ids: encoding.get_type_ids().to_vec(),
            }],
            meta: (),
        })
    }

    /// Class probabilities of every row.
    fn forward(&self, batch: &Batch) -> Result<Vec<Vec<f32>>> {
        let logits = self.encoder.logits(
            &batch.ids,
            &batch.type_ids,
            &batch.mask,
            batch.rows(),
            batch.width,
        )?;
        let rows: Vec<Vec<f32>> = logits
            .to_vec2()
            .map_err(|e| model_error(&self.name, "reading the classification logits failed", e))?;
        Ok(rows.iter().map(|row| softmax(row)).collect())
    }
}

/// Softmax of one row of logits.
fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|&l| (l - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}

impl Model for SequenceClassificationModel {
    fn name(&self) -> &str {
        &self.name
    }

    /// The classification tasks its labels (with the `label_map`) have a meaning for.
    fn handles(&self, task: Task) -> bool {
        self.answerable.iter().any(|(t, _)| *t == task)
    }

    fn max_batch(&self) -> usize {
        self.batcher.options().max_rows()
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        let started = Instant::now();
        // Every example's task must be one the labels answer, checked before any forward pass.
        let mut mapped: Vec<&[String]> = Vec::with_capacity(batch.len());
        for example in batch {
            match self.answerable.iter().find(|(t, _)| *t == example.task) {
                Some((_, labels)) => mapped.push(labels),
                None => {
                    let why = match self.task_labels(example.task) {
                        Err(Error::Config(e)) if TASKS.contains(&example.task) => e,
                        _ => format!(
                            "task `{}` is not one a sequence-classification model answers \
                             (boolq, sentiment, paraphrase)",
                            example.task
                        ),
                    };
                    return Err(Error::Model {
                        model: self.name.clone(),
                        message: format!("example `{}`: {why}", example.id),
                    });
                }
            }
        }
        let outputs = self
            .batcher
            .run(batch, |e| self.encode(e), |b| self.forward(b))?;
        let latency_ms = started.elapsed().as_secs_f32() * 1e3 / batch.len().max(1) as f32;
        batch
            .iter()
            .zip(mapped)
            .zip(outputs)
            .map(|((example, mapped), output)| {
                let probs = output.rows.first().ok_or_else(|| {
                    model_error(
                        &self.name,
                        &format!("example `{}`", example.id),
                        "no output row",
                    )
                })?;
                let (label, probabilities) = combine(mapped, probs);
                Ok(Prediction {
                    label: Some(label),
                    probabilities: Some(probabilities),
                    latency_ms,
                    ..Prediction::new(&example.id, &self.name, example.task)
                })
            })
            .collect()
    }
}
