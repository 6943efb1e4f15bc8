//! `metamorph-judge`: checks every case's [`Expectation`] against the model's source and
//! follow-up predictions and aggregates violation rates per MR and model.
//!
//! * [`judge_case`] is the oracle: one function, one branch per expectation kind, shared by every
//!   MR that promises that kind of relation.
//! * [`JudgeStage`] consumes `prediction` and `case` batches in any order (cases wait until
//!   their predictions have arrived; anything still missing at the end is an error naming the
//!   case and input) and produces `verdict` batches.
//! * [`Summary`] aggregates verdicts into per-MR × model counts with a Wilson 95% interval, the
//!   `summary.json` written next to the Parquet verdicts.
//!
//! A case whose [`Precondition`] fails on the source prediction is *not applicable*: it gets a
//! verdict with `applicable = false` and `holds = null` and is left out of the violation rate,
//! as MT4MRC (seed-000) defines it (`V_r` = violations / eligible pairs).
//!
//! [`Expectation`]: metamorph_data::Expectation
//! [`Precondition`]: metamorph_data::Precondition
#![deny(missing_docs)]

mod consistency;
mod oracle;
mod squad_metric;
mod stage;
mod stats;
mod summary;

pub use consistency::{consistency, Consistency, CONSISTENCY_FAMILIES};
pub use oracle::judge_case;
pub use squad_metric::{exact_match, normalize_answer, token_f1};
pub use stage::JudgeStage;
pub use stats::{
    decide, newcombe_difference, normal_cdf, wilcoxon_signed_rank, wilson, Decision, Method,
    SignedRank, ALPHA, EXACT_MAX_N, Z95,
};
pub use summary::{
    read_verdicts, Comparison, ComparisonKind, MrSummary, Pooled, Summary, SUMMARY_SCHEMA,
    SUMMARY_VERSION,
};
