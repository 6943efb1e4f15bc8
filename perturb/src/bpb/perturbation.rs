//! [`perturb`], which runs the six perturbations on one QDMR. The types they share live in
//! `types.rs` and are re-exported here under their old paths.

use std::collections::HashSet;

use super::qdmr::Qdmr;
use super::{append_bool, change_last, prune_step, replace_arith, replace_bool, replace_comp};

pub use super::types::{BpbConfig, Dataset, PerturbInput, Perturbation, PerturbationKind, Variant};

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
