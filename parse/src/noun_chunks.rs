//! English base noun phrases, identical to spaCy 3.8's `Doc.noun_chunks`.
//!
//! A port of `spacy/lang/en/syntax_iterators.py::noun_chunks`: every `NOUN`, `PROPN` or `PRON`
//! token whose dependency label is one of `oprd nsubj dobj nsubjpass pcomp pobj dative appos attr
//! ROOT` (or that is a `conj` whose chain of leftward `conj` heads ends at such a token) yields the
//! chunk `[left_edge, i + 1)`, unless its left edge falls inside the previous chunk (no nesting).
//!
//! The left edge must be spaCy's own, not the true leftmost descendant: spaCy computes it with
//! `set_children_from_heads` (`spacy/tokens/doc.pyx`), a forward and a backward propagation pass
//! repeated while some head lies outside the sentence bounds those edges imply (at most 12
//! passes). For projective trees this is the leftmost descendant; for non-projective ones it can
//! differ, so [`spacy_left_edges`] replays the same passes. Each pass is linear, so the whole
//! computation is linear in the document length.

use std::ops::Range;

use crate::spacy::Doc;

/// Dependency labels whose nominal heads start a noun chunk.
const NP_DEPS: [&str; 10] = [
    "oprd",
    "nsubj",
    "dobj",
    "nsubjpass",
    "pcomp",
    "pobj",
    "dative",
    "appos",
    "attr",
    "ROOT",
];

fn is_np_dep(dep: &str) -> bool {
    NP_DEPS.contains(&dep)
}

/// The head of token `i`, clamped into the document: a head index outside the document is
/// treated as the token itself (a root), so malformed input never panics.
fn head_of(doc: &Doc, i: usize) -> usize {
    let h = doc.tokens[i].head;
    if h < doc.tokens.len() {
        h
    } else {
        i
    }
}

/// spaCy's `Token.left_edge` for every token, computed as spaCy's `set_children_from_heads` does.
///
/// Why not the true leftmost descendant: for non-projective trees spaCy's bounded iteration can
/// stop before full propagation, and `noun_chunks` must reproduce spaCy, not the ideal.
pub fn spacy_left_edges(doc: &Doc) -> Vec<usize> {
    let n = doc.tokens.len();
    let heads: Vec<usize> = (0..n).map(|i| head_of(doc, i)).collect();
    let mut l_edge: Vec<usize> = (0..n).collect();
    let mut r_edge: Vec<usize> = (0..n).collect();
    let mut is_sent_start = vec![false; n];
    let mut loop_count = 0;
    loop {
        // Forward pass.
        for i in 0..n {
            let h = heads[i];
            if l_edge[i] < l_edge[h] {
                l_edge[h] = l_edge[i];
            }
            if r_edge[i] > r_edge[h] {
                r_edge[h] = r_edge[i];
            }
        }
        // Backward pass.
        for i in (0..n).rev() {
            let h = heads[i];
            if r_edge[i] > r_edge[h] {
                r_edge[h] = r_edge[i];
            }
            if l_edge[i] < l_edge[h] {
                l_edge[h] = l_edge[i];
            }
        }
        if heads_within_sents(&heads, &l_edge, &mut is_sent_start) || loop_count > 10 {
            break;
        }
        loop_count += 1;
    }
    l_edge
}

/// The sentence-bounds check ending each round of `_set_lr_kids_and_edges`, quirks included
/// (a sentence's last token may have its head at the next sentence's first token).
fn heads_within_sents(heads: &[usize], l_edge: &[usize], is_sent_start: &mut [bool]) -> bool {
    let n = heads.len();
    is_sent_start.iter_mut().for_each(|s| *s = false);
    for (i, &h) in heads.iter().enumerate() {
        if h == i {
            is_sent_start[l_edge[i]] = true;
        }
    }
    let mut cur_start = 0;
    for (i, &starts) in is_sent_start.iter().enumerate() {
        if (i > 0 && starts) || i + 1 == n {
            let cur_end = i;
            for &h in &heads[cur_start..cur_end] {
                if h < cur_start || h > cur_end {
                    return false;
                }
            }
            cur_start = i;
        }
    }
    true
}

/// spaCy's English noun chunks of `doc`, as token ranges in document order.
///
/// Needs `pos`, `dep` and `head`; a doc without them (all deps empty) has no chunks, as spaCy's
/// pipeline without a parser would give none (spaCy itself raises there).
pub fn noun_chunks(doc: &Doc) -> Vec<Range<usize>> {
    let n = doc.tokens.len();
    let mut out = Vec::new();
    if n == 0 || doc.tokens.iter().all(|t| t.dep.is_empty()) {
        return out;
    }
    let left = spacy_left_edges(doc);
    // `prev_end` is spaCy's, shifted by one so that "no chunk yet" (-1) is 0.
    let mut prev_end_plus1 = 0usize;
    for (i, word) in doc.tokens.iter().enumerate() {
        if !matches!(word.pos.as_str(), "NOUN" | "PROPN" | "PRON") {
            continue;
        }
        if left[i] < prev_end_plus1 {
            continue;
        }
        let is_chunk = if is_np_dep(&word.dep) {
            true
        } else if word.dep == "conj" {
            let mut head = head_of(doc, i);
            // Bounded by the number of tokens: the chain strictly moves left.
            while doc.tokens[head].dep == "conj" && head_of(doc, head) < head {
                head = head_of(doc, head);
            }
            is_np_dep(&doc.tokens[head].dep)
        } else {
            false
        };
        if is_chunk {
            prev_end_plus1 = i + 1;
            out.push(left[i]..i + 1);
        }
    }
    out
}
