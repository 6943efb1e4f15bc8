//! DistilBERT's encoder, written here rather than taken from candle-transformers: candle's
//! `distilbert` (0.11) runs `activation = "gelu"` as the tanh approximation, while
//! `transformers` uses the exact erf GELU (its logits were 3e-4..7e-4 off the reference on
//! the tiny fixtures), and it mixes an f32 softmax into f16/bf16 runs.
//!
//! Layout (`transformers`' `modeling_distilbert.py`): word + learned position embeddings →
//! LayerNorm; per layer post-norm self-attention (`q_lin`/`k_lin`/`v_lin`/`out_lin`,
//! `sa_layer_norm`) and feed-forward (`lin1` → activation → `lin2`, `output_layer_norm`).
//! Padding keys are masked with the dtype's most negative finite value, like `transformers`.

use candle_core::{Module, Result, Tensor, D};
use candle_nn::{embedding, layer_norm, linear, Embedding, LayerNorm, Linear, VarBuilder};
use serde::Deserialize;

use super::activation::Activation;
use super::attention_mask::padding_bias;

const EPS: f64 = 1e-12;

/// The keys of DistilBERT's `config.json`.
#[derive(Clone, Debug, Deserialize)]
pub struct Config {
    pub vocab_size: usize,
    pub dim: usize,
    pub n_layers: usize,
    pub n_heads: usize,
    pub hidden_dim: usize,
    #[serde(default = "gelu")]
    pub activation: String,
    pub max_position_embeddings: usize,
    #[serde(default)]
    pub pad_token_id: u32,
    #[serde(default)]
    pub sinusoidal_pos_embds: bool,
}

fn gelu() -> String {
    "gelu".into()
}

struct Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    out: Linear,
    sa_norm: LayerNorm,
    lin1: Linear,
    lin2: Linear,
    out_norm: LayerNorm,
}

/// DistilBERT's encoder (`distilbert.` weights, without the prefix).
pub struct DistilBert {
    words: Embedding,
    positions: Embedding,
    norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    activation: Activation,
}

impl DistilBert {
    /// Loads the encoder; `activation` must be one [`Activation`] knows.
    pub fn load(vb: VarBuilder, config: &Config, activation: Activation) -> Result<Self> {
        let d = config.dim;
        let emb = vb.pp("embeddings");
        let layers = (0..config.n_layers)
            .map(|i| {
                let vb = vb.pp(format!("transformer.layer.{i}"));
                let att = vb.pp("attention");
                Ok(Layer {
                    q: linear(d, d, att.pp("q_lin"))?,
                    k: linear(d, d, att.pp("k_lin"))?,
                    v: linear(d, d, att.pp("v_lin"))?,
                    out: linear(d, d, att.pp("out_lin"))?,
                    sa_norm: layer_norm(d, EPS, vb.pp("sa_layer_norm"))?,
                    lin1: linear(d, config.hidden_dim, vb.pp("ffn.lin1"))?,
                    lin2: linear(config.hidden_dim, d, vb.pp("ffn.lin2"))?,
                    out_norm: layer_norm(d, EPS, vb.pp("output_layer_norm"))?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DistilBert {
            words: embedding(config.vocab_size, d, emb.pp("word_embeddings"))?,
            positions: embedding(
                config.max_position_embeddings,
                d,
                emb.pp("position_embeddings"),
            )?,
            norm: layer_norm(d, EPS, emb.pp("LayerNorm"))?,
            layers,
            heads: config.n_heads,
            activation,
        })
    }

    /// Hidden states `[rows, width, dim]` for `ids` and `mask` (u32 `[rows, width]`, 1 = token).
    pub fn forward(&self, ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (_, width) = ids.dims2()?;
        let positions = Tensor::arange(0u32, width as u32, ids.device())?;
        let mut xs = self
            .words
            .forward(ids)?
            .broadcast_add(&self.positions.forward(&positions)?)?
            .apply(&self.norm)?;
        let bias = padding_bias(mask, xs.dtype())?;
        for layer in &self.layers {
            let attended = self.attention(layer, &xs, &bias)?;
            let xs1 = (attended + &xs)?.apply(&layer.sa_norm)?;
            let ffn = layer.lin1.forward(&xs1)?;
            let ffn = self.activation.apply(&ffn)?.apply(&layer.lin2)?;
            xs = (ffn + xs1)?.apply(&layer.out_norm)?;
        }
        Ok(xs)
    }

    fn attention(&self, layer: &Layer, xs: &Tensor, bias: &Tensor) -> Result<Tensor> {
        let (rows, width, dim) = xs.dims3()?;
        let head_dim = dim / self.heads;
        let split = |t: Tensor| -> Result<Tensor> {
            t.reshape((rows, width, self.heads, head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let q = (split(layer.q.forward(xs)?)? / (head_dim as f64).sqrt())?;
        let k = split(layer.k.forward(xs)?)?;
        let v = split(layer.v.forward(xs)?)?;
        let scores = q.matmul(&k.t()?)?.broadcast_add(bias)?;
        let weights = candle_nn::ops::softmax(&scores, D::Minus1)?;
        let context = weights
            .matmul(&v)?
            .transpose(1, 2)?
            .reshape((rows, width, dim))?;
        layer.out.forward(&context)
    }
}
