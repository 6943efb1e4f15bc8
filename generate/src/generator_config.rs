//! The `[generate]` table: which model serves each request kind. [`GeneratorConfig`] is typed
//! by its `kind` ([`GeneratorKind`]): a checkpoint decoded on candle or an OpenAI-compatible
//! endpoint, each with only its own keys, so a key of another kind is refused with a message
//! naming the table, the key and the kind. Decision: as for the models under test, the table
//! is read into a JSON map, the keys every kind has are taken out, and the kind's struct is
//! read from the rest with a catch-all for keys it does not know (serde's
//! `deny_unknown_fields` cannot be combined with the flattened decoding and transport keys).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use metamorph_data::assets::{resolve, resolve_safetensors_checkpoint, HubOptions, ModelSource};
use metamorph_data::http::chat::{ChatClient, ChatSettings};
use metamorph_data::http::HttpTransportConfig;
use metamorph_data::usage::Budget;
use metamorph_data::{parse_kind_keys, Error, Result, UnknownKeys};
use metamorph_models::bart::Bart;
use metamorph_models::masked_lm::CandleMaskedLm;
use metamorph_models::t5::T5;
use metamorph_models::{device, ModelOptions};
use metamorph_parse::spacy::pipeline::Pipeline;
use serde::{Deserialize, Deserializer};

use crate::edit::EditBuilder;
use crate::generator::{model_input, Generator};
use crate::openai::{FewShot, OpenAiGenerator, ReplyShape};
use crate::qdmr::Template;
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
    pub(crate) fn start(
        &self,
        base_dir: &Path,
    ) -> Result<(Arc<CandleMaskedLm>, Option<Arc<Pipeline>>)> {
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
/// `[generate.decomposition]`. The keys every kind has are fields here; the rest belong to the
/// [`GeneratorKind`], and a key of another kind is refused naming the table, the key and the
/// kind.
#[derive(Clone, Debug)]
pub struct GeneratorConfig {
    /// Name used in logs and errors (default: the request kind).
    pub name: Option<String>,
    /// Distinct inputs per model call (default 16).
    pub batch_size: Option<usize>,
    /// The model input: `{steps}` (the BREAK decomposition string, `return a ;return #1 …`)
    /// for questions, `{question}` for decompositions (the defaults are exactly these).
    pub template: Option<String>,
    /// Whether the model reads and writes `@@k@@` for `#k` (default true for candle models, as
    /// BPB's BARTs; false for `openai`). Decomposition outputs are read with either.
    pub reference_tokens: Option<bool>,
    /// The model, with the keys of its kind.
    pub kind: GeneratorKind,
}

/// How a generator runs (`kind = "…"`).
#[derive(Clone, Debug)]
pub enum GeneratorKind {
    /// `bart`, `t5`, or `candle` (whichever of the two `config.json`'s `model_type` names):
    /// a checkpoint decoded on candle.
    Checkpoint(CheckpointGeneratorConfig),
    /// `openai`: an OpenAI-compatible chat/completions endpoint prompted with few-shot
    /// `examples` (the server decodes).
    OpenAi(OpenAiGeneratorConfig),
    /// `edit` (questions only): BPB's questions written by rules from the source question and
    /// the decompositions ([`crate::edit`]), no trained generator needed.
    Edit(EditGeneratorConfig),
}

/// The generator kinds, as written in the config.
pub const GENERATOR_KINDS: [&str; 5] = ["bart", "t5", "candle", "openai", "edit"];

/// `kind = "edit"`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct EditGeneratorConfig {
    /// The spaCy pipeline that parses source questions: `asset:NAME` or a directory (default
    /// `asset:en_core_web_sm`).
    #[serde(default)]
    pub parser: Option<String>,
    /// The causal language model that picks among renderings: a packaged GGUF
    /// (`smollm2-135m`, the default), a `.gguf` path or `hf:ORG/NAME/FILE.gguf`; `"none"`
    /// takes the rules' first rendering.
    #[serde(default)]
    pub lm: Option<String>,
    /// `cpu` (default), `cuda:N` or `metal`, for the language model.
    #[serde(default)]
    pub device: Option<String>,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// `kind = "bart"`, `"t5"` or `"candle"`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct CheckpointGeneratorConfig {
    /// `bart`, `t5` or `candle` (set from `kind`).
    #[serde(skip)]
    pub architecture: String,
    /// The checkpoint: a directory (relative to the config file's folder), `asset:NAME` or
    /// `hf:ORG/NAME[@REVISION]`.
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
    /// How to decode.
    #[serde(flatten)]
    pub decoding: DecodingConfig,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

/// The decoding keys of a checkpoint generator.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct DecodingConfig {
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
}

/// `kind = "openai"`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct OpenAiGeneratorConfig {
    /// The model id the server knows.
    #[serde(default)]
    pub model: Option<String>,
    /// The API root, e.g. `http://127.0.0.1:8000/v1`.
    #[serde(default)]
    pub base_url: Option<String>,
    /// System message.
    #[serde(default)]
    pub system: Option<String>,
    /// Few-shot examples (`[[generate.question.examples]] input = "…" output = "…"`): `input`
    /// is the placeholder's value (a BREAK decomposition string, or a question), put through
    /// `template` like every input; `output` the reply the model should give.
    #[serde(default)]
    pub examples: Vec<FewShot>,
    /// Sampling temperature (default 0: greedy).
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Upper bound on a reply's tokens (default: the server's).
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// The API key's variable (default `OPENAI_API_KEY`), time-out per request (default 60 s),
    /// retries and concurrency (default 4).
    #[serde(flatten)]
    pub transport: HttpTransportConfig,
    /// `max_total_tokens` and `max_requests`: what the generator may spend in one run.
    #[serde(flatten)]
    pub budget: Budget,
    #[serde(flatten)]
    unknown: UnknownKeys,
}

impl<'de> Deserialize<'de> for GeneratorConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let mut table = serde_json::Map::<String, serde_json::Value>::deserialize(deserializer)?;
        let kind = match table.remove("kind") {
            Some(serde_json::Value::String(kind)) => kind,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "`kind` must be a string, found {other}"
                )))
            }
            None => {
                return Err(D::Error::custom(format!(
                    "missing key `kind` (one of {})",
                    GENERATOR_KINDS.join(", ")
                )))
            }
        };
        let what = format!("kind `{kind}`");
        fn take<T: serde::de::DeserializeOwned>(
            table: &mut serde_json::Map<String, serde_json::Value>,
            key: &str,
        ) -> std::result::Result<Option<T>, String> {
            table
                .remove(key)
                .map(|v| serde_json::from_value(v).map_err(|e| format!("`{key}`: {e}")))
                .transpose()
        }
        let common = (|| -> std::result::Result<_, String> {
            Ok((
                take::<String>(&mut table, "name")?,
                take::<usize>(&mut table, "batch_size")?,
                take::<String>(&mut table, "template")?,
                take::<bool>(&mut table, "reference_tokens")?,
            ))
        })()
        .map_err(|e| D::Error::custom(format!("{what}: {e}")))?;
        let (name, batch_size, template, reference_tokens) = common;
        let parsed = match kind.as_str() {
            "bart" | "t5" | "candle" => {
                parse_kind_keys(&kind, table, |c: &CheckpointGeneratorConfig| &c.unknown).map(
                    |mut c| {
                        c.architecture = kind.clone();
                        GeneratorKind::Checkpoint(c)
                    },
                )
            }
            "openai" => parse_kind_keys(&kind, table, |c: &OpenAiGeneratorConfig| &c.unknown)
                .map(GeneratorKind::OpenAi),
            "edit" => parse_kind_keys(&kind, table, |c: &EditGeneratorConfig| &c.unknown)
                .map(GeneratorKind::Edit),
            other => Err(format!(
                "unknown kind `{other}` (expected {})",
                GENERATOR_KINDS.join(", ")
            )),
        }
        .map_err(|e| D::Error::custom(format!("{what}: {e}")))?;
        Ok(GeneratorConfig {
            name,
            batch_size,
            template,
            reference_tokens,
            kind: parsed,
        })
    }
}

/// The two request kinds a generator serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// `[generate.question]`: QDMR → question.
    Question,
    /// `[generate.decomposition]`: question → QDMR.
    Decomposition,
}

impl Purpose {
    pub(crate) fn key(self) -> &'static str {
        match self {
            Purpose::Question => "question",
            Purpose::Decomposition => "decomposition",
        }
    }

    pub(crate) fn placeholder(self) -> &'static str {
        match self {
            Purpose::Question => "steps",
            Purpose::Decomposition => "question",
        }
    }
}

impl GeneratorConfig {
    /// A generator of `kind` (`bart`, `t5` or `candle`) on the checkpoint `model`, every other
    /// setting at its default.
    pub fn new(kind: &str, model: &str) -> Self {
        GeneratorConfig {
            name: None,
            batch_size: None,
            template: None,
            reference_tokens: None,
            kind: GeneratorKind::Checkpoint(CheckpointGeneratorConfig {
                architecture: kind.into(),
                model: Some(model.into()),
                ..Default::default()
            }),
        }
    }

    /// The kind as written in the config.
    pub fn kind_name(&self) -> &str {
        match &self.kind {
            GeneratorKind::Checkpoint(c) => &c.architecture,
            GeneratorKind::OpenAi(_) => "openai",
            GeneratorKind::Edit(_) => "edit",
        }
    }

    /// The edit builder, when this is an `edit` table (`None` for the other kinds).
    ///
    /// # Errors
    /// [`Error::Asset`] when the parser or the language model cannot be loaded.
    pub(crate) fn start_edit(&self, base_dir: &Path) -> Result<Option<EditBuilder>> {
        let GeneratorKind::Edit(c) = &self.kind else {
            return Ok(None);
        };
        let what = "[generate.question] kind `edit`";
        let spec = c.parser.as_deref().unwrap_or("asset:en_core_web_sm");
        let dir = match spec.strip_prefix("asset:") {
            Some(asset) => metamorph_data::assets::ensure(asset)?,
            None => base_dir.join(spec),
        };
        let parser = Pipeline::load(&dir).map_err(|e| Error::Asset {
            name: dir.display().to_string(),
            message: format!("{what} parser: {e}"),
        })?;
        let lm = match c.lm.as_deref().unwrap_or("smollm2-135m") {
            "none" | "" => None,
            spec => {
                let spec = if spec.ends_with(".gguf") && !spec.starts_with("hf:") {
                    base_dir.join(spec).display().to_string()
                } else {
                    spec.to_string()
                };
                let options = metamorph_models::LmOptions {
                    device: device::device(c.device.as_deref().unwrap_or("cpu"))?,
                    ..metamorph_models::LmOptions::default()
                };
                Some(Arc::new(metamorph_models::CausalLm::load(&spec, options)?))
            }
        };
        let inflections =
            Arc::new(metamorph_perturb::lexicon::inflect::Inflections::from_assets()?);
        let wordnet = metamorph_perturb::lexicon::wordnet::WordNet::from_assets()?
            .with_exceptions(inflections.clone());
        Ok(Some(
            EditBuilder::new(Arc::new(parser), lm)
                .with_inflections(inflections)
                .with_wordnet(Arc::new(wordnet)),
        ))
    }

    /// Starts the generator for `purpose`; relative paths are taken from `base_dir`.
    pub(crate) fn start(&self, purpose: Purpose, base_dir: &Path) -> Result<Generator> {
        self.start_with_env(purpose, base_dir, |var| std::env::var(var).ok())
    }

    /// [`GeneratorConfig::start`] with `env` reading the API key's variable.
    pub(crate) fn start_with_env(
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
        let openai = matches!(self.kind, GeneratorKind::OpenAi(_));
        let reference_tokens = self.reference_tokens.unwrap_or(!openai);
        let input = |value: &str| model_input(&template, placeholder, value, reference_tokens);
        let (model, options): (Arc<dyn Seq2Seq>, DecodingOptions) = match &self.kind {
            GeneratorKind::Checkpoint(c) => (
                c.load(&name, base_dir, &what)?,
                c.decoding.options(purpose, &what)?,
            ),
            GeneratorKind::Edit(_) => {
                return Err(Error::Config(format!(
                    "{what}: kind `edit` writes BPB's questions only ([generate.question]); \
                     a {} needs bart, t5, candle or openai",
                    purpose.key()
                )))
            }
            GeneratorKind::OpenAi(c) => {
                let examples = c
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
                let client = c.chat_client(&name, &what, env)?;
                let model = Arc::new(OpenAiGenerator::new(
                    name,
                    client,
                    c.system.clone(),
                    examples,
                    shape,
                ));
                // The server decodes; these options only size the calls.
                (model, DecodingConfig::default().options(purpose, &what)?)
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
}

impl DecodingConfig {
    /// The decoding options, defaults per purpose filled in.
    pub(crate) fn options(&self, purpose: Purpose, what: &str) -> Result<DecodingOptions> {
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
}

impl CheckpointGeneratorConfig {
    /// Loads the candle checkpoint `model` names.
    fn load(&self, name: &str, base_dir: &Path, what: &str) -> Result<Arc<dyn Seq2Seq>> {
        let spec = self.model.as_deref().ok_or_else(|| {
            Error::Config(format!(
                "{what}: kind `{}` needs `model` (a directory, asset:NAME or hf:ORG/NAME)",
                self.architecture
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
        let kind = match self.architecture.as_str() {
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
}

impl OpenAiGeneratorConfig {
    /// The chat client of an `openai` generator; `env` reads the API key's variable.
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
        settings.transport =
            self.transport
                .resolve(settings.transport, Some("OPENAI_API_KEY"), env, what)?;
        if let Some(t) = self.temperature {
            settings.temperature = t;
        }
        settings.max_tokens = self.max_tokens;
        settings.budget = self.budget;
        ChatClient::try_new(name, settings)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: serde_json::Value) -> std::result::Result<GenerateConfig, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn a_key_of_another_kind_is_refused_naming_it_and_the_kind() {
        let e = parse(serde_json::json!({"question": {
            "kind": "bart", "model": "m", "base_url": "http://127.0.0.1:8000/v1"
        }}))
        .unwrap_err();
        assert!(e.contains("`base_url`") && e.contains("kind `bart`"), "{e}");
        let e = parse(serde_json::json!({"decomposition": {
            "kind": "openai", "model": "m", "num_beams": 4
        }}))
        .unwrap_err();
        assert!(
            e.contains("`num_beams`") && e.contains("kind `openai`"),
            "{e}"
        );
        let e = parse(serde_json::json!({"question": {"kind": "gpt2"}})).unwrap_err();
        assert!(
            e.contains("unknown kind `gpt2`") && e.contains("bart, t5"),
            "{e}"
        );
        let e = parse(serde_json::json!({"question": {"model": "m"}})).unwrap_err();
        assert!(e.contains("missing key `kind`"), "{e}");
    }

    #[test]
    fn each_kind_reads_its_keys() {
        let c = parse(serde_json::json!({
            "question": {"kind": "t5", "model": "m", "num_beams": 4, "batch_size": 8,
                         "template": "q: {steps}"},
            "decomposition": {"kind": "openai", "model": "m", "base_url": "http://h/v1",
                              "retries": 1, "examples": [{"input": "a", "output": "b"}]},
        }))
        .unwrap();
        let q = c.question.unwrap();
        assert_eq!((q.kind_name(), q.batch_size), ("t5", Some(8)));
        let GeneratorKind::Checkpoint(k) = &q.kind else {
            panic!("{q:?}")
        };
        assert_eq!(k.decoding.num_beams, Some(4));
        let d = c.decomposition.unwrap();
        let GeneratorKind::OpenAi(o) = &d.kind else {
            panic!("{d:?}")
        };
        assert_eq!((o.transport.retries, o.examples.len()), (Some(1), 1));
    }
}
