//! What a metamorphic relation promises about the follow-up output (`Expectation`) and when the
//! promise applies at all (`Precondition`).
//!
//! Both are serialised as tagged JSON strings in the `case` batch (`{"kind":"inverted"}`), which
//! every Parquet reader understands and which keeps the schema stable as relations are added;
//! [`crate::Case::expectation`] and [`crate::Case::precondition`] read them back.

use serde::{Deserialize, Serialize};

/// The relation between source and follow-up outputs that the judge checks.
///
/// ```
/// use metamorph_data::Expectation;
///
/// let json = serde_json::to_string(&Expectation::LabelIs { label: "0".into() }).unwrap();
/// assert_eq!(json, r#"{"kind":"label_is","label":"0"}"#);
/// ```
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
    /// The follow-up label is the image of the source label under `map` (SIT4RE MR-S2: the
    /// inverse relation; MR-R2: the same relation at a coarser granularity). A source label
    /// missing from the map fails the case; pair it with [`Precondition::SourceLabelIn`] over the
    /// map's keys so that such sources are reported as not applicable instead.
    MapLabel {
        /// Source label → required follow-up label.
        map: std::collections::BTreeMap<String, String>,
    },
    /// The follow-up label equals the label predicted for source `source` (SIT4RE MR-C1/C2:
    /// the combined pair keeps the *second* source's relation).
    EqualToSource {
        /// Index of the source in the case's `source_ids`.
        source: usize,
    },
    /// The follow-up answer span matches the source answer under SQuAD normalisation.
    SameAnswer {
        /// Exact match or token F1.
        metric: AnswerMetric,
        /// The least score that counts as the same answer (1.0 for exact match).
        threshold: f32,
    },
    /// The follow-up's coreference clusters are the source's (CREST, seed-004): the follow-up's
    /// character spans are mapped back to the source text through the case's edits, then the
    /// BLANC-style link precision `|L_s ∩ L_f| / |L_f|` and recall `|L_s ∩ L_f| / |L_s|` over
    /// coreference links (unordered pairs of mentions in one cluster; singletons have none)
    /// must reach the thresholds. At 1.0 and 1.0 (the paper's default) this is equality of the
    /// non-singleton clusters; lowering `min_precision` tolerates extra links in the follow-up,
    /// lowering `min_recall` missing ones. Two outputs without links are consistent.
    SameClusters {
        /// The least link precision of the follow-up against the source.
        min_precision: f32,
        /// The least link recall of the follow-up against the source.
        min_recall: f32,
    },
    /// The follow-up's answer is known, or constrained (Break-Perturb-Build, seed-002): with a
    /// `value`, the answer's SQuAD-normalised token F1 against it must reach `min_f1` (BPB:
    /// 0.8); without one, it must satisfy `constraint` relative to `original`, the original
    /// question's gold answer (a number, yes/no, ≥ or ≤ the original). The source's own output
    /// plays no part: contrast sets are judged against gold and computed answers.
    Answer {
        /// The expected answer.
        value: Option<String>,
        /// What the answer must satisfy when `value` is unknown.
        constraint: Option<crate::answer_value::Constraint>,
        /// The original question's gold answer.
        original: String,
        /// The least F1 with `value` that counts as right.
        min_f1: f32,
    },
    /// The follow-up is source `parent` with source `part` inserted (NLPLego's sentiment
    /// relation, seed-003 Eq. 4): with `L` the label predicted for `part` alone, the
    /// probability of the other classes together must not rise by more than `max_rise` from
    /// `parent` to the follow-up — for a binary task, the opposite class's probability, the
    /// paper's oracle. Needs class probabilities from the model.
    Directional {
        /// Index of the parent sentence in the case's sources.
        parent: usize,
        /// Index of the inserted part, classified alone.
        part: usize,
        /// The most the other classes' probability may rise (the paper's 0.1).
        max_rise: f32,
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
    /// The prediction for source `source` has one of `labels` (SIT4RE: "the predicted relation
    /// is symmetric", "… has an inverse", "… has a coarser granularity").
    SourceLabelIn {
        /// Index of the source in the case's `source_ids`.
        #[serde(default)]
        source: usize,
        /// The labels it may have.
        labels: Vec<String>,
    },
    /// The prediction for source `source` has none of `labels` (NLPLego: an adjunct the model
    /// calls neutral gives its sentence no direction).
    SourceLabelNotIn {
        /// Index of the source in the case's `source_ids`.
        #[serde(default)]
        source: usize,
        /// The labels it must not have.
        labels: Vec<String>,
    },
    /// Every one of `all` holds (SIT4RE MR-C1/C2 constrain both sources).
    All {
        /// The conditions.
        all: Vec<Precondition>,
    },
}
