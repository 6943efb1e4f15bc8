//! `metamorph-perturb`: metamorphic relations (MRs). Each MR turns a source [`Example`] into
//! zero or more follow-up [`Case`]s with a declarative [`Expectation`] (and, where the paper
//! says so, a [`Precondition`] on the source output) that the judge checks.
//!
//! One module per MR family, one file per relation, named after the paper's relation so that
//! `MR1-3` is found in `mrc_boolq/mr1_3_order_change.rs`:
//! * [`mrc_boolq`]: MT4MRC (seed-000) on BoolQ yes/no reading comprehension.
//!
//! The [`PerturbStage`] runs every enabled relation over `example` batches and emits `case`
//! batches. Relations are pure functions of their source (plus a seed derived from the case id
//! where a relation needs randomness), so the output is the same whatever the sharding.
//!
//! [`Expectation`]: metamorph_data::Expectation
//! [`Precondition`]: metamorph_data::Precondition
#![deny(missing_docs)]

pub mod lexicon;
pub mod mrc_boolq;
mod stage;

pub use stage::{PerturbConfig, PerturbStage};

use metamorph_data::{Case, Example, Result, Task};

/// A metamorphic relation: a transformation of a source input and the relation its output must
/// keep with the source output.
pub trait MetamorphicRelation: Send + Sync {
    /// The family (paper) it belongs to, e.g. `mt4mrc`.
    fn family(&self) -> &'static str;

    /// The relation's name as in the paper, e.g. `MR1-3`.
    fn name(&self) -> &'static str;

    /// The tasks whose examples it can transform.
    fn tasks(&self) -> &'static [Task];

    /// The follow-up cases for `source` (none when the source is not eligible).
    ///
    /// # Errors
    /// Only for failures outside the source's control (a lexicon that cannot be read, …); an
    /// ineligible source simply yields no case.
    fn follow_ups(&self, source: &Example) -> Result<Vec<Case>>;
}

/// Every relation this build provides.
pub fn all_relations() -> Vec<Box<dyn MetamorphicRelation>> {
    vec![Box::new(mrc_boolq::OrderChange)]
}

/// The relations named in `names` (`"all"` selects every relation).
///
/// # Errors
/// [`metamorph_data::Error::Config`] for an unknown name, listing the known ones.
pub fn relations_by_name(names: &[String]) -> Result<Vec<Box<dyn MetamorphicRelation>>> {
    if names.iter().any(|n| n == "all") {
        return Ok(all_relations());
    }
    let mut chosen = Vec::new();
    for name in names {
        let relation = all_relations()
            .into_iter()
            .find(|r| r.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = all_relations().iter().map(|r| r.name()).collect();
                metamorph_data::Error::Config(format!(
                    "unknown relation `{name}` (known: {})",
                    known.join(", ")
                ))
            })?;
        chosen.push(relation);
    }
    Ok(chosen)
}

/// The id of the `k`-th case an MR derives from a source: `<source id>:<mr>:<k>`.
pub fn case_id(source_id: &str, mr: &str, k: usize) -> String {
    format!("{source_id}:{mr}:{k}")
}
