//! What a metamorphic relation promises about the follow-up output (`Expectation`) and when the
//! promise applies at all (`Precondition`).
//!
//! Both are serialised as tagged JSON strings in the `case` batch (`{"kind":"inverted"}`), which
//! every Parquet reader understands and which keeps the schema stable as relations are added.

use serde::{Deserialize, Serialize};

/// The relation between source and follow-up outputs that the judge checks.
///
/// A new MR adds a transformation in `perturb`; it adds a variant here only when the relation
/// itself is new.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Expectation {
    /// The follow-up label equals the source label (consistency MRs, e.g. MT4MRC MR2-x).
    Equal,
    /// The follow-up label differs from the source label (inversion MRs on binary tasks, e.g.
    /// MT4MRC MR1-x: a violation is `o == o'`).
    Inverted,
    /// The follow-up label is exactly `label`, whatever the source said.
    LabelIs {
        /// The required label.
        label: String,
    },
    /// The follow-up answer span matches the source answer under SQuAD normalisation.
    SameAnswer {
        /// Exact match or token F1.
        metric: AnswerMetric,
        /// The least score that counts as the same answer (1.0 for exact match).
        threshold: f32,
    },
}

/// How two extractive answers are compared (SQuAD's official normalisation: lower case, strip
/// punctuation, articles and extra whitespace).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerMetric {
    /// Normalised strings are identical.
    ExactMatch,
    /// Token-level F1 between normalised strings.
    F1,
}

/// A condition on a source prediction that must hold for a case to be judged at all.
///
/// MT4MRC's inversion MRs (seed-000) apply only when the model under test answered the source
/// with Yes; a case whose precondition fails is reported as not applicable, not as a violation,
/// and is left out of the violation rate's denominator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Precondition {
    /// The prediction for source `source` (index into `source_ids`) has label `label`.
    SourceLabelIs {
        /// Index of the source in the case's `source_ids`.
        #[serde(default)]
        source: usize,
        /// The label it must have.
        label: String,
    },
}

/// serde helpers that store a value as a JSON string column.
pub(crate) mod json_string {
    use serde::de::{DeserializeOwned, Error as _};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        let text = serde_json::to_string(value).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&text)
    }

    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        let text = String::deserialize(d)?;
        serde_json::from_str(&text).map_err(D::Error::custom)
    }

    /// The same for an optional value (null stays null).
    pub mod option {
        use super::*;

        pub fn serialize<T: Serialize, S: Serializer>(
            value: &Option<T>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match value {
                Some(v) => {
                    let text = serde_json::to_string(v).map_err(serde::ser::Error::custom)?;
                    s.serialize_some(&text)
                }
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<T>, D::Error> {
            match Option::<String>::deserialize(d)? {
                Some(text) => serde_json::from_str(&text)
                    .map(Some)
                    .map_err(D::Error::custom),
                None => Ok(None),
            }
        }
    }
}
