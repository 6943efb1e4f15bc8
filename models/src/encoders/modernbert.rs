//! ModernBERT's encoder, written here (candle-transformers' `modernbert` read as reference):
//! candle's (0.11) builds its attention masks in f32 whatever the model dtype, so f16/bf16 runs
//! fail, and it hard-codes the GELU and the absence of biases.
//!
//! Layout (`transformers`' `modeling_modernbert.py`, weights under `model.`):
//! `embeddings.tok_embeddings` → `embeddings.norm`; per layer pre-norm attention (`attn_norm`,
//! absent — identity — in layer 0; fused `attn.Wqkv`, rotary position embeddings with
//! `rope_theta` per layer kind, `attn.Wo`) and a GeGLU feed-forward (`mlp_norm`, `mlp.Wi` split
//! into input and gate, `act(input) · gate`, `mlp.Wo`); `final_norm`. Every
//! `global_attn_every_n_layers`-th layer (from layer 0) attends globally, the others within a
//! window of `local_attention / 2` tokens either side. Masks use the dtype's most negative
//! finite value at padding keys and outside the window, like `transformers`.

use candle_core::{DType, Device, Module, Result, Tensor, D};
use candle_nn::{embedding, linear_b, Embedding, LayerNorm, Linear, VarBuilder};

use super::activation::Activation;
use super::attention_mask::padding_bias;

/// The settings of a ModernBERT encoder (read from `config.json` by the backbone).
#[derive(Clone, Debug)]
pub struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    pub norm_eps: f64,
    pub norm_bias: bool,
    pub attention_bias: bool,
    pub mlp_bias: bool,
    pub activation: Activation,
    /// Every n-th layer, from layer 0, attends globally.
    pub global_every: usize,
    /// Window of the local layers (tokens, both sides together).
    pub local_attention: usize,
    pub global_rope_theta: f64,
    pub local_rope_theta: f64,
}

/// Precomputed rotary tables `[max_positions, head_dim / 2]`.
struct Rope {
    cos: Tensor,
    sin: Tensor,
}

impl Rope {
    fn new(
        theta: f64,
        head_dim: usize,
        positions: usize,
        dtype: DType,
        dev: &Device,
    ) -> Result<Self> {
        let inv_freq: Vec<f32> = (0..head_dim)
            .step_by(2)
            .map(|i| 1.0 / theta.powf(i as f64 / head_dim as f64) as f32)
            .collect();
        let half = inv_freq.len();
        let inv_freq = Tensor::from_vec(inv_freq, (1, half), dev)?;
        let t = Tensor::arange(0u32, positions as u32, dev)?
            .to_dtype(DType::F32)?
            .reshape((positions, 1))?;
        let freqs = t.matmul(&inv_freq)?;
        Ok(Rope {
            cos: freqs.cos()?.to_dtype(dtype)?,
            sin: freqs.sin()?.to_dtype(dtype)?,
        })
    }

    /// `xs` `[rows, heads, width, head_dim]` rotated (rotate-half convention).
    fn apply(&self, xs: &Tensor) -> Result<Tensor> {
        let width = xs.dim(2)?;
        candle_nn::rotary_emb::rope(
            &xs.contiguous()?,
            &self.cos.narrow(0, 0, width)?,
            &self.sin.narrow(0, 0, width)?,
        )
    }
}

struct Layer {
    attn_norm: Option<LayerNorm>,
    qkv: Linear,
    out: Linear,
    mlp_norm: LayerNorm,
    wi: Linear,
    wo: Linear,
    local: bool,
}

/// ModernBERT's encoder (expects the checkpoint root; reads `model.`).
pub struct ModernBert {
    words: Embedding,
    norm: LayerNorm,
    layers: Vec<Layer>,
    final_norm: LayerNorm,
    heads: usize,
    half_window: usize,
    global_rope: Rope,
    local_rope: Rope,
    activation: Activation,
}

fn norm(vb: VarBuilder, size: usize, config: &Config) -> Result<LayerNorm> {
    let weight = vb.get(size, "weight")?;
    Ok(if config.norm_bias {
        LayerNorm::new(weight, vb.get(size, "bias")?, config.norm_eps)
    } else {
        LayerNorm::new_no_bias(weight, config.norm_eps)
    })
}

impl ModernBert {
    /// Loads the encoder from the checkpoint root `vb`.
    pub fn load(vb: VarBuilder, config: &Config) -> Result<Self> {
        let vb = vb.pp("model");
        let h = config.hidden_size;
        let head_dim = h / config.num_attention_heads;
        let every = config.global_every.max(1);
        let layers = (0..config.num_hidden_layers)
            .map(|i| {
                let vb = vb.pp(format!("layers.{i}"));
                let attn_norm = if vb.contains_tensor("attn_norm.weight") {
                    Some(norm(vb.pp("attn_norm"), h, config)?)
                } else {
                    None
                };
                Ok(Layer {
                    attn_norm,
                    qkv: linear_b(h, 3 * h, config.attention_bias, vb.pp("attn.Wqkv"))?,
                    out: linear_b(h, h, config.attention_bias, vb.pp("attn.Wo"))?,
                    mlp_norm: norm(vb.pp("mlp_norm"), h, config)?,
                    wi: linear_b(
                        h,
                        2 * config.intermediate_size,
                        config.mlp_bias,
                        vb.pp("mlp.Wi"),
                    )?,
                    wo: linear_b(
                        config.intermediate_size,
                        h,
                        config.mlp_bias,
                        vb.pp("mlp.Wo"),
                    )?,
                    local: i % every != 0,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let (dtype, dev) = (vb.dtype(), vb.device().clone());
        let positions = config.max_position_embeddings;
        Ok(ModernBert {
            words: embedding(config.vocab_size, h, vb.pp("embeddings.tok_embeddings"))?,
            norm: norm(vb.pp("embeddings.norm"), h, config)?,
            layers,
            final_norm: norm(vb.pp("final_norm"), h, config)?,
            heads: config.num_attention_heads,
            half_window: config.local_attention / 2,
            global_rope: Rope::new(config.global_rope_theta, head_dim, positions, dtype, &dev)?,
            local_rope: Rope::new(config.local_rope_theta, head_dim, positions, dtype, &dev)?,
            activation: config.activation,
        })
    }

    /// Hidden states `[rows, width, hidden]` for u32 `ids` and `mask` (`[rows, width]`,
    /// 1 = token).
    pub fn forward(&self, ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (rows, width) = ids.dims2()?;
        let mut xs = self.words.forward(ids)?.apply(&self.norm)?;
        let dtype = xs.dtype();
        let global = padding_bias(mask, dtype)?;
        let local = if self.layers.iter().any(|l| l.local) {
            // Keys inside the window and not padding: 1; the bias is built once from both.
            let inside: Vec<u32> = (0..width)
                .flat_map(|i| (0..width).map(move |j| u32::from(i.abs_diff(j) <= self.half_window)))
                .collect();
            let inside = Tensor::from_vec(inside, (1, 1, width, width), ids.device())?;
            let keep = mask
                .reshape((rows, 1, 1, width))?
                .broadcast_mul(&inside)?
                .reshape((rows, width * width))?;
            Some(padding_bias(&keep, dtype)?.reshape((rows, 1, width, width))?)
        } else {
            None
        };
        for layer in &self.layers {
            let (bias, rope) = match (&local, layer.local) {
                (Some(local), true) => (local, &self.local_rope),
                _ => (&global, &self.global_rope),
            };
            let normed = match &layer.attn_norm {
                Some(norm) => xs.apply(norm)?,
                None => xs.clone(),
            };
            xs = (&xs + self.attention(layer, &normed, bias, rope)?)?;
            let gated = xs.apply(&layer.mlp_norm)?.apply(&layer.wi)?;
            let halves = gated.chunk(2, D::Minus1)?;
            let mlp = (self.activation.apply(&halves[0])? * &halves[1])?.apply(&layer.wo)?;
            xs = (xs + mlp)?;
        }
        xs.apply(&self.final_norm)
    }

    fn attention(&self, layer: &Layer, xs: &Tensor, bias: &Tensor, rope: &Rope) -> Result<Tensor> {
        let (rows, width, hidden) = xs.dims3()?;
        let head_dim = hidden / self.heads;
        let qkv = xs
            .apply(&layer.qkv)?
            .reshape((rows, width, 3, self.heads, head_dim))?
            .permute((2, 0, 3, 1, 4))?;
        let q = rope.apply(&qkv.get(0)?)?;
        let k = rope.apply(&qkv.get(1)?)?;
        let v = qkv.get(2)?.contiguous()?;
        let scores = (q * (head_dim as f64).powf(-0.5))?
            .matmul(&k.t()?)?
            .broadcast_add(bias)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?;
        weights
            .matmul(&v)?
            .transpose(1, 2)?
            .reshape((rows, width, hidden))?
            .apply(&layer.out)
    }
}
