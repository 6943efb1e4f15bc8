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

use crate::candle::{
    self, Checkpoint, EncoderOptions, SentenceEncoder, SentenceSimilarityModel, SimilarityOptions,
};
use crate::protocol::Request;
use crate::{Model, OpenAiConfig, OpenAiModel, SubprocessConfig, SubprocessModel};
use metamorph_data::assets::{HubOptions, ModelSource};

/// The `[execute]` table of the config file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExecuteConfig {
    /// The models under test (`[[execute.models]]`).
    pub models: Vec<ModelConfig>,
}

/// One model under test.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Name recorded in predictions and verdicts.
    pub name: String,
    /// How the model is run: `subprocess` (the JSONL protocol, the default),
    /// `sentence-similarity` (a paraphrase model on candle sentence embeddings) or `openai` (an
    /// OpenAI-compatible chat/completions endpoint).
    #[serde(default = "default_kind")]
    pub kind: String,
    /// Program and arguments (`subprocess`).
    #[serde(default)]
    pub command: Vec<String>,
    /// Seconds to wait for one batch (`subprocess`, default 120) or for one request
    /// (`openai`, default 60).
    #[serde(default)]
    pub timeout_secs: Option<f64>,
    /// Requests per batch (`subprocess`, default 32), texts per forward pass
    /// (`sentence-similarity`, default 64) or examples handed to the model at once (`openai`,
    /// default 32).
    #[serde(default)]
    pub batch_size: Option<usize>,
    /// Which model: for the candle kinds (`sentence-similarity`) the checkpoint, a directory
    /// (relative to the config file's folder), `asset:NAME` or a hub repo
    /// `hf:ORG/NAME[@REVISION]`; for `openai` the model id the server knows (the request's
    /// `model` field, e.g. `Qwen/Qwen2.5-7B-Instruct` or `gpt-4o-mini`).
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
    /// Tokens per text, longer ones truncated (candle models; default: the checkpoint's limit).
    #[serde(default)]
    pub max_length: Option<usize>,
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
    /// The environment variable holding the API key (`openai`, default `OPENAI_API_KEY`); the
    /// key itself never goes in the config file. Unset or empty: no `Authorization` header.
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
    /// Further attempts after a timeout, connection error, 408, 429 or 5xx (`openai`, default 2).
    #[serde(default)]
    pub retries: Option<u32>,
    /// Seconds before the first retry, doubled for each further one, with jitter (`openai`,
    /// default 0.5); a `Retry-After` header overrides it.
    #[serde(default)]
    pub backoff_secs: Option<f64>,
    /// Requests in flight at most (`openai`, default 4).
    #[serde(default)]
    pub concurrency: Option<usize>,
}

fn default_kind() -> String {
    "subprocess".into()
}

impl ModelConfig {
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
            "openai" => Arc::new(self.start_openai(|var| std::env::var(var).ok())?),
            other => {
                return Err(Error::Config(format!(
                    "model `{}`: unknown kind `{other}` (this build supports: subprocess, \
                     sentence-similarity, openai)",
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
        let var = self.api_key_env.as_deref().unwrap_or("OPENAI_API_KEY");
        config.api_key = env(var).filter(|key| !key.trim().is_empty());
        if config.api_key.is_none() && self.api_key_env.is_some() {
            tracing::warn!(
                "model `{}`: `{var}` (api_key_env) is not set: sending no API key",
                self.name
            );
        }
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
        let seconds = |value: f64, key: &str| {
            Duration::try_from_secs_f64(value).map_err(|_| {
                config_err(format!(
                    "`{key}` must be a number of seconds ≥ 0, found {value}"
                ))
            })
        };
        if let Some(t) = self.timeout_secs {
            config.timeout = seconds(t, "timeout_secs")?;
        }
        if let Some(b) = self.backoff_secs {
            config.backoff = seconds(b, "backoff_secs")?;
        }
        if let Some(r) = self.retries {
            config.retries = r;
        }
        if let Some(c) = self.concurrency {
            config.concurrency = c;
        }
        if let Some(b) = self.batch_size {
            config.batch_size = b;
        }
        let model = OpenAiModel::try_new(&self.name, config)?;
        if let Some(why) = self.tasks.iter().find_map(|t| model.unsupported(*t)) {
            return Err(config_err(why));
        }
        Ok(model)
    }

    fn start_sentence_similarity(&self, base_dir: &Path) -> Result<SentenceSimilarityModel> {
        let config_err =
            |message: String| Error::Config(format!("model `{}`: {message}", self.name));
        if let Some(task) = self.tasks.iter().find(|t| **t != Task::Paraphrase) {
            return Err(config_err(format!(
                "a sentence-similarity model answers only paraphrase, not `{task}`"
            )));
        }
        let spec = self.model.as_deref().ok_or_else(|| {
            config_err(
                "kind `sentence-similarity` needs `model` (a directory, asset:NAME or hf:ORG/NAME)"
                    .into(),
            )
        })?;
        // A directory beside the config file wins over the ORG/NAME hub reading of the same
        // text (`models/minilm`).
        let beside = base_dir.join(spec);
        let source = if !spec.starts_with("asset:") && !spec.starts_with("hf:") && beside.is_dir() {
            ModelSource::Local(beside)
        } else {
            match spec.parse::<ModelSource>().map_err(config_err)? {
                ModelSource::Local(dir) => ModelSource::Local(base_dir.join(dir)),
                other => other,
            }
        };
        let hub = HubOptions {
            offline: self.offline,
            cache_dir: self.cache_dir.as_ref().map(|d| base_dir.join(d)),
        };
        let mut encoder = EncoderOptions::default()
            .with_device(candle::device(self.device.as_deref().unwrap_or("cpu"))?)
            .with_dtype(candle::parse_dtype(self.dtype.as_deref().unwrap_or("f32"))?)
            .with_batch_size(self.batch_size.unwrap_or(64));
        if let Some(n) = self.max_length {
            encoder = encoder.with_max_length(n);
        }
        let checkpoint = Checkpoint::try_resolve(&source, &hub)?;
        let encoder = SentenceEncoder::try_new(&self.name, &checkpoint, encoder)?;
        let mut options = SimilarityOptions::default();
        if let Some(t) = self.threshold {
            options = options.with_threshold(t);
        }
        SentenceSimilarityModel::try_new(&self.name, encoder, options)
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
    /// [`Error::Config`] when `models` is empty.
    pub fn try_new(models: Vec<Arc<dyn Model>>) -> Result<Self> {
        if models.is_empty() {
            return Err(Error::Config(
                "no model to execute: add an [[execute.models]] table to the config".into(),
            ));
        }
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
}
