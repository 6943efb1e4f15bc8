//! BERT's encoder on candle ops, for the devices and dtypes `FastBert` does not cover (GPUs,
//! f16/bf16 on the CPU).
//!
//! Two departures from candle-transformers' `BertModel` (0.11), both measured or forced:
//!
//! * **The mask.** candle's `BertModel` builds the additive mask as `(1 - mask) · f32::MIN`
//!   cast to the model's dtype; in f16/bf16 `f32::MIN` becomes −∞ and `0 · −∞` is NaN at every
//!   real token, so half-precision BERT returned NaN. Here the mask is built with the dtype's
//!   own most negative finite value (`torch.finfo(dtype).min`, as `transformers` does), and
//!   not added at all when no row of the batch is padded.
//! * **Fewer passes over the attention scores.** Its layers run about thirty kernels on a GPU,
//!   seven of them over the `[rows, heads, width, width]` scores: the scale, the mask and a
//!   softmax of five kernels (Nsight Compute's kernel list on an H100, where candle's bf16 BERT
//!   reached 0.11× PyTorch's throughput at batch 256). Here the scale is folded into the query
//!   projection at load, the softmax is candle's fused last-dimension kernel, and the query,
//!   key and value projections are one matrix product whose heads are split by one copy:
//!   about twenty kernels a layer, one or two of them over the scores. On the CPU, where
//!   matrix products dominate, it measured as fast as candle-transformers' layers (bf16 +4%,
//!   f16 −2%, 2 layers of BERT-base, batch 8 × 128); its effect on a GPU is not measured yet.

use candle_core::{DType, Module, Result, Tensor};
use candle_nn::{embedding, layer_norm, Embedding, LayerNorm, Linear, VarBuilder};
use candle_transformers::models::bert::{self, HiddenAct};

use super::attention_mask::padding_bias;

/// BERT's encoder (weights without the `bert.` prefix).
pub struct Bert {
    words: Embedding,
    positions: Embedding,
    types: Embedding,
    norm: LayerNorm,
    layers: Vec<Layer>,
}

/// One encoder layer.
struct Layer {
    /// Query (pre-scaled by `1/√head_dim`), key and value projections, stacked.
    qkv: Linear,
    heads: usize,
    head_dim: usize,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    act: HiddenAct,
    output: Linear,
    output_norm: LayerNorm,
}

impl Bert {
    /// Loads embeddings and layers from `vb` (the encoder's root).
    pub fn load(vb: VarBuilder, config: &bert::Config) -> Result<Self> {
        let h = config.hidden_size;
        let emb = vb.pp("embeddings");
        let layers = (0..config.num_hidden_layers)
            .map(|l| Layer::load(vb.pp(format!("encoder.layer.{l}")), config))
            .collect::<Result<Vec<_>>>()?;
        Ok(Bert {
            words: embedding(config.vocab_size, h, emb.pp("word_embeddings"))?,
            positions: embedding(
                config.max_position_embeddings,
                h,
                emb.pp("position_embeddings"),
            )?,
            types: embedding(config.type_vocab_size, h, emb.pp("token_type_embeddings"))?,
            norm: layer_norm(h, config.layer_norm_eps, emb.pp("LayerNorm"))?,
            layers,
        })
    }

    /// Hidden states `[rows, width, hidden]` for u32 `ids`, `type_ids` and `mask`
    /// (`[rows, width]`, mask 1 = token).
    pub fn forward(&self, ids: &Tensor, type_ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (_, width) = ids.dims2()?;
        let positions = Tensor::arange(0u32, width as u32, ids.device())?;
        let mut xs = (self.words.forward(ids)? + self.types.forward(type_ids)?)?
            .broadcast_add(&self.positions.forward(&positions)?)?
            .apply(&self.norm)?;
        // One small reduction read back per batch spares a pass over every layer's scores
        // when nothing is padded (length-bucketed batches often are not).
        let padded = mask.min_all()?.to_dtype(DType::U32)?.to_scalar::<u32>()? == 0;
        let bias = match padded {
            true => Some(padding_bias(mask, xs.dtype())?),
            false => None,
        };
        for layer in &self.layers {
            xs = layer.forward(&xs, bias.as_ref())?;
        }
        Ok(xs)
    }
}

impl Layer {
    fn load(vb: VarBuilder, config: &bert::Config) -> Result<Self> {
        let (h, heads) = (config.hidden_size, config.num_attention_heads);
        if h % heads != 0 {
            candle_core::bail!("hidden size {h} is not divisible by {heads} heads");
        }
        let head_dim = h / heads;
        let attention = vb.pp("attention");
        let part = |name: &str| -> Result<(Tensor, Tensor)> {
            let p = attention.pp("self").pp(name);
            Ok((p.get((h, h), "weight")?, p.get(h, "bias")?))
        };
        let ((wq, bq), (wk, bk), (wv, bv)) = (part("query")?, part("key")?, part("value")?);
        // The score scale folded into the query projection, computed in f32 (exact for the
        // power-of-two scale of 64-wide heads, in any dtype).
        let scale = 1.0 / (head_dim as f64).sqrt();
        let scaled = |t: &Tensor| -> Result<Tensor> {
            (t.to_dtype(DType::F32)? * scale)?.to_dtype(t.dtype())
        };
        let qkv = Linear::new(
            Tensor::cat(&[scaled(&wq)?, wk, wv], 0)?,
            Some(Tensor::cat(&[scaled(&bq)?, bk, bv], 0)?),
        );
        let dense = |vb: VarBuilder, out: usize, inp: usize| -> Result<Linear> {
            Ok(Linear::new(
                vb.get((out, inp), "weight")?,
                Some(vb.get(out, "bias")?),
            ))
        };
        let i = config.intermediate_size;
        let eps = config.layer_norm_eps;
        Ok(Layer {
            qkv,
            heads,
            head_dim,
            attention_out: dense(attention.pp("output").pp("dense"), h, h)?,
            attention_norm: layer_norm(h, eps, attention.pp("output").pp("LayerNorm"))?,
            intermediate: dense(vb.pp("intermediate").pp("dense"), i, h)?,
            act: config.hidden_act,
            output: dense(vb.pp("output").pp("dense"), h, i)?,
            output_norm: layer_norm(h, eps, vb.pp("output").pp("LayerNorm"))?,
        })
    }

    fn forward(&self, xs: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let (rows, width, hidden) = xs.dims3()?;
        // [rows, width, 3·hidden] → [3, rows, heads, width, head_dim] in one copy.
        let qkv = self
            .qkv
            .forward(xs)?
            .reshape((rows, width, 3, self.heads, self.head_dim))?
            .permute((2, 0, 3, 1, 4))?
            .contiguous()?;
        let (q, k, v) = (qkv.get(0)?, qkv.get(1)?, qkv.get(2)?);
        let mut scores = q.matmul(&k.t()?)?;
        if let Some(bias) = bias {
            scores = scores.broadcast_add(bias)?;
        }
        let probs = candle_nn::ops::softmax_last_dim(&scores)?;
        let context = probs
            .matmul(&v)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((rows, width, hidden))?;
        let attended = self
            .attention_norm
            .forward(&(self.attention_out.forward(&context)? + xs)?)?;
        let inner = self.intermediate.forward(&attended)?;
        let inner = match self.act {
            HiddenAct::Gelu => super::activation::gelu_erf(&inner)?,
            HiddenAct::GeluApproximate => inner.gelu()?,
            HiddenAct::Relu => inner.relu()?,
        };
        self.output_norm
            .forward(&(self.output.forward(&inner)? + attended)?)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use candle_core::Device;

    use super::*;
    use crate::FastBert;

    /// The tiny BERT fixture's encoder (checked against PyTorch by the parity tests through
    /// `FastBert`) run by both implementations on a padded batch.
    #[test]
    fn candle_ops_bert_matches_fast_bert() {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/encoders/bert-sequence");
        let config: bert::Config =
            serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap())
                .unwrap();
        let device = Device::Cpu;
        // SAFETY: the fixture is not modified while mapped.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(
                &[dir.join("model.safetensors")],
                DType::F32,
                &device,
            )
        }
        .unwrap()
        .pp("bert");
        let ours = Bert::load(vb.clone(), &config).unwrap();
        let fast = FastBert::load(vb, &config).unwrap();
        let ids = Tensor::new(&[[2u32, 40, 41, 42, 3], [2, 50, 3, 0, 0]], &device).unwrap();
        let types = Tensor::new(&[[0u32, 0, 0, 1, 1], [0, 0, 0, 0, 0]], &device).unwrap();
        for mask in [[[1u32, 1, 1, 1, 1], [1, 1, 1, 0, 0]], [[1; 5], [1; 5]]] {
            let mask = Tensor::new(&mask, &device).unwrap();
            let a = ours.forward(&ids, &types, &mask).unwrap();
            let b = fast.forward(&ids, &types, Some(&mask)).unwrap();
            let keep = mask.to_dtype(DType::F32).unwrap().unsqueeze(2).unwrap();
            let diff = (a - b)
                .unwrap()
                .broadcast_mul(&keep)
                .unwrap()
                .abs()
                .unwrap()
                .max_all()
                .unwrap()
                .to_scalar::<f32>()
                .unwrap();
            assert!(diff < 1e-4, "max |Δ| {diff}");
        }
    }
}
