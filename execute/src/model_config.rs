//! One `[[execute.models]]` table, typed by its `kind`: [`ModelConfig`] holds the keys every
//! model has (`name`, `tasks`) and a [`ModelKind`] whose variant carries only its own keys, so
//! a key that does not belong to the kind (`base_url` on a `subprocess` model) is refused with
//! a message naming the table, the key and the kind, instead of being silently ignored.
//!
//! Decision: the table is read into a JSON map first, `kind` (default `subprocess`) picks the
//! variant, and the variant's struct is deserialised from the rest; each variant collects keys
//! it does not know in a catch-all map, which must be empty. (serde's `deny_unknown_fields`
//! cannot be combined with the flattened key groups that several kinds share, such as the
//! checkpoint keys and the HTTP transport keys.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use metamorph_data::assets::{HubOptions, ModelSource};
use metamorph_data::http::HttpTransportConfig;
use metamorph_data::usage::Budget;
use metamorph_data::{parse_kind_keys, Error, Result, Task, UnknownKeys};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::candle::batching::BatchOptions;
use crate::candle::{
    self, Checkpoint, ClassificationOptions, EncoderOptions, EntityMarkers, Head, LoadOptions,
    PairOrder, QaOptions, QuestionAnsweringModel, SentenceEncoder, SentenceSimilarityModel,
    SequenceClassificationModel, SimilarityOptions, TaskEncoder,
};
use crate::causal_lm::{CausalLmConfig, CausalLmModel};
use crate::{
    ConfiguredModel, HttpConfig, HttpModel, Model, OpenAiConfig, OpenAiModel, SubprocessConfig,
    SubprocessModel,
};
use metamorph_models::causal_lm::WeightFormat;
use metamorph_models::{CausalLm, LmOptions};

/// One model under test: its name, the tasks it answers and how it runs.
#[derive(Clone, Debug)]
pub struct ModelConfig {
    /// Name recorded in predictions and verdicts.
    pub name: String,
    /// The tasks the model answers (`["boolq"]`, …); cases of other tasks are not sent to it
    /// and the judge does not expect its verdicts for them. Empty (default): every task.
    pub tasks: Vec<Task>,
    /// Files whose contents the model's answers depend on beyond those its table names (e.g.
    /// the weights a subprocess script loads), relative to the config file's folder: part of
    /// its fingerprint for the response cache ([`crate::model_fingerprint`]).
    pub cache_inputs: Vec<PathBuf>,
    /// How the model runs, with the keys of that kind.
    pub kind: ModelKind,
}

/// How a model under test runs (`kind = "…"`), each with only its own keys.
#[derive(Clone, Debug)]
pub enum ModelKind {
    /// `subprocess` (the default): a program speaking the JSONL protocol on stdin/stdout.
    Subprocess(SubprocessModelConfig),
    /// `sentence-similarity`: a paraphrase model on candle sentence embeddings.
    SentenceSimilarity(SimilarityModelConfig),
    /// `extractive-qa`: a checkpoint with a span head on candle (squad, drop).
    ExtractiveQa(QaModelConfig),
    /// `sequence-classification`: a checkpoint with a classification head on candle (boolq,
    /// sentiment, paraphrase, relation).
    SequenceClassification(ClassifierModelConfig),
    /// `candle`: a checkpoint whose `config.json` `architectures` names the head.
    Candle(AnyHeadModelConfig),
    /// `openai`: an OpenAI-compatible chat/completions endpoint.
    OpenAi(OpenAiModelConfig),
    /// `http`: the JSONL protocol's objects over HTTP, a batch per `POST` to `url`.
    Http(HttpModelConfig),
    /// `causal-lm`: a GGUF language model in-process, answering through prompts.
    CausalLm(CausalLmModelConfig),
}

/// The kinds, as written in the config.
pub const MODEL_KINDS: [&str; 8] = [
    "subprocess",
    "sentence-similarity",
    "extractive-qa",
    "sequence-classification",
    "candle",
    "openai",
    "http",
    "causal-lm",
];

/// `kind = "subprocess"`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct SubprocessModelConfig {
    /// Program and arguments.
    #[serde(default)]
    pub command: Vec<String>,
    /// Seconds to wait for one batch (default 120).
    #[serde(default)]
    pub timeout_secs: Option<f64>,
    /// Requests per batch (default 32).
    #[serde(default)]
    pub batch_size: Option<usize>,
    /// Working directory, relative to the config file's folder (default: that folder).
    #[serde(default)]
    pub workdir: Option<PathBuf>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// Where a candle checkpoint comes from and where it runs (every candle kind).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct CheckpointConfig {
    /// The checkpoint: a directory (relative to the config file's folder), `asset:NAME` or a
    /// hub repo `hf:ORG/NAME[@REVISION]`.
    #[serde(default)]
    pub model: Option<String>,
    /// `cpu` (default), `cuda:N` or `metal` (GPUs need the cargo feature).
    #[serde(default)]
    pub device: Option<String>,
    /// `f32` (default), `f16` or `bf16`.
    #[serde(default)]
    pub dtype: Option<String>,
    /// Use only the local hub cache (`HF_HUB_OFFLINE=1` does the same).
    #[serde(default)]
    pub offline: bool,
    /// Hub cache directory, relative to the config file's folder (default: hf-hub's).
    #[serde(default)]
    pub cache_dir: Option<PathBuf>,
    /// Tokens per text, longer ones truncated (default: the checkpoint's limit), or per window
    /// of a QA context (default min(limit, 384)).
    #[serde(default)]
    pub max_length: Option<usize>,
    /// Rows per forward pass at most (default 64).
    #[serde(default)]
    pub batch_size: Option<usize>,
}

/// How a task model on candle packs rows into forward passes.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct PackingConfig {
    /// Padded tokens (rows × width) per forward pass (default 8192).
    #[serde(default)]
    pub batch_tokens: Option<usize>,
    /// What one more forward pass costs in tokens when rows are packed (default 128): a length
    /// bucket is split only where that saves more padding.
    #[serde(default)]
    pub batch_cost: Option<usize>,
}

/// The keys of an extractive-QA head.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct QaKeys {
    /// Tokens of overlap between the windows of a long context (default min(max_length / 2,
    /// 128)).
    #[serde(default)]
    pub doc_stride: Option<usize>,
    /// Longest answer in tokens (default 15).
    #[serde(default)]
    pub max_answer_len: Option<usize>,
    /// SQuAD 2.0 models: answer "" when null score − best span score exceeds this (0: as
    /// transformers' `handle_impossible_answer`). Unset (default): always a span.
    #[serde(default)]
    pub null_threshold: Option<f32>,
}

/// The keys of a sequence-classification head.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct ClassifierKeys {
    /// Model label → a label word the tasks read: `yes`/`no`, `1`/`0`,
    /// `positive`/`negative`/`neutral`/`mixed`, …; over the built-in readings of model labels
    /// (`true`/`false`, two-class `LABEL_0`/`LABEL_1`, …).
    #[serde(default)]
    pub label_map: BTreeMap<String, String>,
    /// BoolQ pair order: `question-context` (default) or `context-question`.
    #[serde(default)]
    pub pair_order: PairOrder,
    /// How relation arguments are marked: `typed-punct` (default, `@ * person * Bill Gates @
    /// … # ^ organization ^ Microsoft #`), `punct` or `tags` (`[E1] … [/E1]`).
    #[serde(default)]
    pub entity_markers: EntityMarkers,
}

/// `kind = "sentence-similarity"`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct SimilarityModelConfig {
    /// The encoder checkpoint and its device.
    #[serde(flatten)]
    pub checkpoint: CheckpointConfig,
    /// Cosine at and above which a pair is a paraphrase (default 0.8).
    #[serde(default)]
    pub threshold: Option<f32>,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// `kind = "extractive-qa"`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct QaModelConfig {
    /// The checkpoint and its device.
    #[serde(flatten)]
    pub checkpoint: CheckpointConfig,
    /// Row packing.
    #[serde(flatten)]
    pub packing: PackingConfig,
    /// The span head's keys.
    #[serde(flatten)]
    pub qa: QaKeys,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// `kind = "sequence-classification"`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct ClassifierModelConfig {
    /// The checkpoint and its device.
    #[serde(flatten)]
    pub checkpoint: CheckpointConfig,
    /// Row packing.
    #[serde(flatten)]
    pub packing: PackingConfig,
    /// The classification head's keys.
    #[serde(flatten)]
    pub classifier: ClassifierKeys,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// `kind = "candle"`: either head's keys, since the checkpoint decides which it has.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct AnyHeadModelConfig {
    /// The checkpoint and its device.
    #[serde(flatten)]
    pub checkpoint: CheckpointConfig,
    /// Row packing.
    #[serde(flatten)]
    pub packing: PackingConfig,
    /// Read when the checkpoint has a span head.
    #[serde(flatten)]
    pub qa: QaKeys,
    /// Read when the checkpoint has a classification head.
    #[serde(flatten)]
    pub classifier: ClassifierKeys,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// `kind = "openai"`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct OpenAiModelConfig {
    /// The API root, e.g. `http://127.0.0.1:8000/v1`.
    #[serde(default)]
    pub base_url: Option<String>,
    /// The model id the server knows (the request's `model` field, e.g.
    /// `Qwen/Qwen2.5-7B-Instruct` or `gpt-4o-mini`).
    #[serde(default)]
    pub model: Option<String>,
    /// Examples handed to the model at once (default 32).
    #[serde(default)]
    pub batch_size: Option<usize>,
    /// Prompt templates per task (`[execute.models.prompts] boolq = "…{question}…"`),
    /// replacing the built-in ones; placeholders in [`crate::openai::prompt`].
    #[serde(default)]
    pub prompts: BTreeMap<String, String>,
    /// Label sets of the label tasks (`[execute.models.labels] sentiment = [...]`, `relation
    /// = [...]`); sentiment defaults to positive, negative, neutral.
    #[serde(default)]
    pub labels: BTreeMap<String, Vec<String>>,
    /// The label recorded when a reply gives no readable label, per task
    /// (`[execute.models.fallback] boolq = "unreadable"`); default: such a reply stops the run.
    #[serde(default)]
    pub fallback: BTreeMap<String, String>,
    /// System message sent before each prompt.
    #[serde(default)]
    pub system: Option<String>,
    /// Sampling temperature (default 0).
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Upper bound on a reply's tokens (default: the server's).
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// The API key's variable (default `OPENAI_API_KEY`), time-outs per request (default 60
    /// s), retries and concurrency (default 4).
    #[serde(flatten)]
    pub transport: HttpTransportConfig,
    /// `max_total_tokens` and `max_requests`: what the model may spend in one run.
    #[serde(flatten)]
    pub budget: Budget,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// `kind = "http"`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct HttpModelConfig {
    /// The endpoint each batch is posted to, e.g. `http://10.0.0.7:8080/predict`.
    #[serde(default)]
    pub url: Option<String>,
    /// Requests per batch (default 32).
    #[serde(default)]
    pub batch_size: Option<usize>,
    /// The API key's variable (no default), time-out per batch (default 120 s), retries and
    /// concurrency (default 1).
    #[serde(flatten)]
    pub transport: HttpTransportConfig,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// `kind = "causal-lm"`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct CausalLmModelConfig {
    /// The GGUF file: a packaged model (`smollm2-135m`, the default; `gemma3-270m`), a `.gguf`
    /// path (relative to the config file's folder) or `hf:ORG/NAME/FILE.gguf`.
    #[serde(default)]
    pub model: Option<String>,
    /// `f32` (default: dequantized once at load) or `quantized` (the file's blocks).
    #[serde(default)]
    pub weights: Option<String>,
    /// `cpu` (default), `cuda:N` or `metal`.
    #[serde(default)]
    pub device: Option<String>,
    /// Examples handed over at once (default 16).
    #[serde(default)]
    pub batch_size: Option<usize>,
    /// Prompt templates per task (`[execute.models.prompts]`), replacing the built-in ones.
    #[serde(default)]
    pub prompts: BTreeMap<String, String>,
    /// Label sets of sentiment and relation (`[execute.models.labels]`).
    #[serde(default)]
    pub labels: BTreeMap<String, Vec<String>>,
    /// System message before each prompt.
    #[serde(default)]
    pub system: Option<String>,
    /// Use the model's chat format (default: when its GGUF has a ChatML or Gemma template).
    #[serde(default)]
    pub chat: Option<bool>,
    /// Longest generated answer in tokens (QA; default 32).
    #[serde(default)]
    pub max_new_tokens: Option<usize>,
    /// Longest prompt in tokens; longer passages are cut with a warning (default 1024).
    #[serde(default)]
    pub max_prompt_tokens: Option<usize>,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

impl ModelKind {
    /// The kind as written in the config.
    pub fn name(&self) -> &'static str {
        match self {
            ModelKind::Subprocess(_) => "subprocess",
            ModelKind::SentenceSimilarity(_) => "sentence-similarity",
            ModelKind::ExtractiveQa(_) => "extractive-qa",
            ModelKind::SequenceClassification(_) => "sequence-classification",
            ModelKind::Candle(_) => "candle",
            ModelKind::OpenAi(_) => "openai",
            ModelKind::Http(_) => "http",
            ModelKind::CausalLm(_) => "causal-lm",
        }
    }

    /// The checkpoint keys of the candle kinds (none for the others).
    pub fn checkpoint(&self) -> Option<&CheckpointConfig> {
        match self {
            ModelKind::SentenceSimilarity(c) => Some(&c.checkpoint),
            ModelKind::ExtractiveQa(c) => Some(&c.checkpoint),
            ModelKind::SequenceClassification(c) => Some(&c.checkpoint),
            ModelKind::Candle(c) => Some(&c.checkpoint),
            ModelKind::Subprocess(_)
            | ModelKind::OpenAi(_)
            | ModelKind::Http(_)
            | ModelKind::CausalLm(_) => None,
        }
    }

    /// The checkpoint keys of the candle kinds, to change (none for the others).
    pub fn checkpoint_mut(&mut self) -> Option<&mut CheckpointConfig> {
        match self {
            ModelKind::SentenceSimilarity(c) => Some(&mut c.checkpoint),
            ModelKind::ExtractiveQa(c) => Some(&mut c.checkpoint),
            ModelKind::SequenceClassification(c) => Some(&mut c.checkpoint),
            ModelKind::Candle(c) => Some(&mut c.checkpoint),
            ModelKind::Subprocess(_)
            | ModelKind::OpenAi(_)
            | ModelKind::Http(_)
            | ModelKind::CausalLm(_) => None,
        }
    }

    /// The variant of `kind` from the table's other keys. Errors are messages without the
    /// table's name.
    fn from_table(
        kind: &str,
        table: serde_json::Map<String, Value>,
    ) -> std::result::Result<Self, String> {
        Ok(match kind {
            "subprocess" => ModelKind::Subprocess(parse_kind_keys(
                kind,
                table,
                |c: &SubprocessModelConfig| &c.unknown,
            )?),
            "sentence-similarity" => ModelKind::SentenceSimilarity(parse_kind_keys(
                kind,
                table,
                |c: &SimilarityModelConfig| &c.unknown,
            )?),
            "extractive-qa" => {
                ModelKind::ExtractiveQa(parse_kind_keys(kind, table, |c: &QaModelConfig| {
                    &c.unknown
                })?)
            }
            "sequence-classification" => ModelKind::SequenceClassification(parse_kind_keys(
                kind,
                table,
                |c: &ClassifierModelConfig| &c.unknown,
            )?),
            "candle" => {
                ModelKind::Candle(parse_kind_keys(kind, table, |c: &AnyHeadModelConfig| {
                    &c.unknown
                })?)
            }
            "openai" => {
                ModelKind::OpenAi(parse_kind_keys(kind, table, |c: &OpenAiModelConfig| {
                    &c.unknown
                })?)
            }
            "http" => ModelKind::Http(parse_kind_keys(kind, table, |c: &HttpModelConfig| {
                &c.unknown
            })?),
            "causal-lm" => {
                ModelKind::CausalLm(parse_kind_keys(kind, table, |c: &CausalLmModelConfig| {
                    &c.unknown
                })?)
            }
            other => {
                return Err(format!(
                    "unknown kind `{other}` (this build supports: {})",
                    MODEL_KINDS.join(", ")
                ))
            }
        })
    }
}

impl<'de> Deserialize<'de> for ModelConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut table = serde_json::Map::<String, Value>::deserialize(deserializer)?;
        let name = match table.remove("name") {
            Some(Value::String(name)) => name,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "[[execute.models]]: `name` must be a string, found {other}"
                )))
            }
            None => return Err(D::Error::custom("[[execute.models]]: missing key `name`")),
        };
        let kind = match table.remove("kind") {
            Some(Value::String(kind)) => kind,
            None => "subprocess".to_string(),
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "[[execute.models]] `{name}`: `kind` must be a string, found {other}"
                )))
            }
        };
        let what = format!("[[execute.models]] `{name}` (kind `{kind}`)");
        let tasks = match table.remove("tasks") {
            Some(value) => {
                let tasks = serde_json::from_value::<Vec<Task>>(value)
                    .map_err(|e| D::Error::custom(format!("{what}: `tasks`: {e}")))?;
                if tasks.is_empty() {
                    return Err(D::Error::custom(format!(
                        "{what}: `tasks = []` lists no task; leave the key out for a model \
                         that answers every task"
                    )));
                }
                tasks
            }
            None => Vec::new(),
        };
        let cache_inputs = match table.remove("cache_inputs") {
            Some(value) => serde_json::from_value::<Vec<PathBuf>>(value)
                .map_err(|e| D::Error::custom(format!("{what}: `cache_inputs`: {e}")))?,
            None => Vec::new(),
        };
        let kind = ModelKind::from_table(&kind, table)
            .map_err(|message| D::Error::custom(format!("{what}: {message}")))?;
        Ok(ModelConfig {
            name,
            tasks,
            cache_inputs,
            kind,
        })
    }
}

impl ModelConfig {
    /// The candle model of `kind` (`candle`, `extractive-qa`, `sequence-classification` or
    /// `sentence-similarity`) on the checkpoint `spec` (a directory, `asset:NAME` or
    /// `hf:ORG/NAME[@REV]`), named after its last path component: what `--model` builds.
    ///
    /// # Errors
    /// [`Error::Config`] for a kind that is not a candle kind.
    pub fn for_checkpoint(spec: &str, kind_name: &str) -> Result<Self> {
        let bare = spec
            .trim_start_matches("asset:")
            .trim_start_matches("hf:")
            .split('@')
            .next()
            .unwrap_or(spec)
            .trim_end_matches(['/', '\\']);
        let name = Path::new(bare)
            .file_name()
            .and_then(|n| n.to_str())
            .filter(|n| !n.is_empty() && *n != "." && *n != "..")
            .unwrap_or("model");
        // A plain name (`metamorph_data::check_names`): other characters become `-`.
        let name: String = name
            .chars()
            .map(|c| {
                if metamorph_data::is_name_char(c) {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let mut kind = ModelKind::from_table(kind_name, serde_json::Map::new())
            .map_err(|message| Error::Config(format!("--kind: {message}")))?;
        let checkpoint = kind.checkpoint_mut().ok_or_else(|| {
            Error::Config(format!(
                "--kind `{kind_name}`: not a checkpoint kind (candle, extractive-qa, \
                 sequence-classification, sentence-similarity)"
            ))
        })?;
        checkpoint.model = Some(spec.to_string());
        Ok(ModelConfig {
            name,
            tasks: Vec::new(),
            cache_inputs: Vec::new(),
            kind,
        })
    }

    /// Starts the model; relative paths are taken from `base_dir` (the config file's folder).
    ///
    /// # Errors
    /// [`Error::Config`] for a missing or bad setting; [`Error::Model`] if it cannot start.
    pub fn start(&self, base_dir: &Path) -> Result<Arc<dyn Model>> {
        // The files the model runs: part of its fingerprint for the response cache.
        let mut files: Vec<PathBuf> = Vec::new();
        for input in &self.cache_inputs {
            let path = base_dir.join(input);
            if path.is_dir() {
                files.extend(crate::model_fingerprint::files_in(&path));
            } else {
                metamorph_data::regular_file(&path)
                    .map_err(|e| self.config_err(format!("`cache_inputs`: {e}")))?;
                files.push(path);
            }
        }
        let model: Arc<dyn Model> = match &self.kind {
            ModelKind::Subprocess(c) => {
                let workdir = base_dir.join(c.workdir.as_deref().unwrap_or(Path::new(".")));
                // The command's files (its script, a weights file passed as an argument).
                files.extend(
                    c.command
                        .iter()
                        .map(|arg| workdir.join(arg))
                        .filter(|path| path.is_file()),
                );
                let config = SubprocessConfig {
                    command: c.command.clone(),
                    timeout_secs: c.timeout_secs.unwrap_or(120.0),
                    batch_size: c.batch_size.unwrap_or(32),
                    workdir: Some(workdir),
                    env: c.env.clone(),
                };
                Arc::new(SubprocessModel::spawn(&self.name, config)?)
            }
            ModelKind::SentenceSimilarity(c) => {
                Arc::new(self.start_sentence_similarity(c, base_dir, &mut files)?)
            }
            ModelKind::ExtractiveQa(c) => {
                let (model, checkpoint_files) = self.start_task_model(
                    &c.checkpoint,
                    &c.packing,
                    &c.qa,
                    &ClassifierKeys::default(),
                    base_dir,
                    Some(Head::QuestionAnswering),
                )?;
                files.extend(checkpoint_files);
                model
            }
            ModelKind::SequenceClassification(c) => {
                let (model, checkpoint_files) = self.start_task_model(
                    &c.checkpoint,
                    &c.packing,
                    &QaKeys::default(),
                    &c.classifier,
                    base_dir,
                    Some(Head::SequenceClassification),
                )?;
                files.extend(checkpoint_files);
                model
            }
            ModelKind::Candle(c) => {
                let (model, checkpoint_files) = self.start_task_model(
                    &c.checkpoint,
                    &c.packing,
                    &c.qa,
                    &c.classifier,
                    base_dir,
                    None,
                )?;
                files.extend(checkpoint_files);
                model
            }
            ModelKind::OpenAi(c) => Arc::new(self.start_openai(c, |var| std::env::var(var).ok())?),
            ModelKind::Http(c) => Arc::new(self.start_http(c, |var| std::env::var(var).ok())?),
            ModelKind::CausalLm(c) => Arc::new(self.start_causal_lm(c, base_dir, &mut files)?),
        };
        // Every key of the table but the name, the tasks and the budget, which change no
        // answer (a run resumed with a larger budget must find the answers paid for).
        let mut kind = self.kind.clone();
        if let ModelKind::OpenAi(c) = &mut kind {
            c.budget = Budget::default();
        }
        let settings = format!("{kind:?}");
        Ok(Arc::new(ConfiguredModel::new(
            model,
            self.tasks.clone(),
            settings,
            files,
        )))
    }

    fn config_err(&self, message: String) -> Error {
        Error::Config(format!("model `{}`: {message}", self.name))
    }

    /// A per-task sub-table (`[execute.models.<table>] boolq = …`) keyed by task.
    fn by_task<V: Clone>(
        &self,
        map: &BTreeMap<String, V>,
        table: &str,
    ) -> Result<BTreeMap<Task, V>> {
        map.iter()
            .map(|(key, value)| {
                key.parse::<Task>()
                    .map(|task| (task, value.clone()))
                    .map_err(|e| self.config_err(format!("`{table}.{key}`: {e}")))
            })
            .collect()
    }

    /// The `openai` model; `env` reads the API key's variable.
    pub(crate) fn start_openai(
        &self,
        c: &OpenAiModelConfig,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<OpenAiModel> {
        let base_url = c.base_url.clone().ok_or_else(|| {
            self.config_err(
                "kind `openai` needs `base_url`, e.g. \"http://127.0.0.1:8000/v1\"".into(),
            )
        })?;
        let model = c.model.clone().ok_or_else(|| {
            self.config_err("kind `openai` needs `model`: the model id the server knows".into())
        })?;
        let mut config = OpenAiConfig::new(base_url, model);
        config.transport = c.transport.resolve(
            config.transport,
            Some("OPENAI_API_KEY"),
            env,
            &format!("model `{}`", self.name),
        )?;
        config.prompts = self.by_task(&c.prompts, "prompts")?;
        config.labels = self.by_task(&c.labels, "labels")?;
        config.fallback = self.by_task(&c.fallback, "fallback")?;
        config.system = c.system.clone();
        if let Some(t) = c.temperature {
            config.temperature = t;
        }
        config.max_tokens = c.max_tokens;
        config.budget = c.budget;
        if let Some(b) = c.batch_size {
            config.batch_size = b;
        }
        let model = OpenAiModel::try_new(&self.name, config)?;
        if let Some(why) = self.tasks.iter().find_map(|t| model.unsupported(*t)) {
            return Err(self.config_err(why));
        }
        Ok(model)
    }

    /// The `causal-lm` model: the GGUF loaded, the prompts checked.
    fn start_causal_lm(
        &self,
        c: &CausalLmModelConfig,
        base_dir: &Path,
        files: &mut Vec<PathBuf>,
    ) -> Result<CausalLmModel> {
        let spec = c.model.as_deref().unwrap_or("smollm2-135m");
        // A relative `.gguf` path is the config folder's.
        let spec =
            if spec.ends_with(".gguf") && !spec.starts_with("hf:") && Path::new(spec).is_relative()
            {
                base_dir.join(spec).display().to_string()
            } else {
                spec.to_string()
            };
        let weights = match c.weights.as_deref().unwrap_or("f32") {
            "f32" => WeightFormat::F32,
            "quantized" => WeightFormat::Quantized,
            other => {
                return Err(self.config_err(format!(
                    "`weights` is \"f32\" or \"quantized\", found {other:?}"
                )))
            }
        };
        let options = LmOptions {
            device: candle::device(c.device.as_deref().unwrap_or("cpu"))?,
            weights,
            ..LmOptions::default()
        };
        let path = metamorph_models::causal_lm::resolve_gguf(&spec)?;
        let lm = CausalLm::from_file(&path, options)?;
        files.push(path);
        let mut config = CausalLmConfig {
            prompts: self.by_task(&c.prompts, "prompts")?,
            labels: self.by_task(&c.labels, "labels")?,
            system: c.system.clone(),
            chat: c.chat,
            max_prompt_tokens: c.max_prompt_tokens,
            ..CausalLmConfig::default()
        };
        if let Some(n) = c.max_new_tokens {
            config.max_new_tokens = n;
        }
        if let Some(n) = c.batch_size {
            config.batch_size = n;
        }
        CausalLmModel::try_new(&self.name, lm, &self.tasks, config)
    }

    /// The `http` model; `env` reads the API key's variable.
    pub(crate) fn start_http(
        &self,
        c: &HttpModelConfig,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<HttpModel> {
        let url = c.url.clone().ok_or_else(|| {
            self.config_err(
                "kind `http` needs `url`, the endpoint each batch is posted to, e.g. \
                 \"http://127.0.0.1:8080/predict\""
                    .into(),
            )
        })?;
        let mut config = HttpConfig::new(url);
        config.transport = c.transport.resolve(
            config.transport,
            None,
            env,
            &format!("model `{}`", self.name),
        )?;
        if let Some(b) = c.batch_size {
            config.batch_size = b;
        }
        HttpModel::try_new(&self.name, config)
    }

    /// The checkpoint `c.model` names, resolved (shared by every candle kind).
    fn resolve_checkpoint(&self, c: &CheckpointConfig, base_dir: &Path) -> Result<Checkpoint> {
        let spec = c.model.as_deref().ok_or_else(|| {
            self.config_err(format!(
                "kind `{}` needs `model` (a directory, asset:NAME or hf:ORG/NAME)",
                self.kind.name()
            ))
        })?;
        let source =
            ModelSource::from_config_spec(spec, base_dir).map_err(|e| self.config_err(e))?;
        let hub = HubOptions {
            offline: c.offline,
            cache_dir: c.cache_dir.as_ref().map(|d| base_dir.join(d)),
        };
        Checkpoint::try_resolve(&source, &hub)
    }

    /// The device and dtype of a candle model.
    fn load_options(c: &CheckpointConfig) -> Result<LoadOptions> {
        Ok(LoadOptions {
            device: candle::device(c.device.as_deref().unwrap_or("cpu"))?,
            dtype: candle::parse_dtype(c.dtype.as_deref().unwrap_or("f32"))?,
        })
    }

    /// Fails when `tasks` lists a task outside `answerable` (for the model kind `what`).
    fn check_tasks(&self, answerable: &[Task], what: &str) -> Result<()> {
        match self.tasks.iter().find(|t| !answerable.contains(t)) {
            Some(task) => Err(self.config_err(format!(
                "{what} answers only {}, not `{task}`",
                answerable
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
            None => Ok(()),
        }
    }

    fn start_sentence_similarity(
        &self,
        c: &SimilarityModelConfig,
        base_dir: &Path,
        files: &mut Vec<PathBuf>,
    ) -> Result<SentenceSimilarityModel> {
        self.check_tasks(&[Task::Paraphrase], "a sentence-similarity model")?;
        let load = Self::load_options(&c.checkpoint)?;
        let mut encoder = EncoderOptions::default()
            .with_device(load.device)
            .with_dtype(load.dtype)
            .with_batch_size(c.checkpoint.batch_size.unwrap_or(64));
        if let Some(n) = c.checkpoint.max_length {
            encoder = encoder.with_max_length(n);
        }
        let checkpoint = self.resolve_checkpoint(&c.checkpoint, base_dir)?;
        files.extend(checkpoint_files(&checkpoint));
        let encoder = SentenceEncoder::try_new(&self.name, &checkpoint, encoder)?;
        let mut options = SimilarityOptions::default();
        if let Some(t) = c.threshold {
            options = options.with_threshold(t);
        }
        SentenceSimilarityModel::try_new(&self.name, encoder, options)
    }

    /// A checkpoint with a task head (`head`, or the one its `config.json` names).
    fn start_task_model(
        &self,
        c: &CheckpointConfig,
        packing: &PackingConfig,
        qa: &QaKeys,
        classifier: &ClassifierKeys,
        base_dir: &Path,
        head: Option<Head>,
    ) -> Result<(Arc<dyn Model>, Vec<PathBuf>)> {
        let checkpoint = self.resolve_checkpoint(c, base_dir)?;
        let files = checkpoint_files(&checkpoint);
        let encoder =
            TaskEncoder::try_load(&self.name, &checkpoint, head, &Self::load_options(c)?)?;
        let mut batch = BatchOptions::default();
        if let Some(n) = packing.batch_tokens {
            batch = batch.with_max_tokens(n);
        }
        if let Some(n) = c.batch_size {
            batch = batch.with_max_rows(n);
        }
        if let Some(n) = packing.batch_cost {
            batch = batch.with_batch_cost(n);
        }
        match encoder.head() {
            Head::QuestionAnswering => {
                self.check_tasks(&[Task::Squad, Task::Drop], "an extractive-qa model")?;
                let mut options = QaOptions::default()
                    .with_batch(batch)
                    .with_null_threshold(qa.null_threshold);
                if let Some(n) = c.max_length {
                    options = options.with_max_seq_len(n);
                }
                if let Some(n) = qa.doc_stride {
                    options = options.with_doc_stride(n);
                }
                if let Some(n) = qa.max_answer_len {
                    options = options.with_max_answer_len(n);
                }
                Ok((
                    Arc::new(QuestionAnsweringModel::try_new(
                        &self.name, encoder, options,
                    )?),
                    files,
                ))
            }
            Head::SequenceClassification => {
                self.check_tasks(
                    &[
                        Task::BoolQ,
                        Task::Sentiment,
                        Task::Paraphrase,
                        Task::Relation,
                    ],
                    "a sequence-classification model",
                )?;
                // Configured tasks are checked against the labels now, not at the first batch.
                let mut options = ClassificationOptions::default()
                    .with_batch(batch)
                    .with_label_map(classifier.label_map.clone())
                    .with_pair_order(classifier.pair_order)
                    .with_entity_markers(classifier.entity_markers)
                    .with_tasks(self.tasks.clone());
                if let Some(n) = c.max_length {
                    options = options.with_max_length(n);
                }
                Ok((
                    Arc::new(SequenceClassificationModel::try_new(
                        &self.name, encoder, options,
                    )?),
                    files,
                ))
            }
            other => Err(self.config_err(format!(
                "a checkpoint with a {other} head answers no task of the execute stage \
                 (extractive-qa and sequence-classification checkpoints do; token classifiers \
                 are the library API metamorph_execute::candle::TokenClassifier)"
            ))),
        }
    }
}

/// A checkpoint's files: those of its folder and its weights.
fn checkpoint_files(checkpoint: &Checkpoint) -> Vec<PathBuf> {
    let mut files = crate::model_fingerprint::files_in(&checkpoint.dir);
    files.extend(checkpoint.weights.iter().cloned());
    files
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use metamorph_data::http::HttpSettings;
    use serde_json::json;

    use super::*;

    fn parse(value: Value) -> std::result::Result<ModelConfig, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn decoding_settings_and_templates_change_the_fingerprint_and_name_tasks_budget_do_not() {
        let fingerprint = |extra: Value| {
            let mut table = json!({
                "name": "llm", "kind": "openai", "base_url": "http://127.0.0.1:1/v1",
                "model": "m", "prompts": {"boolq": "{question}?"}
            });
            for (k, v) in extra.as_object().unwrap() {
                table[k] = v.clone();
            }
            let model = parse(table).unwrap().start(Path::new(".")).unwrap();
            model.fingerprint().unwrap().unwrap()
        };
        let base = fingerprint(json!({}));
        for same in [
            json!({"name": "renamed"}),
            json!({"tasks": ["boolq"]}),
            json!({"max_requests": 5, "max_total_tokens": 100}),
        ] {
            assert_eq!(fingerprint(same.clone()), base, "{same}");
        }
        for other in [
            json!({"temperature": 0.7}),
            json!({"max_tokens": 5}),
            json!({"model": "m2"}),
            json!({"system": "Be brief."}),
            json!({"prompts": {"boolq": "{question}? yes or no"}}),
        ] {
            assert_ne!(fingerprint(other.clone()), base, "{other}");
        }
    }

    #[test]
    fn a_key_of_another_kind_is_refused_naming_table_key_and_kind() {
        let e = parse(json!({
            "name": "baseline",
            "kind": "subprocess",
            "command": ["python3", "m.py"],
            "base_url": "http://127.0.0.1:8000/v1",
        }))
        .unwrap_err();
        assert!(
            e.contains("[[execute.models]] `baseline`")
                && e.contains("`base_url`")
                && e.contains("kind `subprocess`"),
            "{e}"
        );
        // The default kind is subprocess, and a QA key on a classifier is refused too.
        let e = parse(json!({"name": "m", "url": "http://x"})).unwrap_err();
        assert!(
            e.contains("`url`") && e.contains("kind `subprocess`"),
            "{e}"
        );
        let e = parse(json!({
            "name": "c", "kind": "sequence-classification", "model": "asset:x", "doc_stride": 64,
        }))
        .unwrap_err();
        assert!(
            e.contains("`doc_stride`") && e.contains("sequence-classification"),
            "{e}"
        );
        let e = parse(json!({"name": "c", "kind": "gpt"})).unwrap_err();
        assert!(
            e.contains("unknown kind `gpt`") && e.contains("subprocess"),
            "{e}"
        );
        assert!(parse(json!({"kind": "http"}))
            .unwrap_err()
            .contains("`name`"));
    }

    #[test]
    fn each_kind_reads_its_keys() {
        let m = parse(json!({
            "name": "qa", "kind": "candle", "model": "asset:x", "device": "cpu",
            "batch_tokens": 1024, "doc_stride": 64, "label_map": {"LABEL_1": "yes"},
            "tasks": ["squad"],
        }))
        .unwrap();
        assert_eq!(m.tasks, [Task::Squad]);
        let ModelKind::Candle(c) = &m.kind else {
            panic!("{m:?}")
        };
        assert_eq!(c.checkpoint.model.as_deref(), Some("asset:x"));
        assert_eq!(
            (c.packing.batch_tokens, c.qa.doc_stride),
            (Some(1024), Some(64))
        );
        assert_eq!(c.classifier.label_map["LABEL_1"], "yes");
        let m = parse(json!({
            "name": "llm", "kind": "openai", "base_url": "http://h/v1", "model": "m",
            "timeout_secs": 5, "retries": 1, "prompts": {"boolq": "{question}?"},
        }))
        .unwrap();
        let ModelKind::OpenAi(c) = &m.kind else {
            panic!("{m:?}")
        };
        assert_eq!(
            (c.transport.timeout_secs, c.transport.retries),
            (Some(5.0), Some(1))
        );
        assert_eq!(c.prompts["boolq"], "{question}?");
    }

    #[test]
    fn openai_keys_come_from_the_named_variable_when_set_and_not_empty() {
        let config = |api_key_env: Option<&str>| -> ModelConfig {
            parse(json!({
                "name": "llm",
                "kind": "openai",
                "base_url": "http://127.0.0.1:9/v1",
                "model": "m",
                "api_key_env": api_key_env,
            }))
            .unwrap()
        };
        let env = |var: &str| match var {
            "OPENAI_API_KEY" => Some("sk-default".to_string()),
            "MY_KEY" => Some("sk-mine".to_string()),
            "EMPTY_KEY" => Some("  ".to_string()),
            _ => None,
        };
        let key = |m: ModelConfig| {
            let ModelKind::OpenAi(c) = &m.kind else {
                panic!("not openai")
            };
            m.start_openai(c, env).unwrap().api_key().map(String::from)
        };
        assert_eq!(key(config(None)).as_deref(), Some("sk-default"));
        assert_eq!(key(config(Some("MY_KEY"))).as_deref(), Some("sk-mine"));
        assert_eq!(key(config(Some("EMPTY_KEY"))), None);
        assert_eq!(key(config(Some("UNSET_KEY"))), None);
    }

    #[test]
    fn retry_after_is_capped_by_the_configured_maximum() {
        let config = |max: f64| -> HttpModelConfig {
            let m = parse(json!({
                "name": "m",
                "kind": "http",
                "url": "http://127.0.0.1:9/predict",
                "timeout_secs": 600,
                "max_retry_after_secs": max,
            }))
            .unwrap();
            match m.kind {
                ModelKind::Http(c) => c,
                other => panic!("{other:?}"),
            }
        };
        let transport = config(7.0)
            .transport
            .resolve(HttpSettings::default(), None, |_| None, "model `m`")
            .unwrap();
        assert_eq!(transport.max_retry_after, Duration::from_secs(7));
        assert_eq!(transport.timeout, Duration::from_secs(600));
        let endpoint =
            metamorph_data::http::HttpEndpoint::try_new("m", "http://127.0.0.1:9/x", transport)
                .unwrap();
        assert_eq!(
            endpoint.retry_after_delay(Duration::from_secs(40)),
            Duration::from_secs(7)
        );
        let bad = config(-1.0)
            .transport
            .resolve(HttpSettings::default(), None, |_| None, "model `m`")
            .unwrap_err()
            .to_string();
        assert!(bad.contains("max_retry_after_secs"), "{bad}");
    }
}
