//! `metamorph-models`: the candle architectures every other metamorph crate runs, in one place,
//! as candle-transformers keeps its models.
//!
//! * [`encoders`]: transformer encoders (BERT, DistilBERT, RoBERTa/XLM-R, DeBERTa-v2/v3,
//!   ModernBERT), their task heads as `transformers` lays them out, [`FastBert`] (a CPU f32
//!   BERT forward pass written for throughput), and checkpoint discovery ([`Checkpoint`], the
//!   architecture read from `config.json`).
//! * [`TaskEncoder`]: an encoder with its task head (extractive QA, sequence or token
//!   classification), logits for padded batches: what `metamorph-execute`'s models under test
//!   run on.
//! * [`SentenceEncoder`]: sentence embeddings (mean pooling, L2 normalisation; e.g.
//!   all-MiniLM-L6-v2).
//! * [`masked_lm`]: masked-LM heads on the encoders and the [`MaskedLm`] contract (fill and
//!   whole-word substitutes), used by perturb's word substitutions and the generate stage.
//! * [`bart`], [`t5`]: encoder-decoder forward passes with per-layer caches, exposed to the
//!   search through [`seq2seq::EncoderDecoder`]; greedy and beam search live in
//!   `metamorph-generate`.
//! * [`causal_lm`]: decoder-only language models from GGUF files (Llama family, Gemma 3) with
//!   the tokenizer read from the file: batched per-token log-probabilities (with a shared
//!   prefix run once) and greedy or sampled generation; the validity step's `lm` check runs on
//!   it.
//! * [`device()`] and [`parse_dtype`]: `cpu` / `cuda:N` / `metal` and f32/f16/bf16;
//!   [`ModelOptions`] carries them to seq2seq and masked-LM models.
//!
//! # Design
//! * **One crate for architectures, above `data` and `parse`, below every stage.** `execute`
//!   (models under test), `generate` (decoding, the generate stage) and `perturb` (masked-LM
//!   substitution) all import it; none of them depends on another for a model. It depends on
//!   `parse` only for the masked LM's same-part-of-speech filter.
//! * **Architectures stop at tensors and ids.** What a task makes of logits (QA spans, label
//!   maps, batching policy) stays with the task in `execute`; how a sequence is searched stays in
//!   `generate`. Each architecture is checked against PyTorch `transformers` on tiny
//!   random-weight checkpoints (`tests/encoder_parity.rs`, `tests/mlm_parity.rs`; BART and T5
//!   through `metamorph-generate`'s generation parity tests).
//! * **CPU by default**, f32 by default; the `cuda`/`metal` features forward to candle.
//! * **Errors are the workspace's** [`metamorph_data::Error`]: loading problems are `Asset`
//!   naming the file, bad settings `Config`, run-time failures `Model` naming the model.
#![deny(missing_docs)]

mod attention;
pub mod bart;
pub mod causal_lm;
mod checkpoint;
pub mod device;
pub mod encoders;
mod kv_cache;
mod linear;
pub mod masked_lm;
mod sentence_encoder;
pub mod seq2seq;
pub mod t5;
mod task_encoder;

pub use causal_lm::{CausalLm, GenerateOptions, LmOptions};
pub use checkpoint::ModelOptions;
pub use device::{device, parse_dtype};
pub use encoders::{Architecture, Checkpoint, FastBert, Head};
pub use masked_lm::{FillCandidate, MaskedLm};
pub use sentence_encoder::{cosine, EncoderOptions, SentenceEncoder};
pub use task_encoder::{LoadOptions, TaskEncoder};
