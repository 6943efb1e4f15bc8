//! ReplaceArith (paper §3.3, "Replace arithmetic op."): the last step's arithmetic operation is
//! flipped, sum ↔ difference ("difference of #3 and #4" → "sum of #3 and #4"; the operation
//! word is replaced in place, the rest of the step kept).
//!
//! Answer: sum ↔ difference use the pair rule ([`AnswerRule::FlipArithmetic`], computed by
//! [`super::answer::replace_arith_answer`] from the context's numbers), else the evaluator.
//! Constraints (non-negative operands): sum → difference gives â ≤ a, difference → sum â ≥ a.
//!
//! Variants ([`Variant`]): the **paper** (default) flips only sum ↔ difference; the **code**
//! generates every other operation of {sum, difference, multiplication, division} (answers
//! only for sum and difference: multiplication and division go to the evaluator) and, for a
//! switch to difference when the QDMR has 3 or 5 steps whose first two are `select`, a
//! `_VARIANT` (listed after its plain twin, as the code lists it) with steps 1 and 2 swapped
//! (so that the generated question does not ask for a negative difference). The code
//! re-renders the step from its arguments (`arithmetic_step_phrase`): always with the article
//! and the references joined by "and", `the sum of #3 and #4`; the paper variant replaces the
//! operation word in place and keeps the rest of the step as written. Both variants apply the code's filters: `time_diff_sum` (no
//! difference → sum when any step mentions when/date/year/month/day/hour: adding dates is
//! meaningless) and `self_diff` (no difference of a step with itself or with an identical
//! step).

use super::answer::{AnswerRule, Constraint};
use super::operator::{
    arithmetic_op, identify_all, identify_with, ArithmeticOp, Operator, Rules, ARITHMETIC,
};
use super::qdmr::{Part, Qdmr, Step};
use super::types::{BpbConfig, Perturbation, PerturbationKind, Variant};

/// The ReplaceArith perturbations of `qdmr`.
pub fn perturb(qdmr: &Qdmr, config: &BpbConfig) -> Vec<Perturbation> {
    let last = qdmr.last();
    let text = last.text();
    if identify_with(&text, Rules::Bpb) != Some(Operator::Arithmetic) {
        return Vec::new();
    }
    let Some(from) = arithmetic_op(&text) else {
        return Vec::new();
    };
    let targets: Vec<ArithmeticOp> = match config.replace_arith {
        Variant::Paper => match from {
            ArithmeticOp::Sum => vec![ArithmeticOp::Difference],
            ArithmeticOp::Difference => vec![ArithmeticOp::Sum],
            _ => Vec::new(),
        },
        Variant::Code => ARITHMETIC.into_iter().filter(|&op| op != from).collect(),
    };
    let mentions_time = qdmr.texts().iter().any(|t| {
        let t = t.to_lowercase();
        ["when", "date", "year", "month", "day", "hour"]
            .iter()
            .any(|w| t.contains(w))
    });
    let refs = last.references();
    let self_difference = refs.len() == 2
        && (refs[0] == refs[1]
            || qdmr.step(refs[0]).map(Step::text) == qdmr.step(refs[1]).map(Step::text));
    let mut out = Vec::new();
    for to in targets {
        if from == ArithmeticOp::Difference && to == ArithmeticOp::Sum && mentions_time {
            continue;
        }
        if to == ArithmeticOp::Difference && self_difference {
            continue;
        }
        let step = match config.replace_arith {
            Variant::Paper => match replace_word(last, from, to) {
                Some(step) => step,
                None => continue,
            },
            Variant::Code => code_step(to, &refs),
        };
        let (answer, constraint) = match (from, to) {
            (ArithmeticOp::Sum, ArithmeticOp::Difference) => (
                AnswerRule::FlipArithmetic { from, to },
                Some(Constraint::AtMostOriginal),
            ),
            (ArithmeticOp::Difference, ArithmeticOp::Sum) => (
                AnswerRule::FlipArithmetic { from, to },
                Some(Constraint::AtLeastOriginal),
            ),
            _ => (AnswerRule::Evaluate, None),
        };
        let perturbed = qdmr.with_last(step);
        let detail = format!("{}->{}", from.name(), to.name());
        let variant = (config.replace_arith == Variant::Code
            && to == ArithmeticOp::Difference
            && matches!(qdmr.len(), 3 | 5)
            && identify_all(qdmr, Rules::Bpb)[..2] == [Some(Operator::Select); 2])
            .then(|| Perturbation {
                kind: PerturbationKind::ReplaceArith,
                detail: format!("{detail}_VARIANT"),
                qdmr: perturbed.with_swapped(1, 2),
                answer: answer.clone(),
                constraint,
            });
        out.push(Perturbation {
            kind: PerturbationKind::ReplaceArith,
            detail,
            qdmr: perturbed,
            answer,
            constraint,
        });
        out.extend(variant);
    }
    out
}

/// The code's rendering of an arithmetic step: `the <operation> of #a and #b`.
fn code_step(to: ArithmeticOp, refs: &[usize]) -> Step {
    let refs: Vec<String> = refs.iter().map(|r| format!("#{r}")).collect();
    Step::parse(&format!("the {} of {}", to.name(), refs.join(" and ")))
}

/// The step with its leading operation word (after an optional "the ") replaced.
fn replace_word(step: &Step, from: ArithmeticOp, to: ArithmeticOp) -> Option<Step> {
    let mut parts = step.parts().to_vec();
    let Some(Part::Text(first)) = parts.first_mut() else {
        return None;
    };
    let (article, rest) = match first.strip_prefix("the ") {
        Some(rest) => ("the ", rest),
        None => ("", first.as_str()),
    };
    let rest = rest.strip_prefix(from.name())?;
    *first = format!("{article}{}{rest}", to.name());
    Some(Step::from_parts(parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hindi() -> Qdmr {
        Qdmr::from_texts(&[
            "native Hindi speakers",
            "native Kannada speakers",
            "number of #1",
            "number of #2",
            "difference of #3 and #4",
        ])
        .unwrap()
    }

    #[test]
    fn paper_example_hindi_kannada() {
        // Table 1: "(5) difference of #3 and #4" → "(5) sum of #3 and #4", â ≥ a.
        let out = perturb(&hindi(), &BpbConfig::default());
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].qdmr.last().text(), "sum of #3 and #4");
        assert_eq!(out[0].qdmr.steps()[..4], hindi().steps()[..4]);
        assert_eq!(out[0].constraint, Some(Constraint::AtLeastOriginal));
        assert_eq!(
            out[0].answer,
            AnswerRule::FlipArithmetic {
                from: ArithmeticOp::Difference,
                to: ArithmeticOp::Sum
            }
        );
    }

    #[test]
    fn sum_to_difference_and_code_variants() {
        let q = Qdmr::from_texts(&[
            "apples",
            "pears",
            "number of #1",
            "number of #2",
            "the sum of #3 and #4",
        ])
        .unwrap();
        let paper = perturb(&q, &BpbConfig::default());
        assert_eq!(paper.len(), 1);
        assert_eq!(paper[0].qdmr.last().text(), "the difference of #3 and #4");
        assert_eq!(paper[0].constraint, Some(Constraint::AtMostOriginal));
        let code = BpbConfig {
            replace_arith: Variant::Code,
            ..Default::default()
        };
        let out = perturb(&q, &code);
        let details: Vec<&str> = out.iter().map(|p| p.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "sum->difference",
                "sum->difference_VARIANT",
                "sum->multiplication",
                "sum->division"
            ]
        );
        assert_eq!(out[1].qdmr.texts()[..2], ["pears", "apples"]);
        assert_eq!(out[2].answer, AnswerRule::Evaluate);
        assert_eq!(out[2].constraint, None);
        assert_eq!(out[2].qdmr.last().text(), "the multiplication of #3 and #4");
        // The code renders the step with its article even where the source has none.
        let hindi_code = perturb(&hindi(), &code);
        assert_eq!(hindi_code[0].qdmr.last().text(), "the sum of #3 and #4");
    }

    #[test]
    fn filters() {
        // time_diff_sum: no sum of years.
        let years =
            Qdmr::from_texts(&["year of x", "year of y", "difference of #1 and #2"]).unwrap();
        assert!(perturb(&years, &BpbConfig::default()).is_empty());
        // self_diff: no difference of identical steps.
        let same = Qdmr::from_texts(&["goals", "goals", "sum of #1 and #2"]).unwrap();
        assert!(perturb(&same, &BpbConfig::default()).is_empty());
        // Not the last step: nothing.
        let inner = Qdmr::from_texts(&["a", "b", "sum of #1 and #2", "#3 in Ohio"]).unwrap();
        assert!(perturb(&inner, &BpbConfig::default()).is_empty());
    }
}
