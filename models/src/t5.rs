//! T5 conditional generation (`T5ForConditionalGeneration`) on candle.
//!
//! candle-transformers' `t5` cannot serve here: its encoder takes no attention mask (inputs of
//! different lengths cannot share a batch) and its decoder keeps a private key/value cache that
//! cannot be reordered between beams. This module follows `transformers`' `modeling_t5.py`:
//! shared token embeddings (not scaled), pre-layer-norm blocks with T5's RMS layer norm,
//! attention without biases or `1/sqrt(d)` scaling plus a relative position bias (bucketed,
//! bidirectional in the encoder, causal in the decoder; computed by the first block and reused
//! by the others), feed-forward `relu`/`gelu` or gated (`gated-gelu` uses the tanh
//! approximation), a final layer norm per stack, and decoder outputs scaled by
//! `d_model^-0.5` before the LM head when the checkpoint ties it to the embeddings
//! (`scale_decoder_outputs`, or `tie_word_embeddings` not false in older configs).

use std::path::Path;

use candle_core::{DType, Module, Tensor};
use candle_nn::{Activation, Embedding, RmsNorm, VarBuilder};
use metamorph_data::assets::{
    resolve_safetensors_checkpoint, safetensors_files, HubOptions, ModelSource,
};
use metamorph_data::{Error, Result};
use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationParams};

use crate::attention::grouped_attention;
use crate::checkpoint::{self, asset_err, special_tokens, ModelOptions, GENERATION_CONFIG};
use crate::kv_cache::{append_in_order, PendingOrder};
use crate::linear::{linear_no_bias, Linear};
use crate::seq2seq::{EncoderDecoder, SpecialTokens, StepDecoder};

/// The keys of a T5 `config.json` the model reads.
#[derive(Clone, Debug, Deserialize)]
pub struct T5Config {
    /// `"t5"`.
    #[serde(default)]
    pub model_type: Option<String>,
    /// Vocabulary size.
    pub vocab_size: usize,
    /// Hidden width.
    pub d_model: usize,
    /// Width of one attention head.
    pub d_kv: usize,
    /// Feed-forward width.
    pub d_ff: usize,
    /// Encoder blocks.
    pub num_layers: usize,
    /// Decoder blocks (default: `num_layers`).
    #[serde(default)]
    pub num_decoder_layers: Option<usize>,
    /// Attention heads.
    pub num_heads: usize,
    /// Relative position buckets.
    #[serde(default = "buckets")]
    pub relative_attention_num_buckets: usize,
    /// Distance from which all relative positions share a bucket.
    #[serde(default = "max_distance")]
    pub relative_attention_max_distance: usize,
    /// RMS norm epsilon.
    #[serde(default = "epsilon")]
    pub layer_norm_epsilon: f64,
    /// `relu`, `gelu`, `gated-gelu`, `gated-silu`, …
    #[serde(default = "relu")]
    pub feed_forward_proj: String,
    /// Whether the LM head is tied (older configs: decides the output scaling).
    #[serde(default)]
    pub tie_word_embeddings: Option<bool>,
    /// Scale decoder outputs by `d_model^-0.5` (newer configs state it).
    #[serde(default)]
    pub scale_decoder_outputs: Option<bool>,
    /// Padding token (also the decoder start token).
    #[serde(default)]
    pub pad_token_id: u32,
    /// End of sequence.
    #[serde(default = "one")]
    pub eos_token_id: u32,
    /// First decoder input (default: `pad_token_id`).
    #[serde(default)]
    pub decoder_start_token_id: Option<u32>,
    /// Positions to truncate inputs to (T5 has no position table; default 512).
    #[serde(default)]
    pub n_positions: Option<usize>,
}

fn buckets() -> usize {
    32
}
fn max_distance() -> usize {
    128
}
fn epsilon() -> f64 {
    1e-6
}
fn relu() -> String {
    "relu".into()
}
fn one() -> u32 {
    1
}

impl T5Config {
    /// Whether the feed-forward block is gated, and its activation (as `transformers` maps
    /// `feed_forward_proj`).
    fn activation(&self) -> std::result::Result<(bool, Activation), String> {
        let parts: Vec<&str> = self.feed_forward_proj.split('-').collect();
        let (gated, name) = match parts.as_slice() {
            [name] => (false, *name),
            ["gated", name] => (true, *name),
            _ => return Err(format!("feed_forward_proj {:?}", self.feed_forward_proj)),
        };
        let name = if self.feed_forward_proj == "gated-gelu" {
            "gelu_new"
        } else {
            name
        };
        let activation = serde_json::from_value(serde_json::Value::String(name.into()))
            .map_err(|_| format!("unsupported activation {name:?}"))?;
        Ok((gated, activation))
    }
}

#[derive(Clone, Debug)]
struct Attention {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    heads: usize,
    d_kv: usize,
    /// The first block's relative position table, `(buckets, heads)`.
    relative_bias: Option<Embedding>,
}

impl Attention {
    fn load(c: &T5Config, relative: bool, vb: VarBuilder) -> candle_core::Result<Self> {
        let inner = c.num_heads * c.d_kv;
        Ok(Attention {
            q: linear_no_bias(c.d_model, inner, vb.pp("q"))?,
            k: linear_no_bias(c.d_model, inner, vb.pp("k"))?,
            v: linear_no_bias(c.d_model, inner, vb.pp("v"))?,
            o: linear_no_bias(inner, c.d_model, vb.pp("o"))?,
            heads: c.num_heads,
            d_kv: c.d_kv,
            relative_bias: if relative {
                Some(candle_nn::embedding(
                    c.relative_attention_num_buckets,
                    c.num_heads,
                    vb.pp("relative_attention_bias"),
                )?)
            } else {
                None
            },
        })
    }

    fn split(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t, _) = x.dims3()?;
        x.reshape((b, t, self.heads, self.d_kv))?
            .transpose(1, 2)?
            .contiguous()
    }

    fn keys_values(&self, x: &Tensor) -> candle_core::Result<(Tensor, Tensor)> {
        Ok((
            self.split(&self.k.forward(x)?)?,
            self.split(&self.v.forward(x)?)?,
        ))
    }

    /// Attends from `x` to `(k, v)` with an additive `bias` (position bias and masks).
    fn attend(
        &self,
        x: &Tensor,
        k: &Tensor,
        v: &Tensor,
        bias: &Tensor,
    ) -> candle_core::Result<Tensor> {
        self.attend_grouped(x, k, v, bias, 1)
    }

    /// [`Attention::attend`] where each `group` consecutive rows of `x` (`(b·group, t, d)`)
    /// attend to one row of `(k, v)` (`(b, heads, t_k, d_kv)`) and of `bias` (broadcastable
    /// to `(b, heads, group·t, t_k)`): cross-attention's beams share their input's keys and
    /// values (see [`grouped_attention`]). T5 does not scale its scores.
    fn attend_grouped(
        &self,
        x: &Tensor,
        k: &Tensor,
        v: &Tensor,
        bias: &Tensor,
        group: usize,
    ) -> candle_core::Result<Tensor> {
        let q = self.q.forward(x)?;
        let context = grouped_attention(&q, k, v, Some(bias), None, group)?;
        self.o.forward(&context)
    }
}

/// `transformers`' `_relative_position_bucket` for one relative position (`key − query`),
/// with its `float32` logarithm.
pub fn relative_bucket(
    relative: i64,
    bidirectional: bool,
    buckets: usize,
    max_distance: usize,
) -> u32 {
    let mut num_buckets = buckets as i64;
    let mut bucket = 0i64;
    let distance = if bidirectional {
        num_buckets /= 2;
        if relative > 0 {
            bucket += num_buckets;
        }
        relative.abs()
    } else {
        -relative.min(0)
    };
    let max_exact = num_buckets / 2;
    if distance < max_exact {
        bucket += distance;
    } else {
        let ratio = (distance as f32 / max_exact as f32).ln()
            / (max_distance as f32 / max_exact as f32).ln()
            * (num_buckets - max_exact) as f32;
        bucket += (max_exact + ratio as i64).min(num_buckets - 1);
    }
    bucket as u32
}

#[derive(Clone, Debug)]
struct FeedForward {
    wi: Linear,
    wi_gate: Option<Linear>,
    wo: Linear,
    activation: Activation,
}

impl FeedForward {
    fn load(
        c: &T5Config,
        gated: bool,
        activation: Activation,
        vb: VarBuilder,
    ) -> candle_core::Result<Self> {
        let vb = vb.pp("DenseReluDense");
        let (wi, wi_gate) = if gated {
            (
                linear_no_bias(c.d_model, c.d_ff, vb.pp("wi_0"))?,
                Some(linear_no_bias(c.d_model, c.d_ff, vb.pp("wi_1"))?),
            )
        } else {
            (linear_no_bias(c.d_model, c.d_ff, vb.pp("wi"))?, None)
        };
        Ok(FeedForward {
            wi,
            wi_gate,
            wo: linear_no_bias(c.d_ff, c.d_model, vb.pp("wo"))?,
            activation,
        })
    }

    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let mut h = self.activation.forward(&self.wi.forward(x)?)?;
        if let Some(gate) = &self.wi_gate {
            h = (h * gate.forward(x)?)?;
        }
        self.wo.forward(&h)
    }
}

#[derive(Clone, Debug)]
struct Block {
    self_attn: Attention,
    self_norm: RmsNorm,
    cross: Option<(Attention, RmsNorm)>,
    ffn: FeedForward,
    ffn_norm: RmsNorm,
}

#[derive(Clone, Debug)]
struct LayerCache {
    self_kv: Option<(Tensor, Tensor)>,
    cross_kv: (Tensor, Tensor),
}

/// A loaded T5 checkpoint with its tokenizer.
pub struct T5 {
    name: String,
    config: T5Config,
    special: SpecialTokens,
    tokenizer: Tokenizer,
    shared: Embedding,
    encoder: Vec<Block>,
    encoder_norm: RmsNorm,
    decoder: Vec<Block>,
    decoder_norm: RmsNorm,
    lm_head: Linear,
    output_scale: f64,
    options: ModelOptions,
}

impl std::fmt::Debug for T5 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("T5")
            .field("name", &self.name)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// The encoder's output for a batch.
#[derive(Clone, Debug)]
pub struct T5Encoded {
    /// `(batch, source_len, d_model)`.
    pub hidden: Tensor,
    /// `(batch, 1, 1, source_len)`: 0 for tokens, a large negative number for padding.
    pub mask: Tensor,
}

impl T5 {
    /// Loads a checkpoint from `source` (local directory, `asset:NAME` or `hf:ORG/NAME@REV`).
    ///
    /// # Errors
    /// [`Error::Asset`] naming the source or file that is missing or does not fit.
    pub fn from_source(
        source: &ModelSource,
        hub: &HubOptions,
        options: ModelOptions,
    ) -> Result<Self> {
        let (dir, _) =
            resolve_safetensors_checkpoint(source, &["config.json", "tokenizer.json"], hub)?;
        Self::load(&dir, &source.to_string(), options)
    }

    /// Loads the checkpoint in `dir` and names it `name`.
    ///
    /// # Errors
    /// [`Error::Asset`] naming the file when one is missing, invalid, of another architecture,
    /// or weights do not fit the config; [`Error::Io`] when a file cannot be read.
    pub fn load(dir: &Path, name: &str, options: ModelOptions) -> Result<Self> {
        let config_path = dir.join("config.json");
        let text = std::fs::read_to_string(&config_path).map_err(|e| Error::io(&config_path, e))?;
        let config: T5Config = serde_json::from_str(&text)
            .map_err(|e| asset_err(&config_path, format!("not a T5 config: {e}")))?;
        if config.model_type.as_deref() != Some("t5") {
            return Err(asset_err(
                &config_path,
                format!(
                    "model_type is {:?}, not \"t5\"",
                    config.model_type.as_deref().unwrap_or("missing")
                ),
            ));
        }
        let (gated, activation) = config
            .activation()
            .map_err(|e| asset_err(&config_path, format!("unsupported {e}")))?;
        let defaults = SpecialTokens {
            decoder_start: config.decoder_start_token_id.unwrap_or(config.pad_token_id),
            eos: config.eos_token_id,
            pad: config.pad_token_id,
            forced_bos: None,
            forced_eos: None,
        };
        let special = special_tokens(defaults, config.vocab_size, &dir.join(GENERATION_CONFIG))?;
        let tokenizer_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| asset_err(&tokenizer_path, format!("cannot load the tokenizer: {e}")))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: config.n_positions.unwrap_or(512),
                ..Default::default()
            }))
            .map_err(|e| asset_err(&tokenizer_path, format!("cannot set truncation: {e}")))?;
        let weights = safetensors_files(dir)?;
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
        let build = || -> candle_core::Result<T5> {
            let c = &config;
            let shared = candle_nn::embedding(c.vocab_size, c.d_model, vb.pp("shared"))?;
            let norm = |vb: VarBuilder| candle_nn::rms_norm(c.d_model, c.layer_norm_epsilon, vb);
            let stack = |prefix: &str,
                         layers: usize,
                         decoder: bool|
             -> candle_core::Result<(Vec<Block>, RmsNorm)> {
                let vb = vb.pp(prefix);
                let blocks = (0..layers)
                    .map(|i| {
                        let layer = vb.pp("block").pp(i).pp("layer");
                        let ffn_index = if decoder { 2 } else { 1 };
                        Ok(Block {
                            self_attn: Attention::load(c, i == 0, layer.pp(0).pp("SelfAttention"))?,
                            self_norm: norm(layer.pp(0).pp("layer_norm"))?,
                            cross: if decoder {
                                Some((
                                    Attention::load(c, false, layer.pp(1).pp("EncDecAttention"))?,
                                    norm(layer.pp(1).pp("layer_norm"))?,
                                ))
                            } else {
                                None
                            },
                            ffn: FeedForward::load(c, gated, activation, layer.pp(ffn_index))?,
                            ffn_norm: norm(layer.pp(ffn_index).pp("layer_norm"))?,
                        })
                    })
                    .collect::<candle_core::Result<Vec<_>>>()?;
                Ok((blocks, norm(vb.pp("final_layer_norm"))?))
            };
            let (encoder, encoder_norm) = stack("encoder", c.num_layers, false)?;
            let (decoder, decoder_norm) = stack(
                "decoder",
                c.num_decoder_layers.unwrap_or(c.num_layers),
                true,
            )?;
            let lm_head = if vb.contains_tensor("lm_head.weight") {
                vb.get((c.vocab_size, c.d_model), "lm_head.weight")?
            } else {
                shared.embeddings().clone()
            };
            let scale = c
                .scale_decoder_outputs
                .unwrap_or(c.tie_word_embeddings != Some(false));
            Ok(T5 {
                name: name.to_string(),
                special,
                tokenizer: tokenizer.clone(),
                shared,
                encoder,
                encoder_norm,
                decoder,
                decoder_norm,
                lm_head: Linear::new(lm_head, None),
                output_scale: if scale {
                    (c.d_model as f64).powf(-0.5)
                } else {
                    1.0
                },
                options: options.clone(),
                config: config.clone(),
            })
        };
        build().map_err(|e| {
            asset_err(
                &weights[0],
                format!("weights do not fit {}: {e}", config_path.display()),
            )
        })
    }

    /// The configuration read from `config.json`.
    pub fn config(&self) -> &T5Config {
        &self.config
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    fn model_err(&self, message: impl std::fmt::Display) -> Error {
        checkpoint::model_err(&self.name, message)
    }

    /// Token ids of each text (special tokens added, truncated to `n_positions`, default 512).
    ///
    /// # Errors
    /// [`Error::Model`] naming the input when tokenization fails.
    pub fn tokenize(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        checkpoint::tokenize(&self.tokenizer, &self.name, texts)
    }

    /// The relative position bias `(1, heads, t_q, t_k)` of queries at `past..past+t_q`.
    fn position_bias(
        &self,
        table: &Embedding,
        queries: usize,
        keys: usize,
        past: usize,
        bidirectional: bool,
    ) -> candle_core::Result<Tensor> {
        let c = &self.config;
        let buckets: Vec<u32> = (0..queries)
            .flat_map(|i| {
                (0..keys).map(move |j| {
                    relative_bucket(
                        j as i64 - (past + i) as i64,
                        bidirectional,
                        c.relative_attention_num_buckets,
                        c.relative_attention_max_distance,
                    )
                })
            })
            .collect();
        let buckets = Tensor::from_vec(buckets, (queries, keys), &self.options.device)?;
        table.forward(&buckets)?.permute((2, 0, 1))?.unsqueeze(0)
    }

    /// Runs the encoder over `inputs` (right-padded with `pad` into one batch).
    ///
    /// # Errors
    /// [`Error::Model`] when an input is empty, holds an id outside the vocabulary, or the
    /// forward pass fails.
    pub fn encode(&self, inputs: &[Vec<u32>]) -> Result<T5Encoded> {
        for (i, ids) in inputs.iter().enumerate() {
            if ids.is_empty() {
                return Err(self.model_err(format!("input {i} is empty")));
            }
            if let Some(bad) = ids.iter().find(|&&t| t as usize >= self.config.vocab_size) {
                return Err(self.model_err(format!(
                    "input {i} holds token id {bad}, outside the vocabulary of {}",
                    self.config.vocab_size
                )));
            }
        }
        let run = || -> candle_core::Result<T5Encoded> {
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
            let table = self.encoder[0]
                .self_attn
                .relative_bias
                .as_ref()
                .ok_or_else(|| candle_core::Error::Msg("no relative attention bias".into()))?;
            let bias = self
                .position_bias(table, width, width, 0, true)?
                .broadcast_add(&mask)?;
            let mut h = self.shared.forward(&ids)?;
            for block in &self.encoder {
                let n = block.self_norm.forward(&h)?;
                let (k, v) = block.self_attn.keys_values(&n)?;
                h = (h + block.self_attn.attend(&n, &k, &v, &bias)?)?;
                let n = block.ffn_norm.forward(&h)?;
                h = (&h + block.ffn.forward(&n)?)?;
            }
            Ok(T5Encoded {
                hidden: self.encoder_norm.forward(&h)?,
                mask,
            })
        };
        run().map_err(|e| self.model_err(format!("encoder failed: {e}")))
    }

    /// A decoding session over `encoded` with `beams` rows per input (input-major: row
    /// `i·beams + j` is beam `j` of input `i`).
    ///
    /// # Errors
    /// [`Error::Model`] when `beams` is 0 or computing the cross-attention keys and values
    /// fails.
    pub fn session(&self, encoded: &T5Encoded, beams: usize) -> Result<T5Session<'_>> {
        let build = || -> candle_core::Result<T5Session<'_>> {
            if beams == 0 {
                candle_core::bail!("a session needs at least one beam");
            }
            // Cross-attention keys and values once per input: its beams share them.
            let hidden = &encoded.hidden;
            let caches = self
                .decoder
                .iter()
                .map(|block| {
                    let (attn, _) = block.cross.as_ref().ok_or_else(|| {
                        candle_core::Error::Msg("decoder block without cross-attention".into())
                    })?;
                    Ok(LayerCache {
                        self_kv: None,
                        cross_kv: attn.keys_values(hidden)?,
                    })
                })
                .collect::<candle_core::Result<Vec<_>>>()?;
            Ok(T5Session {
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

/// Decoder state over a batch: per-block caches (self-attention one row per beam, cross-attention
/// one row per input) and the encoder mask (one row per input).
pub struct T5Session<'a> {
    model: &'a T5,
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

impl T5Session<'_> {
    /// Feeds `tokens` (`rows × t`, `rows` = inputs × beams) and returns the logits of every
    /// position, `(rows, t, vocab)` in `f32`. More than one token per row uses a causal mask.
    ///
    /// # Errors
    /// [`Error::Model`] when the forward pass fails or `rows` is not inputs × beams.
    pub fn forward(&mut self, tokens: &Tensor) -> Result<Tensor> {
        let model = self.model;
        let rows = tokens.dims().first().copied().unwrap_or(0);
        let inputs = self.encoder_mask.dims().first().copied().unwrap_or(0);
        if rows != inputs * self.beams {
            return Err(model.model_err(format!(
                "decoder input has {rows} rows; the session has {inputs} inputs × {} beams",
                self.beams
            )));
        }
        let run = |s: &mut Self| -> candle_core::Result<Tensor> {
            let (_, t) = tokens.dims2()?;
            let past = s.past;
            let total = past + t;
            let table = model.decoder[0]
                .self_attn
                .relative_bias
                .as_ref()
                .ok_or_else(|| candle_core::Error::Msg("no relative attention bias".into()))?;
            let mut bias = model.position_bias(table, t, total, past, false)?;
            if t > 1 {
                let mask: Vec<f32> = (0..t)
                    .flat_map(|i| {
                        (0..total).map(move |j| if j <= past + i { 0.0 } else { f32::MIN })
                    })
                    .collect();
                let mask = Tensor::from_vec(mask, (1, 1, t, total), &model.options.device)?
                    .to_dtype(model.options.dtype)?;
                bias = bias.broadcast_add(&mask)?;
            }
            let mut h = model.shared.forward(tokens)?;
            let order = s.order.take();
            for (block, cache) in model.decoder.iter().zip(s.caches.iter_mut()) {
                let n = block.self_norm.forward(&h)?;
                let (k, v) = block.self_attn.keys_values(&n)?;
                let (k, v) = match &cache.self_kv {
                    Some((pk, pv)) => (
                        append_in_order(pk, order.as_deref(), &k)?,
                        append_in_order(pv, order.as_deref(), &v)?,
                    ),
                    None => (k, v),
                };
                h = (h + block.self_attn.attend(&n, &k, &v, &bias)?)?;
                cache.self_kv = Some((k, v));
                if let Some((attn, norm)) = &block.cross {
                    let n = norm.forward(&h)?;
                    let (ck, cv) = &cache.cross_kv;
                    h = (&h + attn.attend_grouped(&n, ck, cv, &s.encoder_mask, s.beams)?)?;
                }
                let n = block.ffn_norm.forward(&h)?;
                h = (&h + block.ffn.forward(&n)?)?;
            }
            s.past = total;
            let h = (model.decoder_norm.forward(&h)? * model.output_scale)?;
            let (rows, t, d) = h.dims3()?;
            let logits = model.lm_head.forward(&h.reshape((rows * t, d))?)?;
            logits.reshape((rows, t, ()))?.to_dtype(DType::F32)
        };
        run(self).map_err(|e| model.model_err(format!("decoder failed: {e}")))
    }
}

impl StepDecoder for T5Session<'_> {
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

impl EncoderDecoder for T5 {
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
        // Relative position buckets: any length fits.
        let _ = max_new_tokens;
        Ok(())
    }

    fn tokenize(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        T5::tokenize(self, texts)
    }

    fn start(&self, inputs: &[Vec<u32>], beams: usize) -> Result<Box<dyn StepDecoder + '_>> {
        let encoded = self.encode(inputs)?;
        Ok(Box::new(self.session(&encoded, beams)?))
    }

    fn detokenize(&self, outputs: &[Vec<u32>]) -> Result<Vec<String>> {
        checkpoint::decode(&self.tokenizer, &self.name, outputs)
    }
}

#[cfg(test)]
mod tests {
    use super::relative_bucket;

    #[test]
    fn relative_buckets_follow_transformers() {
        // Bidirectional, 32 buckets, distance 128 (T5's defaults): 16 per direction, 8 exact.
        let b = |r| relative_bucket(r, true, 32, 128);
        assert_eq!([b(0), b(-1), b(-7), b(1), b(7)], [0, 1, 7, 17, 23]);
        // Past the exact range: 8 + floor(ln(d/8) / ln(16) · 8).
        assert_eq!(b(-8), 8);
        assert_eq!(b(-16), 10);
        assert_eq!(b(-127), 15);
        assert_eq!(b(-1000), 15);
        assert_eq!(b(1000), 31);
        // Causal: future positions share bucket 0.
        let c = |r| relative_bucket(r, false, 32, 128);
        assert_eq!([c(3), c(0), c(-1), c(-15), c(-16)], [0, 0, 1, 15, 16]);
    }
}
