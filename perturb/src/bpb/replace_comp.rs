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
//! **code** (`OpReplaceTransform`) also
//! * flips a comparison's true ↔ false ("which is true of #1 , #2", answered by the other
//!   candidate too) and a last superlative step's min ↔ max ("#1 where #2 is highest",
//!   evaluator) (`replace_comparison`, `replace_superlative`);
//! * replaces a last aggregate step's min, max, sum or average with each other of min, max and
//!   count, rendered as the code renders it, `lowest of #2` / `highest of #2` / `number of #2`
//!   (`replace_aggregate`), with the code's answer constraints (`gen_ans_const_op_replace_
//!   aggregate`): min → max and avg → max give â ≥ a; max → min, sum → min/max and avg → min
//!   give â ≤ a; the rest only what the evaluator computes;
//! * rewrites a last comparative step's comparator (`replace_comparative`, with its
//!   `extract_comparator`): a numeric condition ("is higher than 375", "is 3 or more") becomes
//!   each other of =, ≠, >, ≥, <, ≤; an equality with a non-numeric value the other of = and
//!   ≠; "start with" ↔ "end with". The condition is rewritten as the code writes it, the
//!   comparator's first phrase then the value ("#1 where #2 at most 375", "… is not red").
//!   The authors' answer generator has no rule for these (`gen_ans_op_replace_comparative`
//!   is empty), so a case is made only when the evaluator answers the perturbed QDMR.

use super::answer::{AnswerRule, Constraint};
use super::operator::{
    aggregate, comparison_op, identify_with, Aggregate, ComparisonOp, Operator, Rules,
};
use super::qdmr::{Qdmr, Step};
use super::types::{BpbConfig, Perturbation, PerturbationKind, Variant};

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
        Some(Operator::Aggregate) if code => return replace_aggregate(qdmr, &text, &refs),
        Some(Operator::Comparative) if code => return replace_comparative(qdmr, &text, &refs),
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

/// The code's `replace_aggregate`: min, max, sum or avg → each other of min, max, count.
fn replace_aggregate(qdmr: &Qdmr, text: &str, refs: &[usize]) -> Vec<Perturbation> {
    let [reference] = refs else {
        return Vec::new();
    };
    let Some(from) = aggregate(text).filter(|a| *a != Aggregate::Count) else {
        return Vec::new();
    };
    [Aggregate::Min, Aggregate::Max, Aggregate::Count]
        .into_iter()
        .filter(|to| *to != from)
        .map(|to| {
            let constraint = match (from, to) {
                (Aggregate::Min, Aggregate::Max) | (Aggregate::Avg, Aggregate::Max) => {
                    Some(Constraint::AtLeastOriginal)
                }
                (Aggregate::Max, Aggregate::Min)
                | (Aggregate::Sum, Aggregate::Min | Aggregate::Max)
                | (Aggregate::Avg, Aggregate::Min) => Some(Constraint::AtMostOriginal),
                _ => None,
            };
            Perturbation {
                kind: PerturbationKind::ReplaceComp,
                detail: format!("aggregate:{}->{}", aggregate_name(from), aggregate_name(to)),
                qdmr: qdmr.with_last(Step::parse(&format!(
                    "{} of #{reference}",
                    aggregate_phrase(to)
                ))),
                answer: AnswerRule::Evaluate,
                constraint,
            }
        })
        .collect()
}

/// The code's names of aggregates (`min`, `max`, `count`, `sum`, `avg`).
fn aggregate_name(a: Aggregate) -> &'static str {
    match a {
        Aggregate::Min => "min",
        Aggregate::Max => "max",
        Aggregate::Count => "count",
        Aggregate::Sum => "sum",
        Aggregate::Avg => "avg",
    }
}

/// The code's `aggregate_to_phrase`.
fn aggregate_phrase(a: Aggregate) -> &'static str {
    match a {
        Aggregate::Min => "lowest",
        Aggregate::Max => "highest",
        Aggregate::Count => "number",
        Aggregate::Sum => "sum",
        Aggregate::Avg => "average",
    }
}

/// The comparators of the code's `comparatives` table, in its order, with their trigger
/// phrases (the first phrase is the one it writes).
const COMPARATORS: [(&str, &[&str]); 10] = [
    ("BETWEEN", &["between"]),
    (
        ">",
        &[
            "more than",
            "above",
            "larger than",
            "larger",
            "older than",
            "older",
            "higher than",
            "higher",
            "greater than",
            "greater",
            "bigger than",
            "bigger",
            "after",
            "over",
        ],
    ),
    (">=", &["at least"]),
    (
        "<",
        &[
            "less than",
            "under",
            "lower than",
            "lower",
            "younger than",
            "younger",
            "before",
            "below",
            "smaller than",
            "smaller",
        ],
    ),
    ("<=", &["at most"]),
    ("!=", &["is not"]),
    ("start", &["start with", "starts with", "begin"]),
    ("end", &["end with", "ends with"]),
    (
        "LIKE",
        &[
            "the letter",
            "the string",
            "the word",
            "the phrase",
            "contain",
            "include",
            "has",
            "have",
            "contains",
            "substring",
            "includes",
        ],
    ),
    (
        "=",
        &["is equal to", "equal to", "same as", "is ", "are ", "was "],
    ),
];

/// Comparators written after the value ("3 or more"), which override the first match.
const TRAILING: [(&str, &[&str]); 2] = [
    (">=", &["or later", "or more", "or after"]),
    ("<=", &["or earlier", "or less", "or before"]),
];

/// The code's `extract_comparator`: the comparator of a comparative step's condition and its
/// value (a number token, a small number word as digits, or the value phrase); `None` when no
/// comparator phrase occurs (the code's `("=", None)`).
pub fn extract_comparator(condition: &str) -> Option<(&'static str, String)> {
    let condition = condition.replace(',', "");
    let (mut comparator, trigger) = COMPARATORS.iter().find_map(|(name, triggers)| {
        triggers
            .iter()
            .find(|t| condition.contains(*t))
            .map(|t| (*name, *t))
    })?;
    // Python's `condition.split(trigger)[1]`: up to a second occurrence, if any.
    let mut value = condition
        .split(trigger)
        .nth(1)
        .unwrap_or_default()
        .trim()
        .to_string();
    if comparator == "BETWEEN" {
        return Some((comparator, value.to_uppercase()));
    }
    for (name, triggers) in TRAILING {
        if let Some(t) = triggers.iter().find(|t| condition.contains(*t)) {
            comparator = name;
            value = condition
                .split(t)
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
        }
    }
    const SMALL: [&str; 11] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    for token in value.split_whitespace() {
        if token.chars().all(|c| c.is_numeric()) {
            return Some((comparator, token.to_string()));
        }
        if let Some(n) = SMALL.iter().position(|w| *w == token) {
            return Some((comparator, n.to_string()));
        }
    }
    Some((comparator, value))
}

/// The code's `replace_comparative` on the last step `#a where #b <condition>`.
fn replace_comparative(qdmr: &Qdmr, text: &str, refs: &[usize]) -> Vec<Perturbation> {
    let (Some(&filtered), Some(&attribute)) = (refs.first(), refs.get(1)) else {
        return Vec::new();
    };
    // The code's `step.split(attribute)[1]`.
    let Some(condition) = text.split(&format!("#{attribute}")).nth(1) else {
        return Vec::new();
    };
    let Some((from, value)) = extract_comparator(condition) else {
        return Vec::new();
    };
    let numeric = ["=", "!=", ">", ">=", "<", "<="];
    let targets: &[&str] = match from {
        ">" | ">=" | "<" | "<=" => &numeric,
        "=" | "!=" if value.parse::<f64>().is_ok() => &numeric,
        "=" | "!=" => &["=", "!="],
        "start" | "end" => &["start", "end"],
        _ => return Vec::new(),
    };
    targets
        .iter()
        .filter(|to| **to != from)
        .map(|to| {
            let phrase = COMPARATORS
                .iter()
                .find(|(name, _)| name == to)
                .map(|(_, triggers)| triggers[0])
                .expect("every target is a comparator");
            Perturbation {
                kind: PerturbationKind::ReplaceComp,
                detail: format!("comparative:{from}->{to}"),
                qdmr: qdmr.with_last(Step::parse(&format!(
                    "#{filtered} where #{attribute} {phrase} {value}"
                ))),
                answer: AnswerRule::Evaluate,
                constraint: None,
            }
        })
        .collect()
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

    #[test]
    fn code_variant_aggregates_as_the_authors_render_and_constrain_them() {
        let code = BpbConfig {
            replace_comp: Variant::Code,
            ..Default::default()
        };
        // The docstring's example: "the highest of #2" → "the number of #2" (rendered
        // without the article, as `aggregate_step_phrase` does).
        let q = Qdmr::from_texts(&["touchdowns", "yards of #1", "the highest of #2"]).unwrap();
        assert!(perturb(&q, &BpbConfig::default()).is_empty());
        let out = perturb(&q, &code);
        let got: Vec<(&str, String, Option<Constraint>)> = out
            .iter()
            .map(|p| (p.detail.as_str(), p.qdmr.last().text(), p.constraint))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "aggregate:max->min",
                    "lowest of #2".to_string(),
                    Some(Constraint::AtMostOriginal)
                ),
                ("aggregate:max->count", "number of #2".to_string(), None),
            ]
        );
        let sum = Qdmr::from_texts(&["goals", "total of #1"]).unwrap();
        let details: Vec<String> = perturb(&sum, &code).into_iter().map(|p| p.detail).collect();
        assert_eq!(
            details,
            [
                "aggregate:sum->min",
                "aggregate:sum->max",
                "aggregate:sum->count"
            ]
        );
        // A count is not replaced.
        let count = Qdmr::from_texts(&["goals", "number of #1"]).unwrap();
        assert!(perturb(&count, &code).is_empty());
    }

    #[test]
    fn comparator_extraction_follows_the_authors_table() {
        for (condition, expected) in [
            (" is greater than 375", Some((">", "375"))),
            (" is at most three", Some(("<=", "3"))),
            (" is 3 or more", Some((">=", "3"))),
            (" is red", Some(("=", "red"))),
            (" starts with the letter A", Some(("start", "the letter A"))),
            (
                " is between 1900 and 1950",
                Some(("BETWEEN", "1900 AND 1950")),
            ),
            (" by Smith", None),
        ] {
            let got = extract_comparator(condition);
            let got = got.as_ref().map(|(c, v)| (*c, v.as_str()));
            assert_eq!(got, expected, "{condition:?}");
        }
    }

    #[test]
    fn code_variant_comparatives_as_the_authors_write_them() {
        let code = BpbConfig {
            replace_comp: Variant::Code,
            ..Default::default()
        };
        // The docstring's example: "#1 where #2 is greater than 375" → "… at most 375".
        let q = Qdmr::from_texts(&[
            "buildings",
            "heights of #1",
            "#1 where #2 is greater than 375",
        ])
        .unwrap();
        let out = perturb(&q, &code);
        let texts: Vec<String> = out.iter().map(|p| p.qdmr.last().text()).collect();
        assert_eq!(
            texts,
            [
                "#1 where #2 is equal to 375",
                "#1 where #2 is not 375",
                "#1 where #2 at least 375",
                "#1 where #2 less than 375",
                "#1 where #2 at most 375",
            ]
        );
        assert!(out.iter().all(|p| p.answer == AnswerRule::Evaluate));
        let colour = Qdmr::from_texts(&["cars", "colours of #1", "#1 where #2 is red"]).unwrap();
        let texts: Vec<String> = perturb(&colour, &code)
            .iter()
            .map(|p| p.qdmr.last().text())
            .collect();
        assert_eq!(texts, ["#1 where #2 is not red"]);
        assert!(perturb(&q, &BpbConfig::default()).is_empty());
    }
}
