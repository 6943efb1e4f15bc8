//! `metamorph-generate`: text generation services used by some MR families.
//!
//! Two contracts live here: [`Seq2Seq`] (BART/T5 conditional generation with greedy or beam
//! search; Break-Perturb-Build's QDMR parsing and question generation, seed-002) and
//! [`MaskedLm`] (masked-LM fill for word substitution; NLPLego seed-003 and CREST seed-004).
//! The candle models that implement them and the `generate` stage are the generate issue's work.
#![deny(missing_docs)]

use metamorph_data::Result;

/// Decoding settings for [`Seq2Seq::generate`].
#[derive(Clone, Debug, PartialEq)]
pub struct DecodingOptions {
    /// Beams (1 = greedy).
    pub num_beams: usize,
    /// Hard limit on generated tokens.
    pub max_new_tokens: usize,
    /// Fewest generated tokens before end-of-sequence is allowed.
    pub min_new_tokens: usize,
    /// Exponent applied to the length when ranking beams.
    pub length_penalty: f32,
    /// Penalty for tokens already generated (1.0 = none).
    pub repetition_penalty: f32,
    /// Forbid repeating any n-gram of this size (0 = off).
    pub no_repeat_ngram_size: usize,
    /// Stop a beam search as soon as `num_beams` hypotheses are finished.
    pub early_stopping: bool,
}

impl Default for DecodingOptions {
    /// The `transformers` defaults for BART-style checkpoints.
    fn default() -> Self {
        DecodingOptions {
            num_beams: 1,
            max_new_tokens: 64,
            min_new_tokens: 0,
            length_penalty: 1.0,
            repetition_penalty: 1.0,
            no_repeat_ngram_size: 0,
            early_stopping: false,
        }
    }
}

/// A conditional generation model.
pub trait Seq2Seq: Send + Sync {
    /// The model's name.
    fn name(&self) -> &str;

    /// Generates one output text per input.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Model`] when the model fails.
    fn generate(&self, inputs: &[&str], options: &DecodingOptions) -> Result<Vec<String>>;
}

/// A candidate for a masked position.
#[derive(Clone, Debug, PartialEq)]
pub struct FillCandidate {
    /// The predicted word (whole word, detokenised).
    pub word: String,
    /// Its probability under the model.
    pub prob: f32,
}

/// A masked language model.
pub trait MaskedLm: Send + Sync {
    /// The model's name.
    fn name(&self) -> &str;

    /// The model's mask token as it must appear in inputs (e.g. `[MASK]`, `<mask>`).
    fn mask_token(&self) -> &str;

    /// For each input text (holding one or more mask tokens), the `top_k` candidates of each
    /// masked position, in order of position.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Model`] when the model fails or an input holds no mask.
    fn fill(&self, inputs: &[&str], top_k: usize) -> Result<Vec<Vec<Vec<FillCandidate>>>>;
}
