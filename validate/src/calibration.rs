//! Calibration of the thresholds on follow-ups a reader labelled: choose them on one half of the
//! labelled set, report how well they separate good from bad follow-ups on the other half.
//!
//! A labelled item is a row of `metamorph preview --validate --tsv` (the scores of each
//! check) with a reader's `natural` and `valid` (`yes`/`no`), or any judged row of
//! `docs/validity/` (`case_id`, `source`, `follow_up`, `natural`, `valid`; the relation from a
//! `relation` column or the case id): score columns a file lacks are missing for its rows,
//! and [`score_with_lm`] computes the `lm` checks from the `source` and `follow_up` text. An item is **bad** when it is not
//! natural or not valid. Items are split into halves by a hash of their case id, so the split
//! does not depend on file order. On the tuning half, the thresholds of each group of relations
//! and check are chosen by coordinate ascent to reject as many bad items as possible while
//! keeping at least [`KEEP_GOAL`] of the good ones; the figures reported are the held-out
//! half's.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use metamorph_data::{Error, Result};

use crate::config::{
    builds_source, edit_kind, relation_kind, replaces_entities, WORD_SUBSTITUTIONS,
};

/// Share of the good follow-ups the thresholds must keep (on the tuning half).
pub const KEEP_GOAL: f64 = 0.95;

/// The checks a threshold is chosen for, in TSV column order (`spans` is pass/fail and kept).
pub const CHECKS: [&str; 10] = [
    "meaning",
    "structure",
    "fluency",
    "sense",
    "spans",
    "lm",
    "lm_sentence",
    "lm_ending",
    "lm_seam",
    "lm_end_cut",
];

/// One labelled follow-up.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The case id.
    pub case_id: String,
    /// The relation.
    pub relation: String,
    /// Scores in [`CHECKS`] order (`None`: the check did not apply).
    pub scores: [Option<f32>; CHECKS.len()],
    /// The source text as the row shows it (`field: text`), if the file has it.
    pub source: String,
    /// The follow-up text as the row shows it.
    pub follow_up: String,
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
            check @ ("lm" | "lm_sentence") => format!("{check}/{}", edit_kind(&self.relation)),
            // Per relation: how a parent cut short reads differs between reviews and
            // encyclopaedic sentences.
            check @ ("lm_ending" | "lm_seam" | "lm_end_cut") => {
                format!("{check}/{}", self.relation)
            }
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
    let optional = |name: &str| header.iter().position(|h| *h == name);
    let id = column("case_id")?;
    let relation = optional("relation");
    let checks: Vec<Option<usize>> = CHECKS.iter().map(|c| optional(c)).collect();
    let (source, follow_up) = (optional("source"), optional("follow_up"));
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
        let mut scores = [None; CHECKS.len()];
        for (k, c) in checks.iter().enumerate() {
            let Some(c) = *c else { continue };
            let v = cell(c);
            if !v.is_empty() {
                scores[k] =
                    Some(v.parse::<f32>().map_err(|_| {
                        bad(row, format!("`{}` is {v:?}, not a number", CHECKS[k]))
                    })?);
            }
        }
        let case_id = cell(id).to_string();
        // `doc:RELATION:n`: the relation is the case id's second-to-last part.
        let relation = match relation {
            Some(c) => cell(c).to_string(),
            None => case_id.rsplit(':').nth(1).unwrap_or_default().to_string(),
        };
        if relation.is_empty() {
            return Err(bad(
                row,
                "no relation: no `relation` column and the case id is not `source:RELATION:n`"
                    .into(),
            ));
        }
        items.push(Item {
            source: source.map(|c| cell(c).to_string()).unwrap_or_default(),
            follow_up: follow_up.map(|c| cell(c).to_string()).unwrap_or_default(),
            case_id,
            relation,
            scores,
            natural: yes_no(natural, "natural")?,
            valid: yes_no(valid, "valid")?,
        });
    }
    Ok(items)
}

/// Items judged more than once (the same relation, source and follow-up in several review
/// rounds) kept once: the first reading, so that the halves hold distinct follow-ups.
pub fn distinct(items: Vec<Item>) -> Vec<Item> {
    let mut seen = std::collections::HashSet::new();
    items
        .into_iter()
        .filter(|i| {
            i.follow_up.is_empty()
                || seen.insert((i.relation.clone(), i.source.clone(), i.follow_up.clone()))
        })
        .collect()
}

/// The text of a row's cell for the LM: the `field: ` label dropped and the excerpt's `…` ends
/// removed (a window cut mid-word reads alike before and after, so the difference survives).
pub fn cell_text(cell: &str) -> String {
    let text = match cell.split_once(": ") {
        Some((field, rest))
            if !field.is_empty() && field.chars().all(|c| c.is_ascii_lowercase() || c == '_') =>
        {
            rest
        }
        _ => cell,
    };
    text.trim_matches('…').trim().to_string()
}

/// Fills the `lm` and `lm_sentence` scores of items that have `source` and `follow_up` text,
/// and `lm_ending` of those whose relation built the source ([`builds_source`]; each
/// `‖`-separated part of the cell read on its own), with the same scoring the validity step
/// uses.
///
/// # Errors
/// Model failures naming the model.
pub fn score_with_lm(items: &mut [Item], lm: &crate::language_model::LmScorer) -> Result<()> {
    let lm_at = CHECKS
        .iter()
        .position(|c| *c == "lm")
        .expect("lm is a check");
    let texts: Vec<(String, String)> = items
        .iter()
        .map(|i| (cell_text(&i.source), cell_text(&i.follow_up)))
        .collect();
    let flat: Vec<&str> = texts
        .iter()
        .flat_map(|(a, b)| [a.as_str(), b.as_str()])
        .collect();
    let scores = lm.score_texts(&flat)?;
    for (k, item) in items.iter_mut().enumerate() {
        if item.source.is_empty() || item.follow_up.is_empty() {
            continue;
        }
        let rebuilt = relation_kind(&item.relation) == "rebuilt";
        let s = crate::language_model::change_scores(scores[2 * k], scores[2 * k + 1], rebuilt);
        item.scores[lm_at] = Some(s.lm);
        item.scores[lm_at + 1] = Some(s.lm_sentence);
    }
    let built: Vec<(usize, String)> = items
        .iter()
        .enumerate()
        .filter(|(_, i)| builds_source(&i.relation) && !i.source.is_empty())
        .flat_map(|(k, i)| i.source.split('‖').map(move |part| (k, cell_text(part))))
        .collect();
    let parts: Vec<(usize, &str)> = built.iter().map(|(k, t)| (*k, t.as_str())).collect();
    let endings = lm.lowest_endings(items.len(), &parts)?;
    for (item, ending) in items.iter_mut().zip(endings) {
        if ending.is_some() {
            item.scores[lm_at + 2] = ending;
        }
    }
    Ok(())
}

/// Thresholds by group (see [`Item::group`]); a group without one rejects nothing.
pub type Chosen = BTreeMap<String, f32>;

/// Whether `item` fails a check under `chosen`; `only` restricts to one check.
pub fn rejects(item: &Item, chosen: &Chosen, only: Option<usize>) -> bool {
    (0..CHECKS.len())
        .filter(|&c| only.is_none_or(|o| o == c))
        .any(|c| {
            // A relation's own threshold (`lm/MR1-4`) over its group's.
            let own = chosen.get(&format!("{}/{}", CHECKS[c], item.relation));
            match (item.scores[c], own.or_else(|| chosen.get(&item.group(c)))) {
                (Some(score), Some(&t)) => score < t,
                _ => false,
            }
        })
}

/// Most rejections of a relation on the tuning half before the rule that half of them must be
/// bad is applied to that relation alone.
pub const RELATION_SUPPORT: usize = 5;

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
        Self::counted(items, |item| rejects(item, chosen, only))
    }

    /// Counts `items` under `chosen` with only the checks `checks` (indices in [`CHECKS`]).
    pub fn of_checks(items: &[&Item], chosen: &Chosen, checks: &[usize]) -> Outcome {
        Self::counted(items, |item| {
            checks.iter().any(|&c| rejects(item, chosen, Some(c)))
        })
    }

    fn counted(items: &[&Item], rejected: impl Fn(&Item) -> bool) -> Outcome {
        let mut o = Outcome::default();
        for item in items {
            let rejected = rejected(item);
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

    /// Items rejected, good or bad.
    pub fn rejected(&self) -> usize {
        self.bad_rejected + (self.good - self.good_kept)
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
        ratio(self.bad_rejected, self.rejected())
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
    // The language model's checks: each group on its own, so that every kind of edit keeps
    // KEEP_GOAL of its own good follow-ups (a shared budget went to whichever group was
    // cheapest); a threshold is kept only if at least half of what it rejects is bad.
    // `lm_sentence` reads a sentence whole, which says something of a follow-up only where
    // the relation built its sentences (elsewhere the source is real text and the
    // difference, `lm`, is the measure).
    let own_sentences = |g: &str| !g.starts_with("lm_sentence/") || g.ends_with("/rebuilt");
    for (group, values) in groups
        .iter()
        .filter(|(g, _)| g.starts_with("lm") && own_sentences(g))
    {
        let check = CHECKS
            .iter()
            .position(|c| Some(*c) == group.split('/').next())
            .expect("an lm group names its check");
        let mine: Vec<&Item> = items
            .iter()
            .copied()
            .filter(|i| i.scores[check].is_some() && &i.group(check) == group)
            .collect();
        // The most bad items rejected; among equals, the fewest good ones.
        let mut best: Option<((usize, usize), f32)> = None;
        for t in values.iter().map(|v| v + 1e-4) {
            let trial = Chosen::from([(group.clone(), t)]);
            let o = Outcome::of(&mine, &trial, Some(check));
            let rejected = o.rejected();
            let key = (o.bad_rejected, o.good_kept);
            if o.keep() >= KEEP_GOAL
                && 2 * o.bad_rejected >= rejected
                && best.is_none_or(|(b, _)| key > b)
            {
                best = Some((key, t));
            }
        }
        if let Some((_, t)) = best {
            chosen.insert(group.clone(), t);
        }
    }
    // Then per relation: where the kind's threshold rejects at least RELATION_SUPPORT of a
    // relation's tuning items and less than half of them are bad, the relation is exempt
    // (its own threshold at −∞): a kind's threshold must not cost one relation mostly good
    // follow-ups (MR1-4's statements with a tag, which the LM finds improbable whether or not
    // a reader does).
    let mut relations: Vec<&str> = items.iter().map(|i| i.relation.as_str()).collect();
    relations.sort_unstable();
    relations.dedup();
    for check in CHECKS.iter().filter(|c| c.starts_with("lm")) {
        let c = CHECKS.iter().position(|x| x == check).expect("a check");
        for relation in &relations {
            let mine: Vec<&Item> = items
                .iter()
                .copied()
                .filter(|i| i.relation == *relation)
                .collect();
            let o = Outcome::of(&mine, &chosen, Some(c));
            let rejected = o.rejected();
            if rejected >= RELATION_SUPPORT && 2 * o.bad_rejected < rejected {
                chosen.insert(format!("{check}/{relation}"), f32::NEG_INFINITY);
            }
        }
    }
    let score = |chosen: &Chosen| {
        let o = Outcome::of(items, chosen, None);
        (o.keep() >= KEEP_GOAL, o.bad_rejected, o.good_kept)
    };
    for _round in 0..10 {
        let mut moved = false;
        for (group, values) in &groups {
            if group == "spans" || group.starts_with("lm") {
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
        if t.is_finite() {
            let _ = writeln!(out, "| {group} | {t:.3} |");
        } else {
            let _ = writeln!(out, "| {group} | off |");
        }
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
    // The language model's checks alone, per relation and for the word substitutions.
    let lm_checks: Vec<usize> = CHECKS
        .iter()
        .enumerate()
        .filter(|(_, c)| c.starts_with("lm"))
        .map(|(i, _)| i)
        .collect();
    let scored: Vec<&Item> = held_out
        .iter()
        .copied()
        .filter(|i| lm_checks.iter().any(|&c| i.scores[c].is_some()))
        .collect();
    if !scored.is_empty() {
        out.push_str("\nHeld-out half, the `lm` checks alone:\n\n| relations | bad rejected (recall) | good kept |\n|---|---|---|\n");
        let lm_line = |name: &str, items: &[&Item]| {
            let o = Outcome::of_checks(items, &chosen, &lm_checks);
            format!(
                "| {name} | {}/{} ({}) | {}/{} ({}) |\n",
                o.bad_rejected,
                o.bad,
                pct(o.recall()),
                o.good_kept,
                o.good,
                pct(o.keep())
            )
        };
        let subs: Vec<&Item> = scored
            .iter()
            .copied()
            .filter(|i| WORD_SUBSTITUTIONS.contains(&i.relation.as_str()))
            .collect();
        out.push_str(&lm_line(
            "**word substitutions** (MR1-1, MR2-1, CREST, NLPLego-MRC)",
            &subs,
        ));
        out.push_str(&lm_line("**all relations**", &scored));
        let mut relations: Vec<&str> = scored.iter().map(|i| i.relation.as_str()).collect();
        relations.sort_unstable();
        relations.dedup();
        for r in relations {
            let mine: Vec<&Item> = scored.iter().copied().filter(|i| i.relation == r).collect();
            out.push_str(&lm_line(r, &mine));
        }
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

    /// Scores in [`CHECKS`] order with only the named checks set.
    fn scores(set: &[(&str, f32)]) -> [Option<f32>; CHECKS.len()] {
        let mut scores = [None; CHECKS.len()];
        for &(check, value) in set {
            let c = CHECKS.iter().position(|&x| x == check).expect("a check");
            scores[c] = Some(value);
        }
        scores
    }

    fn item(id: &str, meaning: f32, good: bool) -> Item {
        Item {
            case_id: id.into(),
            relation: "CREST".into(),
            scores: scores(&[("meaning", meaning), ("spans", 1.0)]),
            source: String::new(),
            follow_up: String::new(),
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

    fn lm_item(id: &str, relation: &str, lm: f32, good: bool) -> Item {
        Item {
            case_id: id.into(),
            relation: relation.into(),
            scores: scores(&[("lm", lm)]),
            source: String::new(),
            follow_up: String::new(),
            natural: good,
            valid: true,
        }
    }

    #[test]
    fn the_lm_threshold_is_per_kind_and_spares_a_relation_it_costs_mostly_good_items() {
        // CREST (a substitution): bad items cost many nats, good ones few.
        let mut items: Vec<Item> = (0..40)
            .map(|i| lm_item(&format!("g{i}"), "CREST", -(i as f32) * 0.1, true))
            .collect();
        items.extend((0..10).map(|i| lm_item(&format!("b{i}"), "CREST", -20.0 - i as f32, false)));
        // MR2-3 and MR1-4 share a kind (rewritten); MR1-4's low scores are mostly good items.
        items.extend((0..40).map(|i| lm_item(&format!("r{i}"), "MR2-3", -(i as f32) * 0.1, true)));
        items.extend((0..10).map(|i| lm_item(&format!("s{i}"), "MR2-3", -40.0 - i as f32, false)));
        items.extend((0..3).map(|i| lm_item(&format!("t{i}"), "MR1-4", -45.0 - i as f32, true)));
        items.extend((0..2).map(|i| lm_item(&format!("u{i}"), "MR1-4", -45.0 - i as f32, false)));
        items.extend((0..30).map(|i| lm_item(&format!("v{i}"), "MR1-4", -(i as f32) * 0.1, true)));
        let refs: Vec<&Item> = items.iter().collect();
        let chosen = choose(&refs);
        // Just above the worst bad item's neighbour: every bad CREST item, no good one.
        let crest = chosen["lm/substitution"];
        assert!(crest > -20.0 && crest <= -19.9, "{chosen:?}");
        assert!(chosen.contains_key("lm/rewritten"), "{chosen:?}");
        assert_eq!(
            chosen.get("lm/MR1-4"),
            Some(&f32::NEG_INFINITY),
            "{chosen:?}"
        );
        let mr14: Vec<&Item> = refs
            .iter()
            .copied()
            .filter(|i| i.relation == "MR1-4")
            .collect();
        assert_eq!(Outcome::of(&mr14, &chosen, None).bad_rejected, 0);
        let crest_items: Vec<&Item> = refs
            .iter()
            .copied()
            .filter(|i| i.relation == "CREST")
            .collect();
        assert_eq!(Outcome::of(&crest_items, &chosen, None).bad_rejected, 10);
    }

    #[test]
    fn the_ending_threshold_is_per_relation() {
        let ending = |id: String, relation: &str, score: f32, good: bool| Item {
            scores: scores(&[("lm_ending", score)]),
            ..lm_item(&id, relation, 0.0, good)
        };
        // NLPLego-SA: cut parents end improbably, whole ones likely. NLPLego-SSM: its least
        // likely endings are good, so no threshold keeps half of what it rejects bad.
        let mut items: Vec<Item> = (0..40)
            .map(|i| ending(format!("g{i}"), "NLPLego-SA", -(i as f32) * 0.1, true))
            .collect();
        items
            .extend((0..10).map(|i| ending(format!("b{i}"), "NLPLego-SA", -9.0 - i as f32, false)));
        items.extend((0..40).map(|i| {
            ending(
                format!("p{i}"),
                "NLPLego-SSM",
                -(i as f32) * 0.3,
                i >= 30 || i % 2 == 0,
            )
        }));
        let refs: Vec<&Item> = items.iter().collect();
        let chosen = choose(&refs);
        let sa = chosen["lm_ending/NLPLego-SA"];
        assert!(sa > -9.0 && sa <= -8.9, "{chosen:?}");
        assert!(!chosen.contains_key("lm_ending/NLPLego-SSM"), "{chosen:?}");
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
