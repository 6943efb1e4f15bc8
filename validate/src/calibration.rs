//! Calibration of the thresholds on follow-ups a reader labelled: choose them on one half of the
//! labelled set, report how well they separate good from bad follow-ups on the other half.
//!
//! A labelled item is a row of `metamorph-perturb preview --validate --tsv` (the scores of each
//! check) with a reader's `natural` and `valid` (`yes`/`no`). An item is **bad** when it is not
//! natural or not valid. Items are split into halves by a hash of their case id, so the split
//! does not depend on file order. On the tuning half, the thresholds of each group of relations
//! and check are chosen by coordinate ascent to reject as many bad items as possible while
//! keeping at least [`KEEP_GOAL`] of the good ones; the figures reported are the held-out
//! half's.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use metamorph_data::{Error, Result};

use crate::config::{relation_kind, replaces_entities};

/// Share of the good follow-ups the thresholds must keep (on the tuning half).
pub const KEEP_GOAL: f64 = 0.95;

/// The checks a threshold is chosen for, in TSV column order (`spans` is pass/fail and kept).
pub const CHECKS: [&str; 5] = ["meaning", "structure", "fluency", "sense", "spans"];

/// One labelled follow-up.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The case id.
    pub case_id: String,
    /// The relation.
    pub relation: String,
    /// Scores in [`CHECKS`] order (`None`: the check did not apply).
    pub scores: [Option<f32>; 5],
    /// The reader's `natural`.
    pub natural: bool,
    /// The reader's `valid`.
    pub valid: bool,
}

impl Item {
    /// Natural and valid.
    pub fn good(&self) -> bool {
        self.natural && self.valid
    }

    /// Whether the item is in the tuning half (else the held-out half): FNV-1a of the case id.
    pub fn tuning(&self) -> bool {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self.case_id.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h & 1 == 0
    }

    /// The group whose threshold applies to check `c` (by index in [`CHECKS`]) of this item:
    /// the checks of meaning (`meaning`, `sense`) per kind of relation ([`relation_kind`]:
    /// how much a relation changes the meaning by design), the checks of form (`structure`,
    /// `spans`) one for all, and `fluency` one for word substitutions and one for entity
    /// replacements ([`replaces_entities`]: a name's static vector says little of its fit).
    pub fn group(&self, c: usize) -> String {
        match CHECKS[c] {
            check @ ("meaning" | "sense") => format!("{check}/{}", relation_kind(&self.relation)),
            "fluency" if replaces_entities(&self.relation) => "fluency/entities".to_string(),
            check => check.to_string(),
        }
    }
}

/// Reads labelled TSVs: each needs the columns `case_id`, `relation`, the four check columns,
/// `natural` and `valid`; rows whose labels are not `yes`/`no` are refused.
///
/// # Errors
/// [`Error::Io`] for an unreadable file; [`Error::Schema`] naming the file, row and column of
/// a missing column or a bad value.
pub fn read_labelled(path: &Path) -> Result<Vec<Item>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let bad = |row: usize, message: String| Error::Schema {
        context: format!("{}: row {row}", path.display()),
        message,
    };
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .ok_or_else(|| bad(1, format!("no `{name}` column")))
    };
    let id = column("case_id")?;
    let relation = column("relation")?;
    let checks = CHECKS.map(&column);
    let checks: Vec<usize> = checks.into_iter().collect::<Result<_>>()?;
    let (natural, valid) = (column("natural")?, column("valid")?);
    let mut items = Vec::new();
    for (i, line) in lines.enumerate() {
        let row = i + 2;
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split('\t').collect();
        let cell = |c: usize| cells.get(c).copied().unwrap_or("").trim();
        let yes_no = |c: usize, name: &str| match cell(c) {
            "yes" => Ok(true),
            "no" => Ok(false),
            other => Err(bad(
                row,
                format!("`{name}` is {other:?}, expected yes or no"),
            )),
        };
        let mut scores = [None; 5];
        for (k, &c) in checks.iter().enumerate() {
            let v = cell(c);
            if !v.is_empty() {
                scores[k] =
                    Some(v.parse::<f32>().map_err(|_| {
                        bad(row, format!("`{}` is {v:?}, not a number", CHECKS[k]))
                    })?);
            }
        }
        items.push(Item {
            case_id: cell(id).to_string(),
            relation: cell(relation).to_string(),
            scores,
            natural: yes_no(natural, "natural")?,
            valid: yes_no(valid, "valid")?,
        });
    }
    Ok(items)
}

/// Thresholds by group (see [`Item::group`]); a group without one rejects nothing.
pub type Chosen = BTreeMap<String, f32>;

/// Whether `item` fails a check under `chosen`; `only` restricts to one check.
pub fn rejects(item: &Item, chosen: &Chosen, only: Option<usize>) -> bool {
    (0..CHECKS.len())
        .filter(|&c| only.is_none_or(|o| o == c))
        .any(|c| match (item.scores[c], chosen.get(&item.group(c))) {
            (Some(score), Some(&t)) => score < t,
            _ => false,
        })
}

/// How a set of thresholds does on some items.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Good items.
    pub good: usize,
    /// Bad items.
    pub bad: usize,
    /// Good items kept.
    pub good_kept: usize,
    /// Bad items rejected.
    pub bad_rejected: usize,
}

impl Outcome {
    /// Counts `items` under `chosen` (all checks, or `only` one).
    pub fn of(items: &[&Item], chosen: &Chosen, only: Option<usize>) -> Outcome {
        let mut o = Outcome::default();
        for item in items {
            let rejected = rejects(item, chosen, only);
            if item.good() {
                o.good += 1;
                o.good_kept += usize::from(!rejected);
            } else {
                o.bad += 1;
                o.bad_rejected += usize::from(rejected);
            }
        }
        o
    }

    /// Share of bad items rejected (recall).
    pub fn recall(&self) -> f64 {
        ratio(self.bad_rejected, self.bad)
    }

    /// Share of good items kept.
    pub fn keep(&self) -> f64 {
        ratio(self.good_kept, self.good)
    }

    /// Share of rejected items that are bad (precision).
    pub fn precision(&self) -> f64 {
        ratio(
            self.bad_rejected,
            self.bad_rejected + self.good - self.good_kept,
        )
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}

/// Thresholds chosen on `items`: every group starts off (rejecting nothing; `spans` at 1), then
/// each group's threshold in turn moves to the candidate value (a score seen in the data, or
/// off) that rejects the most bad items while the good kept stay at or above [`KEEP_GOAL`],
/// until no move helps.
pub fn choose(items: &[&Item]) -> Chosen {
    let mut groups: BTreeMap<String, Vec<f32>> = BTreeMap::new();
    for item in items {
        for c in 0..CHECKS.len() {
            if let Some(s) = item.scores[c] {
                groups.entry(item.group(c)).or_default().push(s);
            }
        }
    }
    let mut chosen = Chosen::new();
    chosen.insert("spans".into(), 1.0);
    let score = |chosen: &Chosen| {
        let o = Outcome::of(items, chosen, None);
        (o.keep() >= KEEP_GOAL, o.bad_rejected, o.good_kept)
    };
    for _round in 0..10 {
        let mut moved = false;
        for (group, values) in &groups {
            if group == "spans" {
                continue;
            }
            let mut candidates: Vec<Option<f32>> = vec![None];
            // A threshold just above each seen score rejects it and everything below.
            candidates.extend(values.iter().map(|v| Some(v + 1e-4)));
            let current = chosen.get(group).copied();
            let mut best = (score(&chosen), current);
            for candidate in candidates {
                let mut trial = chosen.clone();
                match candidate {
                    Some(t) => trial.insert(group.clone(), t),
                    None => trial.remove(group),
                };
                let s = score(&trial);
                if s > best.0 {
                    best = (s, candidate);
                }
            }
            if best.1 != current {
                match best.1 {
                    Some(t) => chosen.insert(group.clone(), t),
                    None => chosen.remove(group),
                };
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    chosen
}

/// The calibration report (markdown): the chosen thresholds, then per check and overall the
/// held-out half's rejection of bad follow-ups, keeping of good ones and precision, per
/// relation too.
pub fn report(items: &[Item]) -> String {
    let tuning: Vec<&Item> = items.iter().filter(|i| i.tuning()).collect();
    let held_out: Vec<&Item> = items.iter().filter(|i| !i.tuning()).collect();
    let chosen = choose(&tuning);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} labelled follow-ups: {} for choosing thresholds, {} held out; {} bad (not natural or not valid) in all.\n",
        items.len(),
        tuning.len(),
        held_out.len(),
        items.iter().filter(|i| !i.good()).count()
    );
    out.push_str("| threshold | value |\n|---|---|\n");
    for (group, t) in &chosen {
        let _ = writeln!(out, "| {group} | {t:.3} |");
    }
    out.push_str("\nHeld-out half:\n\n| check | bad rejected (recall) | good kept | precision |\n|---|---|---|---|\n");
    let line = |name: &str, o: Outcome| {
        format!(
            "| {name} | {}/{} ({}) | {}/{} ({}) | {} |\n",
            o.bad_rejected,
            o.bad,
            pct(o.recall()),
            o.good_kept,
            o.good,
            pct(o.keep()),
            pct(o.precision())
        )
    };
    for (c, name) in CHECKS.iter().enumerate() {
        out.push_str(&line(name, Outcome::of(&held_out, &chosen, Some(c))));
    }
    out.push_str(&line(
        "**all checks**",
        Outcome::of(&held_out, &chosen, None),
    ));
    let tuned = Outcome::of(&tuning, &chosen, None);
    out.push_str(&line("(tuning half, all checks)", tuned));
    out.push_str("\nHeld-out half per relation (all checks):\n\n| relation | bad rejected | good kept |\n|---|---|---|\n");
    let mut relations: Vec<&str> = held_out.iter().map(|i| i.relation.as_str()).collect();
    relations.sort_unstable();
    relations.dedup();
    for r in relations {
        let mine: Vec<&Item> = held_out
            .iter()
            .copied()
            .filter(|i| i.relation == r)
            .collect();
        let o = Outcome::of(&mine, &chosen, None);
        let _ = writeln!(
            out,
            "| {r} | {}/{} | {}/{} |",
            o.bad_rejected, o.bad, o.good_kept, o.good
        );
    }
    out
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        "–".into()
    } else {
        format!("{:.0}%", x * 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, meaning: f32, good: bool) -> Item {
        Item {
            case_id: id.into(),
            relation: "CREST".into(),
            scores: [Some(meaning), None, None, None, Some(1.0)],
            natural: good,
            valid: true,
        }
    }

    #[test]
    fn the_threshold_rejects_bad_items_while_keeping_the_good() {
        let mut items: Vec<Item> = (0..40)
            .map(|i| item(&format!("g{i}"), 0.9 + i as f32 * 0.001, true))
            .collect();
        items.extend((0..10).map(|i| item(&format!("b{i}"), 0.5 + i as f32 * 0.01, false)));
        let refs: Vec<&Item> = items.iter().collect();
        let chosen = choose(&refs);
        let t = chosen["meaning/keeping"];
        assert!(t > 0.59 && t <= 0.9, "{t}");
        let o = Outcome::of(&refs, &chosen, None);
        assert_eq!((o.bad_rejected, o.good_kept), (10, 40));
    }

    #[test]
    fn labels_must_be_yes_or_no() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.tsv");
        std::fs::write(
            &path,
            "case_id\trelation\tmeaning\tstructure\tfluency\tsense\tspans\tnatural\tvalid\nx\tCREST\t0.9\t\t\t\t1\tyes\tmaybe\n",
        )
        .unwrap();
        let e = read_labelled(&path).unwrap_err().to_string();
        assert!(e.contains("row 2") && e.contains("`valid`"), "{e}");
    }
}
