//! Violation rates per (family, MR, model), with a Wilson score 95% interval.

use std::collections::BTreeMap;
use std::path::Path;

use metamorph_data::{
    from_batch, glob_files, read_shard, AtomicFile, Error, Result, ShardSpec, Verdict,
};
use serde::{Deserialize, Serialize};

/// The counts and rate of one MR for one model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MrSummary {
    /// MR family.
    pub family: String,
    /// The relation.
    pub mr: String,
    /// The model under test.
    pub model: String,
    /// Cases judged.
    pub cases: u64,
    /// Cases whose precondition held.
    pub applicable: u64,
    /// Applicable cases whose relation was violated.
    pub violations: u64,
    /// violations / applicable (null when nothing was applicable).
    pub violation_rate: Option<f64>,
    /// Wilson 95% interval of the rate, `[low, high]`.
    pub ci95: Option<[f64; 2]>,
}

/// The `summary.json` of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// One entry per (family, MR, model), sorted.
    pub relations: Vec<MrSummary>,
    /// Verdict files read.
    pub verdict_files: usize,
}

impl Summary {
    /// Aggregates verdicts.
    pub fn from_verdicts<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>) -> Summary {
        let mut groups: BTreeMap<(String, String, String), MrSummary> = BTreeMap::new();
        for v in verdicts {
            let entry = groups
                .entry((v.family.clone(), v.mr.clone(), v.model.clone()))
                .or_insert_with(|| MrSummary {
                    family: v.family.clone(),
                    mr: v.mr.clone(),
                    model: v.model.clone(),
                    ..MrSummary::default()
                });
            entry.cases += 1;
            if v.applicable {
                entry.applicable += 1;
                if v.holds == Some(false) {
                    entry.violations += 1;
                }
            }
        }
        let relations = groups
            .into_values()
            .map(|mut s| {
                if s.applicable > 0 {
                    s.violation_rate = Some(s.violations as f64 / s.applicable as f64);
                    s.ci95 = Some(wilson(s.violations, s.applicable));
                }
                s
            })
            .collect();
        Summary {
            relations,
            verdict_files: 0,
        }
    }

    /// Reads every verdict file matching the glob `pattern` and aggregates them.
    ///
    /// # Errors
    /// Unreadable files or files of another record kind.
    pub fn from_files(pattern: &str) -> Result<Summary> {
        // No match is a valid, empty summary (e.g. a run that produced no case).
        let files = glob_files(pattern)?;
        let mut verdicts = Vec::new();
        for path in &files {
            for batch in read_shard(path, ShardSpec::WHOLE, 4096)? {
                verdicts.extend(from_batch::<Verdict>(&batch?, &path.display().to_string())?);
            }
        }
        let mut summary = Summary::from_verdicts(&verdicts);
        summary.verdict_files = files.len();
        Ok(summary)
    }

    /// Writes the summary as pretty JSON, atomically.
    ///
    /// # Errors
    /// IO errors.
    pub fn write(&self, path: &Path) -> Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(|e| Error::Config(e.to_string()))?;
        AtomicFile::write_all(path, &json)?;
        Ok(())
    }

    /// A plain-text table of the summary.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<10} {:<8} {:<28} {:>6} {:>10} {:>10} {:>8}  {}\n",
            "family", "mr", "model", "cases", "applicable", "violations", "rate", "95% CI"
        );
        for s in &self.relations {
            let rate = s
                .violation_rate
                .map(|r| format!("{:.1}%", r * 100.0))
                .unwrap_or_else(|| "-".into());
            let ci = s
                .ci95
                .map(|[lo, hi]| format!("[{:.1}%, {:.1}%]", lo * 100.0, hi * 100.0))
                .unwrap_or_else(|| "-".into());
            out.push_str(&format!(
                "{:<10} {:<8} {:<28} {:>6} {:>10} {:>10} {:>8}  {}\n",
                s.family, s.mr, s.model, s.cases, s.applicable, s.violations, rate, ci
            ));
        }
        if self.relations.is_empty() {
            out.push_str("(no cases)\n");
        }
        out
    }
}

/// Wilson score interval for `k` successes out of `n`, at 95% (z = 1.96).
fn wilson(k: u64, n: u64) -> [f64; 2] {
    let (k, n) = (k as f64, n as f64);
    let z = 1.959_963_984_540_054_f64;
    let p = k / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n) + z * z / (4.0 * n * n)).sqrt() / denom;
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(mr: &str, applicable: bool, holds: Option<bool>) -> Verdict {
        Verdict {
            case_id: "c".into(),
            family: "mt4mrc".into(),
            mr: mr.into(),
            model: "m".into(),
            source_ids: vec!["s".into()],
            source_output: "yes".into(),
            followup_output: "yes".into(),
            applicable,
            holds,
            detail: String::new(),
        }
    }

    #[test]
    fn rates_leave_out_inapplicable_cases() {
        let verdicts = [
            verdict("MR1-3", true, Some(false)),
            verdict("MR1-3", true, Some(true)),
            verdict("MR1-3", false, None),
            verdict("MR1-3", true, Some(false)),
        ];
        let s = Summary::from_verdicts(&verdicts);
        let r = &s.relations[0];
        assert_eq!((r.cases, r.applicable, r.violations), (4, 3, 2));
        assert!((r.violation_rate.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        let [lo, hi] = r.ci95.unwrap();
        assert!(lo < 2.0 / 3.0 && 2.0 / 3.0 < hi);
    }

    #[test]
    fn wilson_matches_reference_values() {
        // Reference values: the textbook Wilson formula evaluated in Python (math module).
        let [lo, hi] = wilson(7, 12);
        assert!(
            (lo - 0.319_511).abs() < 1e-5 && (hi - 0.806_740).abs() < 1e-5,
            "{lo} {hi}"
        );
        let [lo, hi] = wilson(0, 10);
        assert!(lo == 0.0 && (hi - 0.277_533).abs() < 1e-5, "{hi}");
    }
}
