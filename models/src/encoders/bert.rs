//! BERT's encoder: candle-transformers' `BertEncoder` layers under this crate's embeddings and
//! attention mask.
//!
//! candle's `BertModel` (0.11) builds the additive mask as `(1 - mask) · f32::MIN` cast to the
//! model's dtype; in f16/bf16 `f32::MIN` becomes −∞ and `0 · −∞` is NaN at every real token, so
//! half-precision BERT returned NaN. Here the mask is built with the dtype's own most negative
//! finite value (`torch.finfo(dtype).min`, as `transformers` does), and the embeddings
//! (word + absolute position + token type → LayerNorm) are the few lines `BertModel` keeps
//! private.

use candle_core::{Module, Result, Tensor};
use candle_nn::{embedding, layer_norm, Embedding, LayerNorm, VarBuilder};
use candle_transformers::models::bert;

use super::backbone::padding_bias;

/// BERT's encoder (weights without the `bert.` prefix).
pub struct Bert {
    words: Embedding,
    positions: Embedding,
    types: Embedding,
    norm: LayerNorm,
    encoder: bert::BertEncoder,
}

impl Bert {
    /// Loads embeddings and layers from `vb` (the encoder's root).
    pub fn load(vb: VarBuilder, config: &bert::Config) -> Result<Self> {
        let h = config.hidden_size;
        let emb = vb.pp("embeddings");
        Ok(Bert {
            words: embedding(config.vocab_size, h, emb.pp("word_embeddings"))?,
            positions: embedding(
                config.max_position_embeddings,
                h,
                emb.pp("position_embeddings"),
            )?,
            types: embedding(config.type_vocab_size, h, emb.pp("token_type_embeddings"))?,
            norm: layer_norm(h, config.layer_norm_eps, emb.pp("LayerNorm"))?,
            encoder: bert::BertEncoder::load(vb.pp("encoder"), config)?,
        })
    }

    /// Hidden states `[rows, width, hidden]` for u32 `ids`, `type_ids` and `mask`
    /// (`[rows, width]`, mask 1 = token).
    pub fn forward(&self, ids: &Tensor, type_ids: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (_, width) = ids.dims2()?;
        let positions = Tensor::arange(0u32, width as u32, ids.device())?;
        let xs = (self.words.forward(ids)? + self.types.forward(type_ids)?)?
            .broadcast_add(&self.positions.forward(&positions)?)?
            .apply(&self.norm)?;
        let bias = padding_bias(mask, xs.dtype())?;
        self.encoder.forward(&xs, &bias)
    }
}
