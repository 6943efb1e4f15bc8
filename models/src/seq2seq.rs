//! What an encoder-decoder architecture (BART, T5) offers the search that drives it: a batch
//! encoded once, then a decoder that extends every row by one token per call and keeps its own
//! caches ([`StepDecoder`]), plus the ids and limits the search needs ([`EncoderDecoder`]).
//!
//! The search itself (greedy and beam search reproducing `transformers`' `generate()`) is
//! generation, not architecture: it lives in `metamorph_generate::decoding`, which runs any
//! [`EncoderDecoder`].

use candle_core::{Device, Tensor};
use metamorph_data::{Error, Result};

/// A decoder that extends every row by one token per call, keeping its caches.
pub trait StepDecoder {
    /// Feeds `tokens` (one per row) and returns the next-token logits, `rows × vocab`, row-major.
    ///
    /// # Errors
    /// When the model fails.
    fn step(&mut self, tokens: &[u32]) -> Result<Vec<f32>>;

    /// [`step`](Self::step) that leaves the logits, `[rows, vocab]` in `f32`, where the model
    /// computed them, so that a search on a GPU reduces them there instead of copying
    /// `rows × vocab` values to the host every step. The default wraps `step`'s values in a
    /// CPU tensor.
    ///
    /// # Errors
    /// When the model fails.
    fn step_tensor(&mut self, tokens: &[u32]) -> Result<Tensor> {
        let values = self.step(tokens)?;
        let rows = tokens.len().max(1);
        let vocab = values.len() / rows;
        Tensor::from_vec(values, (rows, vocab), &Device::Cpu).map_err(|e| Error::Model {
            model: "decoder".into(),
            message: format!("logits of {rows} rows: {e}"),
        })
    }

    /// Makes row `r` continue from what row `rows[r]` held (beam reordering; every row stays
    /// with its input).
    ///
    /// # Errors
    /// When the model fails.
    fn reorder(&mut self, rows: &[usize]) -> Result<()>;
}

/// The token ids decoding needs from the model's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecialTokens {
    /// First decoder input (`decoder_start_token_id`).
    pub decoder_start: u32,
    /// End of sequence.
    pub eos: u32,
    /// Fills outputs after their end.
    pub pad: u32,
    /// Token forced as the first generated one (`forced_bos_token_id`).
    pub forced_bos: Option<u32>,
    /// Token forced as the last one at the length limit (`forced_eos_token_id`).
    pub forced_eos: Option<u32>,
}

/// An encoder-decoder model the search can drive: text to ids and back with the checkpoint's
/// tokenizer, and a decoder session over a batch of encoded inputs.
pub trait EncoderDecoder: Send + Sync {
    /// The model's name (errors name it).
    fn name(&self) -> &str;

    /// Size of the output vocabulary (the width of a row of logits).
    fn vocab_size(&self) -> usize;

    /// The special token ids from `config.json` and `generation_config.json`.
    fn special_tokens(&self) -> SpecialTokens;

    /// Checks that outputs of `max_new_tokens` tokens fit the decoder (learned positions).
    ///
    /// # Errors
    /// [`metamorph_data::Error::Config`] naming the model and the limit.
    fn check_output_length(&self, max_new_tokens: usize) -> Result<()>;

    /// Token ids of each text (special tokens added, truncated to what the encoder takes).
    ///
    /// # Errors
    /// [`metamorph_data::Error::Model`] naming the input that cannot be tokenized.
    fn tokenize(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>>;

    /// Encodes `inputs` (one non-empty id sequence each) and starts a decoder with `beams` rows
    /// per input, input-major.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Model`] for bad inputs or failures.
    fn start(&self, inputs: &[Vec<u32>], beams: usize) -> Result<Box<dyn StepDecoder + '_>>;

    /// The text of each output's token ids, special tokens skipped.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Model`] naming the output that cannot be decoded.
    fn detokenize(&self, outputs: &[Vec<u32>]) -> Result<Vec<String>>;
}
