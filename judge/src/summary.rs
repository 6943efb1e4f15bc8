//! The `summary.json` of a run: violation rates per (family, MR, model) with a Wilson score 95%
//! interval, pooled rates per model, paired signed-rank comparisons (seed-000 RQ4) and
//! contrast-set consistency (seed-002).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use metamorph_data::{
    from_batch, glob_files, read_shard, AtomicFile, Error, Result, ShardSpec, Verdict,
};
use serde::{Deserialize, Serialize};

use crate::consistency::{consistency, Consistency, CONSISTENCY_FAMILIES};
use crate::stats::{wilcoxon_signed_rank, wilson, Decision, SignedRank};

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
    /// Applicable cases whose follow-up passed the validity step (all applicable ones when the
    /// step rejected the others, or did not run).
    #[serde(default)]
    pub valid_applicable: u64,
    /// Violations among them.
    #[serde(default)]
    pub valid_violations: u64,
    /// valid_violations / valid_applicable: the rate to trust (null when nothing was left).
    #[serde(default)]
    pub valid_violation_rate: Option<f64>,
}

/// What the validity step did with one relation's cases over a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RelationValidity {
    /// MR family.
    pub family: String,
    /// The relation.
    pub mr: String,
    /// Cases the relation generated (those checked and those not).
    pub generated: u64,
    /// Cases the step checked.
    pub checked: u64,
    /// Checked cases that passed every check.
    pub passed: u64,
    /// Failed cases set aside in the `rejected` output (`mode = "reject"`).
    pub rejected: u64,
    /// Failed cases kept and judged (`mode = "flag"`).
    pub flagged: u64,
    /// Failed cases per failing check (a case failing two checks counts in both).
    pub failed_by_check: BTreeMap<String, u64>,
}

impl RelationValidity {
    /// passed / checked (null when nothing was checked).
    pub fn pass_rate(&self) -> Option<f64> {
        (self.checked > 0).then(|| self.passed as f64 / self.checked as f64)
    }

    /// Counts one case: its validity (`None` when unchecked) and whether it was set aside.
    pub fn add(&mut self, validity: Option<&metamorph_data::Validity>, rejected: bool) {
        self.generated += 1;
        let Some(v) = validity else { return };
        self.checked += 1;
        if v.passed {
            self.passed += 1;
            return;
        }
        if rejected {
            self.rejected += 1;
        } else {
            self.flagged += 1;
        }
        for check in v.failed_checks() {
            *self.failed_by_check.entry(check.to_string()).or_default() += 1;
        }
    }
}

/// Identifies `summary.json` files (`schema`).
pub const SUMMARY_SCHEMA: &str = "metamorph.summary";

/// The version of the `summary.json` layout (`schema_version`): 2 added `schema`, `pooled`,
/// `comparisons` and `consistency` to version 1's `relations` and `verdict_files`; 3 added
/// `validity` and the `valid_*` counts of each relation; 4 added `usage` (predictions, cache
/// hits, requests and tokens per model and generator). Fields are only ever added within a
/// version; readers ignore fields they do not know.
pub const SUMMARY_VERSION: u32 = 4;

/// Violation counts pooled over relations: Σ violations / Σ applicable.
///
/// The interval treats every applicable case as independent; cases of one source under several
/// relations are not, so read it as a guide rather than a guarantee.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pooled {
    /// The model under test.
    pub model: String,
    /// The family pooled over, or `None` for every family.
    pub family: Option<String>,
    /// Relations pooled.
    pub relations: usize,
    /// Cases judged.
    pub cases: u64,
    /// Cases whose precondition held.
    pub applicable: u64,
    /// Applicable cases whose relation was violated.
    pub violations: u64,
    /// Σ violations / Σ applicable (null when nothing was applicable).
    pub violation_rate: Option<f64>,
    /// Wilson 95% interval of the pooled rate.
    pub ci95: Option<[f64; 2]>,
}

/// What a [`Comparison`] compares and how its pairs are formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComparisonKind {
    /// Two models (`a`, `b`), paired by relation: one pair of violation rates per (family, MR)
    /// that both models have applicable cases for.
    Models,
    /// Two relations (`a`, `b`) of one family for one model, paired by source example: per
    /// source, the violation rate among its applicable cases of each relation.
    Relations,
}

/// A paired Wilcoxon signed-rank comparison of `a`'s violation rates with `b`'s (differences
/// `a − b`), with seed-000's decision: `better` means `a` tends to have the lower rates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Models or relations.
    pub kind: ComparisonKind,
    /// For `relations`: the family; for `models`: `None`.
    pub family: Option<String>,
    /// For `relations`: the model; for `models`: `None`.
    pub model: Option<String>,
    /// The first model or relation (x of the test).
    pub a: String,
    /// The second model or relation (y of the test).
    pub b: String,
    /// Pairs formed.
    pub pairs: usize,
    /// The test; `None` when every pair is tied (no evidence of a difference: similar).
    pub test: Option<SignedRank>,
    /// seed-000's decision (`similar` when there is no test).
    pub decision: Decision,
}

/// The `summary.json` of a run (schema [`SUMMARY_SCHEMA`], version [`SUMMARY_VERSION`]; the
/// README's "summary.json" section documents every field).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Summary {
    /// Always [`SUMMARY_SCHEMA`].
    pub schema: String,
    /// [`SUMMARY_VERSION`] when written by this build (1 for files without the field).
    #[serde(default = "version_1")]
    pub schema_version: u32,
    /// Verdict files read.
    pub verdict_files: usize,
    /// One entry per (family, MR, model), sorted.
    pub relations: Vec<MrSummary>,
    /// Per model: one entry per family, then one over every family (`family: null`).
    pub pooled: Vec<Pooled>,
    /// Paired signed-rank comparisons between models and between relations.
    pub comparisons: Vec<Comparison>,
    /// Contrast-set consistency, for the families in [`CONSISTENCY_FAMILIES`] present.
    pub consistency: Vec<Consistency>,
    /// Per relation: cases generated, checked, passed, rejected or flagged by the validity
    /// step, and failures per check (empty when no case file was read).
    pub validity: Vec<RelationValidity>,
    /// Per model under test and generator: predictions, those answered from the response
    /// cache, inputs executed, requests and tokens of paid endpoints, summed over the run's
    /// shards (from their manifests; empty when none records any).
    pub usage: Vec<metamorph_data::usage::ModelUsage>,
}

/// Files written before versioning (only `relations` and `verdict_files`) are version 1.
fn version_1() -> u32 {
    1
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            schema: SUMMARY_SCHEMA.into(),
            schema_version: SUMMARY_VERSION,
            verdict_files: 0,
            relations: Vec::new(),
            pooled: Vec::new(),
            comparisons: Vec::new(),
            consistency: Vec::new(),
            validity: Vec::new(),
            usage: Vec::new(),
        }
    }
}

impl Summary {
    /// Aggregates verdicts: rates per relation, pooled rates, comparisons, consistency.
    pub fn from_verdicts<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>) -> Summary {
        Summary::from_verdicts_with_validity(verdicts, &HashSet::new(), Vec::new())
    }

    /// [`Summary::from_verdicts`], where the cases in `invalid` failed the validity step but
    /// were judged (`mode = "flag"`): they count in every rate but the `valid_*` ones; and
    /// `validity` is what the step did per relation.
    pub fn from_verdicts_with_validity<'a>(
        verdicts: impl IntoIterator<Item = &'a Verdict>,
        invalid: &HashSet<String>,
        validity: Vec<RelationValidity>,
    ) -> Summary {
        let verdicts: Vec<&Verdict> = verdicts.into_iter().collect();
        let mut groups: BTreeMap<(String, String, String), MrSummary> = BTreeMap::new();
        for v in &verdicts {
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
                let valid = !invalid.contains(&v.case_id);
                entry.valid_applicable += u64::from(valid);
                if v.holds == Some(false) {
                    entry.violations += 1;
                    entry.valid_violations += u64::from(valid);
                }
            }
        }
        let relations: Vec<MrSummary> = groups
            .into_values()
            .map(|mut s| {
                if s.applicable > 0 {
                    s.violation_rate = Some(s.violations as f64 / s.applicable as f64);
                    s.ci95 = wilson(s.violations, s.applicable);
                }
                if s.valid_applicable > 0 {
                    s.valid_violation_rate =
                        Some(s.valid_violations as f64 / s.valid_applicable as f64);
                }
                s
            })
            .collect();
        let pooled = pool(&relations);
        let mut comparisons = compare_models(&relations);
        comparisons.extend(compare_relations(&verdicts));
        let consistency = consistency(
            verdicts
                .iter()
                .copied()
                .filter(|v| CONSISTENCY_FAMILIES.contains(&v.family.as_str())),
        );
        Summary {
            schema_version: SUMMARY_VERSION,
            relations,
            pooled,
            comparisons,
            consistency,
            validity,
            ..Summary::default()
        }
    }

    /// The models of the run, sorted.
    pub fn models(&self) -> Vec<&str> {
        let mut models: Vec<&str> = self.relations.iter().map(|r| r.model.as_str()).collect();
        models.sort_unstable();
        models.dedup();
        models
    }

    /// Reads a `summary.json` written by this or an earlier version.
    ///
    /// # Errors
    /// IO errors; a file that is not JSON or not a summary (wrong `schema`, or a newer
    /// `schema_version` than this build knows).
    pub fn read(path: &Path) -> Result<Summary> {
        let text = std::fs::read(path).map_err(|e| Error::io(path.to_path_buf(), e))?;
        let summary: Summary = serde_json::from_slice(&text).map_err(|e| Error::Schema {
            context: path.display().to_string(),
            message: format!("not a metamorph summary: {e}"),
        })?;
        if summary.schema != SUMMARY_SCHEMA || summary.schema_version > SUMMARY_VERSION {
            return Err(Error::Schema {
                context: path.display().to_string(),
                message: format!(
                    "schema `{}` version {} (this build reads `{SUMMARY_SCHEMA}` up to version {SUMMARY_VERSION})",
                    summary.schema, summary.schema_version
                ),
            });
        }
        Ok(summary)
    }

    /// Reads every verdict file matching the glob `pattern` and aggregates them.
    ///
    /// # Errors
    /// Unreadable files or files of another record kind.
    pub fn from_files(pattern: &str) -> Result<Summary> {
        let (verdicts, files) = read_verdicts(pattern)?;
        let mut summary = Summary::from_verdicts(&verdicts);
        summary.verdict_files = files;
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

    /// A plain-text table of the summary, its columns as wide as their longest entry.
    pub fn table(&self) -> String {
        let width = |header: &str, cell: &dyn Fn(&MrSummary) -> usize| {
            self.relations
                .iter()
                .map(cell)
                .max()
                .unwrap_or(0)
                .max(header.len())
        };
        let family = width("family", &|s| s.family.chars().count());
        let mr = width("mr", &|s| s.mr.chars().count());
        let model = width("model", &|s| s.model.chars().count());
        let mut out = format!(
            "{:<family$} {:<mr$} {:<model$} {:>6} {:>10} {:>10} {:>8}  {}\n",
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
                "{:<family$} {:<mr$} {:<model$} {:>6} {:>10} {:>10} {:>8}  {}\n",
                s.family, s.mr, s.model, s.cases, s.applicable, s.violations, rate, ci
            ));
        }
        if self.relations.is_empty() {
            out.push_str("(no cases)\n");
        }
        out
    }
}

/// Reads every verdict file matching the glob `pattern`: the verdicts and the number of files.
/// No match is a valid, empty run (e.g. one that produced no case).
///
/// # Errors
/// Unreadable files or files of another record kind.
pub fn read_verdicts(pattern: &str) -> Result<(Vec<Verdict>, usize)> {
    let files = glob_files(pattern)?;
    // Parts of runs with different shard counts would count every verdict twice.
    metamorph_data::check_one_shard_count(&files)?;
    let mut verdicts = Vec::new();
    for path in &files {
        for batch in read_shard(path, ShardSpec::WHOLE, 4096)? {
            verdicts.extend(from_batch::<Verdict>(&batch?, &path.display().to_string())?);
        }
    }
    Ok((verdicts, files.len()))
}

/// Pooled rates per (model, family) and per model over every family.
fn pool(relations: &[MrSummary]) -> Vec<Pooled> {
    let mut out: BTreeMap<(String, Option<String>), Pooled> = BTreeMap::new();
    for r in relations {
        for family in [Some(r.family.clone()), None] {
            let p = out
                .entry((r.model.clone(), family.clone()))
                .or_insert_with(|| Pooled {
                    model: r.model.clone(),
                    family,
                    ..Pooled::default()
                });
            p.relations += 1;
            p.cases += r.cases;
            p.applicable += r.applicable;
            p.violations += r.violations;
        }
    }
    // Per model: families in order, then the all-family entry (None sorts first, so move it).
    let mut pooled: Vec<Pooled> = Vec::new();
    let mut overall: Option<Pooled> = None;
    for ((_, family), mut p) in out {
        if p.applicable > 0 {
            p.violation_rate = Some(p.violations as f64 / p.applicable as f64);
            p.ci95 = wilson(p.violations, p.applicable);
        }
        if family.is_none() {
            if let Some(o) = overall.take() {
                pooled.push(o);
            }
            overall = Some(p);
        } else {
            pooled.push(p);
        }
    }
    pooled.extend(overall);
    pooled
}

/// Every pair of models, paired by (family, MR) with applicable cases for both.
fn compare_models(relations: &[MrSummary]) -> Vec<Comparison> {
    let mut models: Vec<&str> = relations.iter().map(|r| r.model.as_str()).collect();
    models.sort_unstable();
    models.dedup();
    let rate = |model: &str, family: &str, mr: &str| {
        relations
            .iter()
            .find(|r| r.model == model && r.family == family && r.mr == mr)
            .and_then(|r| r.violation_rate)
    };
    let mut cells: Vec<(&str, &str)> = relations
        .iter()
        .map(|r| (r.family.as_str(), r.mr.as_str()))
        .collect();
    cells.sort_unstable();
    cells.dedup();
    let mut out = Vec::new();
    for (i, a) in models.iter().enumerate() {
        for b in &models[i + 1..] {
            let (x, y): (Vec<f64>, Vec<f64>) = cells
                .iter()
                .filter_map(|(f, mr)| Some((rate(a, f, mr)?, rate(b, f, mr)?)))
                .unzip();
            if x.is_empty() {
                continue;
            }
            out.push(comparison(ComparisonKind::Models, None, None, a, b, &x, &y));
        }
    }
    out
}

/// Every pair of relations of one family, for each model, paired by first source id.
fn compare_relations(verdicts: &[&Verdict]) -> Vec<Comparison> {
    // (family, model) → mr → source → (violations, applicable)
    type BySource<'a> = BTreeMap<&'a str, (u32, u32)>;
    type Rates<'a> = BTreeMap<&'a str, BySource<'a>>;
    let mut by: BTreeMap<(&str, &str), Rates> = BTreeMap::new();
    for v in verdicts.iter().filter(|v| v.applicable) {
        let Some(source) = v.source_ids.first() else {
            continue;
        };
        let slot = by
            .entry((v.family.as_str(), v.model.as_str()))
            .or_default()
            .entry(v.mr.as_str())
            .or_default()
            .entry(source.as_str())
            .or_default();
        slot.1 += 1;
        if v.holds == Some(false) {
            slot.0 += 1;
        }
    }
    let mut out = Vec::new();
    for ((family, model), mrs) in &by {
        let mrs: Vec<(&&str, &BySource)> = mrs.iter().collect();
        for (i, (a, sa)) in mrs.iter().enumerate() {
            for (b, sb) in &mrs[i + 1..] {
                let (x, y): (Vec<f64>, Vec<f64>) = sa
                    .iter()
                    .filter_map(|(source, (ka, na))| {
                        let (kb, nb) = sb.get(source)?;
                        Some((*ka as f64 / *na as f64, *kb as f64 / *nb as f64))
                    })
                    .unzip();
                if x.is_empty() {
                    continue;
                }
                out.push(comparison(
                    ComparisonKind::Relations,
                    Some(family),
                    Some(model),
                    a,
                    b,
                    &x,
                    &y,
                ));
            }
        }
    }
    out
}

fn comparison(
    kind: ComparisonKind,
    family: Option<&str>,
    model: Option<&str>,
    a: &str,
    b: &str,
    x: &[f64],
    y: &[f64],
) -> Comparison {
    let test = wilcoxon_signed_rank(x, y);
    Comparison {
        kind,
        family: family.map(Into::into),
        model: model.map(Into::into),
        a: a.into(),
        b: b.into(),
        pairs: x.len(),
        decision: test.as_ref().map_or(Decision::Similar, |t| t.decision),
        test,
    }
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

    fn model_verdicts(model: &str, mr: &str, violations: usize, applicable: usize) -> Vec<Verdict> {
        (0..applicable)
            .map(|i| Verdict {
                case_id: format!("s{i}:{mr}"),
                model: model.into(),
                source_ids: vec![format!("s{i}")],
                ..verdict(mr, true, Some(i >= violations))
            })
            .collect()
    }

    #[test]
    fn pooled_rates_sum_counts_not_rates() {
        let mut verdicts = model_verdicts("m", "MR1-1", 1, 10);
        verdicts.extend(model_verdicts("m", "MR1-3", 3, 3));
        let s = Summary::from_verdicts(&verdicts);
        // Σx/Σn = 4/13, not the mean of 0.1 and 1.0.
        assert_eq!(s.pooled.len(), 2);
        assert_eq!(s.pooled[0].family.as_deref(), Some("mt4mrc"));
        let all = &s.pooled[1];
        assert_eq!((all.family.as_deref(), all.relations), (None, 2));
        assert_eq!((all.violations, all.applicable), (4, 13));
        assert!((all.violation_rate.unwrap() - 4.0 / 13.0).abs() < 1e-12);
        assert_eq!(s.schema_version, SUMMARY_VERSION);
    }

    #[test]
    fn models_are_compared_pair_by_relation() {
        // Model a violates less than b on each of 10 relations: exact p = 2/1024, a is better.
        let mut verdicts = Vec::new();
        for r in 0..10 {
            let mr = format!("MR{r}");
            verdicts.extend(model_verdicts("a", &mr, r, 20));
            verdicts.extend(model_verdicts("b", &mr, r + 5, 20));
        }
        let s = Summary::from_verdicts(&verdicts);
        let c = s
            .comparisons
            .iter()
            .find(|c| c.kind == ComparisonKind::Models)
            .unwrap();
        assert_eq!((c.a.as_str(), c.b.as_str(), c.pairs), ("a", "b", 10));
        let t = c.test.as_ref().unwrap();
        assert_eq!((t.p_two_sided, t.p_less), (2.0 / 1024.0, 1.0 / 1024.0));
        assert_eq!(c.decision, Decision::Better);
        // Relations of one model are paired by source: MR0 (no violation) vs MR9.
        let r = s
            .comparisons
            .iter()
            .find(|c| c.kind == ComparisonKind::Relations && c.a == "MR0" && c.b == "MR9")
            .unwrap();
        assert_eq!((r.model.as_deref(), r.pairs), (Some("a"), 20));
        assert_eq!(r.test.as_ref().unwrap().n, 9);
    }

    #[test]
    fn consistency_is_reported_for_contrast_set_families_only() {
        let s = Summary::from_verdicts(&model_verdicts("m", "MR1-3", 1, 4));
        assert!(s.consistency.is_empty());
        let mut bpb = model_verdicts("m", "AppendBool", 1, 4);
        bpb.iter_mut().for_each(|v| v.family = "bpb".into());
        let s = Summary::from_verdicts(&bpb);
        assert_eq!(
            (s.consistency[0].groups, s.consistency[0].consistent),
            (4, 3)
        );
    }

    #[test]
    fn a_version_1_summary_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.json");
        std::fs::write(&path, r#"{"relations": [], "verdict_files": 2}"#).unwrap();
        let s = Summary::read(&path).unwrap();
        assert_eq!((s.schema_version, s.verdict_files), (1, 2));
        std::fs::write(&path, r#"{"schema": "other"}"#).unwrap();
        assert!(Summary::read(&path).is_err());
    }
}
