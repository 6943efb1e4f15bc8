//! Comparing two runs (`metamorph-judge diff RUN_A RUN_B`): which MR × model violation rates
//! changed beyond their uncertainty, for regression testing of a model between versions.
//!
//! A rate *changed* when Newcombe's 95% interval for the difference `rate_B − rate_A` (built from
//! the two Wilson intervals, see [`newcombe_difference`]) excludes 0. A change is a
//! *regression* when B has the higher rate, and it *fails the check* when the rise also exceeds
//! the threshold (`--max-regression`, an absolute rate, default 0.05).
//!
//! Rows are matched by (family, MR, model). When each run has exactly one model and their
//! names differ (a run of model v1 against a run of model v2), the two models are paired and
//! rows are matched by (family, MR).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::stats::newcombe_difference;
use crate::summary::{MrSummary, Summary};

/// The default `--max-regression`.
pub const DEFAULT_MAX_REGRESSION: f64 = 0.05;

/// What happened to one rate between run A and run B.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// The interval of the difference includes 0.
    Unchanged,
    /// B's rate is higher beyond the interval.
    Regressed,
    /// B's rate is lower beyond the interval.
    Improved,
    /// Only run A has the relation (or applicable cases for it).
    OnlyInA,
    /// Only run B has the relation (or applicable cases for it).
    OnlyInB,
}

fn usable(r: &Option<MrSummary>) -> Option<&MrSummary> {
    r.as_ref().filter(|r| r.applicable > 0)
}

/// One (family, MR, model) row of a diff.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RateChange {
    /// MR family.
    pub family: String,
    /// The relation.
    pub mr: String,
    /// The model in run A.
    pub model_a: String,
    /// The model in run B.
    pub model_b: String,
    /// Run A's counts.
    pub a: Option<MrSummary>,
    /// Run B's counts.
    pub b: Option<MrSummary>,
    /// `rate_B − rate_A`.
    pub delta: Option<f64>,
    /// Newcombe 95% interval of `delta`.
    pub ci95: Option<[f64; 2]>,
    /// The verdict on the change.
    pub change: Change,
}

/// The rows of a diff, in (family, MR, model) order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunDiff {
    /// `(model in A, model in B)` when two differently named single models were paired.
    pub paired_models: Option<(String, String)>,
    /// One row per (family, MR, model) in either run.
    pub rows: Vec<RateChange>,
}

impl RunDiff {
    /// Compares run A's summary with run B's.
    pub fn new(a: &Summary, b: &Summary) -> RunDiff {
        let (ma, mb) = (a.models(), b.models());
        let paired_models = (ma.len() == 1 && mb.len() == 1 && ma[0] != mb[0])
            .then(|| (ma[0].to_string(), mb[0].to_string()));
        // Rows are keyed by (family, mr, model-in-A-terms).
        let to_a = |model: &str| match &paired_models {
            Some((a_name, _)) => a_name.clone(),
            None => model.to_string(),
        };
        let keys: BTreeSet<(String, String, String)> = a
            .relations
            .iter()
            .map(|r| (r.family.clone(), r.mr.clone(), r.model.clone()))
            .chain(
                b.relations
                    .iter()
                    .map(|r| (r.family.clone(), r.mr.clone(), to_a(&r.model))),
            )
            .collect();
        let rows = keys
            .into_iter()
            .map(|(family, mr, model)| {
                let model_b = match &paired_models {
                    Some((_, b_name)) => b_name.clone(),
                    None => model.clone(),
                };
                let find = |s: &Summary, m: &str| {
                    s.relations
                        .iter()
                        .find(|r| r.family == family && r.mr == mr && r.model == m)
                        .cloned()
                };
                let (ra, rb) = (find(a, &model), find(b, &model_b));
                let (delta, ci95, change) = match (usable(&ra), usable(&rb)) {
                    (Some(x), Some(y)) => {
                        let d = y.violations as f64 / y.applicable as f64
                            - x.violations as f64 / x.applicable as f64;
                        let ci = newcombe_difference(
                            x.violations,
                            x.applicable,
                            y.violations,
                            y.applicable,
                        );
                        let change = match ci {
                            Some([lo, _]) if lo > 0.0 => Change::Regressed,
                            Some([_, hi]) if hi < 0.0 => Change::Improved,
                            _ => Change::Unchanged,
                        };
                        (Some(d), ci, change)
                    }
                    (Some(_), None) => (None, None, Change::OnlyInA),
                    (None, Some(_)) => (None, None, Change::OnlyInB),
                    (None, None) => (None, None, Change::Unchanged),
                };
                RateChange {
                    family,
                    mr,
                    model_a: model,
                    model_b,
                    a: ra,
                    b: rb,
                    delta,
                    ci95,
                    change,
                }
            })
            .collect();
        RunDiff {
            paired_models,
            rows,
        }
    }

    /// Rows that regressed beyond their interval by more than `max_regression` (absolute rate).
    pub fn regressions(&self, max_regression: f64) -> Vec<&RateChange> {
        self.rows
            .iter()
            .filter(|r| r.change == Change::Regressed && r.delta.unwrap_or(0.0) > max_regression)
            .collect()
    }

    /// Rows whose rate changed beyond their interval.
    pub fn changed(&self) -> Vec<&RateChange> {
        self.rows
            .iter()
            .filter(|r| matches!(r.change, Change::Regressed | Change::Improved))
            .collect()
    }

    /// A plain-text report: every row, then a one-line conclusion.
    pub fn table(&self, max_regression: f64) -> String {
        let mut out = String::new();
        if let Some((a, b)) = &self.paired_models {
            out.push_str(&format!("comparing model `{a}` (A) with `{b}` (B)\n"));
        }
        let label = |r: &RateChange| {
            if r.model_a == r.model_b {
                r.model_a.clone()
            } else {
                format!("{} → {}", r.model_a, r.model_b)
            }
        };
        let width = self
            .rows
            .iter()
            .map(|r| label(r).chars().count())
            .max()
            .unwrap_or(0)
            .max(5);
        out.push_str(&format!(
            "{:<10} {:<10} {:<width$} {:>15} {:>15} {:>9}  {:<20} {}\n",
            "family", "mr", "model", "A", "B", "Δ", "95% CI of Δ", "change"
        ));
        let cell = |r: &Option<MrSummary>| match r {
            Some(r) if r.applicable > 0 => format!(
                "{:.1}% {}/{}",
                r.violations as f64 / r.applicable as f64 * 100.0,
                r.violations,
                r.applicable
            ),
            Some(_) => "n/a 0/0".into(),
            None => "-".into(),
        };
        for r in &self.rows {
            let change = match r.change {
                Change::Regressed if r.delta.unwrap_or(0.0) > max_regression => {
                    "REGRESSED (over threshold)"
                }
                Change::Regressed => "regressed (within threshold)",
                Change::Improved => "improved",
                Change::Unchanged => "unchanged",
                Change::OnlyInA => "only in A",
                Change::OnlyInB => "only in B",
            };
            out.push_str(&format!(
                "{:<10} {:<10} {:<width$} {:>15} {:>15} {:>9}  {:<20} {}\n",
                r.family,
                r.mr,
                label(r),
                cell(&r.a),
                cell(&r.b),
                r.delta
                    .map(|d| format!("{:+.1}pp", d * 100.0))
                    .unwrap_or_else(|| "-".into()),
                r.ci95
                    .map(|[lo, hi]| format!("[{:+.1}, {:+.1}]pp", lo * 100.0, hi * 100.0))
                    .unwrap_or_else(|| "-".into()),
                change
            ));
        }
        let regressions = self.regressions(max_regression).len();
        let changed = self.changed().len();
        out.push_str(&if regressions > 0 {
            format!(
                "{regressions} regression(s) beyond the 95% interval and above {:.1} points; {changed} of {} rate(s) changed\n",
                max_regression * 100.0,
                self.rows.len()
            )
        } else if changed > 0 {
            format!(
                "no regression above {:.1} points; {changed} of {} rate(s) changed beyond their interval\n",
                max_regression * 100.0,
                self.rows.len()
            )
        } else {
            format!(
                "no change: all {} rate(s) within their intervals\n",
                self.rows.len()
            )
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(model: &str, rates: &[(&str, u64, u64)]) -> Summary {
        let mut s = Summary::default();
        for (mr, k, n) in rates {
            s.relations.push(MrSummary {
                family: "mt4mrc".into(),
                mr: (*mr).into(),
                model: model.into(),
                cases: *n,
                applicable: *n,
                violations: *k,
                violation_rate: Some(*k as f64 / *n as f64),
                ci95: crate::stats::wilson(*k, *n),
                ..MrSummary::default()
            });
        }
        s
    }

    #[test]
    fn a_run_against_itself_is_unchanged() {
        let a = summary("m", &[("MR1-1", 10, 100), ("MR1-3", 5, 5)]);
        let d = RunDiff::new(&a, &a);
        assert!(d.rows.iter().all(|r| r.change == Change::Unchanged));
        assert!(d.regressions(0.0).is_empty());
        assert!(d.table(0.05).contains("no change"));
    }

    #[test]
    fn single_models_are_paired_and_changes_classified() {
        let a = summary(
            "v1",
            &[("MR1-1", 10, 100), ("MR1-2", 40, 100), ("MR1-3", 3, 10)],
        );
        let b = summary(
            "v2",
            &[("MR1-1", 30, 100), ("MR1-2", 20, 100), ("MR1-3", 4, 10)],
        );
        let d = RunDiff::new(&a, &b);
        assert_eq!(d.paired_models, Some(("v1".into(), "v2".into())));
        let changes: Vec<Change> = d.rows.iter().map(|r| r.change).collect();
        assert_eq!(
            changes,
            [Change::Regressed, Change::Improved, Change::Unchanged]
        );
        assert_eq!(d.regressions(0.05).len(), 1);
        assert!(d.regressions(0.25).is_empty());
    }

    #[test]
    fn rows_in_one_run_only_are_listed() {
        let a = summary("m", &[("MR1-1", 1, 10)]);
        let b = summary("m", &[("MR1-1", 1, 10), ("MR2-1", 1, 10)]);
        let d = RunDiff::new(&a, &b);
        assert_eq!(d.rows[1].change, Change::OnlyInB);
    }
}
