//! PruneStep (paper §3.6, "Prune step"): remove one QDMR step, then every step that is no
//! longer used, renumbering the references. The perturbed question asks for an intermediate
//! result. One removal per perturbed QDMR; the evaluator answers ([`AnswerRule::Evaluate`]).
//!
//! Which step may go:
//! * the **last** step (when there are at least two): the new last step is the one before it,
//!   and whatever only the removed step used is pruned;
//! * a **filter, superlative or comparative** step elsewhere: the steps that used it are
//!   re-pointed to the set it restricted (its first reference), as the code's
//!   `QDMREditor.remove_step` does — the paper's example "(1) adult population of Cunter;
//!   (2) #1 excluding seniors; (3) number of #2" → "(1) adult population of Cunter; (2) number
//!   of #1" (the paper's table prints "#2", a typo).
//!
//! Variants ([`Variant`]): the **paper** (default) allows both kinds. The **code** keeps a
//! removed last step only when it was a `project` step or an operator outside {filter,
//! aggregate, superlative, comparative, sort} (`prune_last_step` / `_rm_unused` and the final
//! filter), and removes inner filter/superlative/comparative steps only for HotpotQA (and for
//! datasets the code does not filter); the code's `prune_last_step` keeps orphaned steps, which
//! we always prune (the paper's rule). Both variants drop a result that is a single step of fewer
//! than three words ("teams"; the code's `single_noun_phrase` filter).

use super::answer::AnswerRule;
use super::operator::{identify_all, Operator, Rules};
use super::qdmr::Qdmr;
use super::types::{BpbConfig, Dataset, PerturbInput, Perturbation, PerturbationKind, Variant};

/// The PruneStep perturbations of `qdmr`.
pub fn perturb(qdmr: &Qdmr, input: &PerturbInput<'_>, config: &BpbConfig) -> Vec<Perturbation> {
    let n = qdmr.len();
    if n < 2 {
        return Vec::new();
    }
    let ops = identify_all(qdmr, Rules::Bpb);
    let code = config.prune_step == Variant::Code;
    let mut removals: Vec<(usize, Option<usize>)> = Vec::new();
    let last_allowed = !code
        || !matches!(
            ops[n - 1],
            Some(
                Operator::Filter
                    | Operator::Aggregate
                    | Operator::Superlative
                    | Operator::Comparative
                    | Operator::Sort
            )
        );
    if last_allowed {
        removals.push((n, None));
    }
    let inner_allowed = !code || matches!(input.dataset, Dataset::HotpotQa | Dataset::Other);
    if inner_allowed {
        for k in 1..n {
            if matches!(
                ops[k - 1],
                Some(Operator::Filter | Operator::Superlative | Operator::Comparative)
            ) {
                if let Some(&source) = qdmr.steps()[k - 1].references().first() {
                    removals.push((k, Some(source)));
                }
            }
        }
    }
    removals
        .into_iter()
        .filter_map(|(k, redirect)| {
            let pruned = qdmr.remove_step(k, redirect)?;
            let single_noun_phrase =
                pruned.len() == 1 && pruned.last().text().split_whitespace().count() < 3;
            (!single_noun_phrase).then(|| Perturbation {
                kind: PerturbationKind::PruneStep,
                detail: format!("remove:{k}:{}", ops[k - 1].map_or("none", Operator::name)),
                qdmr: pruned,
                answer: AnswerRule::Evaluate,
                constraint: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cunter() -> Qdmr {
        Qdmr::from_texts(&[
            "adult population of Cunter",
            "#1 excluding seniors",
            "number of #2",
        ])
        .unwrap()
    }

    #[test]
    fn paper_example_cunter() {
        let out = perturb(&cunter(), &PerturbInput::default(), &BpbConfig::default());
        let inner = out
            .iter()
            .find(|p| p.detail == "remove:2:filter")
            .expect("the filter step removed");
        assert_eq!(
            inner.qdmr.texts(),
            ["adult population of Cunter", "number of #1"]
        );
        assert_eq!(inner.answer, AnswerRule::Evaluate);
        let last = out
            .iter()
            .find(|p| p.detail == "remove:3:aggregate")
            .expect("the last step removed");
        assert_eq!(
            last.qdmr.texts(),
            ["adult population of Cunter", "#1 excluding seniors"]
        );
    }

    #[test]
    fn code_variant_per_dataset() {
        let code = BpbConfig {
            prune_step: Variant::Code,
            ..Default::default()
        };
        let input = |dataset| PerturbInput {
            dataset,
            ..Default::default()
        };
        // DROP: an aggregate last step is not pruned, and inner steps are not removed.
        assert!(perturb(&cunter(), &input(Dataset::Drop), &code).is_empty());
        let hotpot = perturb(&cunter(), &input(Dataset::HotpotQa), &code);
        assert_eq!(hotpot.len(), 1);
        assert_eq!(hotpot[0].detail, "remove:2:filter");
        // A project last step is pruned everywhere; its orphans go too.
        let project =
            Qdmr::from_texts(&["club of Messi", "coach of Barcelona", "stadium of #1"]).unwrap();
        let out = perturb(&project, &input(Dataset::Drop), &code);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].qdmr.texts(), ["coach of Barcelona"]);
    }

    #[test]
    fn single_noun_phrase_is_dropped() {
        let q = Qdmr::from_texts(&["teams", "number of #1"]).unwrap();
        assert!(perturb(&q, &PerturbInput::default(), &BpbConfig::default()).is_empty());
    }
}
