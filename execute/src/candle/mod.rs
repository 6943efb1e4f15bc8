//! Models under test that run in-process on [candle](https://github.com/huggingface/candle).
//!
//! * [`checkpoint`](Checkpoint): finds a checkpoint (local directory, packaged asset or hub repo)
//!   and reads its `config.json`, which names the architecture.
//! * [`device`](device()): the `cpu` / `cuda:N` / `metal` device and the f32/f16/bf16 dtype.
//! * [`SentenceEncoder`]: a BERT-family encoder (candle-transformers' `bert`) with mean pooling
//!   over the attention mask and L2 normalisation (sentence-transformers' recipe), batched by
//!   length buckets.
//! * [`FastBert`]: a BERT forward pass for the CPU in f32 with candle-transformers' semantics,
//!   written for throughput (fused QKV, copy-free attention, vectorized softmax/GELU/layer norm;
//!   see its module doc); `SentenceEncoder` runs on it for CPU f32 and on `BertModel` otherwise.
//! * [`SentenceSimilarityModel`]: the paraphrase model under test built on it: cosine of the
//!   two texts' embeddings ≥ threshold ⇒ label `1`.

mod checkpoint;
mod device;
mod encoder;
mod fast_bert;
mod similarity;

pub use checkpoint::{Architecture, Checkpoint};
pub use device::{device, parse_dtype};
pub use encoder::{EncoderOptions, SentenceEncoder};
pub use fast_bert::FastBert;
pub use similarity::{SentenceSimilarityModel, SimilarityOptions};

use metamorph_data::Error;

/// Wraps a candle or tokenizers error as a model error of `model`, saying what was being done.
fn model_error(model: &str, doing: &str, e: impl std::fmt::Display) -> Error {
    Error::Model {
        model: model.to_string(),
        message: format!("{doing}: {e}"),
    }
}
