//! BART conditional generation (`BartForConditionalGeneration`) on candle.
//!
//! The architecture as `transformers`' `modeling_bart.py` defines it: token embeddings shared by
//! encoder, decoder and the tied LM head (times `sqrt(d_model)` when `scale_embedding`), learned
//! positional embeddings read at `position + 2`, `layernorm_embedding` after the embeddings,
//! post-layer-norm encoder and decoder layers (self-attention, cross-attention in the decoder,
//! feed-forward with `activation_function`), and `final_logits_bias` added to the logits.
//! Checkpoints are `transformers`' layout: weights under `model.`, `lm_head.weight` optional
//! (tied to `model.shared.weight`).
//!
//! Inputs are tokenized with the checkpoint's `tokenizer.json` (special tokens added, truncated
//! to `max_position_embeddings`), right-padded into one batch with an attention mask; the
//! encoder runs once per call and the search (`metamorph_generate::decoding`) drives the decoder
//! through [`EncoderDecoder`].

use std::path::{Path, PathBuf};

use candle_core::{DType, Module, Tensor};
use candle_nn::{Activation, Embedding, LayerNorm, VarBuilder};
use metamorph_data::assets::{
    resolve_safetensors_checkpoint, safetensors_files, HubOptions, ModelSource,
};
use metamorph_data::{Error, Result};
use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationParams};

use crate::attention::grouped_attention;
use crate::checkpoint::{self, asset_err, special_tokens, ModelOptions, GENERATION_CONFIG};
use crate::kv_cache::{append_in_order, PendingOrder};
use crate::linear::{linear, Linear};
use crate::seq2seq::{EncoderDecoder, SpecialTokens, StepDecoder};

const CONFIG: &str = "config.json";
const TOKENIZER: &str = "tokenizer.json";
/// BART's learned positions start at index 2 of the position table.
const POSITION_OFFSET: usize = 2;
/// `nn.LayerNorm`'s default epsilon, which BART uses everywhere.
const LAYER_NORM_EPS: f64 = 1e-5;

/// The keys of a BART `config.json` the model reads.
#[derive(Clone, Debug, Deserialize)]
pub struct BartConfig {
    /// `"bart"`.
    #[serde(default)]
    pub model_type: Option<String>,
    /// Vocabulary size (rows of the shared embedding and of the logits).
    pub vocab_size: usize,
    /// Hidden width.
    pub d_model: usize,
    /// Encoder layers.
    pub encoder_layers: usize,
    /// Decoder layers.
    pub decoder_layers: usize,
    /// Encoder attention heads.
    pub encoder_attention_heads: usize,
    /// Decoder attention heads.
    pub decoder_attention_heads: usize,
    /// Encoder feed-forward width.
    pub encoder_ffn_dim: usize,
    /// Decoder feed-forward width.
    pub decoder_ffn_dim: usize,
    /// Feed-forward activation (`gelu` is the exact, erf-based one).
    #[serde(default = "default_activation")]
    pub activation_function: Activation,
    /// Positions the learned position table holds (it has 2 more rows).
    pub max_position_embeddings: usize,
    /// Multiply token embeddings by `sqrt(d_model)`.
    #[serde(default)]
    pub scale_embedding: bool,
    /// Padding token.
    #[serde(default = "one")]
    pub pad_token_id: u32,
    /// Beginning of sequence.
    #[serde(default)]
    pub bos_token_id: u32,
    /// End of sequence.
    #[serde(default = "two")]
    pub eos_token_id: u32,
    /// First decoder input.
    #[serde(default)]
    pub decoder_start_token_id: Option<u32>,
    /// Token forced first (older checkpoints keep it here, newer in `generation_config.json`).
    #[serde(default)]
    pub forced_bos_token_id: Option<u32>,
    /// Token forced at the length limit.
    #[serde(default)]
    pub forced_eos_token_id: Option<u32>,
    /// Whether the LM head shares the token embeddings (BART: yes).
    #[serde(default = "yes")]
    pub tie_word_embeddings: bool,
}

fn default_activation() -> Activation {
    Activation::Gelu
}
fn one() -> u32 {
    1
}
fn two() -> u32 {
    2
}
fn yes() -> bool {
    true
}

fn layer_norm(size: usize, vb: VarBuilder) -> candle_core::Result<LayerNorm> {
    candle_nn::layer_norm(size, LAYER_NORM_EPS, vb)
}

/// Multi-head attention with BART's projections (all with bias).
#[derive(Clone, Debug)]
struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    out: Linear,
    heads: usize,
    head_dim: usize,
    scaling: f64,
}

impl Attention {
    fn load(d_model: usize, heads: usize, vb: VarBuilder) -> candle_core::Result<Self> {
        let head_dim = d_model / heads;
        if head_dim * heads != d_model {
            candle_core::bail!("d_model {d_model} is not divisible by {heads} heads");
        }
        Ok(Attention {
            q: linear(d_model, d_model, vb.pp("q_proj"))?,
            k: linear(d_model, d_model, vb.pp("k_proj"))?,
            v: linear(d_model, d_model, vb.pp("v_proj"))?,
            out: linear(d_model, d_model, vb.pp("out_proj"))?,
            heads,
            head_dim,
            scaling: (head_dim as f64).powf(-0.5),
        })
    }

    /// `(b, t, d)` → `(b, heads, t, head_dim)`.
    fn split(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t, _) = x.dims3()?;
        x.reshape((b, t, self.heads, self.head_dim))?
            .transpose(1, 2)?
            .contiguous()
    }

    /// Keys and values of `x`, split into heads.
    fn keys_values(&self, x: &Tensor) -> candle_core::Result<(Tensor, Tensor)> {
        Ok((
            self.split(&self.k.forward(x)?)?,
            self.split(&self.v.forward(x)?)?,
        ))
    }

    /// Attends from `x` to `(k, v)`, with an additive `mask` broadcastable to
    /// `(b, heads, t_q, t_k)`.
    fn attend(
        &self,
        x: &Tensor,
        k: &Tensor,
        v: &Tensor,
        mask: Option<&Tensor>,
    ) -> candle_core::Result<Tensor> {
        self.attend_grouped(x, k, v, mask, 1)
    }

    /// [`Attention::attend`] where each `group` consecutive rows of `x` (`(b·group, t, d)`)
    /// attend to one row of `(k, v)` (`(b, heads, t_k, head_dim)`) and of `mask`
    /// (broadcastable to `(b, heads, group·t, t_k)`): cross-attention's beams share their
    /// input's keys and values (see [`grouped_attention`]).
    fn attend_grouped(
        &self,
        x: &Tensor,
        k: &Tensor,
        v: &Tensor,
        mask: Option<&Tensor>,
        group: usize,
    ) -> candle_core::Result<Tensor> {
        let q = self.q.forward(x)?;
        let context = grouped_attention(&q, k, v, mask, Some(self.scaling), group)?;
        self.out.forward(&context)
    }
}

/// A feed-forward block.
#[derive(Clone, Debug)]
struct FeedForward {
    fc1: Linear,
    fc2: Linear,
    activation: Activation,
}

impl FeedForward {
    fn load(d: usize, ffn: usize, act: Activation, vb: &VarBuilder) -> candle_core::Result<Self> {
        Ok(FeedForward {
            fc1: linear(d, ffn, vb.pp("fc1"))?,
            fc2: linear(ffn, d, vb.pp("fc2"))?,
            activation: act,
        })
    }

    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let h = self.fc1.forward(x)?;
        let h = match self.activation {
            // The exact GELU, vectorised on the CPU (see `encoders::activation::gelu_erf`).
            Activation::Gelu => crate::encoders::activation::gelu_erf(&h)?,
            _ => self.activation.forward(&h)?,
        };
        self.fc2.forward(&h)
    }
}

#[derive(Clone, Debug)]
struct EncoderLayer {
    self_attn: Attention,
    self_attn_norm: LayerNorm,
    ffn: FeedForward,
    final_norm: LayerNorm,
}

impl EncoderLayer {
    fn forward(&self, x: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let (k, v) = self.self_attn.keys_values(x)?;
        let h = (x + self.self_attn.attend(x, &k, &v, Some(mask))?)?;
        let h = self.self_attn_norm.forward(&h)?;
        let out = (&h + self.ffn.forward(&h)?)?;
        self.final_norm.forward(&out)
    }
}

#[derive(Clone, Debug)]
struct DecoderLayer {
    self_attn: Attention,
    self_attn_norm: LayerNorm,
    cross_attn: Attention,
    cross_attn_norm: LayerNorm,
    ffn: FeedForward,
    final_norm: LayerNorm,
}

/// One decoder layer's caches: self-attention keys/values so far (one row per beam),
/// cross-attention keys/values (one row per input, shared by its beams).
#[derive(Clone, Debug)]
struct LayerCache {
    self_kv: Option<(Tensor, Tensor)>,
    cross_kv: (Tensor, Tensor),
}

impl DecoderLayer {
    /// One step; `order` is the beam order the cached rows take first (see
    /// [`BartSession::reorder`]).
    fn forward(
        &self,
        x: &Tensor,
        cache: &mut LayerCache,
        order: Option<&[usize]>,
        causal: Option<&Tensor>,
        encoder_mask: &Tensor,
        beams: usize,
    ) -> candle_core::Result<Tensor> {
        let (k, v) = self.self_attn.keys_values(x)?;
        let (k, v) = match &cache.self_kv {
            Some((pk, pv)) => (
                append_in_order(pk, order, &k)?,
                append_in_order(pv, order, &v)?,
            ),
            None => (k, v),
        };
        let h = (x + self.self_attn.attend(x, &k, &v, causal)?)?;
        cache.self_kv = Some((k, v));
        let h = self.self_attn_norm.forward(&h)?;
        let (ck, cv) = &cache.cross_kv;
        let cross = self
            .cross_attn
            .attend_grouped(&h, ck, cv, Some(encoder_mask), beams)?;
        let h = (&h + cross)?;
        let h = self.cross_attn_norm.forward(&h)?;
        let out = (&h + self.ffn.forward(&h)?)?;
        self.final_norm.forward(&out)
    }
}

/// Token and position embeddings with `layernorm_embedding`, as both stacks start.
#[derive(Clone, Debug)]
struct Embeddings {
    positions: Embedding,
    norm: LayerNorm,
}

/// A loaded BART checkpoint with its tokenizer.
pub struct Bart {
    name: String,
    config: BartConfig,
    special: SpecialTokens,
    tokenizer: Tokenizer,
    shared: Embedding,
    embed_scale: f64,
    encoder_embed: Embeddings,
    encoder_layers: Vec<EncoderLayer>,
    decoder_embed: Embeddings,
    decoder_layers: Vec<DecoderLayer>,
    /// Tied to `shared` unless the checkpoint has its own; `final_logits_bias` is its bias.
    lm_head: Linear,
    options: ModelOptions,
}

impl std::fmt::Debug for Bart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bart")
            .field("name", &self.name)
            .field("config", &self.config)
            .field("special", &self.special)
            .finish_non_exhaustive()
    }
}

/// The encoder's output for a batch: hidden states and the additive key-padding mask.
#[derive(Clone, Debug)]
pub struct Encoded {
    /// `(batch, source_len, d_model)`.
    pub hidden: Tensor,
    /// `(batch, 1, 1, source_len)`: 0 for tokens, a large negative number for padding.
    pub mask: Tensor,
}

impl Bart {
    /// Loads a checkpoint from `source` (local directory, `asset:NAME` or `hf:ORG/NAME@REV`).
    ///
    /// # Errors
    /// [`Error::Asset`] naming the source or file that is missing or does not fit (see
    /// [`Bart::load`]).
    pub fn from_source(
        source: &ModelSource,
        hub: &HubOptions,
        options: ModelOptions,
    ) -> Result<Self> {
        let (dir, _) =
            resolve_safetensors_checkpoint(source, &["config.json", "tokenizer.json"], hub)?;
        Self::load(&dir, &source.to_string(), options)
    }

    /// Loads the checkpoint in `dir` (`config.json`, optional `generation_config.json`,
    /// `tokenizer.json`, safetensors weights) and names it `name`.
    ///
    /// # Errors
    /// [`Error::Asset`] naming the file when one is missing, is not valid, describes another
    /// architecture, or weights do not fit the config; [`Error::Io`] when a file cannot be read.
    pub fn load(dir: &Path, name: &str, options: ModelOptions) -> Result<Self> {
        let config_path = dir.join(CONFIG);
        let text = std::fs::read_to_string(&config_path).map_err(|e| Error::io(&config_path, e))?;
        let config: BartConfig = serde_json::from_str(&text)
            .map_err(|e| asset_err(&config_path, format!("not a BART config: {e}")))?;
        if config.model_type.as_deref() != Some("bart") {
            return Err(asset_err(
                &config_path,
                format!(
                    "model_type is {:?}, not \"bart\"",
                    config.model_type.as_deref().unwrap_or("missing")
                ),
            ));
        }
        let defaults = SpecialTokens {
            decoder_start: config.decoder_start_token_id.unwrap_or(config.eos_token_id),
            eos: config.eos_token_id,
            pad: config.pad_token_id,
            forced_bos: config.forced_bos_token_id,
            forced_eos: config.forced_eos_token_id,
        };
        let special = special_tokens(defaults, config.vocab_size, &dir.join(GENERATION_CONFIG))?;
        let tokenizer_path = dir.join(TOKENIZER);
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| asset_err(&tokenizer_path, format!("cannot load the tokenizer: {e}")))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: config.max_position_embeddings,
                ..Default::default()
            }))
            .map_err(|e| asset_err(&tokenizer_path, format!("cannot set truncation: {e}")))?;
        let weights: Vec<PathBuf> = safetensors_files(dir)?;
        // SAFETY: the files are memory-mapped read-only; like every safetensors loader this
        // assumes nobody rewrites them while the model is loaded.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(&weights, options.dtype, &options.device)
        }
        .map_err(|e| {
            asset_err(
                &weights[0],
                format!("cannot read the safetensors weights: {e}"),
            )
        })?;
        Self::from_var_builder(vb, config, special, tokenizer, name, options).map_err(|e| {
            asset_err(
                &weights[0],
                format!("weights do not fit {}: {e}", config_path.display()),
            )
        })
    }

    fn from_var_builder(
        vb: VarBuilder,
        config: BartConfig,
        special: SpecialTokens,
        tokenizer: Tokenizer,
        name: &str,
        options: ModelOptions,
    ) -> candle_core::Result<Self> {
        let d = config.d_model;
        let m = vb.pp("model");
        let shared = candle_nn::embedding(config.vocab_size, d, m.pp("shared"))?;
        let embeddings = |vb: VarBuilder| -> candle_core::Result<Embeddings> {
            Ok(Embeddings {
                positions: candle_nn::embedding(
                    config.max_position_embeddings + POSITION_OFFSET,
                    d,
                    vb.pp("embed_positions"),
                )?,
                norm: layer_norm(d, vb.pp("layernorm_embedding"))?,
            })
        };
        let enc = m.pp("encoder");
        let encoder_layers = (0..config.encoder_layers)
            .map(|i| {
                let vb = enc.pp("layers").pp(i);
                Ok(EncoderLayer {
                    self_attn: Attention::load(
                        d,
                        config.encoder_attention_heads,
                        vb.pp("self_attn"),
                    )?,
                    self_attn_norm: layer_norm(d, vb.pp("self_attn_layer_norm"))?,
                    ffn: FeedForward::load(
                        d,
                        config.encoder_ffn_dim,
                        config.activation_function,
                        &vb,
                    )?,
                    final_norm: layer_norm(d, vb.pp("final_layer_norm"))?,
                })
            })
            .collect::<candle_core::Result<Vec<_>>>()?;
        let dec = m.pp("decoder");
        let decoder_layers = (0..config.decoder_layers)
            .map(|i| {
                let vb = dec.pp("layers").pp(i);
                let heads = config.decoder_attention_heads;
                Ok(DecoderLayer {
                    self_attn: Attention::load(d, heads, vb.pp("self_attn"))?,
                    self_attn_norm: layer_norm(d, vb.pp("self_attn_layer_norm"))?,
                    cross_attn: Attention::load(d, heads, vb.pp("encoder_attn"))?,
                    cross_attn_norm: layer_norm(d, vb.pp("encoder_attn_layer_norm"))?,
                    ffn: FeedForward::load(
                        d,
                        config.decoder_ffn_dim,
                        config.activation_function,
                        &vb,
                    )?,
                    final_norm: layer_norm(d, vb.pp("final_layer_norm"))?,
                })
            })
            .collect::<candle_core::Result<Vec<_>>>()?;
        let lm_head = if config.tie_word_embeddings || !vb.contains_tensor("lm_head.weight") {
            shared.embeddings().clone()
        } else {
            vb.get((config.vocab_size, d), "lm_head.weight")?
        };
        let final_logits_bias = if vb.contains_tensor("final_logits_bias") {
            vb.get((1, config.vocab_size), "final_logits_bias")?
                .reshape(config.vocab_size)?
        } else {
            Tensor::zeros(config.vocab_size, options.dtype, &options.device)?
        };
        let embed_scale = if config.scale_embedding {
            (d as f64).sqrt()
        } else {
            1.0
        };
        Ok(Bart {
            name: name.to_string(),
            encoder_embed: embeddings(enc)?,
            decoder_embed: embeddings(dec)?,
            config,
            special,
            tokenizer,
            shared,
            embed_scale,
            encoder_layers,
            decoder_layers,
            lm_head: Linear::new(lm_head, Some(final_logits_bias)),
            options,
        })
    }

    /// The configuration read from `config.json`.
    pub fn config(&self) -> &BartConfig {
        &self.config
    }

    /// The special tokens decoding uses (`generation_config.json` over `config.json`).
    pub fn special_tokens(&self) -> SpecialTokens {
        self.special
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    fn model_err(&self, message: impl std::fmt::Display) -> Error {
        checkpoint::model_err(&self.name, message)
    }

    /// Token ids of each text (special tokens added, truncated to `max_position_embeddings`).
    ///
    /// # Errors
    /// [`Error::Model`] naming the input when tokenization fails.
    pub fn tokenize(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        checkpoint::tokenize(&self.tokenizer, &self.name, texts)
    }

    fn embed(&self, ids: &Tensor, embed: &Embeddings, past: usize) -> candle_core::Result<Tensor> {
        let (_, t) = ids.dims2()?;
        let tokens = (self.shared.forward(ids)? * self.embed_scale)?;
        let positions = embed
            .positions
            .embeddings()
            .narrow(0, past + POSITION_OFFSET, t)?;
        embed.norm.forward(&tokens.broadcast_add(&positions)?)
    }

    /// Runs the encoder over `inputs` (token ids, right-padded with `pad` into one batch).
    ///
    /// # Errors
    /// [`Error::Model`] when an input is empty, longer than `max_position_embeddings`, holds an
    /// id outside the vocabulary, or the forward pass fails.
    pub fn encode(&self, inputs: &[Vec<u32>]) -> Result<Encoded> {
        for (i, ids) in inputs.iter().enumerate() {
            if ids.is_empty() || ids.len() > self.config.max_position_embeddings {
                return Err(self.model_err(format!(
                    "input {i} has {} tokens; BART takes 1 to {}",
                    ids.len(),
                    self.config.max_position_embeddings
                )));
            }
            if let Some(bad) = ids.iter().find(|&&t| t as usize >= self.config.vocab_size) {
                return Err(self.model_err(format!(
                    "input {i} holds token id {bad}, outside the vocabulary of {}",
                    self.config.vocab_size
                )));
            }
        }
        self.encode_unchecked(inputs)
            .map_err(|e| self.model_err(format!("encoder failed: {e}")))
    }

    fn encode_unchecked(&self, inputs: &[Vec<u32>]) -> candle_core::Result<Encoded> {
        let device = &self.options.device;
        let width = inputs.iter().map(Vec::len).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(inputs.len() * width);
        let mut mask = Vec::with_capacity(inputs.len() * width);
        for row in inputs {
            ids.extend_from_slice(row);
            ids.extend(std::iter::repeat_n(self.special.pad, width - row.len()));
            mask.extend(std::iter::repeat_n(0f32, row.len()));
            mask.extend(std::iter::repeat_n(f32::MIN, width - row.len()));
        }
        let ids = Tensor::from_vec(ids, (inputs.len(), width), device)?;
        let mask = Tensor::from_vec(mask, (inputs.len(), 1, 1, width), device)?
            .to_dtype(self.options.dtype)?;
        let mut h = self.embed(&ids, &self.encoder_embed, 0)?;
        for layer in &self.encoder_layers {
            h = layer.forward(&h, &mask)?;
        }
        Ok(Encoded { hidden: h, mask })
    }

    /// A decoding session over `encoded` with `beams` rows per input (input-major: row
    /// `i·beams + j` is beam `j` of input `i`).
    ///
    /// # Errors
    /// [`Error::Model`] when `beams` is 0 or computing the cross-attention keys and values
    /// fails.
    pub fn session(&self, encoded: &Encoded, beams: usize) -> Result<BartSession<'_>> {
        let build = || -> candle_core::Result<BartSession<'_>> {
            if beams == 0 {
                candle_core::bail!("a session needs at least one beam");
            }
            // Cross-attention keys and values once per input: its beams share them.
            let caches = self
                .decoder_layers
                .iter()
                .map(|layer| {
                    Ok(LayerCache {
                        self_kv: None,
                        cross_kv: layer.cross_attn.keys_values(&encoded.hidden)?,
                    })
                })
                .collect::<candle_core::Result<Vec<_>>>()?;
            Ok(BartSession {
                model: self,
                caches,
                order: PendingOrder::default(),
                encoder_mask: encoded.mask.clone(),
                beams,
                past: 0,
            })
        };
        build().map_err(|e| self.model_err(format!("cannot start decoding: {e}")))
    }
}

/// Decoder state over a batch: per-layer caches (self-attention one row per beam, cross-attention
/// one row per input) and the encoder mask (one row per input).
pub struct BartSession<'a> {
    model: &'a Bart,
    caches: Vec<LayerCache>,
    /// A beam reorder applied while the next step appends to the self-attention caches, so
    /// they are copied once per step rather than twice.
    order: PendingOrder,
    /// `(inputs, 1, 1, source_len)`, shared by each input's beams.
    encoder_mask: Tensor,
    /// Rows per input.
    beams: usize,
    past: usize,
}

impl BartSession<'_> {
    /// Feeds `tokens` (`rows × t`, the same `t` for every row, `rows` = inputs × beams) and
    /// returns the logits of every position, `(rows, t, vocab)` in `f32`. More than one token
    /// per row uses a causal mask.
    ///
    /// # Errors
    /// [`Error::Model`] when the forward pass fails, `rows` is not inputs × beams, or
    /// positions run past `max_position_embeddings`.
    pub fn forward(&mut self, tokens: &Tensor) -> Result<Tensor> {
        let model = self.model;
        let (rows, t) = tokens
            .dims2()
            .map_err(|e| model.model_err(format!("decoder input: {e}")))?;
        let inputs = self.encoder_mask.dims().first().copied().unwrap_or(0);
        if rows != inputs * self.beams {
            return Err(model.model_err(format!(
                "decoder input has {rows} rows; the session has {inputs} inputs × {} beams",
                self.beams
            )));
        }
        if self.past + t > model.config.max_position_embeddings {
            return Err(model.model_err(format!(
                "decoder position {} is past max_position_embeddings {}",
                self.past + t,
                model.config.max_position_embeddings
            )));
        }
        let run = |s: &mut Self| -> candle_core::Result<Tensor> {
            let mut h = model.embed(tokens, &model.decoder_embed, s.past)?;
            let causal = if t > 1 {
                let past = s.past;
                let total = past + t;
                let mask: Vec<f32> = (0..t)
                    .flat_map(|i| {
                        (0..total).map(move |j| if j <= past + i { 0.0 } else { f32::MIN })
                    })
                    .collect();
                Some(
                    Tensor::from_vec(mask, (1, 1, t, total), &model.options.device)?
                        .to_dtype(model.options.dtype)?,
                )
            } else {
                None
            };
            let order = s.order.take();
            for (layer, cache) in model.decoder_layers.iter().zip(s.caches.iter_mut()) {
                h = layer.forward(
                    &h,
                    cache,
                    order.as_deref(),
                    causal.as_ref(),
                    &s.encoder_mask,
                    s.beams,
                )?;
            }
            s.past += t;
            let (rows, t, d) = h.dims3()?;
            let logits = model.lm_head.forward(&h.reshape((rows * t, d))?)?;
            logits.reshape((rows, t, ()))?.to_dtype(DType::F32)
        };
        run(self).map_err(|e| model.model_err(format!("decoder failed: {e}")))
    }
}

impl StepDecoder for BartSession<'_> {
    fn step(&mut self, tokens: &[u32]) -> Result<Vec<f32>> {
        let model = self.model;
        self.step_tensor(tokens)?
            .flatten_all()
            .and_then(|l| l.to_vec1::<f32>())
            .map_err(|e| model.model_err(format!("reading logits: {e}")))
    }

    fn step_tensor(&mut self, tokens: &[u32]) -> Result<Tensor> {
        let model = self.model;
        let input = Tensor::from_vec(tokens.to_vec(), (tokens.len(), 1), &model.options.device)
            .map_err(|e| model.model_err(format!("decoder input: {e}")))?;
        self.forward(&input)?
            .squeeze(1)
            .map_err(|e| model.model_err(format!("reading logits: {e}")))
    }

    fn reorder(&mut self, rows: &[usize]) -> Result<()> {
        let model = self.model;
        // Before the first step there is nothing cached to reorder.
        let Some(cached) = self.caches.first().and_then(|c| c.self_kv.as_ref()) else {
            return Ok(());
        };
        let cached = cached.0.dims().first().copied().unwrap_or(0);
        self.order
            .then(rows, cached)
            .map_err(|e| model.model_err(format!("beam reorder: {e}")))
    }
}

impl EncoderDecoder for Bart {
    fn name(&self) -> &str {
        &self.name
    }

    fn vocab_size(&self) -> usize {
        self.config.vocab_size
    }

    fn special_tokens(&self) -> SpecialTokens {
        self.special
    }

    fn check_output_length(&self, max_new_tokens: usize) -> Result<()> {
        // The decoder reads one learned position per token, the start token included.
        if max_new_tokens + 1 > self.config.max_position_embeddings {
            return Err(Error::Config(format!(
                "model `{}`: max_new_tokens {} needs {} decoder positions; the model has {}",
                self.name,
                max_new_tokens,
                max_new_tokens + 1,
                self.config.max_position_embeddings
            )));
        }
        Ok(())
    }

    fn tokenize(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        Bart::tokenize(self, texts)
    }

    fn start(&self, inputs: &[Vec<u32>], beams: usize) -> Result<Box<dyn StepDecoder + '_>> {
        let encoded = self.encode(inputs)?;
        Ok(Box::new(self.session(&encoded, beams)?))
    }

    fn detokenize(&self, outputs: &[Vec<u32>]) -> Result<Vec<String>> {
        checkpoint::decode(&self.tokenizer, &self.name, outputs)
    }
}
