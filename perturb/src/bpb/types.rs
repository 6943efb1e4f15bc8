//! The data the six perturbations share: what a perturbation produces ([`Perturbation`]), its
//! kind, and the configuration and input they read. A leaf module, so that each perturbation
//! and the dispatcher in `perturbation.rs` can depend on it without depending on each other.

use super::answer::{AnswerRule, Constraint};
use super::qdmr::Qdmr;

/// The six perturbations of the paper (Table 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PerturbationKind {
    /// Append a yes/no comparison of the final (numeric) result with a constant.
    AppendBool,
    /// Change the operator of the last step (arithmetic/comparison → arithmetic/boolean).
    ChangeLast,
    /// Flip the last arithmetic step's operation (sum ↔ difference).
    ReplaceArith,
    /// Flip the last logical boolean step (both true → both false).
    ReplaceBool,
    /// Flip the last comparison step (highest ↔ lowest).
    ReplaceComp,
    /// Remove one step and every step no longer used.
    PruneStep,
}

impl PerturbationKind {
    /// All six, in the paper's order.
    pub const ALL: [PerturbationKind; 6] = [
        PerturbationKind::AppendBool,
        PerturbationKind::ChangeLast,
        PerturbationKind::ReplaceArith,
        PerturbationKind::ReplaceBool,
        PerturbationKind::ReplaceComp,
        PerturbationKind::PruneStep,
    ];

    /// The paper's name, also the relation name the judge's `bpb` family uses.
    pub const fn name(self) -> &'static str {
        match self {
            PerturbationKind::AppendBool => "AppendBool",
            PerturbationKind::ChangeLast => "ChangeLast",
            PerturbationKind::ReplaceArith => "ReplaceArith",
            PerturbationKind::ReplaceBool => "ReplaceBool",
            PerturbationKind::ReplaceComp => "ReplaceComp",
            PerturbationKind::PruneStep => "PruneStep",
        }
    }
}

/// One perturbed QDMR: exactly one edit of the original, with how its answer is obtained.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturbation {
    /// Which of the six.
    pub kind: PerturbationKind,
    /// What exactly changed, e.g. `difference->sum`, `higher-than:2`, `remove:2`: stable, so
    /// that it can be part of a case id.
    pub detail: String,
    /// The perturbed QDMR.
    pub qdmr: Qdmr,
    /// How â follows from a (or that the evaluator must compute it).
    pub answer: AnswerRule,
    /// The constraint on â when it cannot be computed, where the paper gives one.
    pub constraint: Option<Constraint>,
}

/// The source question's dataset, for the rules the authors' code filters per dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Dataset {
    /// DROP (numeric reasoning; no yes/no questions).
    Drop,
    /// HotpotQA.
    HotpotQa,
    /// IIRC.
    Iirc,
    /// Anything else (BREAK's other sources).
    #[default]
    Other,
}

impl Dataset {
    /// The dataset of a BREAK question id (`DROP_dev_…`, `HOTPOT_dev_…`, `IIRC…`).
    pub fn from_break_id(id: &str) -> Dataset {
        let upper = id.to_ascii_uppercase();
        if upper.starts_with("DROP") {
            Dataset::Drop
        } else if upper.starts_with("HOTPOT") {
            Dataset::HotpotQa
        } else if upper.starts_with("IIRC") {
            Dataset::Iirc
        } else {
            Dataset::Other
        }
    }
}

/// Whose rules a configurable perturbation follows where the paper and the authors' code
/// differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Variant {
    /// As the paper describes it (the default).
    #[default]
    Paper,
    /// As the released code does it (`qdmr_transforms/`, with `main.py`'s filters).
    Code,
}

/// Configuration of the six perturbations. Each field's default is the paper's rule; see each
/// perturbation's module for what the code does instead.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct BpbConfig {
    /// AppendBool's comparison operators and constants.
    pub append_bool: Variant,
    /// At most this many AppendBool perturbations per QDMR (a seeded sample), as the code's
    /// `--limit_append_boolean_step_per_qdmr`; `None` keeps all.
    pub append_bool_limit: Option<usize>,
    /// ChangeLast's targets: the paper's, or the code's per-dataset filter.
    pub change_last: Variant,
    /// ReplaceArith's targets: sum ↔ difference (paper) or every other operation (code).
    pub replace_arith: Variant,
    /// ReplaceBool: true ↔ false (paper) or also and ↔ or (code).
    pub replace_bool: Variant,
    /// ReplaceComp: comparison highest ↔ lowest (paper) or also true ↔ false, superlative,
    /// aggregate and comparative steps (code).
    pub replace_comp: Variant,
    /// PruneStep: which steps may be removed (paper: the last one, or any filter, superlative
    /// or comparative step) or the code's variants and per-dataset filter.
    pub prune_step: Variant,
}

/// What the perturbations may read besides the QDMR.
#[derive(Clone, Copy, Debug, Default)]
pub struct PerturbInput<'a> {
    /// The gold answer of the original question (AppendBool's constants come from it).
    pub answer: Option<&'a str>,
    /// The source dataset.
    pub dataset: Dataset,
    /// A seed for sampling (AppendBool's limit); derive it from the example id.
    pub seed: u64,
}
