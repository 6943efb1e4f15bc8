//! Transformer encoders on candle: the backbones and task heads every encoder model here is
//! built from (the masked LM, [`TaskEncoder`](crate::TaskEncoder) under `metamorph-execute`'s
//! models under test, [`SentenceEncoder`](crate::SentenceEncoder)).
//!
//! * [`checkpoint`]: finds a checkpoint (local directory, packaged asset or hub repo) and reads
//!   its `config.json`, which names the architecture.
//! * [`backbone`]: the encoder of each architecture (BERT, DistilBERT, RoBERTa/XLM-R,
//!   DeBERTa-v2, ModernBERT), token ids in, last hidden states out.
//! * [`FastBert`]: a BERT forward pass for the CPU in f32 written for throughput.
//! * `heads`: the task heads ([`Head`]) (extractive QA, sequence and token classification) as
//!   `transformers` lays them out per architecture.
//! * [`Activation`]: activations by their `transformers` names.

pub mod activation;
mod attention_mask;
pub mod backbone;
mod bert;
pub mod checkpoint;
mod distilbert;
mod fast_bert;
pub(crate) mod heads;
mod modernbert;

pub use activation::Activation;
pub use checkpoint::{Architecture, Checkpoint};
pub use fast_bert::{log_softmax_in_place, FastBert};
pub use heads::Head;
