//! The `generate` stage: completes the follow-ups of `case` rows that carry a
//! [`GenerationRequest`] (Break-Perturb-Build's *Build* and *Break*), and optionally fills the
//! QDMR `steps` of `example` rows that lack them.
//!
//! # Design decisions
//! * **One model per request kind** (`[generate.question]`, `[generate.decomposition]`), each
//!   with its own decoding options: BPB's question generator and QDMR parser are separate
//!   fine-tuned BARTs with different settings. `[generate.masked_lm]` names the masked LM of
//!   substitution requests ([`CandleMaskedLm`]; `parser` adds the spaCy pipeline its same-POS
//!   filter tags with).
//! * **Substitutions take the best surviving candidate**: the masked word's top-k predictions
//!   are filtered as the request says (whole words, probability floor, same part of speech) and
//!   the most probable one replaces the word; a case with no candidate left is dropped and
//!   counted. Each request is one forward pass (its own masked text), not batched across cases.
//! * **Only cases with a request cost anything**: a case batch whose `generation` column is all
//!   null is passed on as it came, without being decoded into rows.
//! * **Identical model inputs run once per batch** (perturbations of one source often ask the
//!   same thing), then in chunks of the generator's `batch_size`.
//! * **A bad model output drops its case, not the run**: an empty question or a decomposition
//!   with an empty step or a reference to a later step is counted under its reason
//!   ([`GenerateCounts`]) and logged; a bad *request* (unknown field, no model for its kind) is
//!   an error, since it is a configuration or upstream bug that would recur on every case.
//! * **Edits follow the text**: a generated question replaces the case's edits of its field by
//!   the one edit from the source's text to the new one (common prefix and suffix left out), so
//!   reports show what really changed. A parsed decomposition changes no text; the follow-up's
//!   `operators` are cleared because they described the old steps.
//! * **Examples** (`example_steps = true`): the stage also reads `example` rows and fills
//!   `steps` of QDMR, DROP and SQuAD examples that have a question but no steps, with the
//!   decomposition model; BREAK's own QDMR is kept where present. An example whose parse is
//!   malformed keeps `steps` empty (perturb then skips it) and is counted. In a pipeline this
//!   stage must then also run *before* perturb (see [`GenerateStage::for_examples`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use arrow::array::{Array, RecordBatch};
use metamorph_data::assets::{resolve, resolve_safetensors_checkpoint, HubOptions, ModelSource};
use metamorph_data::{
    from_batch, to_batch, Case, Edit, Emitter, Error, Example, GenerationRequest, RecordKind,
    Result, Stage, Task,
};
use serde::Deserialize;

use metamorph_parse::spacy::pipeline::Pipeline;

use metamorph_data::http::chat::{ChatClient, ChatSettings};
use metamorph_models::bart::Bart;
use metamorph_models::masked_lm::{CandleMaskedLm, FillOptions};
use metamorph_models::t5::T5;
use metamorph_models::{device, ModelOptions};

use crate::openai::{FewShot, OpenAiGenerator, ReplyShape};
use crate::qdmr::{self, Template};
use crate::{DecodingOptions, EarlyStopping, Seq2Seq};

/// The `[generate]` table of the config file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GenerateConfig {
    /// The question generator (BPB's *Build*, QDMR → question): `[generate.question]`.
    pub question: Option<GeneratorConfig>,
    /// The QDMR parser (BPB's *Break*, question → QDMR): `[generate.decomposition]`.
    pub decomposition: Option<GeneratorConfig>,
    /// The masked LM of substitution requests: `[generate.masked_lm]`.
    pub masked_lm: Option<MaskedLmConfig>,
    /// Also read `example` rows and fill the `steps` of QDMR, DROP and SQuAD examples that have
    /// none, with the decomposition model (default false).
    pub example_steps: bool,
}

/// The masked LM of substitution requests: `[generate.masked_lm]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaskedLmConfig {
    /// The checkpoint (BERT, RoBERTa/XLM-R or DeBERTa-v2 with its MLM head): a directory
    /// (relative to the config file's folder), `asset:NAME` or `hf:ORG/NAME[@REVISION]`.
    pub model: String,
    /// Name used in logs and errors (default: the `model` string).
    #[serde(default)]
    pub name: Option<String>,
    /// `cpu` (default), `cuda:N` or `metal`.
    #[serde(default)]
    pub device: Option<String>,
    /// `f32` (default), `f16` or `bf16`.
    #[serde(default)]
    pub dtype: Option<String>,
    /// Use only the local hub cache.
    #[serde(default)]
    pub offline: bool,
    /// Hub cache directory, relative to the config file's folder.
    #[serde(default)]
    pub cache_dir: Option<PathBuf>,
    /// The spaCy pipeline for same-POS filtering: `asset:en_core_web_sm` or a directory
    /// (default: none; a request with `same_pos` then fails naming the case).
    #[serde(default)]
    pub parser: Option<String>,
}

impl MaskedLmConfig {
    /// Loads the model and the optional parser; relative paths are taken from `base_dir`.
    fn start(&self, base_dir: &Path) -> Result<(Arc<CandleMaskedLm>, Option<Arc<Pipeline>>)> {
        let what = "[generate.masked_lm]";
        let spec = self.model.as_str();
        let source = ModelSource::from_config_spec(spec, base_dir)
            .map_err(|e| Error::Config(format!("{what}: {e}")))?;
        let hub = HubOptions {
            offline: self.offline,
            cache_dir: self.cache_dir.as_ref().map(|d| base_dir.join(d)),
        };
        let options = ModelOptions {
            device: device::device(self.device.as_deref().unwrap_or("cpu"))?,
            dtype: device::parse_dtype(self.dtype.as_deref().unwrap_or("f32"))?,
        };
        let checkpoint = metamorph_models::Checkpoint::try_resolve(&source, &hub)?;
        let name = self.name.clone().unwrap_or_else(|| self.model.clone());
        let model = CandleMaskedLm::load(&checkpoint, &name, &options)?;
        let parser = match self.parser.as_deref() {
            None => None,
            Some(spec) => {
                let dir = match spec.strip_prefix("asset:") {
                    Some(asset) => metamorph_data::assets::ensure(asset)?,
                    None => base_dir.join(spec),
                };
                let pipeline = Pipeline::load(&dir).map_err(|e| Error::Asset {
                    name: dir.display().to_string(),
                    message: format!("{what} parser: {e}"),
                })?;
                Some(Arc::new(pipeline))
            }
        };
        Ok((Arc::new(model), parser))
    }
}

impl GenerateConfig {
    /// True when the table configures nothing (the pipeline then leaves the stage out).
    pub fn is_empty(&self) -> bool {
        self.question.is_none() && self.decomposition.is_none() && self.masked_lm.is_none()
    }
}

/// `early_stopping` as `transformers` spells it: `true`, `false` or `"never"`.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum EarlyStoppingSetting {
    /// `true` ([`EarlyStopping::Finished`]) or `false` ([`EarlyStopping::Heuristic`]).
    Flag(bool),
    /// `"never"` ([`EarlyStopping::Never`]).
    Name(String),
}

/// One generation model and how to call it: `[generate.question]` or
/// `[generate.decomposition]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorConfig {
    /// `bart`, `t5`, `candle` (whichever of the two `config.json`'s `model_type` names), or
    /// `openai` (an OpenAI-compatible chat/completions endpoint prompted with few-shot
    /// `examples`; the decoding options then do not apply: the server decodes).
    pub kind: String,
    /// Name used in logs and errors (default: the request kind).
    #[serde(default)]
    pub name: Option<String>,
    /// The checkpoint: a directory (relative to the config file's folder), `asset:NAME` or
    /// `hf:ORG/NAME[@REVISION]`; for `openai` the model id the server knows.
    #[serde(default)]
    pub model: Option<String>,
    /// `cpu` (default), `cuda:N` or `metal` (GPUs need the cargo feature).
    #[serde(default)]
    pub device: Option<String>,
    /// `f32` (default), `f16` or `bf16`.
    #[serde(default)]
    pub dtype: Option<String>,
    /// Use only the local hub cache (hub checkpoints; `HF_HUB_OFFLINE=1` does the same).
    #[serde(default)]
    pub offline: bool,
    /// Hub cache directory, relative to the config file's folder (default: hf-hub's).
    #[serde(default)]
    pub cache_dir: Option<PathBuf>,
    /// Distinct inputs per model call (default 16).
    #[serde(default)]
    pub batch_size: Option<usize>,
    /// Beams (1 = greedy; default 3 for questions, 2 for decompositions, as BPB's code).
    #[serde(default)]
    pub num_beams: Option<usize>,
    /// Most tokens generated (default 99 for questions, BPB's `max_length=100`; 128 for
    /// decompositions).
    #[serde(default)]
    pub max_new_tokens: Option<usize>,
    /// Fewest tokens before end-of-sequence may come (default 0).
    #[serde(default)]
    pub min_new_tokens: Option<usize>,
    /// Exponent of the length when ranking beams (default 1.0).
    #[serde(default)]
    pub length_penalty: Option<f32>,
    /// Penalty on repeated tokens (default 2.5 for questions, BPB's; 1.0 for decompositions).
    #[serde(default)]
    pub repetition_penalty: Option<f32>,
    /// Forbid repeating any n-gram of this size (default 0: off).
    #[serde(default)]
    pub no_repeat_ngram_size: Option<usize>,
    /// `false` (default), `true` or `"never"`, as `transformers`' `early_stopping`.
    #[serde(default)]
    pub early_stopping: Option<EarlyStoppingSetting>,
    /// The model input: `{steps}` (the BREAK decomposition string, `return a ;return #1 …`)
    /// for questions, `{question}` for decompositions (the defaults are exactly these).
    #[serde(default)]
    pub template: Option<String>,
    /// Whether the model reads and writes `@@k@@` for `#k` (default true for candle models, as
    /// BPB's BARTs; false for `openai`). Decomposition outputs are read with either.
    #[serde(default)]
    pub reference_tokens: Option<bool>,
    /// The API root (`openai`), e.g. `http://127.0.0.1:8000/v1`.
    #[serde(default)]
    pub base_url: Option<String>,
    /// The environment variable holding the API key (`openai`, default `OPENAI_API_KEY`);
    /// unset or empty: no `Authorization` header.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// System message (`openai`).
    #[serde(default)]
    pub system: Option<String>,
    /// Few-shot examples (`openai`, `[[generate.question.examples]] input = "…" output = "…"`):
    /// `input` is the placeholder's value (a BREAK decomposition string, or a question), put
    /// through `template` like every input; `output` the reply the model should give.
    #[serde(default)]
    pub examples: Vec<FewShot>,
    /// Sampling temperature (`openai`, default 0: greedy).
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Upper bound on a reply's tokens (`openai`, default: the server's).
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Seconds to wait for one request (`openai`, default 60).
    #[serde(default)]
    pub timeout_secs: Option<f64>,
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
    /// The longest wait in seconds a server's `Retry-After` is honoured for (`openai`,
    /// default 120; `timeout_secs` caps it too).
    #[serde(default)]
    pub max_retry_after_secs: Option<f64>,
}

/// The two request kinds a generator serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    Question,
    Decomposition,
}

impl Purpose {
    fn key(self) -> &'static str {
        match self {
            Purpose::Question => "question",
            Purpose::Decomposition => "decomposition",
        }
    }

    fn placeholder(self) -> &'static str {
        match self {
            Purpose::Question => "steps",
            Purpose::Decomposition => "question",
        }
    }
}

impl GeneratorConfig {
    /// A generator of `kind` on the checkpoint `model`, every other setting at its default.
    pub fn new(kind: &str, model: &str) -> Self {
        GeneratorConfig {
            kind: kind.into(),
            name: None,
            model: Some(model.into()),
            device: None,
            dtype: None,
            offline: false,
            cache_dir: None,
            batch_size: None,
            num_beams: None,
            max_new_tokens: None,
            min_new_tokens: None,
            length_penalty: None,
            repetition_penalty: None,
            no_repeat_ngram_size: None,
            early_stopping: None,
            template: None,
            reference_tokens: None,
            base_url: None,
            api_key_env: None,
            system: None,
            examples: Vec::new(),
            temperature: None,
            max_tokens: None,
            timeout_secs: None,
            retries: None,
            backoff_secs: None,
            concurrency: None,
            max_retry_after_secs: None,
        }
    }

    /// The decoding options, defaults per purpose filled in.
    fn decoding(&self, purpose: Purpose, what: &str) -> Result<DecodingOptions> {
        let (beams, max_new, repetition) = match purpose {
            Purpose::Question => (3, 99, 2.5),
            Purpose::Decomposition => (2, 128, 1.0),
        };
        let early_stopping = match &self.early_stopping {
            None | Some(EarlyStoppingSetting::Flag(false)) => EarlyStopping::Heuristic,
            Some(EarlyStoppingSetting::Flag(true)) => EarlyStopping::Finished,
            Some(EarlyStoppingSetting::Name(n)) if n == "never" => EarlyStopping::Never,
            Some(EarlyStoppingSetting::Name(n)) => {
                return Err(Error::Config(format!(
                    "{what}: `early_stopping` is true, false or \"never\", found {n:?}"
                )))
            }
        };
        let options = DecodingOptions {
            num_beams: self.num_beams.unwrap_or(beams),
            max_new_tokens: self.max_new_tokens.unwrap_or(max_new),
            min_new_tokens: self.min_new_tokens.unwrap_or(0),
            length_penalty: self.length_penalty.unwrap_or(1.0),
            repetition_penalty: self.repetition_penalty.unwrap_or(repetition),
            no_repeat_ngram_size: self.no_repeat_ngram_size.unwrap_or(0),
            early_stopping,
        };
        if options.num_beams == 0 || options.max_new_tokens == 0 {
            return Err(Error::Config(format!(
                "{what}: `num_beams` and `max_new_tokens` must be at least 1"
            )));
        }
        let valid = options.repetition_penalty.is_finite()
            && options.repetition_penalty > 0.0
            && options.length_penalty.is_finite();
        if !valid {
            return Err(Error::Config(format!(
                "{what}: `repetition_penalty` must be > 0 and `length_penalty` finite"
            )));
        }
        Ok(options)
    }

    /// Loads the candle checkpoint `model` names.
    fn load_candle(&self, name: &str, base_dir: &Path, what: &str) -> Result<Arc<dyn Seq2Seq>> {
        let spec = self.model.as_deref().ok_or_else(|| {
            Error::Config(format!(
                "{what}: kind `{}` needs `model` (a directory, asset:NAME or hf:ORG/NAME)",
                self.kind
            ))
        })?;
        let source = ModelSource::from_config_spec(spec, base_dir)
            .map_err(|e| Error::Config(format!("{what}: {e}")))?;
        let hub = HubOptions {
            offline: self.offline,
            cache_dir: self.cache_dir.as_ref().map(|d| base_dir.join(d)),
        };
        // Single-file or sharded weights (shards fetched too for a hub checkpoint).
        let (dir, _) =
            resolve_safetensors_checkpoint(&source, &["config.json", "tokenizer.json"], &hub)?;
        // Optional: only fetched so that a hub checkpoint's generation defaults are read.
        if !matches!(source, ModelSource::Local(_)) {
            let _ = resolve(&source, &["generation_config.json"], &hub);
        }
        let options = ModelOptions {
            device: device::device(self.device.as_deref().unwrap_or("cpu"))?,
            dtype: device::parse_dtype(self.dtype.as_deref().unwrap_or("f32"))?,
        };
        let kind = match self.kind.as_str() {
            "candle" => model_type(&dir.join("config.json"))?,
            other => other.to_string(),
        };
        Ok(match kind.as_str() {
            "bart" => Arc::new(Bart::load(&dir, name, options)?),
            "t5" => Arc::new(T5::load(&dir, name, options)?),
            other => {
                return Err(Error::Config(format!(
                    "{what}: `{}` is a `{other}` checkpoint; the generate stage runs bart and t5",
                    dir.display()
                )))
            }
        })
    }

    /// Starts the generator for `purpose`; relative paths are taken from `base_dir`.
    fn start(&self, purpose: Purpose, base_dir: &Path) -> Result<Generator> {
        self.start_with_env(purpose, base_dir, |var| std::env::var(var).ok())
    }

    /// [`GeneratorConfig::start`] with `env` reading the API key's variable.
    fn start_with_env(
        &self,
        purpose: Purpose,
        base_dir: &Path,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Generator> {
        let what = format!("[generate.{}]", purpose.key());
        let name = self
            .name
            .clone()
            .unwrap_or_else(|| purpose.key().to_string());
        let options = self.decoding(purpose, &what)?;
        let placeholder = purpose.placeholder();
        let text = self
            .template
            .clone()
            .unwrap_or_else(|| format!("{{{placeholder}}}"));
        let template = Template::parse(&text, &[placeholder])
            .map_err(|e| Error::Config(format!("{what}: `template`: {e}")))?;
        let batch_size = self.batch_size.unwrap_or(16);
        if batch_size == 0 {
            return Err(Error::Config(format!(
                "{what}: `batch_size` must be positive"
            )));
        }
        let openai = self.kind == "openai";
        let reference_tokens = self.reference_tokens.unwrap_or(!openai);
        let input = |value: &str| model_input(&template, placeholder, value, reference_tokens);
        let model: Arc<dyn Seq2Seq> = match self.kind.as_str() {
            "bart" | "t5" | "candle" => self.load_candle(&name, base_dir, &what)?,
            "openai" => {
                let examples = self
                    .examples
                    .iter()
                    .map(|e| FewShot {
                        input: input(&e.input),
                        output: e.output.clone(),
                    })
                    .collect();
                let shape = match purpose {
                    Purpose::Question => ReplyShape::Line,
                    Purpose::Decomposition => ReplyShape::Steps,
                };
                let client = self.chat_client(&name, &what, env)?;
                Arc::new(OpenAiGenerator::new(
                    name,
                    client,
                    self.system.clone(),
                    examples,
                    shape,
                ))
            }
            other => {
                return Err(Error::Config(format!(
                    "{what}: unknown kind `{other}` (expected bart, t5, candle or openai)"
                )))
            }
        };
        Ok(Generator::new(
            model,
            options,
            batch_size,
            template,
            reference_tokens,
        ))
    }

    /// The chat client of an `openai` generator.
    fn chat_client(
        &self,
        name: &str,
        what: &str,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<ChatClient> {
        let bad = |message: String| Error::Config(format!("{what}: {message}"));
        let base_url = self.base_url.clone().ok_or_else(|| {
            bad("kind `openai` needs `base_url`, e.g. \"http://127.0.0.1:8000/v1\"".into())
        })?;
        let model = self.model.clone().ok_or_else(|| {
            bad("kind `openai` needs `model`: the model id the server knows".into())
        })?;
        let mut settings = ChatSettings::new(base_url, model);
        let var = self.api_key_env.as_deref().unwrap_or("OPENAI_API_KEY");
        settings.api_key = env(var).filter(|key| !key.trim().is_empty());
        if settings.api_key.is_none() && self.api_key_env.is_some() {
            tracing::warn!("{what}: `{var}` (api_key_env) is not set: sending no API key");
        }
        let seconds = |value: f64, key: &str| {
            Duration::try_from_secs_f64(value).map_err(|_| {
                bad(format!(
                    "`{key}` must be a number of seconds ≥ 0, found {value}"
                ))
            })
        };
        if let Some(t) = self.timeout_secs {
            settings.timeout = seconds(t, "timeout_secs")?;
        }
        if let Some(b) = self.backoff_secs {
            settings.backoff = seconds(b, "backoff_secs")?;
        }
        if let Some(t) = self.temperature {
            settings.temperature = t;
        }
        if let Some(r) = self.retries {
            settings.retries = r;
        }
        if let Some(c) = self.concurrency {
            settings.concurrency = c;
        }
        if let Some(m) = self.max_retry_after_secs {
            settings.max_retry_after = seconds(m, "max_retry_after_secs")?;
        }
        settings.max_tokens = self.max_tokens;
        ChatClient::try_new(name, settings)
    }
}

/// `template` filled with `value` for `name`, `#k` written `@@k@@` with `reference_tokens`.
fn model_input(template: &Template, name: &str, value: &str, reference_tokens: bool) -> String {
    let text = template.render(&[(name, value)]);
    if reference_tokens {
        qdmr::to_reference_tokens(&text)
    } else {
        text
    }
}

/// `model_type` of a `config.json`.
fn model_type(path: &Path) -> Result<String> {
    #[derive(Deserialize)]
    struct Keys {
        model_type: Option<String>,
    }
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let keys: Keys = serde_json::from_str(&text).map_err(|e| Error::Asset {
        name: path.display().to_string(),
        message: format!("not a model config: {e}"),
    })?;
    keys.model_type.ok_or_else(|| Error::Asset {
        name: path.display().to_string(),
        message: "no `model_type`: set `kind = \"bart\"` or `\"t5\"`".into(),
    })
}

/// A started model with its decoding options, input template and reference-token convention.
pub struct Generator {
    model: Arc<dyn Seq2Seq>,
    options: DecodingOptions,
    batch_size: usize,
    template: Template,
    reference_tokens: bool,
}

impl Generator {
    /// `model` decoding with `options`, `batch_size` distinct inputs per call; `template` makes
    /// the model input, and with `reference_tokens` `#k` becomes `@@k@@` in it.
    pub fn new(
        model: Arc<dyn Seq2Seq>,
        options: DecodingOptions,
        batch_size: usize,
        template: Template,
        reference_tokens: bool,
    ) -> Self {
        Generator {
            model,
            options,
            batch_size: batch_size.max(1),
            template,
            reference_tokens,
        }
    }

    /// The model input for `value` of the template's placeholder `name`.
    pub fn input(&self, name: &str, value: &str) -> String {
        model_input(&self.template, name, value, self.reference_tokens)
    }

    /// One output per input; identical inputs run once.
    fn run(&self, inputs: &[String]) -> Result<Vec<String>> {
        let mut unique: Vec<&str> = Vec::new();
        let mut slot_by_input: HashMap<&str, usize> = HashMap::new();
        let slots: Vec<usize> = inputs
            .iter()
            .map(|input| {
                *slot_by_input.entry(input.as_str()).or_insert_with(|| {
                    unique.push(input);
                    unique.len() - 1
                })
            })
            .collect();
        let mut outputs = Vec::with_capacity(unique.len());
        for chunk in unique.chunks(self.batch_size) {
            let got = self.model.generate(chunk, &self.options)?;
            if got.len() != chunk.len() {
                return Err(Error::Model {
                    model: self.model.name().to_string(),
                    message: format!("returned {} outputs for {} inputs", got.len(), chunk.len()),
                });
            }
            outputs.extend(got);
        }
        Ok(slots.into_iter().map(|s| outputs[s].clone()).collect())
    }
}

/// What the stage did so far (all batches, all workers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GenerateCounts {
    /// Cases whose request was completed.
    pub completed: usize,
    /// Cases dropped because the generated question was empty.
    pub empty_question: usize,
    /// Cases dropped because the parsed decomposition was malformed.
    pub malformed_decomposition: usize,
    /// Cases dropped because no masked-LM candidate passed the substitution's filters.
    pub no_substitute: usize,
    /// Examples given steps.
    pub examples_parsed: usize,
    /// Examples left without steps because their parse was malformed.
    pub examples_malformed: usize,
    /// Distinct model inputs run.
    pub model_inputs: usize,
}

#[derive(Default)]
struct Counters {
    completed: AtomicUsize,
    empty_question: AtomicUsize,
    malformed_decomposition: AtomicUsize,
    no_substitute: AtomicUsize,
    examples_parsed: AtomicUsize,
    examples_malformed: AtomicUsize,
    model_inputs: AtomicUsize,
}

/// The generate stage (see the module documentation).
pub struct GenerateStage {
    question: Option<Arc<Generator>>,
    decomposition: Option<Arc<Generator>>,
    masked_lm: Option<Arc<CandleMaskedLm>>,
    parser: Option<Arc<Pipeline>>,
    consumes: Vec<RecordKind>,
    counters: Arc<Counters>,
}

impl GenerateStage {
    /// A stage over started generators; `example_steps` makes it read `example` rows too.
    ///
    /// # Errors
    /// [`Error::Config`] when `example_steps` is set without a decomposition model.
    pub fn try_new(
        question: Option<Generator>,
        decomposition: Option<Generator>,
        example_steps: bool,
    ) -> Result<Self> {
        if example_steps && decomposition.is_none() {
            return Err(Error::Config(
                "[generate] example_steps = true needs a [generate.decomposition] model".into(),
            ));
        }
        let mut consumes = vec![RecordKind::Case];
        if example_steps {
            consumes.push(RecordKind::Example);
        }
        Ok(GenerateStage {
            question: question.map(Arc::new),
            decomposition: decomposition.map(Arc::new),
            masked_lm: None,
            parser: None,
            consumes,
            counters: Arc::default(),
        })
    }

    /// Starts the models `config` names; relative paths are taken from `base_dir` (the config
    /// file's folder).
    ///
    /// # Errors
    /// [`Error::Config`] for bad settings; [`Error::Asset`] when a checkpoint cannot be loaded.
    pub fn from_config(config: &GenerateConfig, base_dir: &Path) -> Result<Self> {
        let question = config
            .question
            .as_ref()
            .map(|c| c.start(Purpose::Question, base_dir))
            .transpose()?;
        let decomposition = config
            .decomposition
            .as_ref()
            .map(|c| c.start(Purpose::Decomposition, base_dir))
            .transpose()?;
        let stage = Self::try_new(question, decomposition, config.example_steps)?;
        Ok(match &config.masked_lm {
            Some(c) => {
                let (model, parser) = c.start(base_dir)?;
                stage.with_masked_lm(model, parser)
            }
            None => stage,
        })
    }

    /// The same stage completing substitution requests with `model`, tagging with `parser` for
    /// requests that keep the part of speech.
    pub fn with_masked_lm(
        mut self,
        model: Arc<CandleMaskedLm>,
        parser: Option<Arc<Pipeline>>,
    ) -> Self {
        self.masked_lm = Some(model);
        self.parser = parser;
        self
    }

    /// The same models, reading only `example` rows: the instance a pipeline places before
    /// perturb when examples need steps (the one after perturb then reads only cases).
    pub fn for_examples(&self) -> Option<GenerateStage> {
        self.consumes
            .contains(&RecordKind::Example)
            .then(|| GenerateStage {
                question: self.question.clone(),
                decomposition: self.decomposition.clone(),
                masked_lm: self.masked_lm.clone(),
                parser: self.parser.clone(),
                consumes: vec![RecordKind::Example],
                counters: self.counters.clone(),
            })
    }

    /// The same models, reading only `case` rows.
    pub fn for_cases(&self) -> GenerateStage {
        GenerateStage {
            question: self.question.clone(),
            decomposition: self.decomposition.clone(),
            masked_lm: self.masked_lm.clone(),
            parser: self.parser.clone(),
            consumes: vec![RecordKind::Case],
            counters: self.counters.clone(),
        }
    }

    /// What the stage (and its siblings from [`GenerateStage::for_examples`]) did so far.
    pub fn counts(&self) -> GenerateCounts {
        let c = &self.counters;
        let get = |a: &AtomicUsize| a.load(Ordering::Relaxed);
        GenerateCounts {
            completed: get(&c.completed),
            empty_question: get(&c.empty_question),
            malformed_decomposition: get(&c.malformed_decomposition),
            no_substitute: get(&c.no_substitute),
            examples_parsed: get(&c.examples_parsed),
            examples_malformed: get(&c.examples_malformed),
            model_inputs: get(&c.model_inputs),
        }
    }

    /// The model configured for `request`'s kind.
    fn generator<'a>(
        &self,
        case: &Case,
        request: &GenerationRequest,
        model: &'a Option<Arc<Generator>>,
        table: &str,
    ) -> Result<&'a Generator> {
        model.as_deref().ok_or_else(|| {
            Error::Config(format!(
                "case `{}`: a `{}` request, but no {table} model is configured",
                case.case_id,
                request.kind()
            ))
        })
    }

    /// Completes the requests of a case batch; returns the cases to keep.
    fn complete_cases(&self, mut cases: Vec<Case>) -> Result<Vec<Case>> {
        // (case index, request, model input) per open request, grouped by kind.
        let mut questions: Vec<(usize, String, String)> = Vec::new();
        let mut decompositions: Vec<(usize, String, String)> = Vec::new();
        // (case index, field, new text or None when no candidate survived).
        let mut substitutions: Vec<(usize, String, Option<String>)> = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            let Some(request) = case.generation()? else {
                continue;
            };
            match &request {
                GenerationRequest::Question { steps, field } => {
                    let generator =
                        self.generator(case, &request, &self.question, "[generate.question]")?;
                    check_field(case, field)?;
                    let input = generator.input("steps", &qdmr::join_steps(steps));
                    questions.push((i, field.clone(), input));
                }
                GenerationRequest::Decomposition { field } => {
                    let generator = self.generator(
                        case,
                        &request,
                        &self.decomposition,
                        "[generate.decomposition]",
                    )?;
                    check_field(case, field)?;
                    let question = case.followup.field(field).ok_or_else(|| Error::Schema {
                        context: format!("case `{}`", case.case_id),
                        message: format!(
                            "a decomposition request of follow-up field `{field}`, which is empty"
                        ),
                    })?;
                    let input = generator.input("question", question);
                    decompositions.push((i, field.clone(), input));
                }
                GenerationRequest::Substitution {
                    field,
                    start,
                    end,
                    top_k,
                    min_prob,
                    same_pos,
                } => {
                    let model = self.masked_lm.as_deref().ok_or_else(|| {
                        Error::Config(format!(
                            "case `{}`: a `substitution` request, but no [generate.masked_lm] \
                             model is configured",
                            case.case_id
                        ))
                    })?;
                    check_field(case, field)?;
                    let text = case.followup.field(field).ok_or_else(|| Error::Schema {
                        context: format!("case `{}`", case.case_id),
                        message: format!(
                            "a substitution in follow-up field `{field}`, which is empty"
                        ),
                    })?;
                    let options = FillOptions {
                        top_k: *top_k,
                        min_prob: *min_prob,
                        same_pos: *same_pos,
                    };
                    let candidates = model
                        .substitutes(text, (*start, *end), &options, self.parser.as_deref())
                        .map_err(|e| match e {
                            Error::Config(m) => {
                                Error::Config(format!("case `{}`: {m}", case.case_id))
                            }
                            Error::Model { model, message } => Error::Model {
                                model,
                                message: format!("case `{}`: {message}", case.case_id),
                            },
                            other => other,
                        })?;
                    self.counters.model_inputs.fetch_add(1, Ordering::Relaxed);
                    let replaced = candidates.first().map(|best| {
                        let chars: Vec<char> = text.chars().collect();
                        let mut out: String = chars[..*start].iter().collect();
                        out.push_str(&best.word);
                        out.extend(&chars[*end..]);
                        out
                    });
                    substitutions.push((i, field.clone(), replaced));
                }
            }
        }
        let mut keep = vec![true; cases.len()];
        let (mut completed, mut empty, mut malformed, mut unsubstituted) = (0, 0, 0, 0);
        for (i, field, replaced) in substitutions {
            let case = &mut cases[i];
            match replaced {
                Some(text) => {
                    set_field(case, &field, text);
                    case.set_generation(None);
                    completed += 1;
                }
                None => {
                    tracing::debug!(case = %case.case_id, "dropped: no masked-LM substitute");
                    keep[i] = false;
                    unsubstituted += 1;
                }
            }
        }
        if let Some(generator) = &self.question {
            let inputs: Vec<String> = questions.iter().map(|q| q.2.clone()).collect();
            let outputs = self.run(generator, &inputs)?;
            for ((i, field, _), output) in questions.into_iter().zip(outputs) {
                let case = &mut cases[i];
                let text = qdmr::clean_question(&output);
                if text.is_empty() {
                    tracing::debug!(case = %case.case_id, "dropped: empty generated question");
                    keep[i] = false;
                    empty += 1;
                    continue;
                }
                set_field(case, &field, text);
                case.set_generation(None);
                completed += 1;
            }
        }
        if let Some(generator) = &self.decomposition {
            let inputs: Vec<String> = decompositions.iter().map(|d| d.2.clone()).collect();
            let outputs = self.run(generator, &inputs)?;
            for ((i, _, _), output) in decompositions.into_iter().zip(outputs) {
                let case = &mut cases[i];
                match qdmr::parse_decomposition(&output) {
                    Ok(steps) => {
                        case.followup.steps = Some(steps);
                        case.followup.operators = None;
                        case.set_generation(None);
                        completed += 1;
                    }
                    Err(why) => {
                        tracing::debug!(case = %case.case_id, output = %output, "dropped: malformed decomposition: {why}");
                        keep[i] = false;
                        malformed += 1;
                    }
                }
            }
        }
        let c = &self.counters;
        c.completed.fetch_add(completed, Ordering::Relaxed);
        c.empty_question.fetch_add(empty, Ordering::Relaxed);
        c.malformed_decomposition
            .fetch_add(malformed, Ordering::Relaxed);
        c.no_substitute.fetch_add(unsubstituted, Ordering::Relaxed);
        tracing::debug!(
            cases = cases.len(),
            completed,
            dropped_empty_question = empty,
            dropped_malformed_decomposition = malformed,
            dropped_no_substitute = unsubstituted,
            "generate: case batch"
        );
        Ok(cases
            .into_iter()
            .zip(keep)
            .filter_map(|(c, k)| k.then_some(c))
            .collect())
    }

    fn run(&self, generator: &Generator, inputs: &[String]) -> Result<Vec<String>> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let distinct = inputs
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len();
        self.counters
            .model_inputs
            .fetch_add(distinct, Ordering::Relaxed);
        generator.run(inputs)
    }

    /// Fills `steps` of the examples that need them.
    fn fill_example_steps(&self, examples: &mut [Example]) -> Result<()> {
        let Some(generator) = &self.decomposition else {
            return Ok(());
        };
        let needy: Vec<usize> = examples
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.steps.is_none()
                    && matches!(e.task, Task::Qdmr | Task::Drop | Task::Squad)
                    && e.question.as_deref().is_some_and(|q| !q.trim().is_empty())
            })
            .map(|(i, _)| i)
            .collect();
        let inputs: Vec<String> = needy
            .iter()
            .map(|&i| generator.input("question", examples[i].question.as_deref().unwrap_or("")))
            .collect();
        let outputs = self.run(generator, &inputs)?;
        let (mut parsed, mut malformed) = (0, 0);
        for (i, output) in needy.into_iter().zip(outputs) {
            match qdmr::parse_decomposition(&output) {
                Ok(steps) => {
                    examples[i].steps = Some(steps);
                    examples[i].operators = None;
                    parsed += 1;
                }
                Err(why) => {
                    tracing::debug!(example = %examples[i].id, output = %output, "no steps: malformed decomposition: {why}");
                    malformed += 1;
                }
            }
        }
        let c = &self.counters;
        c.examples_parsed.fetch_add(parsed, Ordering::Relaxed);
        c.examples_malformed.fetch_add(malformed, Ordering::Relaxed);
        if parsed + malformed > 0 {
            tracing::debug!(
                examples = examples.len(),
                parsed,
                malformed,
                "generate: example steps"
            );
        }
        Ok(())
    }
}

/// Fails unless `field` is a text field of the follow-up.
fn check_field(case: &Case, field: &str) -> Result<()> {
    let mut probe = case.followup.clone();
    if probe.field_mut(field).is_none() {
        return Err(Error::Schema {
            context: format!("case `{}`", case.case_id),
            message: format!(
                "generation request names field `{field}`, which is not a text field \
                 (context, question, text, text_b, title)"
            ),
        });
    }
    Ok(())
}

/// Writes `text` into the follow-up's `field` and replaces the case's edits of that field by
/// the one edit from the first source's text to it (whole words).
fn set_field(case: &mut Case, field: &str, text: String) {
    let before: Vec<char> = case
        .sources
        .first()
        .and_then(|s| s.field(field))
        .unwrap_or("")
        .chars()
        .collect();
    let after: Vec<char> = text.chars().collect();
    // Common prefix and suffix, cut back to whole words so the edit reads as one.
    let mut prefix = before
        .iter()
        .zip(&after)
        .take_while(|(a, b)| a == b)
        .count();
    while prefix > 0 && !before[prefix - 1].is_whitespace() {
        prefix -= 1;
    }
    let mut suffix = before[prefix..]
        .iter()
        .rev()
        .zip(after[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while suffix > 0 && !before[before.len() - suffix].is_whitespace() {
        suffix -= 1;
    }
    case.edits.retain(|e| e.field != field);
    if before != after {
        case.edits.push(Edit {
            field: field.to_string(),
            start: prefix as u32,
            end: (before.len() - suffix) as u32,
            before: before[prefix..before.len() - suffix].iter().collect(),
            after: after[prefix..after.len() - suffix].iter().collect(),
        });
    }
    if let Some(slot) = case.followup.field_mut(field) {
        *slot = Some(text);
    }
}

impl Stage for GenerateStage {
    fn name(&self) -> &str {
        "generate"
    }

    fn consumes(&self) -> &[RecordKind] {
        &self.consumes
    }

    fn produces(&self) -> &[RecordKind] {
        &self.consumes
    }

    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        match RecordKind::of_batch(&batch)? {
            RecordKind::Case => {
                let open = batch
                    .column_by_name("generation")
                    .is_some_and(|c| c.null_count() < c.len());
                if !open {
                    return emit.emit(batch);
                }
                let cases: Vec<Case> = from_batch(&batch, "generate input")?;
                let kept = self.complete_cases(cases)?;
                emit.emit(to_batch(&kept)?)
            }
            RecordKind::Example if self.consumes.contains(&RecordKind::Example) => {
                let mut examples: Vec<Example> = from_batch(&batch, "generate input")?;
                self.fill_example_steps(&mut examples)?;
                emit.emit(to_batch(&examples)?)
            }
            _ => emit.emit(batch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::Expectation;
    use std::sync::Mutex;

    /// Answers each input from a script, recording what it was asked.
    struct Scripted {
        replies: HashMap<String, String>,
        asked: Mutex<Vec<String>>,
    }

    impl Seq2Seq for Scripted {
        fn name(&self) -> &str {
            "scripted"
        }

        fn generate(&self, inputs: &[&str], _: &DecodingOptions) -> Result<Vec<String>> {
            let mut asked = self.asked.lock().unwrap();
            Ok(inputs
                .iter()
                .map(|i| {
                    asked.push(i.to_string());
                    self.replies.get(*i).cloned().unwrap_or_default()
                })
                .collect())
        }
    }

    fn scripted(pairs: &[(&str, &str)]) -> Arc<Scripted> {
        Arc::new(Scripted {
            replies: pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            asked: Mutex::new(Vec::new()),
        })
    }

    fn generator(model: Arc<Scripted>, placeholder: &str) -> Generator {
        let template = Template::parse(&format!("{{{placeholder}}}"), &[placeholder]).unwrap();
        Generator::new(model, DecodingOptions::default(), 2, template, true)
    }

    fn case(id: &str, request: Option<GenerationRequest>) -> Case {
        let mut source = Example::new(id, Task::Drop);
        source.question = Some("How many touchdowns did Rice score?".into());
        let mut followup = source.clone();
        followup.id = format!("{id}:bpb:0");
        let case = Case::new(
            "bpb",
            "AppendBool",
            vec![source],
            followup,
            &Expectation::Equal,
        );
        match request {
            Some(r) => case.with_generation(&r),
            None => case,
        }
    }

    fn question_request(steps: &[&str]) -> GenerationRequest {
        GenerationRequest::Question {
            steps: steps.iter().map(|s| s.to_string()).collect(),
            field: "question".into(),
        }
    }

    #[test]
    fn questions_and_decompositions_complete_or_drop_with_a_reason() {
        let qg = scripted(&[
            (
                "return touchdowns ;return @@1@@ by Rice ;return number of @@2@@",
                "  How many touchdowns did  Rice score? ",
            ),
            ("return yards", ""),
        ]);
        let parser = scripted(&[
            (
                "How many touchdowns did Rice score?",
                "return touchdowns ;return @@1@@ by Rice ;return number of @@2@@",
            ),
            ("Who won?", "return @@2@@ ;return winner"),
        ]);
        let stage = GenerateStage::try_new(
            Some(generator(qg.clone(), "steps")),
            Some(generator(parser.clone(), "question")),
            false,
        )
        .unwrap();
        let steps = ["touchdowns", "#1 by Rice", "number of #2"];
        let mut who = case(
            "d",
            Some(GenerationRequest::Decomposition {
                field: "question".into(),
            }),
        );
        who.followup.question = Some("Who won?".into());
        let cases = vec![
            case("a", Some(question_request(&steps))),
            // The same input as `a`: asked once.
            case("b", Some(question_request(&steps))),
            case("c", Some(question_request(&["yards"]))),
            case(
                "p",
                Some(GenerationRequest::Decomposition {
                    field: "question".into(),
                }),
            ),
            who,
            case("n", None),
        ];
        let untouched = cases[5].clone();
        let kept = stage.complete_cases(cases).unwrap();
        let ids: Vec<&str> = kept.iter().map(|c| c.case_id.as_str()).collect();
        assert_eq!(ids, ["a:bpb:0", "b:bpb:0", "p:bpb:0", "n:bpb:0"]);
        assert_eq!(qg.asked.lock().unwrap().len(), 2);
        let a = &kept[0];
        assert_eq!(
            a.followup.question.as_deref(),
            Some("How many touchdowns did Rice score?")
        );
        assert_eq!(a.generation_json, None);
        // Same text as the source: no edit left for the field.
        assert!(a.edits.is_empty());
        assert_eq!(
            kept[2].followup.steps.as_deref().unwrap(),
            steps.map(String::from)
        );
        assert_eq!(kept[2].generation_json, None);
        assert_eq!(kept[3], untouched);
        let counts = stage.counts();
        assert_eq!(
            (
                counts.completed,
                counts.empty_question,
                counts.malformed_decomposition
            ),
            (3, 1, 1)
        );
        assert_eq!(counts.model_inputs, 4);
    }

    #[test]
    fn a_generated_question_leaves_one_minimal_edit() {
        let mut c = case("a", None);
        c.edits.push(Edit {
            field: "question".into(),
            start: 0,
            end: 3,
            before: "How".into(),
            after: "Who".into(),
        });
        set_field(&mut c, "question", "How many yards did Rice score?".into());
        assert_eq!(
            c.edits,
            [Edit {
                field: "question".into(),
                start: 9,
                end: 19,
                before: "touchdowns".into(),
                after: "yards".into(),
            }]
        );
    }

    #[test]
    fn requests_without_a_model_are_config_errors_naming_the_case() {
        let stage = GenerateStage::try_new(None, None, false).unwrap();
        let e = stage
            .complete_cases(vec![case("a", Some(question_request(&["x"])))])
            .unwrap_err();
        assert!(
            matches!(&e, Error::Config(m) if m.contains("case `a:bpb:0`") && m.contains("[generate.question]")),
            "{e}"
        );
        let substitution = GenerationRequest::Substitution {
            field: "question".into(),
            start: 0,
            end: 3,
            top_k: 5,
            min_prob: 0.0,
            same_pos: false,
        };
        let e = stage
            .complete_cases(vec![case("s", Some(substitution))])
            .unwrap_err();
        assert!(
            matches!(&e, Error::Config(m) if m.contains("case `s:bpb:0`") && m.contains("masked_lm")),
            "{e}"
        );
        let bad_field = GenerationRequest::Question {
            steps: vec!["x".into()],
            field: "answer".into(),
        };
        let stage =
            GenerateStage::try_new(Some(generator(scripted(&[]), "steps")), None, false).unwrap();
        let e = stage
            .complete_cases(vec![case("f", Some(bad_field))])
            .unwrap_err();
        assert!(matches!(&e, Error::Schema { .. }), "{e}");
    }

    /// Substitution requests with the tiny BERT masked LM of the parity fixtures: the best
    /// whole-word candidate replaces the word and becomes the case's one edit; a floor no
    /// candidate reaches drops the case.
    #[test]
    fn substitutions_take_the_best_candidate_or_drop_the_case() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/tests/fixtures/mlm/bert");
        let model =
            Arc::new(CandleMaskedLm::load_dir(&dir, "bert-mlm", &ModelOptions::default()).unwrap());
        let stage = GenerateStage::try_new(None, None, false)
            .unwrap()
            .with_masked_lm(model.clone(), None);
        let request = |min_prob: f32| GenerationRequest::Substitution {
            field: "question".into(),
            // "touchdowns" in "How many touchdowns did Rice score?"
            start: 9,
            end: 19,
            top_k: 50,
            min_prob,
            same_pos: false,
        };
        let cases = vec![
            case("a", Some(request(0.0))),
            case("b", Some(request(0.99))),
        ];
        let kept = stage.complete_cases(cases).unwrap();
        assert_eq!(kept.len(), 1);
        let done = &kept[0];
        assert_eq!(done.generation().unwrap(), None);
        let best = model
            .substitutes(
                "How many touchdowns did Rice score?",
                (9, 19),
                &FillOptions {
                    top_k: 50,
                    min_prob: 0.0,
                    same_pos: false,
                },
                None,
            )
            .unwrap()
            .remove(0);
        let question = done.followup.question.as_deref().unwrap();
        assert_eq!(question, format!("How many {} did Rice score?", best.word));
        assert_eq!(done.edits.len(), 1);
        assert_eq!(done.edits[0].before, "touchdowns");
        assert_eq!(done.edits[0].after, best.word);
        let counts = stage.counts();
        assert_eq!((counts.completed, counts.no_substitute), (1, 1));
        // same_pos without a parser names the case.
        let mut same_pos = request(0.0);
        if let GenerationRequest::Substitution { same_pos: s, .. } = &mut same_pos {
            *s = true;
        }
        let err = stage
            .complete_cases(vec![case("c", Some(same_pos))])
            .unwrap_err();
        assert!(
            matches!(&err, Error::Config(m) if m.contains("case `c:bpb:0`")),
            "{err}"
        );
    }

    #[test]
    fn examples_without_steps_get_them_from_the_parser() {
        let parser = scripted(&[("What is x?", "return x")]);
        let stage = GenerateStage::try_new(None, Some(generator(parser.clone(), "question")), true)
            .unwrap();
        let mut with_gold = Example::new("g", Task::Qdmr);
        with_gold.question = Some("What is x?".into());
        with_gold.steps = Some(vec!["gold".into()]);
        let mut drop = Example::new("d", Task::Drop);
        drop.question = Some("What is x?".into());
        let mut boolq = Example::new("b", Task::BoolQ);
        boolq.question = Some("What is x?".into());
        let mut examples = vec![with_gold.clone(), drop, boolq.clone()];
        stage.fill_example_steps(&mut examples).unwrap();
        assert_eq!(examples[0], with_gold);
        assert_eq!(examples[1].steps.as_deref().unwrap(), ["x".to_string()]);
        assert_eq!(examples[2], boolq);
        assert_eq!(parser.asked.lock().unwrap().len(), 1);
        assert!(stage.for_examples().is_some());
        assert!(GenerateStage::try_new(None, None, true).is_err());
    }

    #[test]
    fn config_defaults_follow_bpb_and_bad_values_are_rejected() {
        let c = GeneratorConfig::new("bart", "m");
        let q = c.decoding(Purpose::Question, "q").unwrap();
        assert_eq!(
            (q.num_beams, q.max_new_tokens, q.repetition_penalty),
            (3, 99, 2.5)
        );
        let mut c = GeneratorConfig::new("bart", "m");
        c.early_stopping = Some(EarlyStoppingSetting::Name("always".into()));
        assert!(c.decoding(Purpose::Question, "q").is_err());
        let config = serde_json::json!({"question": {"kind": "bart", "beams": 3}});
        let e = serde_json::from_value::<GenerateConfig>(config).unwrap_err();
        assert!(e.to_string().contains("beams"), "{e}");
    }
}
