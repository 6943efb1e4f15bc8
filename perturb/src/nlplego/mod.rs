//! NLPLego (seed-003, Ji et al., ICSE 2023): intergenerational test generation. A seed sentence
//! is taken apart into its basic sentence and its *adjuncts* (modifiers that can be dropped),
//! the adjuncts are put back one at a time, left to right, each mutated by a one-word
//! substitution, and the sentences so built form a *derivation tree* whose root-to-leaf paths
//! relate every pair of nodes. Those relations are the oracles.
//!
//! One file per concept:
//! * [`disassembly`]: adjunct candidates from the dependency parse and the phrase view, the
//!   keep-test that replaces the paper's SLAHAN compressor, and the template (basic sentence
//!   plus ordered slots);
//! * [`mutation`]: the one-word substitutions of an adjunct (WordNet synonyms inflected to the
//!   original, masked-LM predictions in the parent sentence's context, or, for NLPLego-MRC
//!   with `lm`, a causal LM's predictions);
//! * [`assembly`]: the derivation tree (level `i` has adjuncts `1..=i` inserted; every node keeps
//!   its parent and its edit) and the rendering of a node's sentence;
//! * [`mrc_paragraph_reconstruction`], [`sa_directional_adjunct`], [`ssm_derivation_pairs`]: the three relations and their oracles.
//!
//! Decisions where the paper and the authors' code differ, or where neither applies here, are
//! written in each file's docs and in the README's NLPLego section.

pub mod assembly;
pub mod disassembly;
pub mod mrc_paragraph_reconstruction;
pub mod mutation;
pub mod sa_directional_adjunct;
pub mod ssm_derivation_pairs;

pub use assembly::{DerivationTree, LevelsRead, Node, NodeEdit, TreeBuilder};
pub use disassembly::{Adjunct, AdjunctKind, Disassembler, Disassembly};
pub use mrc_paragraph_reconstruction::ParagraphReconstruction;
pub use mutation::{AdjunctMutator, Substitution};
pub use sa_directional_adjunct::DirectionalAdjunct;
pub use ssm_derivation_pairs::DerivationPairs;

use metamorph_data::AnswerMetric;
use serde::Deserialize;

/// The family name.
pub const FAMILY: &str = "nlplego";

/// The `[perturb.nlplego]` table.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NlpLegoConfig {
    /// At most this many cases per source example and relation (default 32).
    pub max_cases_per_source: usize,
    /// At most this many sentences per tree level (the breadth of the derivation tree; the MRC
    /// relation's beam, the paper's 4, is [`NlpLegoConfig::mrc_candidates_per_sentence`]).
    /// Default 8.
    pub max_nodes_per_level: usize,
    /// WordNet synonyms tried per eligible word (default 3).
    pub synonyms_per_word: usize,
    /// The masked LM of the sentiment and paraphrase relations (the paper's BERT): a directory,
    /// `asset:NAME` or `hf:ORG/NAME[@REV]`. Without one they mutate with WordNet synonyms, as the
    /// MRC relation always does.
    pub masked_lm: Option<String>,
    /// Masked-LM predictions considered per masked word (the authors' code: 5).
    pub masked_lm_top_k: usize,
    /// The least probability of a masked-LM prediction (the authors' code: 0.1).
    pub masked_lm_min_prob: f32,
    /// Sentences of a paragraph rewritten per MRC case (default 1; the paper's 4). Each
    /// rewritten sentence holds one substitution per mutated adjunct, and each substitution is
    /// a chance of a wrong-sense or stilted word: a review of paragraphs with four rewritten
    /// sentences found a bad word in most of them, so one sentence is the default.
    pub mrc_sentences: usize,
    /// Groups of `mrc_sentences` sentences rewritten per question, each group its own cases
    /// (default 1). With more, a question gets cases from several of its paragraph's
    /// sentences, each case still rewriting one group; all within `max_cases_per_source`.
    pub mrc_sentence_groups: usize,
    /// Rewritten versions kept per sentence (the paper's beam of 4).
    pub mrc_candidates_per_sentence: usize,
    /// A causal LM that proposes and chooses NLPLego-MRC's replacements instead of WordNet
    /// (issue 39): `gemma3-270m`, `smollm2-135m`, a GGUF file or `hf:` spec; default none.
    /// For each eligible noun and adjective it predicts its likeliest words for the slot, the
    /// sentence encoder keeps those read in context as the old word, and the LM keeps the
    /// cheapest `lm_per_site` within `lm_max_cost` (see [`mutation`]).
    pub lm: Option<String>,
    /// With `lm`: the LM's most likely next tokens read per word (default 50).
    pub lm_top_k: usize,
    /// With `lm`: the most a replacement may cost against the original, in nats over the word
    /// and the five after it (default 1.0, as CREST's predictions are read at).
    pub lm_max_cost: f32,
    /// With `lm`: at most this many replacements per word, cheapest first (default 2).
    pub lm_per_site: usize,
    /// How the MRC follow-up's answer is compared with the source's.
    pub answer_metric: AnswerMetric,
    /// The least score that counts as the same answer (1.0 with exact match).
    pub answer_threshold: f32,
    /// The most the opposite class's probability may rise when an adjunct is inserted (the
    /// paper's 0.1).
    pub max_opposite_rise: f32,
    /// Sentiment labels with no opposite: an adjunct the model gives one of these says nothing
    /// about the direction, so its case is not applicable (default `["neutral"]`).
    pub neutral_labels: Vec<String>,
}

impl Default for NlpLegoConfig {
    fn default() -> Self {
        NlpLegoConfig {
            max_cases_per_source: 32,
            max_nodes_per_level: 8,
            synonyms_per_word: 3,
            masked_lm: None,
            masked_lm_top_k: 5,
            masked_lm_min_prob: 0.1,
            mrc_sentences: 1,
            mrc_sentence_groups: 1,
            mrc_candidates_per_sentence: 4,
            lm: None,
            lm_top_k: 50,
            lm_max_cost: 1.0,
            lm_per_site: 2,
            answer_metric: AnswerMetric::ExactMatch,
            answer_threshold: 1.0,
            max_opposite_rise: 0.1,
            neutral_labels: vec!["neutral".into()],
        }
    }
}

impl NlpLegoConfig {
    /// Checks the limits.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Config`] naming the first key out of range.
    pub fn validate(&self) -> metamorph_data::Result<()> {
        let positive = [
            ("max_cases_per_source", self.max_cases_per_source),
            ("max_nodes_per_level", self.max_nodes_per_level),
            ("mrc_sentences", self.mrc_sentences),
            ("mrc_sentence_groups", self.mrc_sentence_groups),
            (
                "mrc_candidates_per_sentence",
                self.mrc_candidates_per_sentence,
            ),
            ("masked_lm_top_k", self.masked_lm_top_k),
            ("lm_top_k", self.lm_top_k),
            ("lm_per_site", self.lm_per_site),
        ];
        for (key, value) in positive {
            if value == 0 {
                return Err(metamorph_data::Error::Config(format!(
                    "[perturb.nlplego] {key} must be at least 1"
                )));
            }
        }
        if !(0.0..=1.0).contains(&self.answer_threshold) {
            return Err(metamorph_data::Error::Config(format!(
                "[perturb.nlplego] answer_threshold must be in [0, 1], got {}",
                self.answer_threshold
            )));
        }
        if !(self.lm_max_cost.is_finite() && self.lm_max_cost >= 0.0) {
            return Err(metamorph_data::Error::Config(format!(
                "[perturb.nlplego] lm_max_cost must be a non-negative number of nats, got {}",
                self.lm_max_cost
            )));
        }
        if !(0.0..=1.0).contains(&self.max_opposite_rise) {
            return Err(metamorph_data::Error::Config(format!(
                "[perturb.nlplego] max_opposite_rise must be in [0, 1], got {}",
                self.max_opposite_rise
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_from_toml_and_rejects_bad_limits() {
        let config: crate::PerturbConfig = toml::from_str(
            "[nlplego]\nmax_cases_per_source = 5\nanswer_metric = \"f1\"\nanswer_threshold = 0.8\n",
        )
        .unwrap();
        assert_eq!(config.nlplego.max_cases_per_source, 5);
        assert_eq!(config.nlplego.answer_metric, AnswerMetric::F1);
        assert!(config.nlplego.validate().is_ok());
        for bad in [
            "[nlplego]\nmax_nodes_per_level = 0\n",
            "[nlplego]\nanswer_threshold = 1.5\n",
            "[nlplego]\nmax_opposite_rise = -0.1\n",
            "[nlplego]\nlm_top_k = 0\n",
            "[nlplego]\nlm_max_cost = -1.0\n",
        ] {
            let config: crate::PerturbConfig = toml::from_str(bad).unwrap();
            let err = config.nlplego.validate().unwrap_err().to_string();
            assert!(err.contains("[perturb.nlplego]"), "{err}");
        }
        // Unknown keys are errors, as everywhere in the config.
        assert!(toml::from_str::<crate::PerturbConfig>("[nlplego]\nbeam = 4\n").is_err());
        // A relation built over a bad table fails with that error.
        let config: crate::PerturbConfig =
            toml::from_str("[nlplego]\nmrc_sentences = 0\n").unwrap();
        let resources = crate::Resources::from_config(&config);
        let err = ParagraphReconstruction::new(&resources).unwrap_err();
        assert!(err.to_string().contains("mrc_sentences"), "{err}");
    }
}
