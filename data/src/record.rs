//! The five record kinds that flow between stages, as typed Rust rows and Arrow schemas.
//!
//! Each kind is a plain serde struct (`Example`, `ParsedText`, `Case`, `Prediction`, `Verdict`);
//! its Arrow schema is derived once from the type (so the Rust row *is* the schema source) and
//! conversion in both directions goes through `serde_arrow`. Every batch carries the schema
//! metadata key [`RECORD_KIND_KEY`] so that a stage, or a Parquet file on disk, says what it holds.
//!
//! Offsets into text are **character** (Unicode code point) offsets, end exclusive, the unit
//! SQuAD's `answer_start` uses, so Python users can slice strings with them directly.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, OnceLock};

use arrow::array::RecordBatch;
use arrow::datatypes::{FieldRef, Schema, SchemaRef};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_arrow::schema::{SchemaLike, TracingOptions};

use crate::expectation::{Expectation, Precondition};
use crate::generation::GenerationRequest;
use crate::{Error, Result};

/// Schema metadata key naming the record kind of a batch or Parquet file.
pub const RECORD_KIND_KEY: &str = "metamorph.record";
/// Schema metadata key carrying the schema version of a record kind.
pub const SCHEMA_VERSION_KEY: &str = "metamorph.schema_version";
/// Version of the record schemas written by this build.
pub const SCHEMA_VERSION: &str = "1";

/// The NLP task an example belongs to; decides which fields are filled and which MRs apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// Yes/no reading comprehension (BoolQ): `context` + `question`, label `yes`/`no`.
    BoolQ,
    /// Extractive QA (SQuAD 1.1/2.0): `context` + `question`, `answers`, `is_impossible`.
    Squad,
    /// Discrete-reasoning QA (DROP): `context` + `question`, `answers` as text.
    Drop,
    /// Question decomposition (BREAK QDMR): `question`, `steps`, `operators`.
    Qdmr,
    /// Relation extraction (TACRED schema, FewRel): `tokens`, `head`, `tail`, `label`.
    Relation,
    /// Coreference (CoNLL-2012, GAP): `text`, `tokens`, `clusters`.
    Coref,
    /// Sentiment classification (DynaSent, SST): `text`, `label`.
    Sentiment,
    /// Paraphrase identification (PAWS, QQP): `text` + `text_b`, `label` `1`/`0`.
    Paraphrase,
}

impl Task {
    /// Every task, in a fixed order.
    pub const ALL: [Task; 8] = [
        Task::BoolQ,
        Task::Squad,
        Task::Drop,
        Task::Qdmr,
        Task::Relation,
        Task::Coref,
        Task::Sentiment,
        Task::Paraphrase,
    ];

    /// The task's name as stored in the `task` column.
    pub fn as_str(self) -> &'static str {
        match self {
            Task::BoolQ => "boolq",
            Task::Squad => "squad",
            Task::Drop => "drop",
            Task::Qdmr => "qdmr",
            Task::Relation => "relation",
            Task::Coref => "coref",
            Task::Sentiment => "sentiment",
            Task::Paraphrase => "paraphrase",
        }
    }
}

impl fmt::Display for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Task {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Task::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| format!("unknown task `{s}` (expected one of: {})", task_names()))
    }
}

fn task_names() -> String {
    Task::ALL.map(Task::as_str).join(", ")
}

/// An answer to a QA example: its text and, when known, its character offset in `context`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The answer text.
    pub text: String,
    /// Character offset of the answer in the context (`answer_start` in SQuAD).
    pub start: Option<u32>,
}

/// A relation argument: a token span `[start, end)` with its text and entity type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntitySpan {
    /// The mention's text (tokens joined by spaces).
    pub text: String,
    /// First token index.
    pub start: u32,
    /// One past the last token index.
    pub end: u32,
    /// The entity type (`PERSON`, `ORGANIZATION`, …) when the dataset gives one.
    pub entity_type: Option<String>,
}

/// A character span `[start, end)` of a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CharSpan {
    /// First character.
    pub start: u32,
    /// One past the last character.
    pub end: u32,
}

/// One input example of any task: the `example` record kind.
///
/// All task fields are nullable so that every task shares one schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Example {
    /// Unique id (the dataset's own id where it has one).
    pub id: String,
    /// The task.
    pub task: Task,
    /// Where the example came from: `file:line` or `file:json.path`.
    pub origin: Option<String>,
    /// Article or page title.
    pub title: Option<String>,
    /// Passage for reading comprehension.
    pub context: Option<String>,
    /// Question for reading comprehension and QDMR.
    pub question: Option<String>,
    /// Single text (sentiment, coreference document, first sentence of a pair).
    pub text: Option<String>,
    /// Second text of a pair (paraphrase).
    pub text_b: Option<String>,
    /// Gold label as a string (`yes`/`no`, `positive`, `1`, a relation name, …).
    pub label: Option<String>,
    /// Gold answers (SQuAD, DROP).
    pub answers: Option<Vec<Answer>>,
    /// SQuAD 2.0: the question has no answer in the context.
    pub is_impossible: Option<bool>,
    /// Pre-tokenised text (relation extraction, CoNLL coreference).
    pub tokens: Option<Vec<String>>,
    /// Relation head (subject) argument.
    pub head: Option<EntitySpan>,
    /// Relation tail (object) argument.
    pub tail: Option<EntitySpan>,
    /// Coreference clusters as character spans into `text`.
    pub clusters: Option<Vec<Vec<CharSpan>>>,
    /// QDMR steps, `#k` referring to step k (1-based).
    pub steps: Option<Vec<String>>,
    /// QDMR operator of each step.
    pub operators: Option<Vec<String>>,
}

impl Example {
    /// An example with only `id` and `task` set.
    pub fn new(id: impl Into<String>, task: Task) -> Self {
        Example {
            id: id.into(),
            task,
            origin: None,
            title: None,
            context: None,
            question: None,
            text: None,
            text_b: None,
            label: None,
            answers: None,
            is_impossible: None,
            tokens: None,
            head: None,
            tail: None,
            clusters: None,
            steps: None,
            operators: None,
        }
    }

    /// The text field called `name` (`context`, `question`, `text`, `text_b`, `title`).
    pub fn field(&self, name: &str) -> Option<&str> {
        match name {
            "context" => self.context.as_deref(),
            "question" => self.question.as_deref(),
            "text" => self.text.as_deref(),
            "text_b" => self.text_b.as_deref(),
            "title" => self.title.as_deref(),
            _ => None,
        }
    }

    /// Mutable access to the text field called `name`.
    pub fn field_mut(&mut self, name: &str) -> Option<&mut Option<String>> {
        match name {
            "context" => Some(&mut self.context),
            "question" => Some(&mut self.question),
            "text" => Some(&mut self.text),
            "text_b" => Some(&mut self.text_b),
            "title" => Some(&mut self.title),
            _ => None,
        }
    }
}

/// One token of a parsed text, spaCy-style.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Token {
    /// Verbatim text.
    pub text: String,
    /// Trailing whitespace (`""` or `" "`, as spaCy's `whitespace_`).
    pub whitespace: String,
    /// Lemma.
    pub lemma: String,
    /// Universal POS tag.
    pub pos: String,
    /// Fine-grained tag (Penn Treebank for English).
    pub tag: String,
    /// Morphological features, e.g. `Number=Sing|Person=3` (`""` when none).
    pub morph: String,
    /// Dependency label.
    pub dep: String,
    /// Index of the syntactic head (itself for a root).
    pub head: u32,
    /// Entity IOB code: `B`, `I`, `O` or `""` when unset.
    pub ent_iob: String,
    /// Entity type, `""` outside entities.
    pub ent_type: String,
    /// Character offset of the token's first character.
    pub start: u32,
    /// Character offset one past its last character.
    pub end: u32,
}

/// A token span `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenSpan {
    /// First token.
    pub start: u32,
    /// One past the last token.
    pub end: u32,
}

/// A phrase-structure constituent over tokens `[start, end)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Phrase {
    /// Constituent label (`S`, `NP`, `VP`, `PP`, …).
    pub label: String,
    /// First token.
    pub start: u32,
    /// One past the last token.
    pub end: u32,
    /// Depth in the tree (the root is 0).
    pub depth: u32,
}

/// The parse of one text field of one example: the `parsed` record kind.
///
/// One row per (example, field), so examples with several text fields give several rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParsedText {
    /// The example's id.
    pub id: String,
    /// Which text field was parsed (`context`, `question`, `text`, `text_b`).
    pub field: String,
    /// The parsed text.
    pub text: String,
    /// Tokens with annotations.
    pub tokens: Vec<Token>,
    /// Sentences as token spans.
    pub sentences: Vec<TokenSpan>,
    /// Base noun phrases, as spaCy's `noun_chunks`.
    pub noun_chunks: Vec<TokenSpan>,
    /// Phrase-structure constituents.
    pub phrases: Vec<Phrase>,
}

/// One text edit that turned a source field into the follow-up field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edit {
    /// The edited text field (`question`, `context`, …).
    pub field: String,
    /// Character offset of the replaced text in the source field.
    pub start: u32,
    /// Character offset one past the replaced text in the source field.
    pub end: u32,
    /// The replaced text.
    pub before: String,
    /// The replacement, which starts at `start` in the follow-up field.
    pub after: String,
}

/// A metamorphic test case: the `case` record kind.
///
/// It carries its source examples whole, so the `execute` stage needs nothing but cases, and each
/// shard of cases is self-contained on a cluster node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// Unique id: `<source id>:<mr>:<k>`.
    pub case_id: String,
    /// The MR family (paper), e.g. `mt4mrc`.
    pub family: String,
    /// The relation's name, e.g. `MR1-3`.
    pub mr: String,
    /// Ids of the source examples (one, or two for combination MRs).
    pub source_ids: Vec<String>,
    /// The source examples themselves, in `source_ids` order.
    pub sources: Vec<Example>,
    /// The follow-up input; its `id` equals `case_id`.
    pub followup: Example,
    /// What the judge checks, as tagged JSON; read it with [`Case::expectation`].
    #[serde(rename = "expectation")]
    pub expectation_json: String,
    /// When the case applies at all, as tagged JSON; read it with [`Case::precondition`].
    #[serde(rename = "precondition")]
    pub precondition_json: Option<String>,
    /// The edits from source to follow-up.
    pub edits: Vec<Edit>,
    /// Seed of any randomness used to build the case.
    pub seed: u64,
    /// What the `generate` stage must still produce for the follow-up, as tagged JSON; read it
    /// with [`Case::generation`]. `None` once the follow-up is complete.
    #[serde(rename = "generation", default)]
    pub generation_json: Option<String>,
    /// What the validity step found (`None` until it has run, or when it is switched off).
    #[serde(default)]
    pub validity: Option<Validity>,
    /// The dataset text a relation cut its source from, where it built the source from parts
    /// of it (NLPLego-SA's and -SSM's parents): the validity step reads where the parts were
    /// cut (its `lm_seam` and `lm_end_cut` checks). `None` for every other case.
    #[serde(default)]
    pub built_from: Option<String>,
}

/// One validity check's result on one case: the `scores` of a [`Validity`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckScore {
    /// The check (`meaning`, `structure`, `fluency`, `spans`).
    pub check: String,
    /// Its score, higher is better (a cosine, an overlap, a log-probability ratio, 0 or 1).
    pub score: f32,
    /// The threshold the score was held to (the case passes the check iff `score >= threshold`).
    pub threshold: f32,
    /// `score >= threshold`.
    pub passed: bool,
}

/// Whether a case's follow-up is fit to test with, and why not: the `validity` of a [`Case`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Validity {
    /// Every check that applied to the case.
    pub scores: Vec<CheckScore>,
    /// No check failed.
    pub passed: bool,
    /// One line per failed check: `check: what was wrong` (empty when passed).
    pub reasons: Vec<String>,
}

impl Validity {
    /// The checks that failed, by name.
    pub fn failed_checks(&self) -> impl Iterator<Item = &str> {
        self.scores
            .iter()
            .filter(|s| !s.passed)
            .map(|s| s.check.as_str())
    }
}

/// A case the validity step set aside: the `rejected` record kind, a [`Case`] (with its
/// [`Validity`] and reasons) written to an output of its own so that it is never silently lost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Rejected(pub Case);

impl Case {
    /// A case of relation `mr` (family `family`) from `sources` to `followup`, whose id becomes
    /// the case id; `source_ids` are taken from the sources, so the case is valid by construction.
    /// Add a precondition, edits and a seed with the `with_*` methods.
    pub fn new(
        family: impl Into<String>,
        mr: impl Into<String>,
        sources: Vec<Example>,
        followup: Example,
        expectation: &Expectation,
    ) -> Self {
        Case {
            case_id: followup.id.clone(),
            family: family.into(),
            mr: mr.into(),
            source_ids: sources.iter().map(|s| s.id.clone()).collect(),
            sources,
            followup,
            expectation_json: to_json(expectation),
            precondition_json: None,
            edits: Vec::new(),
            seed: 0,
            generation_json: None,
            validity: None,
            built_from: None,
        }
    }

    /// The same case with a precondition.
    pub fn with_precondition(mut self, precondition: &Precondition) -> Self {
        self.set_precondition(Some(precondition));
        self
    }

    /// The same case with these edits.
    pub fn with_edits(mut self, edits: Vec<Edit>) -> Self {
        self.edits = edits;
        self
    }

    /// The same case with this seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The same case with a follow-up that the `generate` stage must complete.
    pub fn with_generation(mut self, request: &GenerationRequest) -> Self {
        self.set_generation(Some(request));
        self
    }

    /// Sets (or clears, once the follow-up is complete) the generation request.
    pub fn set_generation(&mut self, request: Option<&GenerationRequest>) {
        self.generation_json = request.map(to_json);
    }

    /// The open generation request, if any.
    ///
    /// # Errors
    /// [`Error::Schema`] naming the case when the stored JSON is not a known request.
    pub fn generation(&self) -> Result<Option<GenerationRequest>> {
        self.generation_json
            .as_deref()
            .map(|json| {
                serde_json::from_str(json).map_err(|e| Error::Schema {
                    context: format!("case `{}`", self.case_id),
                    message: format!("field `generation`: {e}"),
                })
            })
            .transpose()
    }

    /// Sets the expectation (stored as tagged JSON).
    pub fn set_expectation(&mut self, expectation: &Expectation) {
        self.expectation_json = to_json(expectation);
    }

    /// Sets (or clears) the precondition (stored as tagged JSON).
    pub fn set_precondition(&mut self, precondition: Option<&Precondition>) {
        self.precondition_json = precondition.map(to_json);
    }

    /// The expectation.
    ///
    /// # Errors
    /// [`Error::Schema`] naming the case when the stored JSON is not a known expectation.
    pub fn expectation(&self) -> Result<Expectation> {
        serde_json::from_str(&self.expectation_json).map_err(|e| Error::Schema {
            context: format!("case `{}`", self.case_id),
            message: format!("field `expectation`: {e}"),
        })
    }

    /// The precondition, if any.
    ///
    /// # Errors
    /// [`Error::Schema`] naming the case when the stored JSON is not a known precondition.
    pub fn precondition(&self) -> Result<Option<Precondition>> {
        self.precondition_json
            .as_deref()
            .map(|json| {
                serde_json::from_str(json).map_err(|e| Error::Schema {
                    context: format!("case `{}`", self.case_id),
                    message: format!("field `precondition`: {e}"),
                })
            })
            .transpose()
    }

    /// Checks the invariants a stage relies on: `sources` match `source_ids`, the follow-up id is
    /// the case id.
    ///
    /// # Errors
    /// [`Error::Schema`] naming the case when an invariant does not hold.
    pub fn validate(&self) -> Result<()> {
        let ids: Vec<&str> = self.sources.iter().map(|s| s.id.as_str()).collect();
        let expected: Vec<&str> = self.source_ids.iter().map(String::as_str).collect();
        let problem = if self.source_ids.is_empty() {
            Some("has no source".to_string())
        } else if ids != expected {
            Some(format!(
                "source_ids {expected:?} do not match sources {ids:?}"
            ))
        } else if self.followup.id != self.case_id {
            Some(format!(
                "follow-up id `{}` differs from the case id",
                self.followup.id
            ))
        } else {
            None
        };
        match problem {
            Some(message) => Err(Error::Schema {
                context: format!("case `{}`", self.case_id),
                message,
            }),
            None => Ok(()),
        }
    }
}

/// A label with its probability.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabelProb {
    /// The label.
    pub label: String,
    /// Its probability.
    pub prob: f32,
}

/// An extractive answer predicted by a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswerSpan {
    /// The answer text (`""` for "no answer").
    pub text: String,
    /// Character offset in the context, when the model gives one.
    pub start: Option<u32>,
    /// Character offset one past the end, when the model gives one.
    pub end: Option<u32>,
    /// The model's score for the span.
    pub score: Option<f32>,
}

/// One model output for one example (source or follow-up): the `prediction` record kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// The example (or follow-up / case) id.
    pub example_id: String,
    /// The model's name.
    pub model: String,
    /// The task the model solved.
    pub task: Task,
    /// Predicted label (classification, yes/no).
    pub label: Option<String>,
    /// Class probabilities, when the model gives them.
    pub probabilities: Option<Vec<LabelProb>>,
    /// Predicted answer span (extractive QA).
    pub answer: Option<AnswerSpan>,
    /// Predicted coreference clusters as character spans.
    pub clusters: Option<Vec<Vec<CharSpan>>>,
    /// Generated text (seq2seq models).
    pub generated: Option<String>,
    /// Wall time spent on this example's batch, divided by the batch size.
    pub latency_ms: f32,
}

impl Prediction {
    /// A prediction of `model` for `example_id` with no output yet; set `label`, `answer`, …
    /// with struct update syntax: `Prediction { label: Some(l), ..Prediction::new(id, m, t) }`.
    pub fn new(example_id: impl Into<String>, model: impl Into<String>, task: Task) -> Self {
        Prediction {
            example_id: example_id.into(),
            model: model.into(),
            task,
            label: None,
            probabilities: None,
            answer: None,
            clusters: None,
            generated: None,
            latency_ms: 0.0,
        }
    }

    /// A short human-readable rendering of the output, for verdicts and reports.
    pub fn summary(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        if let Some(answer) = &self.answer {
            return format!("{:?}", answer.text);
        }
        if let Some(clusters) = &self.clusters {
            return format!("{} clusters", clusters.len());
        }
        self.generated.clone().unwrap_or_default()
    }
}

/// The judgement of one case for one model: the `verdict` record kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The case.
    pub case_id: String,
    /// The MR family.
    pub family: String,
    /// The relation.
    pub mr: String,
    /// The model under test.
    pub model: String,
    /// The case's sources.
    pub source_ids: Vec<String>,
    /// The source output (first source), rendered.
    pub source_output: String,
    /// The follow-up output, rendered.
    pub followup_output: String,
    /// False when the case's precondition failed; such cases are not counted.
    pub applicable: bool,
    /// Whether the relation holds; null when not applicable.
    pub holds: Option<bool>,
    /// Why: the comparison made, or the precondition that failed.
    pub detail: String,
}

/// Identifies the kind of records in a batch or file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecordKind {
    /// [`Example`].
    Example,
    /// [`ParsedText`].
    Parsed,
    /// [`Case`].
    Case,
    /// [`Prediction`].
    Prediction,
    /// [`Verdict`].
    Verdict,
    /// [`Rejected`]: cases the validity step set aside.
    Rejected,
}

impl RecordKind {
    /// Every kind.
    pub const ALL: [RecordKind; 6] = [
        RecordKind::Example,
        RecordKind::Parsed,
        RecordKind::Case,
        RecordKind::Prediction,
        RecordKind::Verdict,
        RecordKind::Rejected,
    ];

    /// The kind's name: also its output folder and metadata value.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Example => "example",
            RecordKind::Parsed => "parsed",
            RecordKind::Case => "case",
            RecordKind::Prediction => "prediction",
            RecordKind::Verdict => "verdict",
            RecordKind::Rejected => "rejected",
        }
    }

    /// The column whose value decides which shard a row belongs to.
    pub fn shard_key_column(self) -> &'static str {
        match self {
            RecordKind::Example | RecordKind::Parsed => "id",
            RecordKind::Case | RecordKind::Rejected => "source_ids",
            RecordKind::Prediction => "example_id",
            RecordKind::Verdict => "case_id",
        }
    }

    /// The Arrow schema of this kind, with its metadata.
    pub fn schema(self) -> SchemaRef {
        static SCHEMAS: OnceLock<HashMap<RecordKind, SchemaRef>> = OnceLock::new();
        SCHEMAS.get_or_init(|| {
            RecordKind::ALL
                .into_iter()
                .map(|kind| {
                    let fields = match kind {
                        RecordKind::Example => trace::<Example>(),
                        RecordKind::Parsed => trace::<ParsedText>(),
                        RecordKind::Case | RecordKind::Rejected => trace::<Case>(),
                        RecordKind::Prediction => trace::<Prediction>(),
                        RecordKind::Verdict => trace::<Verdict>(),
                    };
                    let metadata = HashMap::from([
                        (RECORD_KIND_KEY.to_string(), kind.as_str().to_string()),
                        (SCHEMA_VERSION_KEY.to_string(), SCHEMA_VERSION.to_string()),
                    ]);
                    (kind, Arc::new(Schema::new(fields).with_metadata(metadata)))
                })
                .collect()
        })[&self]
            .clone()
    }

    /// The kind recorded in a schema's metadata, if any.
    pub fn of_schema(schema: &Schema) -> Option<RecordKind> {
        let name = schema.metadata().get(RECORD_KIND_KEY)?;
        RecordKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The kind of a batch.
    ///
    /// # Errors
    /// [`Error::Schema`] when the batch carries no (or an unknown) kind.
    pub fn of_batch(batch: &RecordBatch) -> Result<RecordKind> {
        RecordKind::of_schema(batch.schema_ref()).ok_or_else(|| Error::Schema {
            context: "record batch".into(),
            message: format!("schema metadata has no valid `{RECORD_KIND_KEY}` key"),
        })
    }
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RecordKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        RecordKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown record kind `{s}`"))
    }
}

fn to_json<T: Serialize>(value: &T) -> String {
    // Expectations, preconditions and generation requests are plain data enums: serialising
    // them cannot fail.
    serde_json::to_string(value).expect("expectations serialise to JSON")
}

fn trace<T: DeserializeOwned>() -> Vec<FieldRef> {
    let options = TracingOptions::default()
        .strings_as_large_utf8(false)
        .enums_without_data_as_strings(true)
        .sequence_as_large_list(false);
    // The record types are fixed at compile time; tracing them cannot depend on input data.
    Vec::<FieldRef>::from_type::<T>(options).expect("record types are traceable")
}

/// A typed row of one record kind.
pub trait Record: Serialize + DeserializeOwned + Send + 'static {
    /// The kind this row type belongs to.
    const KIND: RecordKind;
}

impl Record for Example {
    const KIND: RecordKind = RecordKind::Example;
}
impl Record for ParsedText {
    const KIND: RecordKind = RecordKind::Parsed;
}
impl Record for Case {
    const KIND: RecordKind = RecordKind::Case;
}
impl Record for Prediction {
    const KIND: RecordKind = RecordKind::Prediction;
}
impl Record for Verdict {
    const KIND: RecordKind = RecordKind::Verdict;
}
impl Record for Rejected {
    const KIND: RecordKind = RecordKind::Rejected;
}

/// Builds a batch of `R` rows (push builder: `append`, then `finish`).
pub struct RecordBuilder<R: Record> {
    rows: Vec<R>,
}

impl<R: Record> Default for RecordBuilder<R> {
    fn default() -> Self {
        RecordBuilder { rows: Vec::new() }
    }
}

impl<R: Record> RecordBuilder<R> {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one row.
    pub fn append(&mut self, row: R) {
        self.rows.push(row);
    }

    /// Rows appended since the last `finish`.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when no row is pending.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Returns the pending rows as a batch and resets the builder.
    ///
    /// # Errors
    /// [`Error::Convert`] if a row cannot be represented (e.g. a float where the schema wants a
    /// string); this cannot happen for rows built from the typed structs.
    pub fn finish(&mut self) -> Result<RecordBatch> {
        let rows = std::mem::take(&mut self.rows);
        to_batch(&rows)
    }
}

/// Converts typed rows into a batch of their kind.
///
/// # Errors
/// [`Error::Convert`] if serialisation fails.
pub fn to_batch<R: Record>(rows: &[R]) -> Result<RecordBatch> {
    let schema = R::KIND.schema();
    let batch = serde_arrow::to_record_batch(schema.fields(), &rows)?;
    Ok(batch.with_schema(schema)?)
}

/// Reads typed rows back from a batch of their kind.
///
/// # Errors
/// [`Error::Schema`] when the batch is of another kind or lacks columns, naming `context`.
pub fn from_batch<R: Record>(batch: &RecordBatch, context: &str) -> Result<Vec<R>> {
    if let Some(kind) = RecordKind::of_schema(batch.schema_ref()) {
        if kind != R::KIND {
            return Err(Error::Schema {
                context: context.to_string(),
                message: format!("expected {} records, found {kind}", R::KIND),
            });
        }
    }
    serde_arrow::from_record_batch(batch).map_err(|e| Error::Schema {
        context: context.to_string(),
        message: format!("not a valid {} batch: {e}", R::KIND),
    })
}
