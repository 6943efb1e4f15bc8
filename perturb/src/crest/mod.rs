//! CREST (seed-004, Cao et al., ESEC/FSE 2023): coreference-preserving mutations. A follow-up
//! changes exactly one word outside every gold mention; a coreference system must then give the
//! same clusters for source and follow-up (after aligning the offsets through the edit).
//!
//! One file per concept:
//! * [`protected`]: the words that must not change (mentions, and words linked to a pronoun
//!   mention by `nsubj`/`amod`);
//! * [`generation`]: the replacement candidates of one word (WordNet synonyms and antonyms,
//!   inflected to the original's tag; the masked-LM seam);
//! * [`selection`]: the re-parse checks (constituent label, mention depths);
//! * [`relation`]: the relation, which puts them together ([`CorefPreservingMutation`]).

pub mod generation;
pub mod protected;
pub mod relation;
pub mod selection;

pub use relation::{CorefPreservingMutation, DEFAULT_MAX_PER_SENTENCE};

use serde::Deserialize;

/// The `[perturb.crest]` table.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CrestConfig {
    /// At most this many follow-ups per source sentence (the paper's M; default 20).
    pub max_per_sentence: usize,
    /// The masked LM whose predictions join WordNet's candidates (the paper's
    /// `bert-large-cased`): a directory, `asset:NAME` or `hf:ORG/NAME[@REV]`; default none
    /// (WordNet only).
    pub masked_lm: Option<String>,
    /// The least probability of a masked-LM candidate (the paper's 0.1).
    pub masked_lm_min_prob: f32,
    /// Predictions considered per masked word (the artifact's 100).
    pub masked_lm_top_k: usize,
    /// Also replace words by a WordNet antonym, as the paper does (default false). Two reviews
    /// of 2026-11-26 found antonyms behind most of CREST's unnatural follow-ups (12 of 20 in
    /// the second: "keep a loose mouth", "innocent mastermind", "largely powerful and
    /// ineffective"): an antonym keeps the coreference links but contradicts the rest of the
    /// text.
    pub antonyms: bool,
    /// A causal LM that *chooses* the replacements (issue 39): `smollm2-135m`, a GGUF file or
    /// `hf:` spec; default none. With it, every WordNet sense's lemmas for the word's part of
    /// speech are candidates (not only the sense the encoder picks), and the LM keeps those
    /// whose sentence costs at most `lm_max_cost` nats against the original
    /// ([`crate::lexicon::lm_choice`]); the encoder's fit check is not applied to them.
    pub lm: Option<String>,
    /// The most a chosen replacement may cost (nats; default 7.95, the validity step's
    /// calibrated threshold for word substitutions).
    pub lm_max_cost: f32,
    /// At most this many replacements chosen per word (default 2).
    pub lm_per_site: usize,
    /// What the causal LM chooses among (default `wordnet`): every WordNet sense's lemmas
    /// (`wordnet`), or its own most likely words for the slot (`predictions`, the seed's
    /// masked-LM source with a causal LM; see [`crate::lexicon::lm_choice`]).
    pub lm_candidates: LmCandidates,
    /// With `lm_candidates = "predictions"`: the LM's most likely next tokens read per word
    /// (default 50).
    pub lm_top_k: usize,
}

/// Where the candidates the causal LM chooses among come from (`[perturb.crest] lm_candidates`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LmCandidates {
    /// Every WordNet sense's lemmas for the word's part of speech, inflected to its tag.
    #[default]
    Wordnet,
    /// The LM's own most likely words after the sentence's left context.
    Predictions,
}

impl Default for CrestConfig {
    fn default() -> Self {
        CrestConfig {
            max_per_sentence: DEFAULT_MAX_PER_SENTENCE,
            masked_lm: None,
            masked_lm_min_prob: 0.1,
            masked_lm_top_k: 100,
            antonyms: false,
            lm: None,
            lm_max_cost: crate::lexicon::lm_choice::DEFAULT_MAX_COST,
            lm_per_site: 2,
            lm_candidates: LmCandidates::Wordnet,
            lm_top_k: 50,
        }
    }
}

/// The family name.
pub const FAMILY: &str = "crest";
