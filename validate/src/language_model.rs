//! The `lm` checks: what a causal language model (SmolLM2-135M by default, any GGUF the
//! models crate loads) makes of a follow-up's changed sentences.
//!
//! * **`lm`**: the log-probability (nats) of the follow-up's changed window minus that of the
//!   source's window it replaced. A wrong-sense synonym ("religious wars" → "spiritual wars"),
//!   a broken agreement or "an riveting" costs the follow-up several nats against a source
//!   that read naturally; a fitting substitution costs about nothing. The source's score is
//!   computed once however many follow-ups share it.
//! * **`lm_sentence`**: the mean log-probability per token of a window read as a whole, for the
//!   relations that build sentences from parts (NLPLego's parents and children): the lower of
//!   the follow-up's window and, where the relation built the source too, the source's. A
//!   parent cut short ("It has a bundle") reads improbably on its own whatever its child does.
//!   Mean per token rather than total, so that longer sentences are not penalised for their
//!   length. (Not frequency-normalised: no word-frequency list is packaged; a rare name lowers
//!   the mean of source and follow-up alike, which is why `lm`, a difference, is the main
//!   check and this one applies only where the source is itself constructed.)
//!
//! Every text is scored with the model's start token before it ([`CausalLm::start_token`]), in
//! batches grouped by length.

use std::collections::HashMap;

use metamorph_data::Result;
use metamorph_models::causal_lm::{CausalLm, LmOptions};

/// A text's log-probability under the LM.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextScore {
    /// Sum of the tokens' log-probabilities (nats).
    pub total: f32,
    /// Tokens scored.
    pub tokens: usize,
}

impl TextScore {
    /// Mean log-probability per token (0 for an empty text).
    pub fn mean(&self) -> f32 {
        if self.tokens == 0 {
            0.0
        } else {
            self.total / self.tokens as f32
        }
    }
}

/// The two scores of one follow-up window against its source window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangeScores {
    /// Follow-up minus source, total nats.
    pub lm: f32,
    /// Lowest mean per-token log-probability of the windows read whole.
    pub lm_sentence: f32,
}

/// Scores both windows of `(source, follow-up)` pairs; `rebuilt` says for each pair whether the
/// relation built its source too (then the source's own mean counts in `lm_sentence`).
pub fn change_scores(before: TextScore, after: TextScore, rebuilt: bool) -> ChangeScores {
    let lm_sentence = if rebuilt {
        after.mean().min(before.mean())
    } else {
        after.mean()
    };
    ChangeScores {
        lm: after.total - before.total,
        lm_sentence,
    }
}

/// A causal LM used to score texts.
pub struct LmScorer {
    lm: CausalLm,
}

impl std::fmt::Debug for LmScorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LmScorer")
            .field("lm", &self.lm.name())
            .finish()
    }
}

impl LmScorer {
    /// Loads the model `spec` names (`smollm2-135m`, a `.gguf` path, `hf:ORG/NAME/FILE.gguf`).
    ///
    /// # Errors
    /// [`metamorph_data::Error::Asset`] naming the model.
    pub fn load(spec: &str, options: LmOptions) -> Result<Self> {
        Ok(LmScorer {
            lm: CausalLm::load(spec, options)?,
        })
    }

    /// Wraps a loaded model.
    pub fn new(lm: CausalLm) -> Self {
        LmScorer { lm }
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        self.lm.name()
    }

    /// The score of each text (duplicates scored once), in order. Texts longer than the
    /// model's context keep their last tokens that fit (the change is near their middle).
    ///
    /// # Errors
    /// Tokenizer or model failures naming the model.
    pub fn score_texts(&self, texts: &[&str]) -> Result<Vec<TextScore>> {
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut distinct: Vec<&str> = Vec::new();
        let slots: Vec<usize> = texts
            .iter()
            .map(|t| {
                *index.entry(t).or_insert_with(|| {
                    distinct.push(t);
                    distinct.len() - 1
                })
            })
            .collect();
        let encoded = self.lm.encode_batch(&distinct)?;
        let limit = self.lm.context_length().min(1024);
        let start: Vec<u32> = self.lm.start_token().into_iter().collect();
        let sequences: Vec<Vec<u32>> = encoded
            .into_iter()
            .map(|ids| {
                let keep = limit - start.len();
                let tail = &ids[ids.len().saturating_sub(keep)..];
                start.iter().chain(tail).copied().collect()
            })
            .collect();
        let started = std::time::Instant::now();
        let log_probs = self.lm.score(&sequences)?;
        tracing::debug!(
            texts = texts.len(),
            distinct = sequences.len(),
            tokens = sequences.iter().map(Vec::len).sum::<usize>(),
            longest = sequences.iter().map(Vec::len).max().unwrap_or(0),
            ms = started.elapsed().as_millis() as u64,
            "lm scored"
        );
        let scores: Vec<TextScore> = log_probs
            .iter()
            .map(|lp| TextScore {
                total: lp.iter().sum(),
                tokens: lp.len(),
            })
            .collect();
        Ok(slots.into_iter().map(|s| scores[s]).collect())
    }
}
