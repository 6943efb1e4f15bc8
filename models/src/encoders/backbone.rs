//! The encoder of each architecture: token ids in, last hidden states `[rows, width, hidden]`
//! out, on candle-transformers' implementations where they are right.
//!
//! | architecture | encoder | f16/bf16 |
//! |---|---|---|
//! | BERT | candle's `BertEncoder` layers, our embeddings and mask (`bert.rs`) | yes |
//! | DistilBERT | ours (`distilbert.rs`) | yes |
//! | RoBERTa, XLM-R | candle's `xlm_roberta` | yes |
//! | DeBERTa-v2/v3 | candle's `debertav2` | no (f32 only) |
//! | ModernBERT | ours (`modernbert.rs`) | yes |
//!
//! What this module adds, per architecture (checked against `transformers`, see
//! `tests/encoder_parity.rs`):
//! * **Weight prefixes**: task checkpoints keep the encoder under `bert.`, `distilbert.`,
//!   `roberta.` (RoBERTa *and* XLM-R), `deberta.` or `model.` (ModernBERT); bare encoders
//!   (`BertModel` saved alone) have none. The prefix is found from the weights, not guessed
//!   from the class name.
//! * **Configs**: read from `config.json` into this crate's own structs, so keys that newer
//!   `transformers` versions renamed or dropped (`position_embedding_type`, ModernBERT's
//!   `rope_parameters` / `layer_types` versus `global_rope_theta` /
//!   `global_attn_every_n_layers`) are handled here, and variants the candle code does not
//!   implement are refused at load time instead of computing something else.
//! * **BERT** runs candle's layers under this crate's embeddings and mask (`bert.rs`):
//!   candle's `BertModel` returns NaN in f16/bf16.
//! * **DistilBERT** is this crate's own (`distilbert.rs`): candle's runs the wrong GELU.
//! * **ModernBERT** is this crate's own (`modernbert.rs`): candle's builds f32 masks in
//!   half-precision runs and hard-codes activation and biases.
//! * **DeBERTa-v2** stays on candle's code, which computes parts of its relative attention in
//!   f32: half precision is refused at load time, and so are the variants candle gets wrong
//!   (`conv_kernel_size`: a `todo!` panic; `position_biased_input = true`: batches of
//!   several rows fail). DeBERTa-v3 checkpoints use neither.
//! * **RoBERTa positions**: candle's `xlm_roberta` numbers positions from `padding_idx + 1`
//!   over the non-padding tokens, as `transformers` does, so RoBERTa runs on it too.

use candle_core::{DType, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::{bert, debertav2, xlm_roberta};
use serde::Deserialize;

use super::activation::Activation;
pub use super::attention_mask::padding_bias;
use super::{bert as own_bert, distilbert, modernbert, Architecture, FastBert};

/// A loaded encoder (boxed: one per model, the enum itself moves around at load time).
pub enum Backbone {
    /// candle's BERT layers under our embeddings and mask (see `bert.rs`): GPUs and
    /// half precision.
    Bert(Box<own_bert::Bert>),
    /// Our throughput-oriented BERT forward (see `fast_bert.rs`): CPU in f32, the same
    /// outputs as [`Backbone::Bert`].
    FastBert(Box<FastBert>),
    /// Our own DistilBERT (see `distilbert.rs`).
    DistilBert(Box<distilbert::DistilBert>),
    /// RoBERTa and XLM-R share one layout.
    XlmRoberta(Box<xlm_roberta::XLMRobertaModel>),
    /// candle's DeBERTa-v2/v3 (f32 only; see the module doc).
    DebertaV2(Box<debertav2::DebertaV2Model>),
    /// Our own ModernBERT (see `modernbert.rs`).
    ModernBert(Box<modernbert::ModernBert>),
}

/// What the rest of the model needs to know about a loaded encoder.
#[derive(Clone, Debug)]
pub struct BackboneInfo {
    /// Width of the hidden states.
    pub hidden_size: usize,
    /// Tokens per sequence the model accepts, special tokens included.
    pub max_positions: usize,
    /// The padding token id (`pad_token_id`, default 0).
    pub pad_id: u32,
    /// Whether segment ids change the output (BERT, DeBERTa with `type_vocab_size` > 0).
    pub token_types: bool,
}

/// Why a backbone did not load: the config (message for `config.json`) or the weights.
pub enum LoadError {
    /// `config.json` does not describe a supported model; the message says why.
    Config(String),
    /// The weights do not fit the config.
    Weights(candle_core::Error),
}

impl From<candle_core::Error> for LoadError {
    fn from(e: candle_core::Error) -> Self {
        LoadError::Weights(e)
    }
}

fn parse<T: for<'de> Deserialize<'de>>(json: &str, what: &str) -> Result<T, LoadError> {
    serde_json::from_str(json).map_err(|e| LoadError::Config(format!("not a {what} config: {e}")))
}

/// `vb` under the first of `prefixes` that holds `probe` (a tensor of the encoder), else `vb`
/// itself when it holds `probe` bare.
fn encoder_root(
    vb: &VarBuilder<'static>,
    prefixes: &[&str],
    probe: &str,
) -> Result<VarBuilder<'static>, LoadError> {
    for prefix in prefixes {
        let under = vb.pp(*prefix);
        if under.contains_tensor(probe) {
            return Ok(under);
        }
    }
    if vb.contains_tensor(probe) {
        return Ok(vb.clone());
    }
    Err(LoadError::Weights(candle_core::Error::Msg(format!(
        "no encoder weights: neither `{probe}` nor `{}` is in the checkpoint",
        prefixes
            .iter()
            .map(|p| format!("{p}.{probe}"))
            .collect::<Vec<_>>()
            .join("` / `")
    ))))
}

#[derive(Deserialize)]
struct RobertaKeys {
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    hidden_act: candle_nn::Activation,
    max_position_embeddings: usize,
    type_vocab_size: usize,
    vocab_size: usize,
    layer_norm_eps: f64,
    pad_token_id: u32,
    #[serde(default = "absolute")]
    position_embedding_type: String,
}

fn absolute() -> String {
    "absolute".into()
}

#[derive(Deserialize)]
struct ModernBertKeys {
    vocab_size: usize,
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "norm_eps")]
    norm_eps: f64,
    #[serde(default)]
    norm_bias: bool,
    #[serde(default)]
    attention_bias: bool,
    #[serde(default)]
    mlp_bias: bool,
    #[serde(default = "gelu")]
    hidden_activation: String,
    pad_token_id: u32,
    #[serde(default = "three")]
    global_attn_every_n_layers: usize,
    local_attention: usize,
    global_rope_theta: Option<f64>,
    local_rope_theta: Option<f64>,
    /// transformers ≥ 5: `full_attention` / `sliding_attention` per layer.
    layer_types: Option<Vec<String>>,
    /// transformers ≥ 5: `{full_attention: {rope_theta}, sliding_attention: {rope_theta}}`.
    rope_parameters: Option<std::collections::BTreeMap<String, RopeKeys>>,
}

#[derive(Deserialize)]
struct RopeKeys {
    rope_theta: f64,
    #[serde(default)]
    rope_type: Option<String>,
}

fn norm_eps() -> f64 {
    1e-5
}
fn gelu() -> String {
    "gelu".into()
}
fn three() -> usize {
    3
}

impl ModernBertKeys {
    /// The encoder's settings, or why this variant cannot run.
    fn to_config(&self) -> Result<modernbert::Config, String> {
        let activation = Activation::from_name(&self.hidden_activation).ok_or_else(|| {
            format!(
                "hidden_activation {:?} is not supported",
                self.hidden_activation
            )
        })?;
        let n = self.global_attn_every_n_layers.max(1);
        if let Some(types) = &self.layer_types {
            let expected = (0..self.num_hidden_layers).map(|i| {
                if i % n == 0 {
                    "full_attention"
                } else {
                    "sliding_attention"
                }
            });
            if types.len() != self.num_hidden_layers
                || !types.iter().map(String::as_str).eq(expected)
            {
                return Err(format!(
                    "layer_types {types:?} do not follow global_attn_every_n_layers {n} (every \
                     {n}th layer global, from layer 0), the only pattern supported"
                ));
            }
        }
        let theta = |kind: &str, legacy: Option<f64>, default: f64| -> Result<f64, String> {
            match self.rope_parameters.as_ref().and_then(|p| p.get(kind)) {
                Some(rope) if rope.rope_type.as_deref().is_none_or(|t| t == "default") => {
                    Ok(rope.rope_theta)
                }
                Some(rope) => Err(format!(
                    "rope_type {:?} of {kind} is not supported (only default RoPE)",
                    rope.rope_type
                )),
                None => Ok(legacy.unwrap_or(default)),
            }
        };
        if self.num_attention_heads == 0
            || !self.hidden_size.is_multiple_of(self.num_attention_heads)
        {
            return Err(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                self.hidden_size, self.num_attention_heads
            ));
        }
        Ok(modernbert::Config {
            vocab_size: self.vocab_size,
            hidden_size: self.hidden_size,
            num_hidden_layers: self.num_hidden_layers,
            num_attention_heads: self.num_attention_heads,
            intermediate_size: self.intermediate_size,
            max_position_embeddings: self.max_position_embeddings,
            norm_eps: self.norm_eps,
            norm_bias: self.norm_bias,
            attention_bias: self.attention_bias,
            mlp_bias: self.mlp_bias,
            activation,
            global_every: n,
            local_attention: self.local_attention,
            global_rope_theta: theta("full_attention", self.global_rope_theta, 160_000.0)?,
            local_rope_theta: theta("sliding_attention", self.local_rope_theta, 10_000.0)?,
        })
    }
}

impl Backbone {
    /// Loads the encoder of `architecture` described by `config_json` from the checkpoint's
    /// root `vb`.
    pub fn load(
        architecture: Architecture,
        config_json: &str,
        vb: &VarBuilder<'static>,
    ) -> Result<(Self, BackboneInfo), LoadError> {
        match architecture {
            Architecture::Bert => {
                let config: bert::Config = parse(config_json, "BERT")?;
                let root = encoder_root(vb, &["bert"], "embeddings.word_embeddings.weight")?;
                let info = BackboneInfo {
                    hidden_size: config.hidden_size,
                    max_positions: config.max_position_embeddings,
                    pad_id: u32::try_from(config.pad_token_id).unwrap_or(0),
                    token_types: config.type_vocab_size > 1,
                };
                let backbone = if root.device().is_cpu() && root.dtype() == DType::F32 {
                    Backbone::FastBert(Box::new(FastBert::load(root, &config)?))
                } else {
                    Backbone::Bert(Box::new(own_bert::Bert::load(root, &config)?))
                };
                Ok((backbone, info))
            }
            Architecture::DistilBert => {
                let config: distilbert::Config = parse(config_json, "DistilBERT")?;
                if config.sinusoidal_pos_embds {
                    return Err(LoadError::Config(
                        "sinusoidal_pos_embds = true is not supported".into(),
                    ));
                }
                let activation = Activation::from_name(&config.activation).ok_or_else(|| {
                    LoadError::Config(format!(
                        "activation {:?} is not supported",
                        config.activation
                    ))
                })?;
                let root = encoder_root(vb, &["distilbert"], "embeddings.word_embeddings.weight")?;
                let info = BackboneInfo {
                    hidden_size: config.dim,
                    max_positions: config.max_position_embeddings,
                    pad_id: config.pad_token_id,
                    token_types: false,
                };
                Ok((
                    Backbone::DistilBert(Box::new(distilbert::DistilBert::load(
                        root, &config, activation,
                    )?)),
                    info,
                ))
            }
            Architecture::Roberta | Architecture::XlmRoberta => {
                let keys: RobertaKeys = parse(config_json, "RoBERTa")?;
                if keys.position_embedding_type != "absolute" {
                    return Err(LoadError::Config(format!(
                        "position_embedding_type {:?} is not supported (only \"absolute\")",
                        keys.position_embedding_type
                    )));
                }
                let first_position = keys.pad_token_id as usize + 1;
                if keys.max_position_embeddings <= first_position {
                    return Err(LoadError::Config(format!(
                        "max_position_embeddings {} leaves no position after padding_idx {}",
                        keys.max_position_embeddings, keys.pad_token_id
                    )));
                }
                let config = xlm_roberta::Config {
                    hidden_size: keys.hidden_size,
                    layer_norm_eps: keys.layer_norm_eps,
                    attention_probs_dropout_prob: 0.0,
                    hidden_dropout_prob: 0.0,
                    num_attention_heads: keys.num_attention_heads,
                    position_embedding_type: keys.position_embedding_type.clone(),
                    intermediate_size: keys.intermediate_size,
                    hidden_act: keys.hidden_act,
                    num_hidden_layers: keys.num_hidden_layers,
                    vocab_size: keys.vocab_size,
                    max_position_embeddings: keys.max_position_embeddings,
                    type_vocab_size: keys.type_vocab_size,
                    pad_token_id: keys.pad_token_id,
                };
                let root = encoder_root(vb, &["roberta"], "embeddings.word_embeddings.weight")?;
                let info = BackboneInfo {
                    hidden_size: keys.hidden_size,
                    max_positions: keys.max_position_embeddings - first_position,
                    pad_id: keys.pad_token_id,
                    token_types: keys.type_vocab_size > 1,
                };
                Ok((
                    Backbone::XlmRoberta(Box::new(xlm_roberta::XLMRobertaModel::new(
                        &config, root,
                    )?)),
                    info,
                ))
            }
            Architecture::DebertaV2 => {
                // The head reads `pooler_hidden_act` itself (any `transformers` activation);
                // candle's config would refuse all but three.
                let mut value: serde_json::Value = parse(config_json, "DeBERTa-v2")?;
                if let Some(map) = value.as_object_mut() {
                    map.remove("pooler_hidden_act");
                }
                let config: debertav2::Config = serde_json::from_value(value)
                    .map_err(|e| LoadError::Config(format!("not a DeBERTa-v2 config: {e}")))?;
                // candle's code panics (`todo!`) on the convolution of deberta-v2-xlarge-style
                // checkpoints and adds absolute positions without broadcasting over the batch.
                if config.conv_kernel_size.is_some_and(|k| k > 0) {
                    return Err(LoadError::Config(
                        "conv_kernel_size is not supported (DeBERTa-v2's convolution layer is \
                         not implemented on candle)"
                            .into(),
                    ));
                }
                if config.position_biased_input {
                    return Err(LoadError::Config(
                        "position_biased_input = true is not supported (candle's DeBERTa-v2 \
                         adds absolute positions without broadcasting, so batches of several \
                         rows fail); DeBERTa-v3 checkpoints set it to false"
                            .into(),
                    ));
                }
                let root = encoder_root(vb, &["deberta"], "embeddings.word_embeddings.weight")?;
                let info = BackboneInfo {
                    hidden_size: config.hidden_size,
                    max_positions: config.max_position_embeddings,
                    pad_id: config
                        .pad_token_id
                        .and_then(|p| u32::try_from(p).ok())
                        .unwrap_or(0),
                    token_types: config.type_vocab_size > 0,
                };
                Ok((
                    Backbone::DebertaV2(Box::new(debertav2::DebertaV2Model::load(root, &config)?)),
                    info,
                ))
            }
            Architecture::ModernBert => {
                let keys: ModernBertKeys = parse(config_json, "ModernBERT")?;
                let config = keys.to_config().map_err(LoadError::Config)?;
                // The loader adds the `model.` prefix itself.
                if !vb.contains_tensor("model.embeddings.tok_embeddings.weight") {
                    return Err(LoadError::Weights(candle_core::Error::Msg(
                        "no encoder weights: `model.embeddings.tok_embeddings.weight` is not in \
                         the checkpoint"
                            .into(),
                    )));
                }
                let info = BackboneInfo {
                    hidden_size: keys.hidden_size,
                    max_positions: keys.max_position_embeddings,
                    pad_id: keys.pad_token_id,
                    token_types: false,
                };
                Ok((
                    Backbone::ModernBert(Box::new(modernbert::ModernBert::load(
                        vb.clone(),
                        &config,
                    )?)),
                    info,
                ))
            }
        }
    }

    /// Last hidden states `[rows, width, hidden]` for `ids`, `type_ids` and `mask` (u32,
    /// `[rows, width]`, mask 1 = token).
    pub fn forward(
        &self,
        ids: &Tensor,
        type_ids: &Tensor,
        mask: &Tensor,
    ) -> candle_core::Result<Tensor> {
        match self {
            Backbone::Bert(model) => model.forward(ids, type_ids, mask),
            Backbone::FastBert(model) => model.forward(ids, type_ids, Some(mask)),
            Backbone::DistilBert(model) => model.forward(ids, mask),
            Backbone::XlmRoberta(model) => model.forward(ids, mask, type_ids, None, None, None),
            Backbone::DebertaV2(model) => {
                model.forward(ids, Some(type_ids.clone()), Some(mask.clone()))
            }
            Backbone::ModernBert(model) => model.forward(ids, mask),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODERNBERT: &str = r#"{"vocab_size": 10, "hidden_size": 8, "num_hidden_layers": 3,
        "num_attention_heads": 2, "intermediate_size": 12, "max_position_embeddings": 64,
        "pad_token_id": 0, "local_attention": 16, "global_attn_every_n_layers": 2"#;

    fn modernbert(extra: &str) -> Result<modernbert::Config, String> {
        let keys: ModernBertKeys = serde_json::from_str(&format!("{MODERNBERT}{extra}}}")).unwrap();
        keys.to_config()
    }

    #[test]
    fn modernbert_reads_old_and_new_config_keys() {
        // transformers < 5: global_rope_theta / local_rope_theta, no layer_types.
        let old = modernbert(r#", "global_rope_theta": 1000.0, "local_rope_theta": 10.0"#).unwrap();
        assert_eq!(
            (old.global_rope_theta, old.local_rope_theta),
            (1000.0, 10.0)
        );
        // transformers ≥ 5: rope_parameters per layer kind and layer_types.
        let new = modernbert(
            r#", "layer_types": ["full_attention", "sliding_attention", "full_attention"],
            "rope_parameters": {"full_attention": {"rope_theta": 5.0, "rope_type": "default"},
                                "sliding_attention": {"rope_theta": 7.0}}"#,
        )
        .unwrap();
        assert_eq!((new.global_rope_theta, new.local_rope_theta), (5.0, 7.0));
        assert_eq!(new.global_every, 2);
        let defaults = modernbert("").unwrap();
        assert_eq!(defaults.global_rope_theta, 160_000.0);
        assert_eq!(defaults.activation, Activation::Gelu);
    }

    #[test]
    fn modernbert_variants_it_cannot_run_are_refused() {
        let pattern = modernbert(
            r#", "layer_types": ["sliding_attention", "full_attention", "full_attention"]"#,
        )
        .unwrap_err();
        assert!(pattern.contains("layer_types"), "{pattern}");
        let rope = modernbert(
            r#", "rope_parameters": {"full_attention": {"rope_theta": 5.0, "rope_type": "yarn"}}"#,
        )
        .unwrap_err();
        assert!(rope.contains("\"yarn\""), "{rope}");
        let act = modernbert(r#", "hidden_activation": "mish""#).unwrap_err();
        assert!(act.contains("mish"), "{act}");
    }
}
