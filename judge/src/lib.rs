//! `metamorph-judge`: checks every case's [`Expectation`] against the model's source and
//! follow-up predictions and aggregates violation rates per MR and model.
//!
//! * [`judge_case`] is the oracle: one function, one branch per expectation kind, shared by every
//!   MR that promises that kind of relation.
//! * [`JudgeStage`] consumes `prediction` and `case` batches in any order (cases wait until
//!   their predictions have arrived; anything still missing at the end is an error naming the
//!   case and input) and produces `verdict` batches.
//! * [`Summary`] aggregates verdicts into per-MR × model counts with a Wilson 95% interval,
//!   pooled rates, paired signed-rank comparisons ([`wilcoxon_signed_rank`], seed-000 RQ4) and
//!   contrast-set [`consistency`] (seed-002): the versioned `summary.json` written next to the
//!   Parquet verdicts.
//! * [`Report`] adds the most instructive violations ([`select_examples`]) and renders the
//!   self-contained `report.html`.
//! * [`RunDiff`] compares two runs' rates (Newcombe intervals of the differences) for
//!   regression checks in CI.
//!
//! A case whose [`Precondition`] fails on the source prediction is *not applicable*: it gets a
//! verdict with `applicable = false` and `holds = null` and is left out of the violation rate,
//! as MT4MRC (seed-000) defines it (`V_r` = violations / eligible pairs).
//!
//! [`Expectation`]: metamorph_data::Expectation
//! [`Precondition`]: metamorph_data::Precondition
#![deny(missing_docs)]

pub mod commands;
mod consistency;
mod coref_links;
mod diff;
mod examples;
mod oracle;
mod report;
mod squad_metric;
mod stage;
mod stats;
mod summary;

pub use consistency::{consistency, Consistency, CONSISTENCY_FAMILIES};
pub use coref_links::{link_scores, LinkScores};
pub use diff::{Change, RateChange, RunDiff, DEFAULT_MAX_REGRESSION};
pub use examples::{
    case_rank, choose_violations, describe, read_cases, scan_cases, select_examples, violated_ids,
    violation_example, CaseRank, CaseScan, FieldPair, ViolationExample, EXAMPLES_PER_RELATION,
};
pub use oracle::judge_case;
pub use report::Report;
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
