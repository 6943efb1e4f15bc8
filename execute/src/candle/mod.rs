//! Models under test that run in-process on [candle](https://github.com/huggingface/candle).
//!
//! * [`checkpoint`](Checkpoint): finds a checkpoint (local directory, packaged asset or hub repo)
//!   and reads its `config.json`, which names the architecture.
//! * [`device`](device()): the `cpu` / `cuda:N` / `metal` device and the f32/f16/bf16 dtype.
//! * [`SentenceEncoder`]: a BERT-family encoder (candle-transformers' `bert`) with mean pooling
//!   over the attention mask and L2 normalisation (sentence-transformers' recipe), batched by
//!   length buckets.
//! * [`TaskEncoder`]: an encoder of any supported architecture (BERT, DistilBERT, RoBERTa,
//!   XLM-R, DeBERTa-v2, ModernBERT; candle-transformers' backbones) with its task [`Head`]
//!   (extractive QA, sequence or token classification) as `transformers` lays them out,
//!   returning logits for padded batches.
//! * [`SentenceSimilarityModel`]: the paraphrase model under test built on it: cosine of the
//!   two texts' embeddings ≥ threshold ⇒ label `1`.

mod backbone;
pub mod batching;
mod checkpoint;
mod device;
mod distilbert;
mod encoder;
mod heads;
pub mod labels;
pub mod question_answering;
mod similarity;
mod task_encoder;

pub use checkpoint::{Architecture, Checkpoint};
pub use device::{device, parse_dtype};
pub use encoder::{EncoderOptions, SentenceEncoder};
pub use heads::Head;
pub use similarity::{SentenceSimilarityModel, SimilarityOptions};
pub use task_encoder::{LoadOptions, TaskEncoder};

use metamorph_data::Error;

/// Wraps a candle or tokenizers error as a model error of `model`, saying what was being done.
fn model_error(model: &str, doing: &str, e: impl std::fmt::Display) -> Error {
    Error::Model {
        model: model.to_string(),
        message: format!("{doing}: {e}"),
    }
}
