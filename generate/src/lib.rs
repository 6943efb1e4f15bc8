//! `metamorph-generate`: text generation for the MR families that need it.
//!
//! [`Seq2Seq`] is the contract: BART/T5 conditional generation with greedy or beam search
//! (Break-Perturb-Build's QDMR parsing and question generation, seed-002), or a chat model
//! prompted with few-shot examples ([`openai::OpenAiGenerator`]). The architectures themselves
//! (BART, T5, the masked LM used for word substitution) live in `metamorph-models`; this crate
//! drives them.
//!
//! [`GenerateConfig`] is the `[generate]` table; each [`GeneratorConfig`] is typed by its
//! `kind` ([`GeneratorKind`]: a checkpoint decoded on candle, or an OpenAI-compatible
//! endpoint), and [`Generator`] is a started model with its decoding options and template.
//!
//! The [`stage`] module is the pipeline's `generate` stage (binary `metamorph-generate`): it
//! completes the follow-ups of cases that carry a [`metamorph_data::GenerationRequest`] with
//! these models (questions, decompositions, masked-LM substitutions), BREAK's decomposition
//! strings and BPB's `@@k@@` reference tokens handled by [`qdmr`].
//!
//! # Design
//! - [`decoding`]: greedy and beam search on the host over `f32` scores, model-agnostic behind
//!   `metamorph_models::seq2seq::StepDecoder` (one token per row per call, caches kept by the
//!   model), written to reproduce `transformers` 5's `generate()` token ids exactly, batched
//!   across inputs. BART and T5 (`metamorph_models::{bart, t5}`) implement [`Seq2Seq`] through
//!   it.
//! - Why BART and T5 are written in `metamorph-models` rather than taken from
//!   candle-transformers: there is no BART there, and its `marian` (the nearest relative) keeps
//!   its layers private, has no encoder padding mask and uses sinusoidal positions; its `t5`
//!   encoder takes no attention mask and its decoder cache is private and cannot follow beams.
//!   Neither could batch padded inputs nor run beam search.
//! - The encoder runs once per batch; the decoder step by step with a growing self-attention
//!   cache per layer and cross-attention keys/values computed once per input and shared by its
//!   beams (rows are reordered only in the self-attention cache).
//! - Decoding pulls each step's logits to the host as `f32` (`rows × vocab`); the search itself
//!   is cheap next to the decoder, but on a GPU this is one transfer per step.
//! - Parity with `transformers` is tested here on tiny random BART and T5 models built by
//!   `scripts/bart_fixtures.py` and `scripts/t5_fixtures.py` (`cargo xtask fixtures bart t5`):
//!   the ids of `generate()` test the architectures and the search together.
#![deny(missing_docs)]

pub mod decoding;
pub mod edit;
mod generator;
mod generator_config;
pub mod openai;
pub mod qdmr;
pub mod stage;

pub use generator::Generator;
pub use generator_config::{
    CheckpointGeneratorConfig, DecodingConfig, EarlyStoppingSetting, GenerateConfig,
    GeneratorConfig, GeneratorKind, MaskedLmConfig, OpenAiGeneratorConfig, GENERATOR_KINDS,
};
pub use stage::{GenerateCounts, GenerateStage};

use metamorph_data::Result;
use metamorph_models::bart::Bart;
use metamorph_models::t5::T5;

/// Decoding settings for [`Seq2Seq::generate`].
#[derive(Clone, Debug, PartialEq)]
pub struct DecodingOptions {
    /// Beams (1 = greedy).
    pub num_beams: usize,
    /// Hard limit on generated tokens (after the decoder start token; `transformers`'
    /// `max_length` is this plus one for encoder-decoders).
    pub max_new_tokens: usize,
    /// Fewest generated tokens before end-of-sequence is allowed (`transformers`'
    /// `min_new_tokens`; `min_length` is this plus one for encoder-decoders).
    pub min_new_tokens: usize,
    /// Exponent applied to the length when ranking beams.
    pub length_penalty: f32,
    /// Penalty for tokens already generated (1.0 = none).
    pub repetition_penalty: f32,
    /// Forbid repeating any n-gram of this size (0 = off).
    pub no_repeat_ngram_size: usize,
    /// When a beam search stops (`transformers`' `early_stopping`).
    pub early_stopping: EarlyStopping,
}

/// When beam search stops working on an input, as `transformers`' `early_stopping` decides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EarlyStopping {
    /// `early_stopping=False` (the default): stop once `num_beams` hypotheses are finished and
    /// the best running beam, normalised at its current length, cannot beat the worst of them.
    #[default]
    Heuristic,
    /// `early_stopping=True`: stop as soon as `num_beams` hypotheses are finished.
    Finished,
    /// `early_stopping="never"`: like [`EarlyStopping::Heuristic`], but with a positive length
    /// penalty the best running beam is normalised at the maximum length (the canonical beam
    /// search, which stops only when no better hypothesis can exist).
    Never,
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
            early_stopping: EarlyStopping::Heuristic,
        }
    }
}

impl DecodingOptions {
    /// The options of `transformers`' `generate()` keyword arguments as JSON (`num_beams`,
    /// `max_new_tokens`, `min_new_tokens`, `length_penalty`, `repetition_penalty`,
    /// `no_repeat_ngram_size`, `early_stopping`); a missing one takes `transformers`' default
    /// (`max_new_tokens` 20). The golden fixtures record their decoding cases this way.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Config`] naming a key whose value has the wrong type.
    pub fn from_generate_kwargs(kwargs: &serde_json::Value) -> Result<Self> {
        use serde_json::Value;
        let bad = |key: &str, value: &Value| {
            metamorph_data::Error::Config(format!("generate() argument {key}: unexpected {value}"))
        };
        let float = |key: &str, default: f32| match kwargs.get(key) {
            None => Ok(default),
            Some(v) => v.as_f64().map(|x| x as f32).ok_or_else(|| bad(key, v)),
        };
        let int = |key: &str, default: usize| match kwargs.get(key) {
            None => Ok(default),
            Some(v) => v.as_u64().map(|x| x as usize).ok_or_else(|| bad(key, v)),
        };
        Ok(DecodingOptions {
            num_beams: int("num_beams", 1)?,
            max_new_tokens: int("max_new_tokens", 20)?,
            min_new_tokens: int("min_new_tokens", 0)?,
            length_penalty: float("length_penalty", 1.0)?,
            repetition_penalty: float("repetition_penalty", 1.0)?,
            no_repeat_ngram_size: int("no_repeat_ngram_size", 0)?,
            early_stopping: match kwargs.get("early_stopping") {
                None | Some(Value::Bool(false)) => EarlyStopping::Heuristic,
                Some(Value::Bool(true)) => EarlyStopping::Finished,
                Some(Value::String(s)) if s == "never" => EarlyStopping::Never,
                Some(other) => return Err(bad("early_stopping", other)),
            },
        })
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

    /// What a metered endpoint has spent so far (requests, tokens); `None` (default) for a
    /// model that spends nothing countable.
    fn spent(&self) -> Option<metamorph_data::usage::Spent> {
        None
    }
}

/// BART generates through the search of [`decoding`].
impl Seq2Seq for Bart {
    fn name(&self) -> &str {
        metamorph_models::seq2seq::EncoderDecoder::name(self)
    }

    fn generate(&self, inputs: &[&str], options: &DecodingOptions) -> Result<Vec<String>> {
        decoding::generate_text(self, inputs, options)
    }
}

/// T5 generates through the search of [`decoding`].
impl Seq2Seq for T5 {
    fn name(&self) -> &str {
        metamorph_models::seq2seq::EncoderDecoder::name(self)
    }

    fn generate(&self, inputs: &[&str], options: &DecodingOptions) -> Result<Vec<String>> {
        decoding::generate_text(self, inputs, options)
    }
}

#[cfg(test)]
mod kwargs_tests {
    use super::*;

    #[test]
    fn generate_kwargs_read_with_transformers_defaults_and_bad_types_named() {
        let options = DecodingOptions::from_generate_kwargs(&serde_json::json!({
            "num_beams": 4, "early_stopping": "never", "length_penalty": 0.6
        }))
        .unwrap();
        assert_eq!(
            options,
            DecodingOptions {
                num_beams: 4,
                max_new_tokens: 20,
                length_penalty: 0.6,
                early_stopping: EarlyStopping::Never,
                ..DecodingOptions::default()
            }
        );
        let err = DecodingOptions::from_generate_kwargs(&serde_json::json!({"num_beams": "4"}))
            .unwrap_err();
        assert!(err.to_string().contains("num_beams"), "{err}");
    }
}
