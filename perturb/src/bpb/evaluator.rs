//! The step-by-step QDMR evaluator (paper §3, §5.2; the authors' `qdmr_evaluator.py`): the
//! second answer tier, for perturbations without an exact rule (ChangeLast, PruneStep,
//! ReplaceArith beyond two numbers, …).
//!
//! Steps that query the context go to a single-step reading-comprehension model behind the
//! [`StepAnswerer`] trait (in the paper a RoBERTa span model trained on SQuAD + BoolQ, from
//! `execute`); numeric and set steps are computed here, with type checks, and each step's
//! result replaces `#k` in the later steps:
//!
//! * **select, project, filter**: the answerer, on the step turned into a question (references
//!   replaced by their results; a step starting with a wh-word or "if" is kept, anything else
//!   becomes "what is the …?"). The code asks the QG model to phrase reference-free steps; that
//!   needs the Build model, so the template is used for every step here;
//! * **aggregate count** and **project "number / amount / percentage of #k"**: the referenced
//!   result, when it is a whole number (any number for a percentage), as in the code;
//! * **arithmetic**: every argument numeric and not all equal; difference = |a₀ − Σ rest|, sum,
//!   multiplication (division is not computed, as in the code);
//! * **comparison** highest/lowest: numeric arguments, not all equal; the result is the winning
//!   *step* ([`Value::Choice`]) — naming the entity needs the question's candidates
//!   ([`super::answer::other_candidate`] and the Build stage);
//! * **boolean** "if #a is higher than / lower than / the same as X" (X a number or a
//!   reference): yes/no; equal values on both sides of a reference comparison give no answer;
//!   when the compared step asks "how old"/"how young" the answer flips (ages vs years). Other
//!   boolean steps go to the answerer, whose answer must be yes or no;
//! * **union**: the list of the referenced results.
//!
//! Other operators (superlative, comparative, group, intersection, discard, sort) are not
//! executed, as in the code: the example gets no answer. The final answer must be non-empty,
//! at most 8 words, and yes/no when the last step starts with "if".

use std::fmt;

use metamorph_data::Result;

use super::answer::{parse_number, YesNo};
use super::operator::{
    arithmetic_op, comparison_op, identify_with, ArithmeticOp, ComparisonOp, Operator, Rules,
};
use super::qdmr::{Part, Qdmr, Step};

/// A single-step question answerer over the (unchanged) context.
pub trait StepAnswerer {
    /// The answer to `question`, or `None` when the model has none.
    ///
    /// # Errors
    /// When the model fails (not when it has no answer).
    fn answer(&self, question: &str) -> Result<Option<String>>;
}

/// A single-step question answerer over any context: what a pipeline provides (an extractive
/// QA model of `execute`) so that relations can bind it to each source's context.
pub trait ContextQa: Send + Sync {
    /// The answer to `question` about `context`, or `None` when the model has none.
    ///
    /// # Errors
    /// When the model fails (not when it has no answer).
    fn answer(&self, context: &str, question: &str) -> Result<Option<String>>;
}

/// A [`ContextQa`] bound to one context: the evaluator's [`StepAnswerer`].
pub struct BoundContext<'a> {
    /// The model.
    pub qa: &'a dyn ContextQa,
    /// The (unchanged) context of the source.
    pub context: &'a str,
}

impl StepAnswerer for BoundContext<'_> {
    fn answer(&self, question: &str) -> Result<Option<String>> {
        self.qa.answer(self.context, question)
    }
}

/// The result of a step.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A text span from the answerer.
    Text(String),
    /// A number.
    Number(f64),
    /// yes / no.
    Bool(YesNo),
    /// A union of results.
    List(Vec<Value>),
    /// The step (1-based) a comparison picked.
    Choice(usize),
}

impl Value {
    fn number(&self) -> Option<f64> {
        match self {
            Value::Number(x) => Some(*x),
            Value::Text(t) => parse_number(t),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Text(t) => f.write_str(t),
            Value::Number(x) if x.fract() == 0.0 && x.abs() < 1e15 => write!(f, "{}", *x as i64),
            Value::Number(x) => write!(f, "{x}"),
            Value::Bool(b) => f.write_str(b.as_str()),
            Value::List(items) => {
                let items: Vec<String> = items.iter().map(Value::to_string).collect();
                f.write_str(&items.join(", "))
            }
            Value::Choice(k) => write!(f, "#{k}"),
        }
    }
}

/// Why the evaluator gives no answer (the generated example is discarded).
#[derive(Clone, Debug, PartialEq)]
pub enum NoAnswer {
    /// The answerer had no answer for step `step`.
    Unanswered {
        /// The step (1-based).
        step: usize,
    },
    /// Step `step` needs a number and got something else.
    NotNumeric {
        /// The step (1-based).
        step: usize,
    },
    /// The compared or combined values of step `step` are all equal.
    EqualValues {
        /// The step (1-based).
        step: usize,
    },
    /// Step `step`'s operator (or its form) is not executed.
    Unsupported {
        /// The step (1-based).
        step: usize,
        /// Its operator, if identified.
        operator: Option<Operator>,
    },
    /// A yes/no step was answered with something else.
    NotYesNo {
        /// The step (1-based).
        step: usize,
    },
    /// The final answer is empty or longer than 8 words.
    BadFinalAnswer(String),
    /// The QDMR itself is not well-formed (a reference to a later step).
    Malformed(String),
}

/// Evaluates `qdmr` step by step: `Ok(Ok(value))` with the final answer, `Ok(Err(reason))`
/// when there is none, `Err` only when the answerer fails.
pub fn evaluate(
    qdmr: &Qdmr,
    answerer: &dyn StepAnswerer,
) -> Result<std::result::Result<Value, NoAnswer>> {
    if let Err(e) = Qdmr::new(qdmr.steps().to_vec()) {
        return Ok(Err(NoAnswer::Malformed(e.to_string())));
    }
    let mut values: Vec<Value> = Vec::with_capacity(qdmr.len());
    for (i, step) in qdmr.steps().iter().enumerate() {
        let k = i + 1;
        match evaluate_step(qdmr, k, step, &values, answerer)? {
            Ok(v) => values.push(v),
            Err(reason) => return Ok(Err(reason)),
        }
    }
    let last = values.pop().expect("a QDMR has a step");
    let last = match last {
        Value::List(mut items) if items.len() == 1 => items.remove(0),
        v => v,
    };
    let text = last.to_string();
    let words = text.split_whitespace().count();
    if words == 0 || words > 8 || !text.chars().any(char::is_alphanumeric) {
        return Ok(Err(NoAnswer::BadFinalAnswer(text)));
    }
    if qdmr.last().text().to_lowercase().starts_with("if") && !matches!(last, Value::Bool(_)) {
        return Ok(Err(NoAnswer::NotYesNo { step: qdmr.len() }));
    }
    Ok(Ok(last))
}

fn evaluate_step(
    qdmr: &Qdmr,
    k: usize,
    step: &Step,
    values: &[Value],
    answerer: &dyn StepAnswerer,
) -> Result<std::result::Result<Value, NoAnswer>> {
    let text = step.text();
    let refs = step.references();
    let operator = identify_with(&text, Rules::Bpb);
    let numbers = || -> std::result::Result<Vec<f64>, NoAnswer> {
        refs.iter()
            .map(|&r| {
                values[r - 1]
                    .number()
                    .ok_or(NoAnswer::NotNumeric { step: k })
            })
            .collect()
    };
    let value = match operator {
        Some(Operator::Aggregate | Operator::Project) if count_like(&text).is_some() => {
            let percentage = count_like(&text) == Some(true);
            let referenced = &values[refs[0] - 1];
            match referenced.number() {
                Some(x) if percentage || x.fract() == 0.0 => Ok(Value::Number(x)),
                _ => Err(NoAnswer::NotNumeric { step: k }),
            }
        }
        Some(Operator::Arithmetic) => match (arithmetic_op(&text), numbers()) {
            (_, Err(e)) => Err(e),
            (_, Ok(xs)) if xs.windows(2).all(|w| w[0] == w[1]) => {
                Err(NoAnswer::EqualValues { step: k })
            }
            (Some(ArithmeticOp::Difference), Ok(xs)) => {
                Ok(Value::Number((xs[0] - xs[1..].iter().sum::<f64>()).abs()))
            }
            (Some(ArithmeticOp::Sum), Ok(xs)) => Ok(Value::Number(xs.iter().sum())),
            (Some(ArithmeticOp::Multiplication), Ok(xs)) => Ok(Value::Number(xs.iter().product())),
            _ => Err(NoAnswer::Unsupported { step: k, operator }),
        },
        Some(Operator::Comparison) => {
            let max = match comparison_op(&text) {
                Some(ComparisonOp::Max) => true,
                Some(ComparisonOp::Min) => false,
                _ => return Ok(Err(NoAnswer::Unsupported { step: k, operator })),
            };
            match numbers() {
                Err(e) => Err(e),
                Ok(xs) if xs.windows(2).all(|w| w[0] == w[1]) => {
                    Err(NoAnswer::EqualValues { step: k })
                }
                Ok(xs) => {
                    let mut best = 0;
                    for (j, x) in xs.iter().enumerate() {
                        if (max && *x > xs[best]) || (!max && *x < xs[best]) {
                            best = j;
                        }
                    }
                    Ok(Value::Choice(refs[best]))
                }
            }
        }
        Some(Operator::Union) => Ok(Value::List(
            refs.iter().map(|&r| values[r - 1].clone()).collect(),
        )),
        Some(Operator::Boolean) => match compare_step(qdmr, step, values) {
            Some(result) => result.map_err(|e| e.at(k)),
            None => ask(step, values, answerer)?
                .ok_or(NoAnswer::Unanswered { step: k })
                .and_then(|a| {
                    YesNo::parse(&a)
                        .map(Value::Bool)
                        .ok_or(NoAnswer::NotYesNo { step: k })
                }),
        },
        Some(Operator::Select | Operator::Project | Operator::Filter) => {
            ask(step, values, answerer)?
                .filter(|a| !a.trim().is_empty())
                .map(Value::Text)
                .ok_or(NoAnswer::Unanswered { step: k })
        }
        _ => Err(NoAnswer::Unsupported { step: k, operator }),
    };
    Ok(value)
}

/// `Some(false)` for "number of #k" / "amount of #k", `Some(true)` for "percentage of #k".
fn count_like(text: &str) -> Option<bool> {
    let bare = text.strip_prefix("the ").unwrap_or(text);
    if bare.starts_with("percentage of #") {
        Some(true)
    } else if bare.starts_with("number of #") || bare.starts_with("amount of #") {
        Some(false)
    } else {
        None
    }
}

impl NoAnswer {
    fn at(self, step: usize) -> NoAnswer {
        match self {
            NoAnswer::NotNumeric { .. } => NoAnswer::NotNumeric { step },
            NoAnswer::EqualValues { .. } => NoAnswer::EqualValues { step },
            other => other,
        }
    }
}

/// "if #a is higher than / lower than / the same as X": `None` when the step has another form.
fn compare_step(
    qdmr: &Qdmr,
    step: &Step,
    values: &[Value],
) -> Option<std::result::Result<Value, NoAnswer>> {
    let parts = step.parts();
    let (Part::Text(head), Part::Ref(a), Part::Text(tail)) =
        (parts.first()?, parts.get(1)?, parts.get(2)?)
    else {
        return None;
    };
    if head.trim() != "if" {
        return None;
    }
    let (comparison, rest) = [("higher than", 1), ("lower than", -1), ("the same as", 0)]
        .into_iter()
        .find_map(|(phrase, c)| {
            tail.trim()
                .strip_prefix("is ")
                .and_then(|t| t.strip_prefix(phrase))
                .map(|rest| (c, rest.trim().to_string()))
        })?;
    let left = values[a - 1].number();
    let (right, reference) = match parts.get(3) {
        Some(Part::Ref(b)) if rest.is_empty() && parts.len() == 4 => {
            (values[b - 1].number(), Some(*b))
        }
        None if !rest.is_empty() => (parse_number(&rest), None),
        _ => return None,
    };
    let (Some(left), Some(right)) = (left, right) else {
        return Some(Err(NoAnswer::NotNumeric { step: 0 }));
    };
    if reference.is_some() && left == right {
        return Some(Err(NoAnswer::EqualValues { step: 0 }));
    }
    let mut yes = match comparison {
        1 => left > right,
        -1 => left < right,
        _ => left == right,
    };
    let about_age = |k: usize| {
        qdmr.step(k).is_some_and(|s| {
            let t = s.text().to_lowercase();
            t.contains("how old") || t.contains("how young")
        })
    };
    if comparison != 0 && (about_age(*a) || reference.is_some_and(about_age)) {
        yes = !yes;
    }
    Some(Ok(Value::Bool(if yes { YesNo::Yes } else { YesNo::No })))
}

/// The answerer's answer to the step as a question.
fn ask(step: &Step, values: &[Value], answerer: &dyn StepAnswerer) -> Result<Option<String>> {
    answerer.answer(&step_question(step, values))
}

/// The step as a question for the answerer: references replaced by their results; kept when it
/// starts with a wh-word or "if", else "what is the …"; always ending with "?".
pub fn step_question(step: &Step, values: &[Value]) -> String {
    let text: String = step
        .parts()
        .iter()
        .map(|p| match p {
            Part::Text(t) => t.clone(),
            Part::Ref(r) => values
                .get(r - 1)
                .map_or_else(|| format!("#{r}"), Value::to_string),
        })
        .collect();
    let text = text.trim().trim_end_matches('?').trim().to_string();
    let lower = text.to_lowercase();
    let first = lower.split_whitespace().next().unwrap_or("");
    let keep = [
        "what", "who", "whom", "whose", "when", "where", "which", "why", "how", "if",
    ]
    .contains(&first);
    if keep {
        format!("{text}?")
    } else if lower.starts_with("the ") {
        format!("what is {text}?")
    } else {
        format!("what is the {text}?")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Answers from a table keyed by the exact question; records what it was asked.
    struct Table(HashMap<&'static str, &'static str>);

    impl StepAnswerer for Table {
        fn answer(&self, question: &str) -> Result<Option<String>> {
            Ok(self.0.get(question).map(|a| a.to_string()))
        }
    }

    fn table(entries: &[(&'static str, &'static str)]) -> Table {
        Table(entries.iter().copied().collect())
    }

    #[test]
    fn change_last_to_arithmetic_is_computed() {
        // Hughes-Donahue / Art Euphoric with ChangeLast's "the difference of #1 and #2".
        let q = Qdmr::from_texts(&[
            "when was Hughes-Donahue Gallery founded",
            "when was Art Euphoric founded",
            "the difference of #1 and #2",
        ])
        .unwrap();
        let rc = table(&[
            ("when was Hughes-Donahue Gallery founded?", "1992"),
            ("when was Art Euphoric founded?", "1996"),
        ]);
        assert_eq!(evaluate(&q, &rc).unwrap(), Ok(Value::Number(4.0)));
    }

    #[test]
    fn boolean_comparison_and_age_flip() {
        let q = Qdmr::from_texts(&["year of x", "year of y", "if #1 is the same as #2"]).unwrap();
        let rc = table(&[
            ("what is the year of x?", "1990"),
            ("what is the year of y?", "1991"),
        ]);
        assert_eq!(evaluate(&q, &rc).unwrap(), Ok(Value::Bool(YesNo::No)));
        let q = Qdmr::from_texts(&["how old is Ann", "how old is Bo", "if #1 is higher than #2"])
            .unwrap();
        let rc = table(&[("how old is Ann?", "30"), ("how old is Bo?", "20")]);
        // The code flips comparisons over "how old" steps (they often answer with birth years).
        assert_eq!(evaluate(&q, &rc).unwrap(), Ok(Value::Bool(YesNo::No)));
        // AppendBool's step: "if #2 is higher than 2".
        let q = Qdmr::from_texts(&[
            "teams of the league",
            "number of #1",
            "if #2 is higher than 2",
        ])
        .unwrap();
        let rc = table(&[("what is the teams of the league?", "8")]);
        assert_eq!(evaluate(&q, &rc).unwrap(), Ok(Value::Bool(YesNo::Yes)));
    }

    #[test]
    fn type_checks_and_filters() {
        let q = Qdmr::from_texts(&["x", "y", "sum of #1 and #2"]).unwrap();
        let rc = table(&[("what is the x?", "Paris"), ("what is the y?", "3")]);
        assert_eq!(
            evaluate(&q, &rc).unwrap(),
            Err(NoAnswer::NotNumeric { step: 3 })
        );
        let rc = table(&[("what is the x?", "3"), ("what is the y?", "3")]);
        assert_eq!(
            evaluate(&q, &rc).unwrap(),
            Err(NoAnswer::EqualValues { step: 3 })
        );
        let q = Qdmr::from_texts(&["x", "y", "which is highest of #1 , #2"]).unwrap();
        let rc = table(&[("what is the x?", "3"), ("what is the y?", "5")]);
        assert_eq!(evaluate(&q, &rc).unwrap(), Ok(Value::Choice(2)));
        let q = Qdmr::from_texts(&["x"]).unwrap();
        let rc = table(&[(
            "what is the x?",
            "one two three four five six seven eight nine",
        )]);
        assert!(matches!(
            evaluate(&q, &rc).unwrap(),
            Err(NoAnswer::BadFinalAnswer(_))
        ));
        let q = Qdmr::from_texts(&["if x is red"]).unwrap();
        let rc = table(&[("if x is red?", "blue")]);
        assert_eq!(
            evaluate(&q, &rc).unwrap(),
            Err(NoAnswer::NotYesNo { step: 1 })
        );
        let q = Qdmr::from_texts(&["x", "#1 sorted by size"]).unwrap();
        let rc = table(&[("what is the x?", "a")]);
        assert_eq!(
            evaluate(&q, &rc).unwrap(),
            Err(NoAnswer::Unsupported {
                step: 2,
                operator: Some(Operator::Sort)
            })
        );
    }

    #[test]
    fn prune_step_result_and_union() {
        // Cunter after PruneStep: "adult population of Cunter; number of #1".
        let q = Qdmr::from_texts(&["adult population of Cunter", "number of #1"]).unwrap();
        let rc = table(&[("what is the adult population of Cunter?", "1,200")]);
        assert_eq!(evaluate(&q, &rc).unwrap(), Ok(Value::Number(1200.0)));
        let q = Qdmr::from_texts(&["x", "y", "#1 , #2"]).unwrap();
        let rc = table(&[("what is the x?", "Ann"), ("what is the y?", "Bo")]);
        assert_eq!(evaluate(&q, &rc).unwrap().unwrap().to_string(), "Ann, Bo");
        assert_eq!(
            step_question(
                &Step::parse("who was #1 married to"),
                &[Value::Text("Ann".into())]
            ),
            "who was Ann married to?"
        );
    }
}
