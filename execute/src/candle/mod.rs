//! Models under test that run in-process on [candle](https://github.com/huggingface/candle).
//!
//! The architectures themselves (checkpoint resolution, the backbone of each architecture and
//! its task heads, [`TaskEncoder`], [`SentenceEncoder`], [`FastBert`], devices) live in
//! `metamorph-models`, shared with the masked LM and the generate stage; this module re-exports
//! them and adds the models under test: tokenization policy, batching, post-processing and
//! label mapping.
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
//! * [`FastBert`]: a BERT forward pass for the CPU in f32 with candle-transformers' semantics,
//!   written for throughput (fused QKV, copy-free attention, vectorized softmax/GELU/layer norm;
//!   see its module doc); `SentenceEncoder` runs on it for CPU f32 and on `BertModel` otherwise.
//! * [`SentenceSimilarityModel`]: the paraphrase model under test built on it: cosine of the
//!   two texts' embeddings ≥ threshold ⇒ label `1`.

pub mod batching;
mod classification;
pub mod labels;
pub mod question_answering;
mod similarity;
pub mod token_classification;

pub use classification::{
    relation_text, ClassificationOptions, EntityMarkers, PairOrder, SequenceClassificationModel,
};
pub use metamorph_models::{
    device, parse_dtype, Architecture, Checkpoint, EncoderOptions, FastBert, Head, LoadOptions,
    SentenceEncoder, TaskEncoder,
};
pub use question_answering::{QaOptions, QuestionAnsweringModel};
pub use similarity::{SentenceSimilarityModel, SimilarityOptions};
pub use token_classification::TokenClassifier;

use metamorph_data::{Error, Example, Result};

/// The text field `field` of `example` (value `value`), which must be present and not blank.
fn required<'a>(
    model: &str,
    example: &Example,
    field: &str,
    value: &'a Option<String>,
) -> Result<&'a str> {
    match value.as_deref() {
        Some(text) if !text.trim().is_empty() => Ok(text),
        Some(_) => Err(Error::Model {
            model: model.to_string(),
            message: format!("example `{}`: field `{field}` is empty", example.id),
        }),
        None => Err(Error::Model {
            model: model.to_string(),
            message: format!("example `{}`: field `{field}` is missing", example.id),
        }),
    }
}

/// Wraps a candle or tokenizers error as a model error of `model`, saying what was being done.
fn model_error(model: &str, doing: &str, e: impl std::fmt::Display) -> Error {
    Error::Model {
        model: model.to_string(),
        message: format!("{doing}: {e}"),
    }
}
