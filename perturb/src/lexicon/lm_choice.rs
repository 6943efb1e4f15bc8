//! Substitutions chosen in context by a causal language model (issue 39's "choose, don't just
//! filter"): a relation proposes its candidates broadly — every WordNet sense's lemmas for the
//! word's part of speech, inflected — and the LM keeps those whose sentence it finds about as
//! likely as the original's.
//!
//! The cost of a candidate is `log p(original rest | prefix) − log p(candidate rest | prefix)`
//! in nats, where `prefix` is the sentence up to the replaced word (scored once for all the
//! candidates of a site, [`CausalLm::score_continuations`]) and `rest` the word and everything
//! after it: so a wrong-sense synonym is paid for where it clashes with what follows, not only
//! in itself ("the religious wars" → "the spiritual wars" costs nats at "wars"). A candidate is
//! kept when its cost is at most `max_cost`; the cheapest first, at most `per_site` of them.
//!
//! Decision: the default `max_cost` is 7.95 nats, what `metamorph-validate calibrate` chose
//! for the `lm` check of word substitutions on the tuning half of the judged follow-ups
//! (`validate/src/config.rs`, the same model and the same difference over the changed
//! window); the check and the choice then agree on what reads as English.

use std::sync::Arc;

use metamorph_data::Result;
use metamorph_models::causal_lm::CausalLm;

/// The calibrated most a substitution may cost (nats), see the module docs.
pub const DEFAULT_MAX_COST: f32 = 7.95;

/// Chooses among the candidates of one substitution site (see the module docs).
#[derive(Clone)]
pub struct SubstitutionChooser {
    lm: Arc<CausalLm>,
    max_cost: f32,
    per_site: usize,
}

impl std::fmt::Debug for SubstitutionChooser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubstitutionChooser")
            .field("lm", &self.lm.name())
            .field("max_cost", &self.max_cost)
            .field("per_site", &self.per_site)
            .finish()
    }
}

impl SubstitutionChooser {
    /// A chooser keeping at most `per_site` candidates costing at most `max_cost` nats.
    pub fn new(lm: Arc<CausalLm>, max_cost: f32, per_site: usize) -> Self {
        SubstitutionChooser {
            lm,
            max_cost,
            per_site,
        }
    }

    /// The cost (nats) of each of `alternatives` against `original`, all three the text
    /// after `prefix` (the sentence up to the replaced word).
    ///
    /// # Errors
    /// Tokenizer or model errors.
    pub fn costs(&self, prefix: &str, original: &str, alternatives: &[&str]) -> Result<Vec<f32>> {
        if alternatives.is_empty() {
            return Ok(Vec::new());
        }
        // A space before the word belongs to the word's token (byte-level BPE).
        let trimmed = prefix.trim_end();
        let gap = &prefix[trimmed.len()..];
        let prefix_ids = self.lm.with_start(trimmed)?;
        let mut continuations = Vec::with_capacity(alternatives.len() + 1);
        for text in std::iter::once(original).chain(alternatives.iter().copied()) {
            continuations.push(self.lm.encode(&format!("{gap}{text}"))?);
        }
        let scores = self.lm.score_continuations(&prefix_ids, &continuations)?;
        let total = |s: &Vec<f32>| s.iter().sum::<f32>();
        let base = total(&scores[0]);
        Ok(scores[1..].iter().map(|s| base - total(s)).collect())
    }

    /// The indices of the `alternatives` kept, cheapest first (see the module docs).
    ///
    /// # Errors
    /// As [`SubstitutionChooser::costs`].
    pub fn choose(
        &self,
        prefix: &str,
        original: &str,
        alternatives: &[&str],
    ) -> Result<Vec<usize>> {
        let costs = self.costs(prefix, original, alternatives)?;
        let mut kept: Vec<(usize, f32)> = costs
            .into_iter()
            .enumerate()
            .filter(|(_, c)| c.is_finite() && *c <= self.max_cost)
            .collect();
        kept.sort_by(|a, b| a.1.total_cmp(&b.1));
        Ok(kept
            .into_iter()
            .take(self.per_site)
            .map(|(i, _)| i)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tiny GGUF fixture the models crate's tests make: random weights, so only the
    /// arithmetic is checked here (costs against the model's own scores).
    fn tiny() -> Option<Arc<CausalLm>> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../models/tests/fixtures/causal-lm/llama-tiny.gguf");
        if !path.exists() {
            eprintln!("SKIPPED: {} is absent", path.display());
            return None;
        }
        Some(Arc::new(
            CausalLm::from_file(&path, metamorph_models::LmOptions::default()).unwrap(),
        ))
    }

    #[test]
    fn costs_are_the_difference_of_whole_sentence_scores_and_choice_follows_them() {
        let Some(lm) = tiny() else { return };
        let chooser = SubstitutionChooser::new(lm.clone(), f32::INFINITY, 2);
        let prefix = "The old man";
        let costs = chooser
            .costs(
                prefix,
                " walked home.",
                &[" strolled home.", " walked home."],
            )
            .unwrap();
        // The original against itself costs nothing.
        assert!(costs[1].abs() < 1e-4, "{costs:?}");
        // Against the model's own whole-sentence scores.
        let whole = |t: &str| -> f32 {
            let ids = lm.with_start(t).unwrap();
            lm.score(&[ids]).unwrap()[0].iter().sum()
        };
        let expected = whole("The old man walked home.") - whole("The old man strolled home.");
        assert!(
            (costs[0] - expected).abs() < 1e-2,
            "{} vs {expected}",
            costs[0]
        );
        // A cap of zero nats keeps only what costs nothing; `per_site` caps the count.
        let strict = SubstitutionChooser::new(lm.clone(), 1e-3, 5);
        assert_eq!(
            strict
                .choose(
                    prefix,
                    " walked home.",
                    &[" walked home.", " strolled home."]
                )
                .unwrap()
                .first(),
            Some(&0)
        );
        let one = SubstitutionChooser::new(lm, f32::INFINITY, 1);
        assert_eq!(
            one.choose(prefix, " walked home.", &[" a.", " b.", " c."])
                .unwrap()
                .len(),
            1
        );
    }
}
