//! The `execute` stage: `case` batches in; `prediction` batches out, then the case batch itself
//! (passed through for the judge).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arrow::array::RecordBatch;
use metamorph_data::{
    from_batch, Case, Emitter, Error, Example, Prediction, RecordBuilder, RecordKind, Result,
    Stage, Task,
};
use serde::Deserialize;

use crate::candle::batching::BatchOptions;
use crate::candle::{
    self, Checkpoint, ClassificationOptions, EncoderOptions, EntityMarkers, Head, LoadOptions,
    PairOrder, QaOptions, QuestionAnsweringModel, SentenceEncoder, SentenceSimilarityModel,
    SequenceClassificationModel, SimilarityOptions, TaskEncoder,
};
use crate::protocol::Request;
use crate::{
    HttpConfig, HttpModel, Model, OpenAiConfig, OpenAiModel, SubprocessConfig, SubprocessModel,
};
use metamorph_data::assets::{HubOptions, ModelSource};
use metamorph_data::http::HttpSettings;

/// The `[execute]` table of the config file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExecuteConfig {
    /// The models under test (`[[execute.models]]`).
    pub models: Vec<ModelConfig>,
}

impl ExecuteConfig {
    /// Checks the models' names before any model starts: plain and unique.
    ///
    /// # Errors
    /// [`Error::Config`] naming the offending name.
    pub fn check_names(&self) -> Result<()> {
        metamorph_data::check_names("model", self.models.iter().map(|m| m.name.as_str()))
    }
}

/// One model under test.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Name recorded in predictions and verdicts.
    pub name: String,
    /// How the model is run: `subprocess` (the JSONL protocol, the default),
    /// `sentence-similarity` (a paraphrase model on candle sentence embeddings), a checkpoint
    /// with a task head on candle: `extractive-qa` (squad, drop), `sequence-classification`
    /// (boolq, sentiment, paraphrase, relation) or `candle` (whichever of the two its
    /// `config.json` `architectures` names), `openai` (an OpenAI-compatible
    /// chat/completions endpoint) or `http` (the JSONL protocol's objects over HTTP, a batch
    /// per `POST` to `url`).
    #[serde(default = "default_kind")]
    pub kind: String,
    /// Program and arguments (`subprocess`).
    #[serde(default)]
    pub command: Vec<String>,
    /// Seconds to wait for one batch (`subprocess`, `http`, default 120) or for one request
    /// (`openai`, default 60).
    #[serde(default)]
    pub timeout_secs: Option<f64>,
    /// Requests per batch (`subprocess`, `http`, default 32), rows per forward pass at most (candle
    /// models, default 64) or examples handed to the model at once (`openai`, default 32).
    #[serde(default)]
    pub batch_size: Option<usize>,
    /// Padded tokens (rows × width) per forward pass (task models on candle, default 8192).
    #[serde(default)]
    pub batch_tokens: Option<usize>,
    /// What one more forward pass costs in tokens when rows are packed (task models on candle,
    /// default 128): a length bucket is split only where that saves more padding.
    #[serde(default)]
    pub batch_cost: Option<usize>,
    /// Which model: for the candle kinds the checkpoint, a directory (relative to the config
    /// file's folder), `asset:NAME` or a hub repo `hf:ORG/NAME[@REVISION]`; for `openai` the
    /// model id the server knows (the request's `model` field, e.g. `Qwen/Qwen2.5-7B-Instruct`
    /// or `gpt-4o-mini`).
    #[serde(default)]
    pub model: Option<String>,
    /// Cosine at and above which a pair is a paraphrase (`sentence-similarity`, default 0.8).
    #[serde(default)]
    pub threshold: Option<f32>,
    /// `cpu` (default), `cuda:N` or `metal` (candle models; GPUs need the cargo feature).
    #[serde(default)]
    pub device: Option<String>,
    /// `f32` (default), `f16` or `bf16` (candle models).
    #[serde(default)]
    pub dtype: Option<String>,
    /// Tokens per text, longer ones truncated (candle models; default: the checkpoint's limit),
    /// or per window of a QA context (`extractive-qa`, default min(limit, 384)).
    #[serde(default)]
    pub max_length: Option<usize>,
    /// Tokens of overlap between the windows of a long QA context (default
    /// min(max_length / 2, 128)).
    #[serde(default)]
    pub doc_stride: Option<usize>,
    /// Longest QA answer in tokens (default 15).
    #[serde(default)]
    pub max_answer_len: Option<usize>,
    /// SQuAD 2.0 models: answer "" when null score − best span score exceeds this (0: as
    /// transformers' `handle_impossible_answer`). Unset (default): always a span.
    #[serde(default)]
    pub null_threshold: Option<f32>,
    /// Model label → a label word the tasks read (`sequence-classification`): `yes`/`no`,
    /// `1`/`0`, `positive`/`negative`/`neutral`/`mixed`, …; over the built-in readings of model
    /// labels (`true`/`false`, two-class `LABEL_0`/`LABEL_1`, …).
    #[serde(default)]
    pub label_map: std::collections::BTreeMap<String, String>,
    /// BoolQ pair order (`sequence-classification`): `question-context` (default) or
    /// `context-question`.
    #[serde(default)]
    pub pair_order: PairOrder,
    /// How relation arguments are marked (`sequence-classification`): `typed-punct`
    /// (default, `@ * person * Bill Gates @ … # ^ organization ^ Microsoft #`), `punct` or
    /// `tags` (`[E1] … [/E1]`).
    #[serde(default)]
    pub entity_markers: EntityMarkers,
    /// Use only the local hub cache (hub checkpoints; `HF_HUB_OFFLINE=1` does the same).
    #[serde(default)]
    pub offline: bool,
    /// Hub cache directory, relative to the config file's folder (default: hf-hub's).
    #[serde(default)]
    pub cache_dir: Option<PathBuf>,
    /// Working directory, relative to the config file's folder (default: that folder).
    #[serde(default)]
    pub workdir: Option<PathBuf>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The tasks the model answers (`["boolq"]`, …); cases of other tasks are not sent to it
    /// and the judge does not expect its verdicts for them. Empty (default): every task.
    #[serde(default)]
    pub tasks: Vec<Task>,
    /// The API root (`openai`), e.g. `http://127.0.0.1:8000/v1`.
    #[serde(default)]
    pub base_url: Option<String>,
    /// The endpoint each batch is posted to (`http`), e.g. `http://10.0.0.7:8080/predict`.
    #[serde(default)]
    pub url: Option<String>,
    /// The environment variable holding the API key (`openai`, default `OPENAI_API_KEY`; `http`:
    /// no default); the key itself never goes in the config file. Unset or empty: no
    /// `Authorization` header.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Prompt templates per task (`openai`, `[execute.models.prompts] boolq = "…{question}…"`),
    /// replacing the built-in ones; placeholders in [`crate::openai::prompt`].
    #[serde(default)]
    pub prompts: std::collections::BTreeMap<String, String>,
    /// Label sets of the label tasks (`openai`: `[execute.models.labels] sentiment = [...]`,
    /// `relation = [...]`); sentiment defaults to positive, negative, neutral.
    #[serde(default)]
    pub labels: std::collections::BTreeMap<String, Vec<String>>,
    /// The label recorded when a reply gives no readable label, per task (`openai`:
    /// `[execute.models.fallback] boolq = "unreadable"`); default: such a reply stops the run.
    #[serde(default)]
    pub fallback: std::collections::BTreeMap<String, String>,
    /// System message sent before each prompt (`openai`).
    #[serde(default)]
    pub system: Option<String>,
    /// Sampling temperature (`openai`, default 0).
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Upper bound on a reply's tokens (`openai`, default: the server's).
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Further attempts after a timeout, connection error, 408, 429 or 5xx (`openai`, `http`,
    /// default 2).
    #[serde(default)]
    pub retries: Option<u32>,
    /// Seconds before the first retry, doubled for each further one, with jitter (`openai`,
    /// `http`, default 0.5); a `Retry-After` header overrides it.
    #[serde(default)]
    pub backoff_secs: Option<f64>,
    /// Requests in flight at most (`openai`, default 4; `http`, default 1).
    #[serde(default)]
    pub concurrency: Option<usize>,
    /// The longest wait in seconds a server's `Retry-After` is honoured for (`openai`, `http`,
    /// default 120; `timeout_secs` caps it too).
    #[serde(default)]
    pub max_retry_after_secs: Option<f64>,
}

fn default_kind() -> String {
    "subprocess".into()
}

impl ModelConfig {
    /// A model of `kind` named `name` with every other setting at its default.
    pub fn new(name: &str, kind: &str) -> Self {
        ModelConfig {
            name: name.to_string(),
            kind: kind.to_string(),
            command: Vec::new(),
            timeout_secs: None,
            batch_size: None,
            batch_tokens: None,
            batch_cost: None,
            model: None,
            threshold: None,
            device: None,
            dtype: None,
            max_length: None,
            doc_stride: None,
            max_answer_len: None,
            null_threshold: None,
            label_map: Default::default(),
            pair_order: PairOrder::default(),
            entity_markers: EntityMarkers::default(),
            offline: false,
            cache_dir: None,
            workdir: None,
            env: Default::default(),
            tasks: Vec::new(),
            base_url: None,
            url: None,
            api_key_env: None,
            prompts: Default::default(),
            labels: Default::default(),
            fallback: Default::default(),
            system: None,
            temperature: None,
            max_tokens: None,
            retries: None,
            backoff_secs: None,
            concurrency: None,
            max_retry_after_secs: None,
        }
    }

    /// The candle model of `kind` on the checkpoint `spec` (a directory, `asset:NAME` or
    /// `hf:ORG/NAME[@REV]`), named after its last path component: what `--model` builds.
    pub fn for_checkpoint(spec: &str, kind: &str) -> Self {
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
        ModelConfig {
            model: Some(spec.to_string()),
            ..ModelConfig::new(&name, kind)
        }
    }

    /// Starts the model; relative paths are taken from `base_dir` (the config file's folder).
    ///
    /// # Errors
    /// [`Error::Config`] for an unknown kind; [`Error::Model`] if it cannot start.
    pub fn start(&self, base_dir: &Path) -> Result<Arc<dyn Model>> {
        let model: Arc<dyn Model> = match self.kind.as_str() {
            "subprocess" => {
                let config = SubprocessConfig {
                    command: self.command.clone(),
                    timeout_secs: self.timeout_secs.unwrap_or(120.0),
                    batch_size: self.batch_size.unwrap_or(32),
                    workdir: Some(base_dir.join(self.workdir.as_deref().unwrap_or(Path::new(".")))),
                    env: self.env.clone(),
                };
                Arc::new(SubprocessModel::spawn(&self.name, config)?)
            }
            "sentence-similarity" => Arc::new(self.start_sentence_similarity(base_dir)?),
            "extractive-qa" => self.start_task_model(base_dir, Some(Head::QuestionAnswering))?,
            "sequence-classification" => {
                self.start_task_model(base_dir, Some(Head::SequenceClassification))?
            }
            "candle" => self.start_task_model(base_dir, None)?,
            "openai" => Arc::new(self.start_openai(|var| std::env::var(var).ok())?),
            "http" => Arc::new(self.start_http(|var| std::env::var(var).ok())?),
            other => {
                return Err(Error::Config(format!(
                    "model `{}`: unknown kind `{other}` (this build supports: subprocess, \
                     sentence-similarity, extractive-qa, sequence-classification, candle, openai, http)",
                    self.name
                )))
            }
        };
        Ok(if self.tasks.is_empty() {
            model
        } else {
            Arc::new(ForTasks::new(model, self.tasks.clone()))
        })
    }

    /// The `openai` model; `env` reads the API key's variable.
    fn start_openai(&self, env: impl Fn(&str) -> Option<String>) -> Result<OpenAiModel> {
        let config_err =
            |message: String| Error::Config(format!("model `{}`: {message}", self.name));
        let base_url = self.base_url.clone().ok_or_else(|| {
            config_err("kind `openai` needs `base_url`, e.g. \"http://127.0.0.1:8000/v1\"".into())
        })?;
        let model = self.model.clone().ok_or_else(|| {
            config_err("kind `openai` needs `model`: the model id the server knows".into())
        })?;
        let mut config = OpenAiConfig::new(base_url, model);
        let transport = self.transport(
            HttpSettings {
                api_key: None,
                timeout: config.timeout,
                retries: config.retries,
                backoff: config.backoff,
                concurrency: config.concurrency,
                max_retry_after: config.max_retry_after,
            },
            Some("OPENAI_API_KEY"),
            env,
        )?;
        config.api_key = transport.api_key;
        config.timeout = transport.timeout;
        config.retries = transport.retries;
        config.backoff = transport.backoff;
        config.concurrency = transport.concurrency;
        config.max_retry_after = transport.max_retry_after;
        let task_key = |key: &str, table: &str| {
            key.parse::<Task>()
                .map_err(|e| config_err(format!("`{table}.{key}`: {e}")))
        };
        for (key, text) in &self.prompts {
            config
                .prompts
                .insert(task_key(key, "prompts")?, text.clone());
        }
        for (key, labels) in &self.labels {
            config
                .labels
                .insert(task_key(key, "labels")?, labels.clone());
        }
        for (key, label) in &self.fallback {
            config
                .fallback
                .insert(task_key(key, "fallback")?, label.clone());
        }
        config.system = self.system.clone();
        if let Some(t) = self.temperature {
            config.temperature = t;
        }
        config.max_tokens = self.max_tokens;
        if let Some(b) = self.batch_size {
            config.batch_size = b;
        }
        let model = OpenAiModel::try_new(&self.name, config)?;
        if let Some(why) = self.tasks.iter().find_map(|t| model.unsupported(*t)) {
            return Err(config_err(why));
        }
        Ok(model)
    }

    /// The `http` model; `env` reads the API key's variable.
    fn start_http(&self, env: impl Fn(&str) -> Option<String>) -> Result<HttpModel> {
        let url = self.url.clone().ok_or_else(|| {
            self.config_err(
                "kind `http` needs `url`, the endpoint each batch is posted to, e.g. \
                 \"http://127.0.0.1:8080/predict\""
                    .into(),
            )
        })?;
        let mut config = HttpConfig::new(url);
        config.transport = self.transport(config.transport, None, env)?;
        if let Some(b) = self.batch_size {
            config.batch_size = b;
        }
        HttpModel::try_new(&self.name, config)
    }

    /// The HTTP kinds' transport keys over `defaults`: the API key from `api_key_env` (else
    /// `default_key_var`, read by `env`), `timeout_secs`, `backoff_secs`, `retries`,
    /// `concurrency`, `max_retry_after_secs`.
    fn transport(
        &self,
        mut transport: HttpSettings,
        default_key_var: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<HttpSettings> {
        if let Some(var) = self.api_key_env.as_deref().or(default_key_var) {
            transport.api_key = env(var).filter(|key| !key.trim().is_empty());
            if transport.api_key.is_none() && self.api_key_env.is_some() {
                tracing::warn!(
                    "model `{}`: `{var}` (api_key_env) is not set: sending no API key",
                    self.name
                );
            }
        }
        let seconds = |value: f64, key: &str| {
            Duration::try_from_secs_f64(value).map_err(|_| {
                self.config_err(format!(
                    "`{key}` must be a number of seconds ≥ 0, found {value}"
                ))
            })
        };
        if let Some(t) = self.timeout_secs {
            transport.timeout = seconds(t, "timeout_secs")?;
        }
        if let Some(b) = self.backoff_secs {
            transport.backoff = seconds(b, "backoff_secs")?;
        }
        if let Some(r) = self.retries {
            transport.retries = r;
        }
        if let Some(c) = self.concurrency {
            transport.concurrency = c;
        }
        if let Some(m) = self.max_retry_after_secs {
            transport.max_retry_after = seconds(m, "max_retry_after_secs")?;
        }
        Ok(transport)
    }

    fn config_err(&self, message: String) -> Error {
        Error::Config(format!("model `{}`: {message}", self.name))
    }

    /// The checkpoint `model` names, resolved (shared by every candle kind).
    fn checkpoint(&self, base_dir: &Path) -> Result<Checkpoint> {
        let spec = self.model.as_deref().ok_or_else(|| {
            self.config_err(format!(
                "kind `{}` needs `model` (a directory, asset:NAME or hf:ORG/NAME)",
                self.kind
            ))
        })?;
        let source =
            ModelSource::from_config_spec(spec, base_dir).map_err(|e| self.config_err(e))?;
        let hub = HubOptions {
            offline: self.offline,
            cache_dir: self.cache_dir.as_ref().map(|d| base_dir.join(d)),
        };
        Checkpoint::try_resolve(&source, &hub)
    }

    /// The device and dtype of a candle model.
    fn load_options(&self) -> Result<LoadOptions> {
        Ok(LoadOptions {
            device: candle::device(self.device.as_deref().unwrap_or("cpu"))?,
            dtype: candle::parse_dtype(self.dtype.as_deref().unwrap_or("f32"))?,
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

    fn start_sentence_similarity(&self, base_dir: &Path) -> Result<SentenceSimilarityModel> {
        self.check_tasks(&[Task::Paraphrase], "a sentence-similarity model")?;
        let load = self.load_options()?;
        let mut encoder = EncoderOptions::default()
            .with_device(load.device)
            .with_dtype(load.dtype)
            .with_batch_size(self.batch_size.unwrap_or(64));
        if let Some(n) = self.max_length {
            encoder = encoder.with_max_length(n);
        }
        let checkpoint = self.checkpoint(base_dir)?;
        let encoder = SentenceEncoder::try_new(&self.name, &checkpoint, encoder)?;
        let mut options = SimilarityOptions::default();
        if let Some(t) = self.threshold {
            options = options.with_threshold(t);
        }
        SentenceSimilarityModel::try_new(&self.name, encoder, options)
    }

    /// A checkpoint with a task head (`head`, or the one its `config.json` names).
    fn start_task_model(&self, base_dir: &Path, head: Option<Head>) -> Result<Arc<dyn Model>> {
        let checkpoint = self.checkpoint(base_dir)?;
        let encoder = TaskEncoder::try_load(&self.name, &checkpoint, head, &self.load_options()?)?;
        let mut batch = BatchOptions::default();
        if let Some(n) = self.batch_tokens {
            batch = batch.with_max_tokens(n);
        }
        if let Some(n) = self.batch_size {
            batch = batch.with_max_rows(n);
        }
        if let Some(n) = self.batch_cost {
            batch = batch.with_batch_cost(n);
        }
        match encoder.head() {
            Head::QuestionAnswering => {
                self.check_tasks(&[Task::Squad, Task::Drop], "an extractive-qa model")?;
                let mut options = QaOptions::default()
                    .with_batch(batch)
                    .with_null_threshold(self.null_threshold);
                if let Some(n) = self.max_length {
                    options = options.with_max_seq_len(n);
                }
                if let Some(n) = self.doc_stride {
                    options = options.with_doc_stride(n);
                }
                if let Some(n) = self.max_answer_len {
                    options = options.with_max_answer_len(n);
                }
                Ok(Arc::new(QuestionAnsweringModel::try_new(
                    &self.name, encoder, options,
                )?))
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
                    .with_label_map(self.label_map.clone())
                    .with_pair_order(self.pair_order)
                    .with_entity_markers(self.entity_markers)
                    .with_tasks(self.tasks.clone());
                if let Some(n) = self.max_length {
                    options = options.with_max_length(n);
                }
                Ok(Arc::new(SequenceClassificationModel::try_new(
                    &self.name, encoder, options,
                )?))
            }
            other => Err(self.config_err(format!(
                "a checkpoint with a {other} head answers no task of the execute stage \
                 (extractive-qa and sequence-classification checkpoints do; token classifiers \
                 are the library API metamorph_execute::candle::TokenClassifier)"
            ))),
        }
    }
}

/// The inputs `model` answers (those of its tasks).
fn routed<'a>(model: &dyn Model, inputs: &[&'a Example]) -> Vec<&'a Example> {
    inputs
        .iter()
        .copied()
        .filter(|e| model.handles(e.task))
        .collect()
}

/// A model restricted to some tasks (`tasks = [...]` in its config).
pub struct ForTasks {
    inner: Arc<dyn Model>,
    tasks: Vec<Task>,
}

impl ForTasks {
    /// `inner`, answering only examples of `tasks`.
    pub fn new(inner: Arc<dyn Model>, tasks: Vec<Task>) -> Self {
        ForTasks { inner, tasks }
    }
}

impl Model for ForTasks {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        self.inner.predict(batch)
    }

    fn max_batch(&self) -> usize {
        self.inner.max_batch()
    }

    fn handles(&self, task: Task) -> bool {
        self.tasks.contains(&task)
    }
}

/// Runs every model on the sources and follow-ups of each case batch.
///
/// Each source is predicted once, however many cases share it (also across batches), and
/// identical inputs within a batch (same task and text fields) are run once and the prediction
/// copied to every id.
pub struct ExecuteStage {
    models: Vec<Arc<dyn Model>>,
    predicted_sources: Mutex<HashSet<String>>,
}

impl ExecuteStage {
    /// A stage over already started models.
    ///
    /// # Errors
    /// [`Error::Config`] when `models` is empty, or two models share a name or one has a name
    /// that is not plain ([`metamorph_data::check_names`]).
    pub fn try_new(models: Vec<Arc<dyn Model>>) -> Result<Self> {
        if models.is_empty() {
            return Err(Error::Config(
                "no model to execute: add an [[execute.models]] table to the config, or pass \
                 --model (metamorph-execute)"
                    .into(),
            ));
        }
        metamorph_data::check_names("model", models.iter().map(|m| m.name()))?;
        Ok(ExecuteStage {
            models,
            predicted_sources: Mutex::new(HashSet::new()),
        })
    }

    /// Starts the models `config` lists.
    ///
    /// # Errors
    /// As [`ModelConfig::start`]; [`Error::Config`] when no model is configured.
    pub fn from_config(config: &ExecuteConfig, base_dir: &Path) -> Result<Self> {
        config.check_names()?;
        let models = config
            .models
            .iter()
            .map(|m| m.start(base_dir))
            .collect::<Result<Vec<_>>>()?;
        Self::try_new(models)
    }

    /// The inputs of a batch of cases that still need a prediction, without repeats.
    fn pending_inputs<'a>(&self, cases: &'a [Case]) -> Vec<&'a Example> {
        let mut done = self
            .predicted_sources
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut seen = HashSet::new();
        let mut inputs = Vec::new();
        for case in cases {
            for source in &case.sources {
                if done.insert(source.id.clone()) && seen.insert(source.id.as_str()) {
                    inputs.push(source);
                }
            }
            if seen.insert(case.followup.id.as_str()) {
                inputs.push(&case.followup);
            }
        }
        inputs
    }

    fn predict_all(&self, model: &dyn Model, inputs: &[&Example]) -> Result<Vec<Prediction>> {
        // Identical inputs under different ids run once.
        let mut unique: Vec<&Example> = Vec::new();
        let mut slot_of_input = Vec::with_capacity(inputs.len());
        let mut slot_by_key: HashMap<String, usize> = HashMap::new();
        for example in inputs {
            let mut request = Request::from_example(example);
            request.id = "";
            let key = serde_json::to_string(&request).map_err(|e| Error::Model {
                model: model.name().to_string(),
                message: format!("cannot encode `{}`: {e}", example.id),
            })?;
            let slot = *slot_by_key.entry(key).or_insert_with(|| {
                unique.push(example);
                unique.len() - 1
            });
            slot_of_input.push(slot);
        }
        let predictions = model.predict(&unique)?;
        if predictions.len() != unique.len() {
            return Err(Error::Model {
                model: model.name().to_string(),
                message: format!(
                    "returned {} predictions for {} inputs",
                    predictions.len(),
                    unique.len()
                ),
            });
        }
        Ok(inputs
            .iter()
            .zip(slot_of_input)
            .map(|(example, slot)| {
                let mut p = predictions[slot].clone();
                p.example_id = example.id.clone();
                p
            })
            .collect())
    }
}

/// A follow-up whose generation request is still open was never completed by the `generate`
/// stage: running a model under test on it would record a verdict about an unfinished input.
fn refuse_open_request(case: &Case) -> Result<()> {
    match case.generation()? {
        None => Ok(()),
        Some(request) => Err(Error::Schema {
            context: format!("case `{}`", case.case_id),
            message: format!(
                "its `{}` generation request is still open: run the generate stage \
                 (metamorph-generate, or [generate] in the pipeline config) before execute",
                request.kind()
            ),
        }),
    }
}

impl Stage for ExecuteStage {
    fn name(&self) -> &str {
        "execute"
    }

    fn consumes(&self) -> &[RecordKind] {
        &[RecordKind::Case]
    }

    fn produces(&self) -> &[RecordKind] {
        &[RecordKind::Prediction]
    }

    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        let cases: Vec<Case> = from_batch(&batch, "execute input")?;
        for case in &cases {
            case.validate()?;
            refuse_open_request(case)?;
        }
        let inputs = self.pending_inputs(&cases);
        let mut out = RecordBuilder::new();
        for model in &self.models {
            let mine = routed(model.as_ref(), &inputs);
            if mine.is_empty() {
                continue;
            }
            for p in self.predict_all(model.as_ref(), &mine)? {
                out.append(p);
            }
        }
        if !out.is_empty() {
            emit.emit(out.finish()?)?;
        }
        emit.emit(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers every example with its task name and records what it was asked.
    struct Recorder {
        name: &'static str,
        seen: Mutex<Vec<String>>,
    }

    impl Model for Recorder {
        fn name(&self) -> &str {
            self.name
        }

        fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
            let mut seen = self.seen.lock().unwrap();
            Ok(batch
                .iter()
                .map(|e| {
                    seen.push(e.id.clone());
                    Prediction {
                        label: Some(e.task.to_string()),
                        ..Prediction::new(&e.id, self.name, e.task)
                    }
                })
                .collect())
        }
    }

    fn case(id: &str, task: Task) -> Case {
        let source = Example::new(id, task);
        let mut followup = source.clone();
        followup.id = format!("{id}:MR:0");
        followup.question = Some("an edited input".into());
        Case::new(
            "f",
            "MR",
            vec![source],
            followup,
            &metamorph_data::Expectation::Equal,
        )
    }

    #[test]
    fn models_only_see_the_tasks_they_are_configured_for() {
        let boolq = Arc::new(Recorder {
            name: "boolq-only",
            seen: Mutex::new(Vec::new()),
        });
        let any = Arc::new(Recorder {
            name: "any",
            seen: Mutex::new(Vec::new()),
        });
        let stage = ExecuteStage::try_new(vec![
            Arc::new(ForTasks::new(boolq.clone(), vec![Task::BoolQ])),
            any.clone(),
        ])
        .unwrap();
        let cases = [case("b", Task::BoolQ), case("r", Task::Relation)];
        let inputs = stage.pending_inputs(&cases);
        for model in &stage.models {
            let mine = routed(model.as_ref(), &inputs);
            stage.predict_all(model.as_ref(), &mine).unwrap();
        }
        assert_eq!(*boolq.seen.lock().unwrap(), ["b", "b:MR:0"]);
        assert_eq!(*any.seen.lock().unwrap(), ["b", "b:MR:0", "r", "r:MR:0"]);
    }

    #[test]
    fn cases_with_an_open_generation_request_are_refused() {
        let open = case("q", Task::Drop).with_generation(
            &metamorph_data::GenerationRequest::Decomposition {
                field: "question".into(),
            },
        );
        let e = refuse_open_request(&open).unwrap_err().to_string();
        assert!(
            e.contains("case `q:MR:0`") && e.contains("`decomposition`"),
            "{e}"
        );
        assert!(refuse_open_request(&case("b", Task::BoolQ)).is_ok());
    }

    #[test]
    fn openai_keys_come_from_the_named_variable_when_set_and_not_empty() {
        let config = |api_key_env: Option<&str>| -> ModelConfig {
            serde_json::from_value(serde_json::json!({
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
        let key = |c: ModelConfig| c.start_openai(env).unwrap().api_key().map(String::from);
        assert_eq!(key(config(None)).as_deref(), Some("sk-default"));
        assert_eq!(key(config(Some("MY_KEY"))).as_deref(), Some("sk-mine"));
        assert_eq!(key(config(Some("EMPTY_KEY"))), None);
        assert_eq!(key(config(Some("UNSET_KEY"))), None);
    }

    #[test]
    fn retry_after_is_capped_by_the_configured_maximum() {
        let config = |max: f64| -> ModelConfig {
            serde_json::from_value(serde_json::json!({
                "name": "m",
                "kind": "http",
                "url": "http://127.0.0.1:9/predict",
                "timeout_secs": 600,
                "max_retry_after_secs": max,
            }))
            .unwrap()
        };
        let transport = config(7.0)
            .transport(HttpSettings::default(), None, |_| None)
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
            .transport(HttpSettings::default(), None, |_| None)
            .unwrap_err()
            .to_string();
        assert!(bad.contains("max_retry_after_secs"), "{bad}");
    }
}
