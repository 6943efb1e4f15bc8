//! What a perturbation produces, the configuration of the six, and [`perturb`], which runs them
//! all on one QDMR.

use std::collections::HashSet;

use super::answer::{AnswerRule, Constraint};
use super::qdmr::Qdmr;
use super::{append_bool, change_last, prune_step, replace_arith, replace_bool, replace_comp};

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

/// Every perturbation of `qdmr` under `config`, each a single edit, exact duplicates (same kind
/// and same perturbed QDMR) removed, in the paper's order of kinds. Steps of `qdmr` that the
/// last step does not use (BREAK's tooling calls such a QDMR invalid) are pruned first, so that
/// every perturbed QDMR is well-formed.
pub fn perturb(qdmr: &Qdmr, input: &PerturbInput<'_>, config: &BpbConfig) -> Vec<Perturbation> {
    let pruned;
    let qdmr = if qdmr.check_no_orphans().is_ok() {
        qdmr
    } else {
        pruned = qdmr.without_orphans();
        &pruned
    };
    let mut out = Vec::new();
    out.extend(append_bool::perturb(qdmr, input, config));
    out.extend(change_last::perturb(qdmr, input, config));
    out.extend(replace_arith::perturb(qdmr, config));
    out.extend(replace_bool::perturb(qdmr, config));
    out.extend(replace_comp::perturb(qdmr, config));
    out.extend(prune_step::perturb(qdmr, input, config));
    let mut seen = HashSet::new();
    out.retain(|p| seen.insert((p.kind, p.qdmr.clone())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bpb::Step;

    #[test]
    fn code_docstring_examples() {
        let code = BpbConfig {
            append_bool: Variant::Code,
            change_last: Variant::Code,
            prune_step: Variant::Code,
            replace_arith: Variant::Code,
            replace_bool: Variant::Code,
            replace_comp: Variant::Code,
            append_bool_limit: None,
        };
        let input = PerturbInput::default();
        let has = |q: &Qdmr, kind: PerturbationKind, texts: &[&str]| {
            perturb(q, &input, &code)
                .iter()
                .any(|p| p.kind == kind && p.qdmr.texts() == texts)
        };
        // append_boolean_cond: ['times that David Carr was sacked', 'number of #1']
        //   → + 'if #2 is lower than two'
        let carr = Qdmr::from_texts(&["times that David Carr was sacked", "number of #1"]).unwrap();
        assert!(has(
            &carr,
            PerturbationKind::AppendBool,
            &[
                "times that David Carr was sacked",
                "number of #1",
                "if #2 is lower than two"
            ]
        ));
        // change_last_step: [..., 'which is highest of #3 , #4'] → [..., 'sum of #3 and #4']
        // (the code's template writes "the sum of").
        let cubes = Qdmr::from_texts(&[
            "matte cubes",
            "shiny cubes",
            "number of #1",
            "number of #2",
            "which is highest of #3 , #4",
        ])
        .unwrap();
        assert!(has(
            &cubes,
            PerturbationKind::ChangeLast,
            &[
                "matte cubes",
                "shiny cubes",
                "number of #1",
                "number of #2",
                "the sum of #3 and #4"
            ]
        ));
        // remove_step: ['references', '#1 of Making database systems usable', 'number of #2']
        //   → ['references', 'number of #1']
        let refs = Qdmr::from_texts(&[
            "references",
            "#1 of Making database systems usable",
            "number of #2",
        ])
        .unwrap();
        assert!(has(
            &refs,
            PerturbationKind::PruneStep,
            &["references", "number of #1"]
        ));
        // remove_unused_steps: US State; total population of #1; #1 that the Missouri river
        // bisects → US State; #1 that the Missouri river bisects
        let states = Qdmr::new(vec![
            Step::parse("US State"),
            Step::parse("total population of #1"),
            Step::parse("#1 that the Missouri river bisects"),
        ])
        .unwrap();
        assert_eq!(
            states.without_orphans().texts(),
            ["US State", "#1 that the Missouri river bisects"]
        );
        // perturb() prunes such orphans before perturbing.
        assert!(perturb(&states, &input, &BpbConfig::default())
            .iter()
            .all(|p| p.qdmr.check_no_orphans().is_ok()));
    }
}
