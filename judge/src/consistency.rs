//! Contrast-set consistency (Break-Perturb-Build, seed-002 §9.3, after Gardner et al. 2020).
//!
//! `consistency(S) = (1/|S|) Σ_{x∈S} g(C(x))`, where `C(x)` is the contrast set of original
//! example `x` and `g(C(x)) = 1` iff the model gets every member of `C(x)` right.
//!
//! Decisions recorded here, mapping the paper onto verdicts:
//! * `C(x)` is every case of one family whose **first source id** is `x`, judged for one model.
//!   The paper's `C(x)` includes `x` itself: a relation family that wants that emits an identity
//!   case for `x` (its follow-up is `x` with its gold answer), which then counts like any other
//!   member. "Right" is the case's verdict: the F1 ≥ 0.8 threshold of BPB lives in the case's
//!   expectation, not here.
//! * Only **applicable** verdicts count; a group with none is left out of `|S|` (it says nothing
//!   about the model).
//! * Reported per (family, model) over all relations of the family, and per (family, MR,
//!   model) with `C(x)` restricted to one perturbation, since seed-002 warns that one
//!   perturbation (AppendBool) dominates any aggregate.
//! * The summary reports it for the families in [`CONSISTENCY_FAMILIES`] (contrast-set
//!   families); the function itself works on any verdicts.

use std::collections::BTreeMap;

use metamorph_data::Verdict;
use serde::{Deserialize, Serialize};

use crate::stats::wilson;

/// Families whose cases form contrast sets, for which the summary reports consistency.
pub const CONSISTENCY_FAMILIES: &[&str] = &["bpb"];

/// The consistency of one model on one family (or one relation of it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Consistency {
    /// MR family.
    pub family: String,
    /// The relation, or `None` for all relations of the family together.
    pub mr: Option<String>,
    /// The model under test.
    pub model: String,
    /// Contrast sets (original examples) with at least one applicable verdict: `|S|`.
    pub groups: u64,
    /// Contrast sets whose every applicable verdict holds: `Σ g(C(x))`.
    pub consistent: u64,
    /// `consistent / groups` (null when `groups` is 0).
    pub consistency: Option<f64>,
    /// Wilson 95% interval of the consistency.
    pub ci95: Option<[f64; 2]>,
}

/// Consistency per (family, model) (`mr: None`) and per (family, MR, model), sorted by family,
/// model, then the family-wide entry before the per-MR ones.
///
/// ```
/// use metamorph_data::Verdict;
/// let v = |case: &str, src: &str, holds: bool| Verdict {
///     case_id: case.into(), family: "bpb".into(), mr: "AppendBool".into(), model: "m".into(),
///     source_ids: vec![src.into()], source_output: String::new(), followup_output: String::new(),
///     applicable: true, holds: Some(holds), detail: String::new(),
/// };
/// let verdicts = [v("a1", "a", true), v("a2", "a", true), v("b1", "b", true), v("b2", "b", false)];
/// let all = &metamorph_judge::consistency(&verdicts)[0];
/// assert_eq!((all.groups, all.consistent, all.consistency), (2, 1, Some(0.5)));
/// ```
pub fn consistency<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>) -> Vec<Consistency> {
    // (family, model, mr or "" for all) → source → all hold so far
    let mut groups: BTreeMap<(&str, &str, Option<&str>), BTreeMap<&str, bool>> = BTreeMap::new();
    for v in verdicts {
        if !v.applicable {
            continue;
        }
        let Some(source) = v.source_ids.first() else {
            continue;
        };
        let ok = v.holds == Some(true);
        for mr in [None, Some(v.mr.as_str())] {
            let slot = groups
                .entry((v.family.as_str(), v.model.as_str(), mr))
                .or_default()
                .entry(source.as_str())
                .or_insert(true);
            *slot &= ok;
        }
    }
    groups
        .into_iter()
        .map(|((family, model, mr), sources)| {
            let n = sources.len() as u64;
            let k = sources.values().filter(|ok| **ok).count() as u64;
            Consistency {
                family: family.into(),
                mr: mr.map(Into::into),
                model: model.into(),
                groups: n,
                consistent: k,
                consistency: (n > 0).then(|| k as f64 / n as f64),
                ci95: wilson(k, n),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(family: &str, mr: &str, source: &str, applicable: bool, holds: Option<bool>) -> Verdict {
        Verdict {
            case_id: format!("{source}:{mr}"),
            family: family.into(),
            mr: mr.into(),
            model: "m".into(),
            source_ids: vec![source.into()],
            source_output: String::new(),
            followup_output: String::new(),
            applicable,
            holds,
            detail: String::new(),
        }
    }

    #[test]
    fn one_failure_breaks_the_whole_contrast_set() {
        let verdicts = [
            // x1: original right, AppendBool right, ReplaceComp wrong → 0
            v("bpb", "ORIG", "x1", true, Some(true)),
            v("bpb", "AppendBool", "x1", true, Some(true)),
            v("bpb", "ReplaceComp", "x1", true, Some(false)),
            // x2: everything right → 1
            v("bpb", "ORIG", "x2", true, Some(true)),
            v("bpb", "AppendBool", "x2", true, Some(true)),
            // x3: its only case not applicable → not in S
            v("bpb", "AppendBool", "x3", false, None),
            // x4: original wrong → 0
            v("bpb", "ORIG", "x4", true, Some(false)),
            v("bpb", "AppendBool", "x4", true, Some(true)),
        ];
        let c = consistency(&verdicts);
        let all = c.iter().find(|c| c.mr.is_none()).unwrap();
        assert_eq!((all.groups, all.consistent), (3, 1));
        assert!((all.consistency.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        let by = |mr: &str| c.iter().find(|c| c.mr.as_deref() == Some(mr)).unwrap();
        assert_eq!(
            (by("AppendBool").groups, by("AppendBool").consistent),
            (3, 3)
        );
        assert_eq!(
            (by("ReplaceComp").groups, by("ReplaceComp").consistent),
            (1, 0)
        );
        assert_eq!((by("ORIG").groups, by("ORIG").consistent), (3, 2));
        assert_eq!(c.len(), 4);
    }

    #[test]
    fn models_and_families_are_separate() {
        let mut other = v("bpb", "ORIG", "x1", true, Some(false));
        other.model = "n".into();
        let verdicts = [
            v("bpb", "ORIG", "x1", true, Some(true)),
            other,
            v("mt4mrc", "MR1-3", "x1", true, Some(false)),
        ];
        let c = consistency(&verdicts);
        let get = |family: &str, model: &str| {
            c.iter()
                .find(|c| c.family == family && c.model == model && c.mr.is_none())
                .unwrap()
                .consistent
        };
        assert_eq!(
            (get("bpb", "m"), get("bpb", "n"), get("mt4mrc", "m")),
            (1, 0, 0)
        );
    }
}
