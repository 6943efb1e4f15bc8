//! Transformer encoders on candle, shared by the masked LM here and the task models of
//! `metamorph-execute`.
//!
//! They live in this crate because both stages need them and the dependency runs one way:
//! `execute` depends on `generate` (it runs seq2seq models through it, DESIGN.md), so the
//! encoders sit in the lower crate and `execute` adds its task heads (extractive QA, sequence
//! and token classification) on top.
//!
//! * [`checkpoint`]: finds a checkpoint (local directory, packaged asset or hub repo) and reads
//!   its `config.json`, which names the architecture.
//! * [`backbone`]: the encoder of each architecture (BERT, DistilBERT, RoBERTa/XLM-R,
//!   DeBERTa-v2, ModernBERT), token ids in, last hidden states out.
//! * [`FastBert`]: a BERT forward pass for the CPU in f32 written for throughput.
//! * [`Activation`]: activations by their `transformers` names.

pub mod activation;
pub mod backbone;
mod bert;
pub mod checkpoint;
mod distilbert;
mod fast_bert;
mod modernbert;

pub use activation::Activation;
pub use checkpoint::{Architecture, Checkpoint};
pub use fast_bert::FastBert;
