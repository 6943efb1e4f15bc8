//! AppendBool (paper §3.1, Table 1 "Append Boolean step"): append a yes/no step comparing the
//! final result `#n` with a constant, `if #n is higher than v`. The answer is exact: yes iff
//! `a <cmp> v` for the original answer a ([`AnswerRule::CompareOriginal`]).
//!
//! Paper and code differ ([`Variant`]):
//!
//! | | paper (default) | code (`AppendBooleanTransform`) |
//! |---|---|---|
//! | applies when | the question returns a number: the gold answer a is numeric | the last step is `aggregate` |
//! | comparisons | >, <, ≥, ≤, ≠ ("higher than", "lower than", "at least", "at most", "not equal to") | "lower than", "higher than", "equal to" |
//! | constants | a+k, a−k, a/k, a×k for k ∈ {1,2,3} | "two", 17, and (when a ≥ 0 is known) a+k, \|a−k\|, a·k, a/k for k ∈ {0,1,2}, each truncated to an integer |
//!
//! The paper "samples" the constants without saying how many; we keep every distinct
//! non-negative *integer* constant (the code also keeps only integers) and sample down only
//! when [`BpbConfig::append_bool_limit`] is set (a seeded shuffle, as the code's
//! `--limit_append_boolean_step_per_qdmr`). Under the code variant without a gold answer only
//! "two" and 17 are used, as in the code.
//!
//! The code reads the gold answer as its preprocessing (`numeric_answers.py`, `text2int`)
//! does: commas and `%` dropped, digits or a decimal number, or an English number phrase
//! ("eleven", "twenty one", "one hundred and five"); see [`code_numeric_answer`]. The paper
//! variant reads numbers only.

use super::answer::{parse_number, AnswerRule, Comparator};
use super::operator::{identify_with, Operator, Rules};
use super::qdmr::{Part, Qdmr, Step};
use super::types::{BpbConfig, PerturbInput, Perturbation, PerturbationKind, Variant};
use crate::shuffle;

/// The AppendBool perturbations of `qdmr`.
pub fn perturb(qdmr: &Qdmr, input: &PerturbInput<'_>, config: &BpbConfig) -> Vec<Perturbation> {
    let (comparators, constants): (&[Comparator], Vec<(String, f64)>) = match config.append_bool {
        Variant::Paper => {
            let Some(a) = input.answer.and_then(parse_number) else {
                return Vec::new();
            };
            let mut values = Vec::new();
            for k in [1.0, 2.0, 3.0] {
                values.extend([a + k, a - k, a / k, a * k]);
            }
            let constants = values
                .into_iter()
                .filter(|v| v.is_finite() && *v >= 0.0 && v.fract() == 0.0)
                .map(|v| (format_number(v), v))
                .collect();
            (
                &[
                    Comparator::Greater,
                    Comparator::Less,
                    Comparator::AtLeast,
                    Comparator::AtMost,
                    Comparator::NotEqual,
                ],
                constants,
            )
        }
        Variant::Code => {
            if identify_with(&qdmr.last().text(), Rules::Bpb) != Some(Operator::Aggregate) {
                return Vec::new();
            }
            let mut constants = vec![("two".to_string(), 2.0), ("17".to_string(), 17.0)];
            let gold = input.answer.and_then(code_numeric_answer);
            if let Some(a) = gold.filter(|a| *a >= 0.0) {
                for k in [0.0, 1.0, 2.0] {
                    if k != 0.0 {
                        constants.push(truncated(a / k));
                    }
                    constants.extend([
                        truncated(a + k),
                        truncated((a - k).abs()),
                        truncated(a * k),
                    ]);
                }
            }
            (
                &[Comparator::Less, Comparator::Greater, Comparator::Equal],
                constants,
            )
        }
    };
    let mut seen = std::collections::HashSet::new();
    let constants: Vec<(String, f64)> = constants
        .into_iter()
        .filter(|(text, _)| seen.insert(text.clone()))
        .collect();
    let n = qdmr.len();
    let mut out = Vec::new();
    for (text, value) in &constants {
        for &comparator in comparators {
            let step = Step::from_parts(vec![
                Part::Text("if ".into()),
                Part::Ref(n),
                Part::Text(format!(" is {} {text}", comparator.phrase())),
            ]);
            out.push(Perturbation {
                kind: PerturbationKind::AppendBool,
                detail: format!("{}:{text}", comparator.phrase().replace(' ', "-")),
                qdmr: qdmr.with_appended(step),
                answer: AnswerRule::CompareOriginal {
                    comparator,
                    value: *value,
                },
                constraint: None,
            });
        }
    }
    if let Some(limit) = config.append_bool_limit {
        shuffle(&mut out, input.seed);
        out.truncate(limit);
    }
    out
}

/// The gold answer as a number the way the authors' preprocessing reads it (`text2int` in
/// `qdmr_transforms/numeric_answers.py`): `,` and `%` removed and the rest trimmed; then
/// digits, a decimal number, or a phrase of English number words ("thirteen", "twenty one",
/// "two thousand and five": units and tens add, `hundred` and larger scales multiply). `None`
/// for anything else, for an empty answer and for a non-finite value.
pub fn code_numeric_answer(answer: &str) -> Option<f64> {
    let text = answer.replace([',', '%'], "");
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Ok(value) = text.parse::<f64>() {
        return value.is_finite().then_some(value);
    }
    const UNITS: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 10] = [
        "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    const SCALES: [&str; 5] = ["hundred", "thousand", "million", "billion", "trillion"];
    let (mut current, mut result) = (0f64, 0f64);
    for word in text.split_whitespace() {
        let (scale, increment) = if word == "and" {
            (1.0, 0.0)
        } else if let Some(i) = UNITS.iter().position(|u| *u == word) {
            (1.0, i as f64)
        } else if let Some(i) = TENS.iter().position(|t| !t.is_empty() && *t == word) {
            (1.0, (i * 10) as f64)
        } else if let Some(i) = SCALES.iter().position(|s| *s == word) {
            (
                if i == 0 {
                    100.0
                } else {
                    1000f64.powi(i as i32)
                },
                0.0,
            )
        } else {
            return None;
        };
        current = current * scale + increment;
        if scale > 100.0 {
            result += current;
            current = 0.0;
        }
    }
    Some(result + current)
}

fn truncated(v: f64) -> (String, f64) {
    let t = v.trunc();
    (format_number(t), t)
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kadeem() -> Qdmr {
        Qdmr::from_texts(&[
            "league that Kadeem Jack is a player in",
            "teams that #1 started with",
            "number of #2",
        ])
        .unwrap()
    }

    #[test]
    fn paper_example_kadeem_jack() {
        // Table 1: d̂ appends "(4) if #3 is higher than 2". With a = 3 teams, 2 = a − 1.
        let input = PerturbInput {
            answer: Some("3"),
            ..Default::default()
        };
        let out = perturb(&kadeem(), &input, &BpbConfig::default());
        let p = out
            .iter()
            .find(|p| p.detail == "higher-than:2")
            .expect("if #3 is higher than 2");
        assert_eq!(p.qdmr.last().text(), "if #3 is higher than 2");
        assert_eq!(p.qdmr.len(), 4);
        assert_eq!(p.answer.from_original("3").as_deref(), Some("yes"));
        // Constants {4, 2, 3, 5, 1, 6, 0, 9} (1.5 dropped: not an integer) × 5 comparisons.
        assert_eq!(out.len(), 8 * 5);
        assert!(out.iter().all(|p| p.qdmr.check_no_orphans().is_ok()));
        // No numeric answer: the paper's rule does not apply.
        assert!(perturb(&kadeem(), &PerturbInput::default(), &BpbConfig::default()).is_empty());
    }

    #[test]
    fn code_variant_constants_and_operators() {
        let config = BpbConfig {
            append_bool: Variant::Code,
            ..Default::default()
        };
        let none = perturb(&kadeem(), &PerturbInput::default(), &config);
        let details: Vec<&str> = none.iter().map(|p| p.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "lower-than:two",
                "higher-than:two",
                "equal-to:two",
                "lower-than:17",
                "higher-than:17",
                "equal-to:17"
            ]
        );
        assert_eq!(
            none[1].answer.from_original("3").as_deref(),
            Some("yes"),
            "3 is higher than two"
        );
        // a = 5: 5, 5, 0 (k=0); 5, 6, 4, 5 (k=1); 2, 7, 3, 10 (k=2) → new: 5, 0, 6, 4, 2, 7, 3,
        // 10 ("2" differs from "two" as text, as in the code).
        let five = perturb(
            &kadeem(),
            &PerturbInput {
                answer: Some("5"),
                ..Default::default()
            },
            &config,
        );
        assert_eq!(five.len(), (2 + 8) * 3);
        // The code applies only after an aggregate last step.
        let not_aggregate = Qdmr::from_texts(&["teams", "#1 from Ohio"]).unwrap();
        assert!(perturb(&not_aggregate, &PerturbInput::default(), &config).is_empty());
        // The limit samples reproducibly.
        let limited = BpbConfig {
            append_bool_limit: Some(4),
            ..config
        };
        let input = PerturbInput {
            answer: Some("5"),
            seed: 7,
            ..Default::default()
        };
        let a = perturb(&kadeem(), &input, &limited);
        assert_eq!(a.len(), 4);
        assert_eq!(a, perturb(&kadeem(), &input, &limited));
    }

    #[test]
    fn code_variant_reads_number_words_like_the_authors_preprocessing() {
        for (answer, value) in [
            ("eleven", Some(11.0)),
            ("thirteen", Some(13.0)),
            ("twenty one", Some(21.0)),
            ("one hundred and five", Some(105.0)),
            ("two thousand three hundred", Some(2300.0)),
            ("3 million", None),
            ("1,200", Some(1200.0)),
            ("45%", Some(45.0)),
            ("2.5", Some(2.5)),
            ("Denver", None),
            ("", None),
        ] {
            assert_eq!(code_numeric_answer(answer), value, "{answer:?}");
        }
        let config = BpbConfig {
            append_bool: Variant::Code,
            ..Default::default()
        };
        let input = |answer| PerturbInput {
            answer: Some(answer),
            ..Default::default()
        };
        // "eleven" gives the same constants as "11"; the paper variant needs digits.
        let words = perturb(&kadeem(), &input("eleven"), &config);
        assert_eq!(words, perturb(&kadeem(), &input("11"), &config));
        assert!(words.iter().any(|p| p.detail == "lower-than:12"));
        assert!(perturb(&kadeem(), &input("eleven"), &BpbConfig::default()).is_empty());
    }
}
