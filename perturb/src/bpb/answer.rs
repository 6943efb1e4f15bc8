//! How the answer of a perturbed question follows from the original one (seed-002 §3, §5, §6):
//! an [`AnswerRule`] per perturbation, and an answer [`Constraint`] for when no answer can be
//! computed.
//!
//! The rules that need only the original answer `a` are computed here
//! ([`AnswerRule::from_original`]); ReplaceArith's pair search needs the context's numbers
//! ([`replace_arith_answer`]) and ReplaceComp's needs the two candidates of the question
//! ([`other_candidate`]); everything else is [`AnswerRule::Evaluate`]: the step-by-step QDMR
//! evaluator.

use super::operator::ArithmeticOp;
pub use metamorph_data::answer_value::{parse_number, Constraint, YesNo};

/// A comparison of the original (numeric) answer with a constant, as AppendBool appends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparator {
    /// `is higher than`
    Greater,
    /// `is lower than`
    Less,
    /// `is at least`
    AtLeast,
    /// `is at most`
    AtMost,
    /// `is equal to`
    Equal,
    /// `is not equal to`
    NotEqual,
}

impl Comparator {
    /// The phrase of the appended step: `if #n is <phrase> v`.
    pub fn phrase(self) -> &'static str {
        match self {
            Comparator::Greater => "higher than",
            Comparator::Less => "lower than",
            Comparator::AtLeast => "at least",
            Comparator::AtMost => "at most",
            Comparator::Equal => "equal to",
            Comparator::NotEqual => "not equal to",
        }
    }

    /// Whether `a <self> v`.
    pub fn holds(self, a: f64, v: f64) -> bool {
        match self {
            Comparator::Greater => a > v,
            Comparator::Less => a < v,
            Comparator::AtLeast => a >= v,
            Comparator::AtMost => a <= v,
            Comparator::Equal => a == v,
            Comparator::NotEqual => a != v,
        }
    }
}

/// How the perturbed question's answer â is obtained.
#[derive(Clone, Debug, PartialEq)]
pub enum AnswerRule {
    /// AppendBool: â = yes iff `a <comparator> value` (exact, from the original answer).
    CompareOriginal {
        /// The comparison appended.
        comparator: Comparator,
        /// The constant compared with.
        value: f64,
    },
    /// â = a, known only when a is `requires` (ReplaceBool and ↔ or: "both true" implies
    /// "either true"; "neither … either" false implies "both" false).
    SameAsOriginal {
        /// The original answer for which the rule holds.
        requires: YesNo,
    },
    /// â = not a, known only when a is `requires` (ReplaceBool true ↔ false: "both true" = yes
    /// ⇒ "both false" = no; "either true" = no ⇒ "either false" = yes).
    NegateOriginal {
        /// The original answer for which the rule holds.
        requires: YesNo,
    },
    /// ReplaceComp: the question names two candidates x, y with x = a; â = y
    /// ([`other_candidate`]).
    OtherCandidate,
    /// ReplaceArith sum ↔ difference: the unique pair of context numbers x, y with
    /// a = x `from` y gives â = |x `to` y| ([`replace_arith_answer`]).
    FlipArithmetic {
        /// The original operation.
        from: ArithmeticOp,
        /// The new operation.
        to: ArithmeticOp,
    },
    /// No rule: the step-by-step QDMR evaluator answers the perturbed QDMR.
    Evaluate,
}

impl AnswerRule {
    /// â from the original answer alone, where the rule allows it; `None` when the rule needs
    /// more (context, candidates, the evaluator) or does not hold for this a.
    pub fn from_original(&self, original: &str) -> Option<String> {
        match self {
            AnswerRule::CompareOriginal { comparator, value } => {
                let a = parse_number(original)?;
                let yes = comparator.holds(a, *value);
                Some(if yes { YesNo::Yes } else { YesNo::No }.as_str().into())
            }
            AnswerRule::SameAsOriginal { requires } => {
                (YesNo::parse(original)? == *requires).then(|| requires.as_str().into())
            }
            AnswerRule::NegateOriginal { requires } => {
                (YesNo::parse(original)? == *requires).then(|| requires.negated().as_str().into())
            }
            AnswerRule::OtherCandidate
            | AnswerRule::FlipArithmetic { .. }
            | AnswerRule::Evaluate => None,
        }
    }
}

/// Why ReplaceArith's answer rule gives no answer (the example is discarded or goes to the
/// evaluator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithDiscard {
    /// The original answer is not a number.
    NotNumeric,
    /// a < 10: counting is likelier than arithmetic (the paper's rule).
    SmallAnswer,
    /// No pair of context numbers gives a.
    NoPair,
    /// More than one pair gives a.
    AmbiguousPair,
    /// The rule covers only sum ↔ difference.
    Unsupported,
}

/// ReplaceArith's answer rule (paper §3.3): find the numbers x, y of the context (plus 100, for
/// percentage complements, as the authors' code adds) with a = x + y (`from` sum) or
/// a = x − y (`from` difference) and return |x ∓ y|. Discards when a < 10, when no pair or more
/// than one (unordered) pair gives a. The code's extra check that the pair matches the RC
/// model's answers to the two referenced steps needs a model and is the evaluator's business.
pub fn replace_arith_answer(
    original: &str,
    context_numbers: &[f64],
    from: ArithmeticOp,
    to: ArithmeticOp,
) -> Result<f64, ArithDiscard> {
    let a = parse_number(original).ok_or(ArithDiscard::NotNumeric)?;
    if a < 10.0 {
        return Err(ArithDiscard::SmallAnswer);
    }
    let mut pool: Vec<f64> = context_numbers.to_vec();
    pool.push(100.0);
    pool.sort_by(f64::total_cmp);
    pool.dedup();
    let close = |x: f64, y: f64| (x - y).abs() < 1e-6;
    let mut pairs = Vec::new();
    for (i, &x) in pool.iter().enumerate() {
        for &y in &pool[i..] {
            let matches = match from {
                ArithmeticOp::Sum => close(x + y, a),
                ArithmeticOp::Difference => close((x - y).abs(), a),
                _ => return Err(ArithDiscard::Unsupported),
            };
            if matches {
                pairs.push((x, y));
            }
        }
    }
    match (pairs.as_slice(), to) {
        ([], _) => Err(ArithDiscard::NoPair),
        ([(x, y)], ArithmeticOp::Sum) => Ok(x + y),
        ([(x, y)], ArithmeticOp::Difference) => Ok((x - y).abs()),
        ([_], _) => Err(ArithDiscard::Unsupported),
        _ => Err(ArithDiscard::AmbiguousPair),
    }
}

/// ReplaceComp's answer rule (paper §3.5): of the question's two candidates, the one that is
/// not the original answer (compared case- and punctuation-insensitively); `None` when neither
/// or both match.
pub fn other_candidate<'a>(candidates: (&'a str, &'a str), original: &str) -> Option<&'a str> {
    let norm = |s: &str| {
        s.chars()
            .filter(|c| c.is_alphanumeric() || c.is_whitespace())
            .collect::<String>()
            .to_lowercase()
            .split_whitespace()
            .filter(|w| !matches!(*w, "a" | "an" | "the"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let a = norm(original);
    match (norm(candidates.0) == a, norm(candidates.1) == a) {
        (true, false) => Some(candidates.1),
        (false, true) => Some(candidates.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_bool_answer_is_exact() {
        // Kadeem Jack (Table 1): "if #3 is higher than 2"; the league started with 8 teams.
        let rule = AnswerRule::CompareOriginal {
            comparator: Comparator::Greater,
            value: 2.0,
        };
        assert_eq!(rule.from_original("8").as_deref(), Some("yes"));
        assert_eq!(rule.from_original("2").as_deref(), Some("no"));
        assert_eq!(rule.from_original("two").as_deref(), Some("no"));
        assert_eq!(rule.from_original("Lakers"), None);
    }

    #[test]
    fn replace_bool_answers() {
        // Stenocereus / Pachypodium: both true (yes) → both false: no.
        let and = AnswerRule::NegateOriginal {
            requires: YesNo::Yes,
        };
        assert_eq!(and.from_original("yes").as_deref(), Some("no"));
        assert_eq!(and.from_original("no"), None);
        let or = AnswerRule::NegateOriginal {
            requires: YesNo::No,
        };
        assert_eq!(or.from_original("No").as_deref(), Some("yes"));
        let same = AnswerRule::SameAsOriginal {
            requires: YesNo::Yes,
        };
        assert_eq!(same.from_original("yes").as_deref(), Some("yes"));
        assert_eq!(same.from_original("no"), None);
    }

    #[test]
    fn replace_arith_pair_search() {
        // difference → sum: 50 = 70 − 20 → 90.
        assert_eq!(
            replace_arith_answer(
                "50",
                &[70.0, 20.0, 3.0],
                ArithmeticOp::Difference,
                ArithmeticOp::Sum
            ),
            Ok(90.0)
        );
        // sum → difference: 90 = 70 + 20 → 50.
        assert_eq!(
            replace_arith_answer(
                "90",
                &[70.0, 20.0, 3.0],
                ArithmeticOp::Sum,
                ArithmeticOp::Difference
            ),
            Ok(50.0)
        );
        assert_eq!(
            replace_arith_answer(
                "7",
                &[10.0, 3.0],
                ArithmeticOp::Difference,
                ArithmeticOp::Sum
            ),
            Err(ArithDiscard::SmallAnswer)
        );
        assert_eq!(
            replace_arith_answer(
                "20",
                &[30.0, 10.0, 50.0],
                ArithmeticOp::Difference,
                ArithmeticOp::Sum
            ),
            Err(ArithDiscard::AmbiguousPair)
        );
        assert_eq!(
            replace_arith_answer(
                "41",
                &[30.0, 10.0],
                ArithmeticOp::Difference,
                ArithmeticOp::Sum
            ),
            Err(ArithDiscard::NoPair)
        );
        // The percentage complement: 100 − 37.5 = 62.5 → 137.5.
        assert_eq!(
            replace_arith_answer(
                "62.5%",
                &[37.5],
                ArithmeticOp::Difference,
                ArithmeticOp::Sum
            ),
            Ok(137.5)
        );
    }

    #[test]
    fn replace_comp_other_candidate() {
        // "Which group is smaller …: people or households?" a = households → people.
        assert_eq!(
            other_candidate(("people", "households"), "Households"),
            Some("people")
        );
        assert_eq!(other_candidate(("people", "households"), "cats"), None);
    }

    #[test]
    fn constraints() {
        // Hindi/Kannada: difference → sum gives â ≥ a.
        assert_eq!(
            Constraint::AtLeastOriginal.satisfied("100", "250"),
            Some(true)
        );
        assert_eq!(
            Constraint::AtLeastOriginal.satisfied("100", "50"),
            Some(false)
        );
        assert_eq!(
            Constraint::AtMostOriginal.satisfied("100", "50"),
            Some(true)
        );
        assert_eq!(Constraint::AtMostOriginal.satisfied("x", "50"), None);
        assert_eq!(Constraint::Numeric.satisfied("", "12 years"), Some(true));
        assert_eq!(Constraint::Numeric.satisfied("", "Paris"), Some(false));
        assert_eq!(Constraint::Boolean.satisfied("", "No"), Some(true));
    }
}
