//! Post-processing of a parse: pseudo-projective decoding and sentence boundaries.
//!
//! The parser predicts projective trees; non-projective arcs were encoded in training with
//! Nivre & Nilsson's (2005) HEAD scheme as labels `label||head_label`. [`deprojectivize`] moves
//! each such token to the first token labelled `head_label` found breadth-first below its
//! current head, as spaCy's `nonproj.deprojectivize` does — including its use of the subtree
//! edges computed *before* any arc moves. [`set_sentence_starts`] then marks the left edge of
//! every root's subtree as a sentence start (`set_children_from_heads`).

use super::super::lexeme::is_space;
use super::super::Doc;

const DELIMITER: &str = "||";

/// Left and right subtree edges, computed with spaCy's iterative passes (which settle within a
/// few passes for non-projective trees, and stop after eleven).
fn subtree_edges(heads: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let n = heads.len();
    let mut l_edge: Vec<usize> = (0..n).collect();
    let mut r_edge: Vec<usize> = (0..n).collect();
    let mut loops = 0;
    loop {
        for i in 0..n {
            let h = heads[i];
            l_edge[h] = l_edge[h].min(l_edge[i]);
            r_edge[h] = r_edge[h].max(r_edge[i]);
        }
        for i in (0..n).rev() {
            let h = heads[i];
            r_edge[h] = r_edge[h].max(r_edge[i]);
            l_edge[h] = l_edge[h].min(l_edge[i]);
        }
        if heads_within_sentences(heads, &l_edge) || loops > 10 {
            break;
        }
        loops += 1;
    }
    (l_edge, r_edge)
}

fn heads_within_sentences(heads: &[usize], l_edge: &[usize]) -> bool {
    let n = heads.len();
    let mut starts = vec![false; n];
    for i in 0..n {
        if heads[i] == i {
            starts[l_edge[i]] = true;
        }
    }
    let mut sent_start = 0;
    for (i, &starts_here) in starts.iter().enumerate() {
        if (i > 0 && starts_here) || i == n - 1 {
            let sent_end = i;
            if heads[sent_start..sent_end]
                .iter()
                .any(|&head| head < sent_start || head > sent_end)
            {
                return false;
            }
            sent_start = i;
        }
    }
    true
}

/// Reattaches tokens whose label carries a `||head_label` decoration and strips it.
pub fn deprojectivize(doc: &mut Doc) {
    let n = doc.len();
    if !doc.tokens.iter().any(|t| t.dep.contains(DELIMITER)) {
        return;
    }
    let heads: Vec<usize> = doc.tokens.iter().map(|t| t.head).collect();
    let (l_edge, r_edge) = subtree_edges(&heads);
    let spaces: Vec<bool> = (0..n).map(|i| is_space(doc.token_text(i))).collect();
    for i in 0..n {
        let Some((label, head_label)) = doc.tokens[i].dep.split_once(DELIMITER) else {
            continue;
        };
        let (label, head_label) = (label.to_string(), head_label.to_string());
        let new_head = find_new_head(doc, i, &head_label, &l_edge, &r_edge, &spaces);
        doc.tokens[i].head = new_head;
        doc.tokens[i].dep = label;
    }
}

/// Breadth-first search below the head of `token` for a token labelled `head_label`.
fn find_new_head(
    doc: &Doc,
    token: usize,
    head_label: &str,
    l_edge: &[usize],
    r_edge: &[usize],
    spaces: &[bool],
) -> usize {
    let mut queue = vec![doc.tokens[token].head];
    let mut visited = 0usize;
    while !queue.is_empty() {
        let mut next = Vec::new();
        for &q in &queue {
            // Children as spaCy enumerates them: within q's (stale) edges, current head == q.
            for child in (l_edge[q]..=r_edge[q]).filter(|&c| c != q && doc.tokens[c].head == q) {
                visited += 1;
                if spaces[child] || child == token {
                    continue;
                }
                if doc.tokens[child].dep == head_label {
                    return child;
                }
                next.push(child);
            }
        }
        // A tree has at most n nodes; this bound only matters for malformed input.
        if visited > doc.len() * 2 {
            break;
        }
        queue = next;
    }
    doc.tokens[token].head
}

/// Marks sentence starts: the left edge of every root's subtree.
pub fn set_sentence_starts(doc: &mut Doc) {
    let heads: Vec<usize> = doc.tokens.iter().map(|t| t.head).collect();
    let (l_edge, _) = subtree_edges(&heads);
    for t in &mut doc.tokens {
        t.sent_start = false;
    }
    for i in 0..heads.len() {
        if heads[i] == i {
            doc.tokens[l_edge[i]].sent_start = true;
        }
    }
    if let Some(first) = doc.tokens.first_mut() {
        first.sent_start = true;
    }
}
