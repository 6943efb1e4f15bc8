//! CREST's oracle (seed-004 §3): the coreference clusters predicted for a source and for its
//! follow-up compared as link sets, after mapping the follow-up's character offsets back to the
//! source text through the case's edits.
//!
//! A *link* is an unordered pair of distinct mentions in one cluster (BLANC's coreference links,
//! Recasens & Hovy 2011); singleton clusters contribute none. With the source's links `L_s` as
//! the reference and the follow-up's `L_f` compared against them:
//! precision `|L_s ∩ L_f| / |L_f|`, recall `|L_s ∩ L_f| / |L_s|`, each 1 when its denominator is
//! 0 (two outputs without links are consistent, as the artifact's set equality has it).
//!
//! Alignment: a single-word replacement changes the length of the text after it, so "he" at
//! 40..42 in the source may sit at 44..46 in the follow-up. Offsets before an edit are kept,
//! offsets after it move back by the edit's length difference, and a boundary inside a
//! replacement maps to the replaced text's start (for a span's start) or end (for its end) — the
//! paper's token-index equivalence `≡`, done on characters because predictions are character
//! spans.

use std::collections::BTreeSet;

use metamorph_data::{CharSpan, Edit};

/// The link precision and recall of a follow-up's clusters against the source's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkScores {
    /// `|L_s ∩ L_f| / |L_f|` (1 when the follow-up has no link).
    pub precision: f64,
    /// `|L_s ∩ L_f| / |L_s|` (1 when the source has no link).
    pub recall: f64,
    /// Links of the source.
    pub source_links: usize,
    /// Links of the follow-up.
    pub followup_links: usize,
    /// Links in both.
    pub common: usize,
}

/// Scores the follow-up's clusters (character spans of the follow-up's text) against the
/// source's, mapping the follow-up through `edits` (the case's edits of the clustered field, in
/// any order; they must not overlap).
pub fn link_scores(
    source: &[Vec<CharSpan>],
    followup: &[Vec<CharSpan>],
    edits: &[&Edit],
) -> LinkScores {
    let mut edits: Vec<&Edit> = edits.to_vec();
    edits.sort_by_key(|e| e.start);
    let mapped: Vec<Vec<CharSpan>> = followup
        .iter()
        .map(|cluster| {
            cluster
                .iter()
                .map(|s| CharSpan {
                    start: to_source(s.start, &edits, false),
                    end: to_source(s.end, &edits, true),
                })
                .collect()
        })
        .collect();
    let (ls, lf) = (links(source), links(&mapped));
    let common = ls.intersection(&lf).count();
    let ratio = |n: usize, d: usize| if d == 0 { 1.0 } else { n as f64 / d as f64 };
    LinkScores {
        precision: ratio(common, lf.len()),
        recall: ratio(common, ls.len()),
        source_links: ls.len(),
        followup_links: lf.len(),
        common,
    }
}

type Link = ((u32, u32), (u32, u32));

/// The coreference links of `clusters`: unordered pairs of distinct mentions of one cluster.
fn links(clusters: &[Vec<CharSpan>]) -> BTreeSet<Link> {
    let mut out = BTreeSet::new();
    for cluster in clusters {
        let mentions: BTreeSet<(u32, u32)> = cluster.iter().map(|s| (s.start, s.end)).collect();
        let mentions: Vec<(u32, u32)> = mentions.into_iter().collect();
        for (k, a) in mentions.iter().enumerate() {
            for b in &mentions[k + 1..] {
                out.insert((*a, *b));
            }
        }
    }
    out
}

/// The source offset of follow-up offset `x` (a span's end when `is_end`) under `edits`, sorted
/// by source start.
fn to_source(x: u32, edits: &[&Edit], is_end: bool) -> u32 {
    let mut delta: i64 = 0; // follow-up minus source, before the current edit
    for edit in edits {
        let before = edit.before.chars().count() as i64;
        let after = edit.after.chars().count() as i64;
        let start = edit.start as i64 + delta; // the replacement's start in the follow-up
        let end = start + after;
        let x = x as i64;
        let past = if is_end { x > end } else { x >= end };
        let ahead = if is_end { x <= start } else { x < start };
        if ahead {
            return (x - delta).max(0) as u32;
        }
        if !past {
            return if is_end { edit.end } else { edit.start };
        }
        delta += after - before;
    }
    (x as i64 - delta).max(0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(start: u32, end: u32) -> CharSpan {
        CharSpan { start, end }
    }

    fn edit(start: u32, before: &str, after: &str) -> Edit {
        Edit {
            field: "text".into(),
            start,
            end: start + before.chars().count() as u32,
            before: before.into(),
            after: after.into(),
        }
    }

    #[test]
    fn identical_clusters_in_any_order_score_one() {
        let a = vec![
            vec![s(0, 4), s(10, 12)],
            vec![s(20, 25), s(30, 33), s(40, 42)],
        ];
        let b = vec![
            vec![s(40, 42), s(20, 25), s(30, 33)],
            vec![s(10, 12), s(0, 4)],
        ];
        let scores = link_scores(&a, &b, &[]);
        assert_eq!((scores.precision, scores.recall), (1.0, 1.0));
        assert_eq!((scores.source_links, scores.common), (4, 4));
    }

    #[test]
    fn shifted_offsets_after_a_longer_word_are_aligned() {
        // "John baked a homemade pie for he…": "homemade" → "home-baked" (+2 characters).
        let source = "John baked a homemade pie and he ate it";
        let e = edit(13, "homemade", "home-baked");
        let followup = "John baked a home-baked pie and he ate it";
        let he_src = source.find(" he ").unwrap() as u32 + 1;
        let he_fu = followup.find(" he ").unwrap() as u32 + 1;
        assert_eq!(he_fu, he_src + 2);
        let src = vec![vec![s(0, 4), s(he_src, he_src + 2)]];
        let fu = vec![vec![s(0, 4), s(he_fu, he_fu + 2)]];
        let scores = link_scores(&src, &fu, &[&e]);
        assert_eq!((scores.precision, scores.recall), (1.0, 1.0));
        // Without the edit the shifted mention is a different link.
        assert_eq!(link_scores(&src, &fu, &[]).common, 0);
        // A shorter word shifts the other way; a span covering the replacement maps to it.
        let short = edit(13, "homemade", "fresh");
        let fu = vec![vec![s(11, 18), s(he_src - 3, he_src - 1)]];
        let src = vec![vec![s(11, 21), s(he_src, he_src + 2)]];
        assert_eq!(link_scores(&src, &fu, &[&short]).common, 1);
    }

    #[test]
    fn a_lost_link_lowers_recall_and_an_extra_one_precision() {
        // Seed example 14: 7 links of which 6 are kept — R = 6/7, P = 1.
        let four = vec![s(0, 1), s(2, 3), s(4, 5), s(6, 7)]; // 6 links
        let src = vec![four.clone(), vec![s(10, 11), s(12, 13)]]; // + 1 = 7
        let fu = vec![four];
        let scores = link_scores(&src, &fu, &[]);
        assert_eq!(scores.precision, 1.0);
        assert!((scores.recall - 6.0 / 7.0).abs() < 1e-12);
        // Seed example 13: reference {the city, this city}, compared {this city, it, the city}:
        // P = 1/3, R = 1.
        let src = vec![vec![s(0, 8), s(20, 29)]];
        let fu = vec![vec![s(20, 29), s(40, 42), s(0, 8)]];
        let scores = link_scores(&src, &fu, &[]);
        assert!((scores.precision - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(scores.recall, 1.0);
    }

    #[test]
    fn outputs_without_links_are_consistent() {
        let scores = link_scores(&[], &[vec![s(0, 2)]], &[]);
        assert_eq!((scores.precision, scores.recall), (1.0, 1.0));
        assert_eq!(scores.source_links, 0);
    }
}
