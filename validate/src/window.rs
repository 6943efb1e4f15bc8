//! What a follow-up changed, found by diffing each text field against its source (so it holds for
//! every relation, including those that rebuild a text and record no edits), and the window of
//! whole sentences around the change that the checks read.

use std::borrow::Cow;
use std::ops::Range;

use metamorph_data::{Case, Example};

/// The text fields a follow-up can change; `tokens` is the pre-tokenised text of relation
/// extraction, joined with spaces.
pub const FIELDS: [&str; 5] = ["question", "context", "text", "text_b", "tokens"];

/// The text of field `name` of `example` (see [`FIELDS`]).
pub fn field_text<'a>(example: &'a Example, name: &str) -> Option<Cow<'a, str>> {
    match name {
        "tokens" => example.tokens.as_ref().map(|t| Cow::Owned(t.join(" "))),
        _ => example.field(name).map(Cow::Borrowed),
    }
}

/// One changed field of a follow-up: the sentences around the change before and after.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The field (`question`, `context`, …, `tokens`).
    pub field: String,
    /// The source's sentences around the change.
    pub source: String,
    /// The follow-up's sentences around the change.
    pub followup: String,
    /// The changed words, as a character range of `source` (empty for an insertion).
    pub source_words: Range<usize>,
    /// The changed words, as a character range of `followup` (empty for a deletion).
    pub followup_words: Range<usize>,
}

impl Change {
    /// The replaced words of the source.
    pub fn before(&self) -> String {
        char_slice(&self.source, self.source_words.clone())
    }

    /// The words that replaced them.
    pub fn after(&self) -> String {
        char_slice(&self.followup, self.followup_words.clone())
    }
}

/// The characters `range` of `text`.
pub fn char_slice(text: &str, range: Range<usize>) -> String {
    text.chars()
        .skip(range.start)
        .take(range.end.saturating_sub(range.start))
        .collect()
}

/// Every field the follow-up of `case` changed against its source, with `context` sentences
/// either side of the changed ones. For a case of two sources (the combination relations), each
/// field is compared with the source whose text it shares most with.
pub fn changes(case: &Case, context: usize) -> Vec<Change> {
    let mut out = Vec::new();
    for field in FIELDS {
        let Some(after) = field_text(&case.followup, field) else {
            continue;
        };
        // The text the edits were made to, where the relation recorded them (for NLPLego-SSM
        // the parent sentence, not the source's field); else the closest source field.
        if case.edits.iter().any(|e| e.field == field) {
            let before: Vec<char> = edited_from(&after, case, field).chars().collect();
            let after: Vec<char> = after.chars().collect();
            out.extend(hunks(field, &before, &after, context));
            continue;
        }
        let after: Vec<char> = after.chars().collect();
        let best = case
            .sources
            .iter()
            .filter_map(|s| field_text(s, field))
            .map(|before| {
                let before: Vec<char> = before.chars().collect();
                let (p, q) = common_ends(&before, &after);
                (p + q, before)
            })
            .max_by_key(|(shared, _)| *shared);
        let Some((_, before)) = best else { continue };
        out.extend(hunks(field, &before, &after, context));
    }
    out
}

/// The changes of `before` into `after`, one per run of changed sentences: the sentences of
/// both are aligned (longest common subsequence of equal sentences), and each run of
/// unmatched ones, with `context` sentences either side (at least one where a side is empty:
/// a sentence added or removed is judged with its neighbours), becomes a [`Change`]. A passage
/// whose every third sentence was edited gives one small window per edit, not one window over
/// the passage.
fn hunks(field: &str, before: &[char], after: &[char], context: usize) -> Vec<Change> {
    if before == after {
        return Vec::new();
    }
    let sb = sentence_ranges(before);
    let sa = sentence_ranges(after);
    let text = |t: &[char], r: &Range<usize>| -> String { t[r.clone()].iter().collect() };
    let tb: Vec<String> = sb.iter().map(|r| text(before, r)).collect();
    let ta: Vec<String> = sa.iter().map(|r| text(after, r)).collect();
    // lcs[i][j]: common sentences of tb[i..] and ta[j..].
    let (n, m) = (tb.len(), ta.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if tb[i] == ta[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut runs: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut open: Option<(usize, usize)> = None;
    while i < n || j < m {
        if i < n && j < m && tb[i] == ta[j] {
            if let Some((i0, j0)) = open.take() {
                runs.push((i0..i, j0..j));
            }
            i += 1;
            j += 1;
            continue;
        }
        open.get_or_insert((i, j));
        if j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            i += 1;
        } else {
            j += 1;
        }
    }
    if let Some((i0, j0)) = open {
        runs.push((i0..n, j0..m));
    }
    let mut out: Vec<Change> = Vec::new();
    for (rb, ra) in runs {
        let around = if rb.is_empty() || ra.is_empty() {
            context.max(1)
        } else {
            context
        };
        // Unchanged neighbours are the same on both sides: `around` of them before the run
        // starts at rb.start (before) and ra.start (after), which align.
        let lead = around.min(rb.start).min(ra.start);
        let tail = around.min(n - rb.end).min(m - ra.end);
        let span = |ranges: &[Range<usize>], r: &Range<usize>, len: usize| -> Range<usize> {
            let (first, last) = (r.start - lead, r.end + tail);
            if first >= last {
                return len..len;
            }
            ranges[first].start..ranges[last - 1].end
        };
        let b = span(&sb, &rb, before.len());
        let a = span(&sa, &ra, after.len());
        out.push(change(field, &before[b], &after[a]));
    }
    out
}

/// The character ranges of the sentences of `text`, without the whitespace between them.
fn sentence_ranges(text: &[char]) -> Vec<Range<usize>> {
    let starts = sentence_starts(text);
    let mut out = Vec::with_capacity(starts.len());
    for (k, &start) in starts.iter().enumerate() {
        let mut end = starts.get(k + 1).copied().unwrap_or(text.len());
        while end > start && text[end - 1].is_whitespace() {
            end -= 1;
        }
        out.push(start..end);
    }
    out
}

/// The text `field`'s edits were made to, rebuilt from the follow-up by undoing them: the
/// source's field for most relations, but the parent sentence for NLPLego-SSM, whose follow-up
/// pairs a derived sentence with its parent rather than with the source's `text_b`.
pub fn edited_from(after: &str, case: &Case, field: &str) -> String {
    let chars: Vec<char> = after.chars().collect();
    let mut edits: Vec<_> = case.edits.iter().filter(|e| e.field == field).collect();
    edits.sort_by_key(|e| e.start);
    let mut before = String::with_capacity(after.len());
    // `at` walks the follow-up; `shift` is how far follow-up offsets run ahead of the source's.
    let mut at = 0usize;
    let mut shift: i64 = 0;
    for edit in edits {
        let start = (i64::from(edit.start) + shift).clamp(0, chars.len() as i64) as usize;
        let end = (start + edit.after.chars().count()).min(chars.len());
        if start < at {
            // Overlapping edits cannot be undone one by one: show the follow-up's field as is.
            return after.to_string();
        }
        before.extend(&chars[at..start]);
        before.push_str(&edit.before);
        at = end;
        shift += edit.after.chars().count() as i64 - i64::from(edit.end - edit.start);
    }
    before.extend(&chars[at..]);
    before
}

/// The change of `before` into `after` (the sentences of one run), widened to whole words.
fn change(field: &str, before: &[char], after: &[char]) -> Change {
    let (mut p, mut q) = common_ends(before, after);
    // Widen to whole words: a common prefix or suffix that stops inside a word of either text
    // gives that word up to the change.
    let word = |text: &[char], i: usize| text.get(i).is_some_and(|c| c.is_alphanumeric());
    while p > 0 && word(before, p - 1) && (word(before, p) || word(after, p)) {
        p -= 1;
    }
    while q > 0 && {
        let (b, a) = (before.len() - q, after.len() - q);
        word(before, b) && ((b > p && word(before, b - 1)) || (a > p && word(after, a - 1)))
    } {
        q -= 1;
    }
    let (b_end, a_end) = (before.len() - q, after.len() - q);
    Change {
        field: field.to_string(),
        source: before.iter().collect(),
        followup: after.iter().collect(),
        source_words: p..b_end,
        followup_words: p..a_end,
    }
}

/// Lengths of the longest common prefix and the longest common suffix that does not overlap it.
fn common_ends(a: &[char], b: &[char]) -> (usize, usize) {
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - p;
    let q = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    (p, q)
}

/// Where each sentence of `text` starts: at 0, and after a run of whitespace that follows a
/// `.`, `!` or `?` (behind any closing quotes or brackets) or holds a line break.
fn sentence_starts(text: &[char]) -> Vec<usize> {
    let mut starts = vec![0];
    let mut i = 0;
    while i < text.len() {
        if text[i].is_whitespace() && i > 0 {
            let gap_start = i;
            let mut newline = false;
            while i < text.len() && text[i].is_whitespace() {
                newline |= text[i] == '\n';
                i += 1;
            }
            let mut j = gap_start;
            while j > 0 && matches!(text[j - 1], '"' | '\'' | ')' | ']' | '”' | '’') {
                j -= 1;
            }
            let ends_sentence = j > 0 && matches!(text[j - 1], '.' | '!' | '?');
            // "U.S. Army", "e.g. this": a lower-case word after the stop does not start one.
            let next_upper = text
                .get(i)
                .is_some_and(|c| c.is_uppercase() || c.is_numeric() || matches!(c, '"' | '“'));
            if i < text.len() && (newline || (ends_sentence && next_upper)) {
                starts.push(i);
            }
        } else {
            i += 1;
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::{Expectation, Task};

    fn case(before: &str, after: &str) -> Case {
        let mut source = Example::new("s", Task::Sentiment);
        source.text = Some(before.into());
        let mut followup = Example::new("s:X:0", Task::Sentiment);
        followup.text = Some(after.into());
        Case::new("f", "X", vec![source], followup, &Expectation::Equal)
    }

    #[test]
    fn a_substituted_word_is_found_whole_in_its_sentence() {
        let c = case(
            "It rained. He made a phone call to her. Then he left.",
            "It rained. He made a phone yell to her. Then he left.",
        );
        let changes = changes(&c, 0);
        assert_eq!(changes.len(), 1);
        let ch = &changes[0];
        assert_eq!(ch.source, "He made a phone call to her.");
        assert_eq!(ch.followup, "He made a phone yell to her.");
        assert_eq!(ch.before(), "call");
        assert_eq!(ch.after(), "yell");
        let wider = changes_with(&c, 1);
        assert_eq!(wider.source, c.sources[0].text.clone().unwrap());
    }

    fn changes_with(c: &Case, context: usize) -> Change {
        changes(c, context).remove(0)
    }

    #[test]
    fn words_sharing_a_prefix_are_widened_to_whole_words() {
        let c = case("a real realtor", "an unreal realtor");
        let ch = changes_with(&c, 0);
        assert_eq!(ch.before(), "a real");
        assert_eq!(ch.after(), "an unreal");
    }

    #[test]
    fn unchanged_fields_give_no_change_and_abbreviations_do_not_split() {
        let c = case("Same text.", "Same text.");
        assert!(changes(&c, 0).is_empty());
        let c = case(
            "The U.S. army won. It was late.",
            "The U.S. military won. It was late.",
        );
        assert_eq!(changes_with(&c, 0).source, "The U.S. army won.");
    }

    #[test]
    fn edits_in_separate_sentences_give_separate_windows() {
        let c = case(
            "The cat sat. It was warm. A dog barked. The end came.",
            "The cat rested. It was warm. A dog yelped. The end came.",
        );
        let got = changes(&c, 0);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(
            (got[0].before(), got[0].after()),
            ("sat".into(), "rested".into())
        );
        assert_eq!(got[1].source, "A dog barked.");
        assert_eq!(got[1].followup, "A dog yelped.");
        // A removed sentence is judged with its neighbours.
        let c = case("One here. Two there. Three now.", "One here. Three now.");
        let got = changes(&c, 0);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].source, "One here. Two there. Three now.");
        assert_eq!(got[0].followup, "One here. Three now.");
    }

    #[test]
    fn insertions_and_deletions_have_empty_sides() {
        let c = case("is it true", "is it not true");
        let ch = changes_with(&c, 0);
        assert_eq!(ch.before(), "");
        assert_eq!(ch.after(), "not ");
    }
}
