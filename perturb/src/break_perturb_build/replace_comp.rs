//! ReplaceComp (paper §3.5, "Replace comparison op."): the last step, a comparison between
//! named candidates ("which is smaller of #1, #2"), is flipped between highest and lowest; the
//! step is rewritten with the code's template, `which is highest of #1 , #2`.
//!
//! Answer ([`AnswerRule::OtherCandidate`]): the question names two candidates x, y with x = a;
//! â is y (the candidates come from parsing the question, the Build stage's business; see
//! [`super::answer::other_candidate`]). With more than two candidates the other one is not
//! determined and the evaluator answers.
//!
//! Variants ([`Variant`]): the **paper** (default) flips comparison highest ↔ lowest only; the
//! **code** (`replace_comparison`, `replace_superlative`) also flips a comparison's true ↔ false
//! ("which is true of #1 , #2", answered by the other candidate too) and a last superlative
//! step's min ↔ max ("#1 where #2 is highest", evaluator). The code's comparative rewrites
//! (=, ≠, >, …) have no answer rule and are never executed, so they are left out.

use super::answer::AnswerRule;
use super::operator::{
    aggregate, comparison_op, identify_with, Aggregate, ComparisonOp, Operator, Rules,
};
use super::perturbation::{BpbConfig, Perturbation, PerturbationKind, Variant};
use super::qdmr::{Qdmr, Step};

/// The ReplaceComp perturbations of `qdmr`.
pub fn perturb(qdmr: &Qdmr, config: &BpbConfig) -> Vec<Perturbation> {
    let last = qdmr.last();
    let text = last.text();
    let refs = last.references();
    let code = config.replace_comp == Variant::Code;
    let (detail, step, answer) = match identify_with(&text, Rules::Bpb) {
        Some(Operator::Comparison) => {
            let (from, to) = match comparison_op(&text) {
                Some(ComparisonOp::Max) => ("highest", "lowest"),
                Some(ComparisonOp::Min) => ("lowest", "highest"),
                Some(ComparisonOp::True) if code => ("true", "false"),
                Some(ComparisonOp::False) if code => ("false", "true"),
                _ => return Vec::new(),
            };
            let candidates = refs
                .iter()
                .map(|r| format!("#{r}"))
                .collect::<Vec<_>>()
                .join(" , ");
            let answer = if refs.len() == 2 {
                AnswerRule::OtherCandidate
            } else {
                AnswerRule::Evaluate
            };
            (
                format!("comparison:{from}->{to}"),
                format!("which is {to} of {candidates}"),
                answer,
            )
        }
        Some(Operator::Superlative) if code && refs.len() == 2 => {
            let (from, to) = match aggregate(&text) {
                Some(Aggregate::Max) => ("highest", "lowest"),
                Some(Aggregate::Min) => ("lowest", "highest"),
                _ => return Vec::new(),
            };
            (
                format!("superlative:{from}->{to}"),
                format!("#{} where #{} is {to}", refs[0], refs[1]),
                AnswerRule::Evaluate,
            )
        }
        _ => return Vec::new(),
    };
    vec![Perturbation {
        kind: PerturbationKind::ReplaceComp,
        detail,
        qdmr: qdmr.with_last(Step::parse(&step)),
        answer,
        constraint: None,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_example_people_or_households() {
        // Table 1: "(3) which is smaller of #1, #2" → "(3) which is highest of #1, #2".
        let q = Qdmr::from_texts(&[
            "size of the people group in the county according to the census",
            "size of households group in the county according to the census",
            "which is smaller of #1, #2",
        ])
        .unwrap();
        let out = perturb(&q, &BpbConfig::default());
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].qdmr.last().text(), "which is highest of #1 , #2");
        assert_eq!(out[0].detail, "comparison:lowest->highest");
        assert_eq!(out[0].answer, AnswerRule::OtherCandidate);
        assert_eq!(out[0].qdmr.steps()[..2], q.steps()[..2]);
    }

    #[test]
    fn code_variant_truth_and_superlative() {
        let code = BpbConfig {
            replace_comp: Variant::Code,
            ..Default::default()
        };
        let truth = Qdmr::from_texts(&["if a", "if b", "which is true of #1 , #2"]).unwrap();
        assert!(perturb(&truth, &BpbConfig::default()).is_empty());
        assert_eq!(
            perturb(&truth, &code)[0].qdmr.last().text(),
            "which is false of #1 , #2"
        );
        let sup =
            Qdmr::from_texts(&["rivers", "length of #1", "#1 where #2 is the longest"]).unwrap();
        assert!(perturb(&sup, &BpbConfig::default()).is_empty());
        let out = perturb(&sup, &code);
        assert_eq!(out[0].qdmr.last().text(), "#1 where #2 is lowest");
        assert_eq!(out[0].answer, AnswerRule::Evaluate);
    }
}
