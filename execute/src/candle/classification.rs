//! Sequence classification models under test: a `…ForSequenceClassification` checkpoint
//! answering sentiment (`text`), paraphrase (`text` + `text_b`) and BoolQ (question and passage
//! as a text pair; yes/no reading comprehension as pair classification) and relation extraction
//! (the sentence with its two arguments marked).
//!
//! * **Inputs**: single texts and pairs are encoded with the checkpoint's tokenizer (special
//!   tokens and segment ids of its template), longest-first truncation to `max_length` (default:
//!   the model's positions). BoolQ pairs are question first by default, as the BoolQ fine-tunes
//!   are trained; `pair_order = "context-question"` flips them.
//! * **Outputs**: softmax over the logits, model labels (`id2label`) translated to the task's
//!   labels by a [`LabelMap`] (probabilities of model labels with one task label summed), the
//!   likeliest task label predicted, every task label's probability returned.
//! * **Relations** (`tokens`, `head`, `tail`) are classified as one text: the tokens joined by
//!   spaces with the two arguments marked ([`EntityMarkers`], default typed punctuation
//!   markers `@ * person * Bill Gates @ … # ^ organization ^ Microsoft #`); labels are kept as
//!   the model names them (after `label_map`).
//! * **Tasks**: the model answers the tasks its labels have a meaning for (see
//!   [`LabelMap`]): a `positive`/`negative` model sentiment only, a `yes`/`no` model BoolQ (and
//!   paraphrase), a two-class `LABEL_0`/`LABEL_1` model all three, relation
//!   when its labels look like relation labels; configured `tasks` replace the guess (each
//!   checked). The stage sends it only those; a model whose labels answer none is a
//!   configuration error naming them.
//! * **Batching** by [`Batcher`]: tokenization on a worker thread, rows packed to a token
//!   budget.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::Instant;

use metamorph_data::{EntitySpan, Error, Example, Prediction, Result, Task};
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

/// How a relation example's head and tail are marked in its text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EntityMarkers {
    /// `@ * person * Bill Gates @ founded # ^ organization ^ Microsoft #` (typed entity markers
    /// with punctuation, Zhou & Chen 2021; the type lower-cased, `_` as spaces; untyped
    /// mentions get `@ … @` and `# … #`). The default.
    #[default]
    TypedPunct,
    /// `@ Bill Gates @ founded # Microsoft #`.
    Punct,
    /// `[E1] Bill Gates [/E1] founded [E2] Microsoft [/E2]` (Baldini Soares et al. 2019; the
    /// tags must be tokens of the checkpoint's vocabulary to mean anything).
    Tags,
}

/// Settings of a [`SequenceClassificationModel`].
#[derive(Clone, Debug, Default)]
pub struct ClassificationOptions {
    max_length: Option<usize>,
    label_map: BTreeMap<String, String>,
    pair_order: PairOrder,
    entity_markers: EntityMarkers,
    tasks: Vec<Task>,
    batch: BatchOptions,
}

impl ClassificationOptions {
    /// The tasks the model answers; each must be a classification task its labels (with the
    /// `label_map`) mean something for. Empty (default): every task they mean something for,
    /// relation when they look like relation labels (`no_relation`, `per:…`, `org:…`, `P17`).
    pub fn with_tasks(mut self, tasks: Vec<Task>) -> Self {
        self.tasks = tasks;
        self
    }

    /// How relation arguments are marked (default [`EntityMarkers::TypedPunct`]).
    pub fn with_entity_markers(mut self, markers: EntityMarkers) -> Self {
        self.entity_markers = markers;
        self
    }

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
    entity_markers: EntityMarkers,
    batcher: Batcher,
}

/// The tasks a classification model answers.
const TASKS: [Task; 4] = [
    Task::BoolQ,
    Task::Sentiment,
    Task::Paraphrase,
    Task::Relation,
];

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
        let answerable: Vec<(Task, Vec<String>)> = if options.tasks.is_empty() {
            TASKS
                .iter()
                .filter(|&&task| task != Task::Relation || looks_relational(encoder.labels()))
                .filter_map(|&task| Some((task, labels.for_task(task, encoder.labels()).ok()?)))
                .collect()
        } else {
            options
                .tasks
                .iter()
                .map(|&task| {
                    if !TASKS.contains(&task) {
                        return Err(config_err(format!(
                            "a sequence-classification model answers boolq, sentiment, \
                             paraphrase or relation, not `{task}`"
                        )));
                    }
                    let mapped = labels
                        .for_task(task, encoder.labels())
                        .map_err(config_err)?;
                    Ok((task, mapped))
                })
                .collect::<Result<_>>()?
        };
        if answerable.is_empty() {
            return Err(config_err(format!(
                "its labels [{}] have no meaning for boolq, sentiment or paraphrase; translate \
                 them with `label_map` or name its `tasks`",
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
            entity_markers: options.entity_markers,
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
    fn texts<'a>(&self, example: &'a Example) -> Result<(Cow<'a, str>, Option<&'a str>)> {
        let field =
            |name: &str, value: &'a Option<String>| required(&self.name, example, name, value);
        Ok(match example.task {
            Task::Sentiment => (field("text", &example.text)?.into(), None),
            Task::Paraphrase => (
                field("text", &example.text)?.into(),
                Some(field("text_b", &example.text_b)?),
            ),
            Task::BoolQ => {
                let question = field("question", &example.question)?;
                let context = field("context", &example.context)?;
                match self.pair_order {
                    PairOrder::QuestionContext => (question.into(), Some(context)),
                    PairOrder::ContextQuestion => (context.into(), Some(question)),
                }
            }
            Task::Relation => {
                let missing = |field: &str| Error::Model {
                    model: self.name.clone(),
                    message: format!("example `{}`: field `{field}` is missing", example.id),
                };
                let tokens = example.tokens.as_deref().ok_or_else(|| missing("tokens"))?;
                let head = example.head.as_ref().ok_or_else(|| missing("head"))?;
                let tail = example.tail.as_ref().ok_or_else(|| missing("tail"))?;
                let text =
                    relation_text(tokens, head, tail, self.entity_markers).map_err(|message| {
                        Error::Model {
                            model: self.name.clone(),
                            message: format!("example `{}`: {message}", example.id),
                        }
                    })?;
                (text.into(), None)
            }
            other => {
                return Err(Error::Model {
                    model: self.name.clone(),
                    message: format!(
                        "example `{}`: task `{other}` is not a classification task this model \
                         answers (boolq, sentiment, paraphrase, relation)",
                        example.id
                    ),
                })
            }
        })
    }

    fn encode(&self, example: &Example) -> Result<Encoded<()>> {
        let (a, b) = self.texts(example)?;
        let encoding = match b {
            Some(b) => self.tokenizer.encode((a.as_ref(), b), true),
            None => self.tokenizer.encode(a.as_ref(), true),
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

/// Whether `labels` look like relation labels: `no_relation`, TACRED's `per:…` / `org:…`, or
/// Wikidata property ids (`P17`).
fn looks_relational(labels: &[String]) -> bool {
    labels.iter().any(|l| {
        l == "no_relation"
            || l.starts_with("per:")
            || l.starts_with("org:")
            || (l.len() > 1 && l.starts_with('P') && l[1..].bytes().all(|b| b.is_ascii_digit()))
    })
}

/// The text a relation classifier reads: `tokens` joined by spaces with `head` and `tail`
/// marked per `markers`.
///
/// # Errors
/// A message naming `head` or `tail` when a span is empty, outside the tokens, or overlaps
/// the other.
pub fn relation_text(
    tokens: &[String],
    head: &EntitySpan,
    tail: &EntitySpan,
    markers: EntityMarkers,
) -> std::result::Result<String, String> {
    let span = |name: &str, e: &EntitySpan| {
        let (start, end) = (e.start as usize, e.end as usize);
        if start >= end || end > tokens.len() {
            return Err(format!(
                "field `{name}`: span {start}..{end} is not within the {} tokens",
                tokens.len()
            ));
        }
        Ok((start, end))
    };
    let (hs, he) = span("head", head)?;
    let (ts, te) = span("tail", tail)?;
    if hs < te && ts < he {
        return Err(format!(
            "fields `head` and `tail` overlap ({hs}..{he} and {ts}..{te})"
        ));
    }
    let typed = |open: &str, bracket: &str, e: &EntitySpan| match (&e.entity_type, markers) {
        (Some(t), EntityMarkers::TypedPunct) => format!(
            "{open} {bracket} {} {bracket}",
            t.to_lowercase().replace('_', " ")
        ),
        _ => open.to_string(),
    };
    let (head_open, head_close, tail_open, tail_close) = match markers {
        EntityMarkers::Tags => ("[E1]".to_string(), "[/E1]", "[E2]".to_string(), "[/E2]"),
        _ => (typed("@", "*", head), "@", typed("#", "^", tail), "#"),
    };
    let mut words: Vec<&str> = Vec::with_capacity(tokens.len() + 10);
    for (i, token) in tokens.iter().enumerate() {
        if i == hs {
            words.push(&head_open);
        }
        if i == ts {
            words.push(&tail_open);
        }
        words.push(token);
        if i + 1 == he {
            words.push(head_close);
        }
        if i + 1 == te {
            words.push(tail_close);
        }
    }
    Ok(words.join(" "))
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
                            "task `{}` is not one this model answers (its tasks: {})",
                            example.task,
                            self.answerable
                                .iter()
                                .map(|(t, _)| t.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(start: u32, end: u32, kind: Option<&str>) -> EntitySpan {
        EntitySpan {
            text: String::new(),
            start,
            end,
            entity_type: kind.map(str::to_string),
        }
    }

    #[test]
    fn relation_arguments_are_marked() {
        let tokens: Vec<String> = "Bill Gates founded Microsoft in Albuquerque"
            .split(' ')
            .map(str::to_string)
            .collect();
        let head = entity(0, 2, Some("PERSON"));
        let tail = entity(3, 4, Some("STATE_OR_PROVINCE"));
        assert_eq!(
            relation_text(&tokens, &head, &tail, EntityMarkers::TypedPunct).unwrap(),
            "@ * person * Bill Gates @ founded # ^ state or province ^ Microsoft # in Albuquerque"
        );
        assert_eq!(
            relation_text(&tokens, &tail, &head, EntityMarkers::Punct).unwrap(),
            "# Bill Gates # founded @ Microsoft @ in Albuquerque"
        );
        let untyped = entity(5, 6, None);
        assert_eq!(
            relation_text(&tokens, &untyped, &head, EntityMarkers::TypedPunct).unwrap(),
            "# ^ person ^ Bill Gates # founded Microsoft in @ Albuquerque @"
        );
        assert_eq!(
            relation_text(&tokens, &head, &untyped, EntityMarkers::Tags).unwrap(),
            "[E1] Bill Gates [/E1] founded Microsoft in [E2] Albuquerque [/E2]"
        );
        let message =
            relation_text(&tokens, &head, &entity(1, 3, None), EntityMarkers::Punct).unwrap_err();
        assert!(message.contains("overlap"), "{message}");
        let message =
            relation_text(&tokens, &entity(4, 9, None), &head, EntityMarkers::Punct).unwrap_err();
        assert!(
            message.contains("`head`") && message.contains("6 tokens"),
            "{message}"
        );
    }

    #[test]
    fn relation_labels_are_recognised() {
        let labels = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(looks_relational(&labels(&["no_relation", "per:title"])));
        assert!(looks_relational(&labels(&["P17", "P131"])));
        assert!(!looks_relational(&labels(&["negative", "positive"])));
        assert!(!looks_relational(&labels(&["LABEL_0", "LABEL_1", "POS"])));
    }
}
