//! ChangeLast (paper §3.2, "Change last step"): the last step, an operation over exactly two
//! referenced steps of type arithmetic or comparison (argmax/argmin), is replaced by a step of
//! another operator over the same two references. There is no answer rule: the QDMR evaluator
//! answers ([`AnswerRule::Evaluate`]); the constraint is Numeric for an arithmetic target and
//! Boolean for a boolean one.
//!
//! Targets ([`Variant`]):
//! * **paper (default)**: "changed to arithmetic or Boolean": a comparison step becomes
//!   `the {sum|difference|multiplication|division} of #a and #b` or
//!   `if #a is {higher than|lower than|the same as} #b`; an arithmetic step becomes one of those
//!   boolean steps (turning it into another arithmetic step is ReplaceArith).
//! * **code**: `ChangeLastStepTransform` generates union (`#a , #b`), the three booleans, and
//!   comparison (`which is {highest|lowest} of #a , #b`) for arithmetic sources or the four
//!   arithmetic steps for comparison sources; the released pipeline then keeps, per dataset,
//!   only the arithmetic targets for DROP and only `the same as` for HotpotQA and IIRC. For other
//!   datasets (no filter in the code) every generated target is kept.
//!
//! New steps are written with the code's templates (`QDMRExample.step_to_text`).

use super::answer::{AnswerRule, Constraint};
use super::operator::{comparison_op, identify_with, ComparisonOp, Operator, Rules, ARITHMETIC};
use super::qdmr::{Qdmr, Step};
use super::types::{BpbConfig, Dataset, PerturbInput, Perturbation, PerturbationKind, Variant};

const BOOLEANS: [&str; 3] = ["higher than", "lower than", "the same as"];

/// The ChangeLast perturbations of `qdmr`.
pub fn perturb(qdmr: &Qdmr, input: &PerturbInput<'_>, config: &BpbConfig) -> Vec<Perturbation> {
    let last = qdmr.last().text();
    let refs = qdmr.last().references();
    let source = match identify_with(&last, Rules::Bpb) {
        Some(Operator::Arithmetic) => Operator::Arithmetic,
        Some(Operator::Comparison)
            if matches!(
                comparison_op(&last),
                Some(ComparisonOp::Max | ComparisonOp::Min)
            ) =>
        {
            Operator::Comparison
        }
        _ => return Vec::new(),
    };
    let [a, b] = refs[..] else {
        return Vec::new();
    };
    // (target operator, subtype, step text)
    let mut targets: Vec<(Operator, String, String)> = Vec::new();
    targets.push((Operator::Union, "union".into(), format!("#{a} , #{b}")));
    for phrase in BOOLEANS {
        targets.push((
            Operator::Boolean,
            phrase.replace(' ', "_"),
            format!("if #{a} is {phrase} #{b}"),
        ));
    }
    match source {
        Operator::Arithmetic => {
            for (op, word) in [("max", "highest"), ("min", "lowest")] {
                targets.push((
                    Operator::Comparison,
                    op.into(),
                    format!("which is {word} of #{a} , #{b}"),
                ));
            }
        }
        _ => {
            for op in ARITHMETIC {
                targets.push((
                    Operator::Arithmetic,
                    op.name().into(),
                    format!("the {} of #{a} and #{b}", op.name()),
                ));
            }
        }
    }
    targets.retain(|(target, subtype, _)| match config.change_last {
        Variant::Paper => match source {
            Operator::Comparison => matches!(target, Operator::Arithmetic | Operator::Boolean),
            _ => *target == Operator::Boolean,
        },
        Variant::Code => match input.dataset {
            Dataset::Drop => *target == Operator::Arithmetic,
            Dataset::HotpotQa | Dataset::Iirc => subtype == "the_same_as",
            Dataset::Other => true,
        },
    });
    targets
        .into_iter()
        .map(|(target, subtype, text)| Perturbation {
            kind: PerturbationKind::ChangeLast,
            detail: format!("{source}->{target}:{subtype}"),
            qdmr: qdmr.with_last(Step::parse(&text)),
            answer: AnswerRule::Evaluate,
            constraint: match target {
                Operator::Arithmetic => Some(Constraint::Numeric),
                Operator::Boolean => Some(Constraint::Boolean),
                _ => None,
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(out: &[Perturbation]) -> Vec<String> {
        out.iter().map(|p| p.qdmr.last().text()).collect()
    }

    #[test]
    fn paper_example_comparison_to_arithmetic() {
        // Hughes-Donahue Gallery / Art Euphoric: "which was first of #1, #2" → "the difference
        // of #1 and #2".
        let q = Qdmr::from_texts(&[
            "when was Hughes-Donahue Gallery founded",
            "when was Art Euphoric founded",
            "which was first of #1, #2",
        ])
        .unwrap();
        let out = perturb(&q, &PerturbInput::default(), &BpbConfig::default());
        let p = out
            .iter()
            .find(|p| p.qdmr.last().text() == "the difference of #1 and #2")
            .expect("difference target");
        assert_eq!(p.detail, "comparison->arithmetic:difference");
        assert_eq!(p.answer, AnswerRule::Evaluate);
        assert_eq!(p.constraint, Some(Constraint::Numeric));
        assert_eq!(out.len(), 4 + 3);
    }

    #[test]
    fn paper_example_arithmetic_to_boolean() {
        // Madrugada / Sunday Driver: "the difference of #2 and #1" → "if #1 is the same as #2"
        // (the code writes the references in the step's order: #2, #1).
        let q = Qdmr::from_texts(&[
            "year of Madrugada's final concert",
            "year when Sunday Driver become popular",
            "the difference of #2 and #1",
        ])
        .unwrap();
        let out = perturb(&q, &PerturbInput::default(), &BpbConfig::default());
        assert_eq!(
            texts(&out),
            [
                "if #2 is higher than #1",
                "if #2 is lower than #1",
                "if #2 is the same as #1"
            ]
        );
        assert!(out
            .iter()
            .all(|p| p.constraint == Some(Constraint::Boolean)));
    }

    #[test]
    fn code_variant_filters_per_dataset() {
        let config = BpbConfig {
            change_last: Variant::Code,
            ..Default::default()
        };
        let comparison = Qdmr::from_texts(&[
            "size of people",
            "size of households",
            "which is smaller of #1, #2",
        ])
        .unwrap();
        let arithmetic = Qdmr::from_texts(&["a", "b", "difference of #1 and #2"]).unwrap();
        let input = |dataset| PerturbInput {
            dataset,
            ..Default::default()
        };
        assert_eq!(
            perturb(&comparison, &input(Dataset::Drop), &config).len(),
            4
        );
        assert!(perturb(&arithmetic, &input(Dataset::Drop), &config).is_empty());
        assert_eq!(
            texts(&perturb(&arithmetic, &input(Dataset::HotpotQa), &config)),
            ["if #1 is the same as #2"]
        );
        assert_eq!(
            texts(&perturb(&arithmetic, &input(Dataset::Other), &config)),
            [
                "#1 , #2",
                "if #1 is higher than #2",
                "if #1 is lower than #2",
                "if #1 is the same as #2",
                "which is highest of #1 , #2",
                "which is lowest of #1 , #2"
            ]
        );
        // Not applicable: three references, or a true/false comparison.
        let three = Qdmr::from_texts(&["a", "b", "c", "sum of #1 and #2 and #3"]).unwrap();
        assert!(perturb(&three, &input(Dataset::Other), &config).is_empty());
        let truth = Qdmr::from_texts(&["a", "b", "which is true of #1 , #2"]).unwrap();
        assert!(perturb(&truth, &input(Dataset::Other), &config).is_empty());
    }
}
