//! Answer values shared by the relations that compute answers and the judge that checks them
//! (Break-Perturb-Build, seed-002): yes/no answers, numbers read as the authors' evaluator reads
//! them, and the constraints a perturbed question's answer must satisfy when it cannot be
//! computed.

/// A yes/no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum YesNo {
    /// "yes"
    Yes,
    /// "no"
    No,
}

impl YesNo {
    /// Reads "yes"/"no" (case and surrounding spaces ignored).
    pub fn parse(answer: &str) -> Option<YesNo> {
        match answer.trim().to_lowercase().as_str() {
            "yes" => Some(YesNo::Yes),
            "no" => Some(YesNo::No),
            _ => None,
        }
    }

    /// "yes" or "no".
    pub fn as_str(self) -> &'static str {
        match self {
            YesNo::Yes => "yes",
            YesNo::No => "no",
        }
    }

    /// The other answer.
    pub fn negated(self) -> YesNo {
        match self {
            YesNo::Yes => YesNo::No,
            YesNo::No => YesNo::Yes,
        }
    }
}

/// A constraint on â relative to a, produced even when â cannot be computed (seed-002 §6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Constraint {
    /// â is a number (ChangeLast → arithmetic).
    Numeric,
    /// â is yes or no (ChangeLast → boolean).
    Boolean,
    /// â ≥ a (ReplaceArith difference → sum, non-negative operands).
    AtLeastOriginal,
    /// â ≤ a (ReplaceArith sum → difference, non-negative operands).
    AtMostOriginal,
}

impl Constraint {
    /// Whether `prediction` satisfies the constraint given the original answer; `None` when a
    /// ≥/≤ constraint meets a non-numeric original answer.
    pub fn satisfied(self, original: &str, prediction: &str) -> Option<bool> {
        match self {
            Constraint::Numeric => Some(parse_number(prediction).is_some()),
            Constraint::Boolean => Some(YesNo::parse(prediction).is_some()),
            Constraint::AtLeastOriginal | Constraint::AtMostOriginal => {
                let a = parse_number(original)?;
                Some(parse_number(prediction).is_some_and(|p| {
                    if self == Constraint::AtLeastOriginal {
                        p >= a
                    } else {
                        p <= a
                    }
                }))
            }
        }
    }
}

/// A number in an answer, as the authors' evaluator reads it: `,%£$` stripped, then the whole
/// text or else its first token; number words up to ten are read too.
pub fn parse_number(answer: &str) -> Option<f64> {
    let cleaned: String = answer
        .chars()
        .filter(|c| !matches!(c, ',' | '%' | '£' | '$'))
        .collect();
    let cleaned = cleaned.trim();
    let word = |w: &str| -> Option<f64> {
        const WORDS: [&str; 11] = [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        ];
        w.parse::<f64>().ok().filter(|x| x.is_finite()).or_else(|| {
            WORDS
                .iter()
                .position(|n| n.eq_ignore_ascii_case(w))
                .map(|i| i as f64)
        })
    };
    word(cleaned).or_else(|| word(cleaned.split_whitespace().next()?))
}
