//! Word alignment by a longest common subsequence: which items of one sequence are the
//! other's, in order. Shared by the stages that compare a text they built with the text it
//! came from (BPB's questions written back in the question's own words, the validity step's
//! seams where NLPLego cut a phrase).

/// The pairs `(i, j)` of a longest common subsequence of `a` (length `a_len`) and `b` (length
/// `b_len`), in order, where `same(i, j)` says whether `a[i]` and `b[j]` match. Where several
/// subsequences are longest, the one that skips `a`'s items first is taken. Quadratic in time
/// and memory: meant for sentences, not documents.
pub fn longest_common_subsequence(
    a_len: usize,
    b_len: usize,
    same: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    // lengths[i][j]: the length of a longest common subsequence of a[i..] and b[j..].
    let mut lengths = vec![vec![0u32; b_len + 1]; a_len + 1];
    for i in (0..a_len).rev() {
        for j in (0..b_len).rev() {
            lengths[i][j] = if same(i, j) {
                lengths[i + 1][j + 1] + 1
            } else {
                lengths[i + 1][j].max(lengths[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut pairs) = (0, 0, Vec::new());
    while i < a_len && j < b_len {
        if same(i, j) {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if lengths[i + 1][j] >= lengths[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn align(a: &[&str], b: &[&str]) -> Vec<(usize, usize)> {
        longest_common_subsequence(a.len(), b.len(), |i, j| a[i] == b[j])
    }

    #[test]
    fn the_shared_items_pair_in_order() {
        let a = ["he", "spoke", "loud", "to", "hear"];
        let b = ["he", "spoke", "loud", "enough", "to", "hear"];
        assert_eq!(align(&a, &b), [(0, 0), (1, 1), (2, 2), (3, 4), (4, 5)]);
        assert!(align(&a, &[]).is_empty());
        assert!(align(&["x"], &["y"]).is_empty());
    }

    #[test]
    fn a_word_repeated_pairs_with_the_occurrence_that_keeps_the_rest() {
        // "in" matches the later "in" so that "Europe" still pairs.
        let a = ["the", "band", "in", "Europe"];
        let b = ["In", "2002", "the", "band", "played", "in", "Europe"];
        assert_eq!(align(&a, &b), [(0, 2), (1, 3), (2, 5), (3, 6)]);
    }
}
