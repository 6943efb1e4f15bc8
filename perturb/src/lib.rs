//! `metamorph-perturb`: metamorphic relations (MRs). Each MR turns a source [`Example`] into
//! zero or more follow-up [`Case`]s with a declarative [`Expectation`] (and, where the paper
//! says so, a [`Precondition`] on the source output) that the judge checks.
//!
//! One module per MR family, named as the config and the docs name the family, one file (or
//! folder) per relation, named after the paper's relation so that `MR1-3` is found in
//! `mt4mrc/mr1_3_order_change.rs` and NLPLego-SSM in `nlplego/ssm_derivation_pairs.rs`. Each
//! relation's name is written once, as the `NAME` constant of its module, which the registry
//! reads:
//! * [`mt4mrc`]: MT4MRC (seed-000) on BoolQ yes/no reading comprehension.
//! * [`sit4re`]: SIT4RE (seed-001) on TACRED-style and FewRel relation extraction.
//! * [`bpb`]: Break-Perturb-Build (seed-002): QDMR operators, the six
//!   perturbations, answer rules and constraints, and contrast-set relations whose follow-up
//!   questions the `generate` stage writes.
//! * [`crest`]: CREST (seed-004) coreference-preserving one-word mutations.
//! * [`nlplego`]: NLPLego (seed-003) derivation trees: adjuncts taken out and put back one at a
//!   time, mutated, for reading comprehension, sentiment and paraphrase oracles.
//!
//! [`lexicon`] holds what the relations look words up in (WordNet, inflection, entity pools,
//! geography, first names, in-context fit), loaded once per run into [`Resources`].
//!
//! The [`PerturbStage`] runs every enabled relation over `example` batches (joined with their
//! `parsed` rows by id, for relations that read syntax) and emits `case`
//! batches. Relations are pure functions of their source (plus a seed derived from the case id
//! where a relation needs randomness), so the output is the same whatever the sharding.
//!
//! [`Expectation`]: metamorph_data::Expectation
//! [`Precondition`]: metamorph_data::Precondition
//! [`Example`]: metamorph_data::Example
//! [`Case`]: metamorph_data::Case
#![deny(missing_docs)]

pub mod bpb;
pub mod crest;
pub mod edit;
pub mod lexicon;
pub mod mt4mrc;
pub mod nlplego;
mod resources;
pub mod sit4re;
mod source;
mod stage;
pub mod syntax;
#[cfg(test)]
mod testing;

pub use resources::Resources;
pub use source::{parse_alone, parse_examples, Source};
pub use stage::{PerturbConfig, PerturbStage, RelationCounts};

use bpb::{ContrastSetRelation, PerturbationKind};
use metamorph_data::{fnv1a, Case, Result, Task};

/// A metamorphic relation: a transformation of a source input and the relation its output must
/// keep with the source output.
pub trait MetamorphicRelation: Send + Sync {
    /// The family (paper) it belongs to, e.g. `mt4mrc`.
    fn family(&self) -> &'static str;

    /// The relation's name as in the paper, e.g. `MR1-3`.
    fn name(&self) -> &'static str;

    /// The tasks whose examples it can transform.
    fn tasks(&self) -> &'static [Task];

    /// The text fields whose parse (from the `parse` stage) it reads; empty for relations that
    /// work on the raw text. A source lacking a needed parse yields no case.
    fn parsed_fields(&self) -> &'static [&'static str] {
        &[]
    }

    /// The follow-up cases for `source` (none when the source is not eligible).
    ///
    /// # Errors
    /// Only for failures outside the source's control (a lexicon that cannot be read, …); an
    /// ineligible source simply yields no case.
    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>>;
}

/// Builds a relation from the shared resources.
type Constructor = fn(&Resources) -> Result<Box<dyn MetamorphicRelation>>;

/// Every relation this build provides: family, name, constructor.
const REGISTRY: &[(&str, &str, Constructor)] = &[
    (
        mt4mrc::FAMILY,
        mt4mrc::mr1_1_antonymous_adjective::NAME,
        |r| Ok(Box::new(mt4mrc::AntonymousAdjective::new(r)?)),
    ),
    (mt4mrc::FAMILY, mt4mrc::mr1_2_tense_change::NAME, |r| {
        Ok(Box::new(mt4mrc::TenseChange::new(r)?))
    }),
    (mt4mrc::FAMILY, mt4mrc::mr1_3_order_change::NAME, |_| {
        Ok(Box::new(mt4mrc::OrderChange))
    }),
    (
        mt4mrc::FAMILY,
        mt4mrc::mr1_4_negation_tag_question::NAME,
        |r| Ok(Box::new(mt4mrc::NegationTagQuestion::new(r)?)),
    ),
    (
        mt4mrc::FAMILY,
        mt4mrc::mr2_1_synonymous_adjective::NAME,
        |r| Ok(Box::new(mt4mrc::SynonymousAdjective::new(r)?)),
    ),
    (
        mt4mrc::FAMILY,
        mt4mrc::mr2_2_adverbial_clause_movement::NAME,
        |_| Ok(Box::new(mt4mrc::AdverbialClauseMovement)),
    ),
    (mt4mrc::FAMILY, mt4mrc::mr2_3_voice_change::NAME, |r| {
        Ok(Box::new(mt4mrc::VoiceChange::new(r)?))
    }),
    (
        sit4re::FAMILY,
        sit4re::r1_same_type_replacement::NAME,
        |r| Ok(Box::new(sit4re::SameTypeReplacement::new(r)?)),
    ),
    (sit4re::FAMILY, sit4re::r2_coarser_granularity::NAME, |r| {
        Ok(Box::new(sit4re::CoarserGranularity::new(r)?))
    }),
    (sit4re::FAMILY, sit4re::r3_corelated_entity::NAME, |r| {
        Ok(Box::new(sit4re::CorelatedEntity::new(r)?))
    }),
    (
        sit4re::FAMILY,
        sit4re::r4_coreferential_mention::NAME,
        |_| Ok(Box::new(sit4re::CoreferentialMention)),
    ),
    (sit4re::FAMILY, sit4re::s1_symmetric_swap::NAME, |_| {
        Ok(Box::new(sit4re::SymmetricSwap))
    }),
    (sit4re::FAMILY, sit4re::s2_antisymmetric_swap::NAME, |_| {
        Ok(Box::new(sit4re::AntisymmetricSwap))
    }),
    (
        sit4re::FAMILY,
        sit4re::c1_shared_head_combination::NAME,
        |_| Ok(Box::new(sit4re::SharedHeadCombination)),
    ),
    (
        sit4re::FAMILY,
        sit4re::c2_shared_tail_combination::NAME,
        |_| Ok(Box::new(sit4re::SharedTailCombination)),
    ),
    (crest::FAMILY, crest::relation::NAME, |r| {
        Ok(Box::new(crest::CorefPreservingMutation::new(r)?))
    }),
    (
        nlplego::FAMILY,
        nlplego::mrc_paragraph_reconstruction::NAME,
        |r| Ok(Box::new(nlplego::ParagraphReconstruction::new(r)?)),
    ),
    (
        nlplego::FAMILY,
        nlplego::sa_directional_adjunct::NAME,
        |r| Ok(Box::new(nlplego::DirectionalAdjunct::new(r)?)),
    ),
    (nlplego::FAMILY, nlplego::ssm_derivation_pairs::NAME, |r| {
        Ok(Box::new(nlplego::DerivationPairs::new(r)?))
    }),
    (bpb::FAMILY, bpb::relation::ORIG, |r| {
        Ok(Box::new(ContrastSetRelation::new(r, None)?))
    }),
    (bpb::FAMILY, PerturbationKind::AppendBool.name(), |r| {
        Ok(Box::new(ContrastSetRelation::new(
            r,
            Some(PerturbationKind::AppendBool),
        )?))
    }),
    (bpb::FAMILY, PerturbationKind::ChangeLast.name(), |r| {
        Ok(Box::new(ContrastSetRelation::new(
            r,
            Some(PerturbationKind::ChangeLast),
        )?))
    }),
    (bpb::FAMILY, PerturbationKind::ReplaceArith.name(), |r| {
        Ok(Box::new(ContrastSetRelation::new(
            r,
            Some(PerturbationKind::ReplaceArith),
        )?))
    }),
    (bpb::FAMILY, PerturbationKind::ReplaceBool.name(), |r| {
        Ok(Box::new(ContrastSetRelation::new(
            r,
            Some(PerturbationKind::ReplaceBool),
        )?))
    }),
    (bpb::FAMILY, PerturbationKind::ReplaceComp.name(), |r| {
        Ok(Box::new(ContrastSetRelation::new(
            r,
            Some(PerturbationKind::ReplaceComp),
        )?))
    }),
    (bpb::FAMILY, PerturbationKind::PruneStep.name(), |r| {
        Ok(Box::new(ContrastSetRelation::new(
            r,
            Some(PerturbationKind::PruneStep),
        )?))
    }),
];

/// The names of every relation this build provides, in registry order.
pub fn relation_names() -> Vec<&'static str> {
    REGISTRY.iter().map(|(_, name, _)| *name).collect()
}

/// Every relation, built over `resources`.
///
/// # Errors
/// When a relation's resources cannot be loaded.
pub fn all_relations(resources: &Resources) -> Result<Vec<Box<dyn MetamorphicRelation>>> {
    REGISTRY
        .iter()
        .map(|(_, _, build)| build(resources))
        .collect()
}

/// The relations named in `names`: relation names (`MR1-3`, `MR-S1`), family names (`mt4mrc`,
/// `sit4re`) for a whole family, or `"all"`. Each relation is built once, in registry order.
///
/// # Errors
/// [`metamorph_data::Error::Config`] for an unknown name, listing the known ones; a relation's
/// error when its resources cannot be loaded.
pub fn relations_by_name(
    names: &[String],
    resources: &Resources,
) -> Result<Vec<Box<dyn MetamorphicRelation>>> {
    if names.is_empty() {
        return Err(metamorph_data::Error::Config(
            "[perturb] relations = [] names no relation: leave the key out to run all of them, \
             or name relations or families"
                .into(),
        ));
    }
    for name in names {
        let known = name == "all"
            || REGISTRY
                .iter()
                .any(|(family, mr, _)| name == family || name == mr);
        if !known {
            let mut families: Vec<&str> = REGISTRY.iter().map(|(f, _, _)| *f).collect();
            families.dedup();
            return Err(metamorph_data::Error::Config(format!(
                "[perturb] relations: unknown relation `{name}` (known: all, {}, {})",
                families.join(", "),
                relation_names().join(", ")
            )));
        }
    }
    REGISTRY
        .iter()
        .filter(|(family, mr, _)| names.iter().any(|n| n == "all" || n == family || n == mr))
        .map(|(_, _, build)| build(resources))
        .collect()
}

/// The id of the `k`-th case an MR derives from a source: `<source id>:<mr>:<k>`.
pub fn case_id(source_id: &str, mr: &str, k: usize) -> String {
    format!("{source_id}:{mr}:{k}")
}

/// The seed of a relation's randomness for one source: a hash of the run's base seed, the
/// source id and the relation name, so a case is reproducible from its id whatever the sharding.
pub fn source_seed(base: u64, source_id: &str, mr: &str) -> u64 {
    let mut bytes = base.to_le_bytes().to_vec();
    bytes.extend_from_slice(source_id.as_bytes());
    bytes.push(0);
    bytes.extend_from_slice(mr.as_bytes());
    fnv1a(&bytes)
}

/// Shuffles `items` in place, reproducibly from `seed` (Fisher–Yates with splitmix64;
/// dependency-free, so a case's randomness is the same on every platform).
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}
