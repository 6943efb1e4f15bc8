//! Token-span editing for SIT4RE's replacement relations (MR-R1–R3): replace the tokens around
//! the head or the tail by new tokens, re-index the other argument exactly (it may lie before or
//! after the edit, and the replacement may have another number of tokens: "San Francisco" → "the
//! United States"), and keep `tokens`, `text` (the tokens joined by single spaces), the spans'
//! `text` and any coreference clusters consistent. The change is recorded as one [`Edit`] on
//! `text` in character offsets.

use std::ops::Range;

use metamorph_data::{CharSpan, Edit, EntitySpan, Example};

/// Which argument of a relation example.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The head (subject, e_h).
    Head,
    /// The tail (object, e_t).
    Tail,
}

impl Role {
    /// Both roles, head first.
    pub const BOTH: [Role; 2] = [Role::Head, Role::Tail];

    /// The argument of `example` in this role.
    pub fn of(self, example: &Example) -> Option<&EntitySpan> {
        match self {
            Role::Head => example.head.as_ref(),
            Role::Tail => example.tail.as_ref(),
        }
    }

    /// The other role.
    pub fn other(self) -> Role {
        match self {
            Role::Head => Role::Tail,
            Role::Tail => Role::Head,
        }
    }

    fn slot(self, example: &mut Example) -> &mut Option<EntitySpan> {
        match self {
            Role::Head => &mut example.head,
            Role::Tail => &mut example.tail,
        }
    }

    /// `head` or `tail`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Head => "head",
            Role::Tail => "tail",
        }
    }
}

/// Replace tokens `[start, end)` (which must cover the argument) by `tokens`, of which
/// `tokens[mention]` become the argument's new span (the rest, e.g. an article or a dropped
/// appositive, lie outside it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewrite {
    /// First replaced token.
    pub start: usize,
    /// One past the last replaced token.
    pub end: usize,
    /// The new tokens.
    pub tokens: Vec<String>,
    /// The new argument's tokens, as indices into `tokens`.
    pub mention: Range<usize>,
}

impl Rewrite {
    /// Replaces exactly the argument `span` by `tokens`.
    pub fn mention(span: &EntitySpan, tokens: Vec<String>) -> Self {
        let n = tokens.len();
        Rewrite {
            start: span.start as usize,
            end: span.end as usize,
            tokens,
            mention: 0..n,
        }
    }
}

/// Character `[start, end)` of each token in the tokens joined by single spaces.
pub fn char_offsets(tokens: &[String]) -> Vec<(usize, usize)> {
    let mut at = 0;
    tokens
        .iter()
        .map(|t| {
            let start = at;
            let end = start + t.chars().count();
            at = end + 1;
            (start, end)
        })
        .collect()
}

/// Splits a surface form into tokens the way TACRED and FewRel tokenise names: on whitespace,
/// with a trailing comma split off (`Washington, D.C.` → `Washington` `,` `D.C.`).
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        match word.strip_suffix(',') {
            Some(rest) if !rest.is_empty() => {
                out.push(rest.to_string());
                out.push(",".to_string());
            }
            _ => out.push(word.to_string()),
        }
    }
    out
}

/// Whether `span` is a valid non-empty span of `n` tokens.
fn valid(span: &EntitySpan, n: usize) -> bool {
    span.start < span.end && span.end as usize <= n
}

/// `example` with the argument in `role` rewritten by `rewrite` and typed `entity_type`, and the
/// edit on `text`. The follow-up keeps the source's id and label (callers set both).
///
/// `None` (no case) when the example has no tokens or arguments, the rewrite does not cover the
/// argument, overlaps the other argument, or its tokens are empty or hold whitespace (the text
/// would no longer split back into the tokens).
pub fn rewrite_argument(
    example: &Example,
    role: Role,
    rewrite: &Rewrite,
    entity_type: Option<String>,
) -> Option<(Example, Edit)> {
    let tokens = example.tokens.as_ref()?;
    let n = tokens.len();
    let span = role.of(example)?;
    let other = role.other().of(example)?;
    let Rewrite {
        start,
        end,
        tokens: new,
        mention,
    } = rewrite;
    let (start, end) = (*start, *end);
    if !valid(span, n) || !valid(other, n) || end > n || start > end {
        return None;
    }
    if (span.start as usize) < start || span.end as usize > end {
        return None;
    }
    if (other.start as usize) < end && (other.end as usize) > start {
        return None;
    }
    if mention.start >= mention.end || mention.end > new.len() {
        return None;
    }
    if new
        .iter()
        .any(|t| t.is_empty() || t.chars().any(char::is_whitespace))
    {
        return None;
    }

    let offsets = char_offsets(tokens);
    let char_start = offsets[start].0;
    let char_end = offsets[end - 1].1;
    let before = tokens[start..end].join(" ");
    let after = new.join(" ");
    let delta_chars = after.chars().count() as i64 - before.chars().count() as i64;
    let delta_tokens = new.len() as i64 - (end - start) as i64;

    let mut tokens_out = Vec::with_capacity((n as i64 + delta_tokens) as usize);
    tokens_out.extend_from_slice(&tokens[..start]);
    tokens_out.extend(new.iter().cloned());
    tokens_out.extend_from_slice(&tokens[end..]);

    let mut followup = example.clone();
    let shift = |i: u32| (i64::from(i) + delta_tokens) as u32;
    let mut moved = other.clone();
    if other.start as usize >= end {
        moved.start = shift(other.start);
        moved.end = shift(other.end);
    }
    let replaced = EntitySpan {
        text: new[mention.clone()].join(" "),
        start: (start + mention.start) as u32,
        end: (start + mention.end) as u32,
        entity_type,
    };
    *role.slot(&mut followup) = Some(replaced);
    *role.other().slot(&mut followup) = Some(moved);
    followup.text = Some(tokens_out.join(" "));
    followup.tokens = Some(tokens_out);
    if let Some(clusters) = &example.clusters {
        followup.clusters = Some(shift_clusters(clusters, char_start, char_end, delta_chars));
    }
    let edit = Edit {
        field: "text".into(),
        start: char_start as u32,
        end: char_end as u32,
        before,
        after,
    };
    Some((followup, edit))
}

/// Coreference clusters after replacing characters `[start, end)`: mentions before stay,
/// mentions after shift by `delta`, mentions overlapping the edit are dropped, and so are
/// clusters left with fewer than two mentions.
fn shift_clusters(
    clusters: &[Vec<CharSpan>],
    start: usize,
    end: usize,
    delta: i64,
) -> Vec<Vec<CharSpan>> {
    clusters
        .iter()
        .map(|cluster| {
            cluster
                .iter()
                .filter_map(|m| {
                    if m.end as usize <= start {
                        Some(*m)
                    } else if m.start as usize >= end {
                        Some(CharSpan {
                            start: (i64::from(m.start) + delta) as u32,
                            end: (i64::from(m.end) + delta) as u32,
                        })
                    } else {
                        None
                    }
                })
                .collect::<Vec<_>>()
        })
        .filter(|c| c.len() >= 2)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::Task;
    use proptest::prelude::*;

    fn example(tokens: &[&str], head: Range<usize>, tail: Range<usize>) -> Example {
        let tokens: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
        let span = |r: Range<usize>, t: &str| EntitySpan {
            text: tokens[r.clone()].join(" "),
            start: r.start as u32,
            end: r.end as u32,
            entity_type: Some(t.into()),
        };
        let mut e = Example::new("s", Task::Relation);
        e.head = Some(span(head, "PERSON"));
        e.tail = Some(span(tail, "CITY"));
        e.text = Some(tokens.join(" "));
        e.tokens = Some(tokens);
        e
    }

    /// The chars `[start, end)` of `text`.
    fn chars(text: &str, start: u32, end: u32) -> String {
        text.chars()
            .skip(start as usize)
            .take((end - start) as usize)
            .collect()
    }

    #[test]
    fn a_longer_tail_before_the_head_shifts_the_head() {
        // "San Francisco" (2 tokens) → "the United States" (3), the article outside the span.
        let e = example(
            &["In", "San", "Francisco", ",", "Richard", "was", "born", "."],
            4..5,
            1..3,
        );
        let rewrite = Rewrite {
            start: 1,
            end: 3,
            tokens: vec!["the".into(), "United".into(), "States".into()],
            mention: 1..3,
        };
        let (f, edit) = rewrite_argument(&e, Role::Tail, &rewrite, Some("COUNTRY".into())).unwrap();
        assert_eq!(
            f.text.as_deref(),
            Some("In the United States , Richard was born .")
        );
        let head = f.head.as_ref().unwrap();
        assert_eq!(
            (head.start, head.end, head.text.as_str()),
            (5, 6, "Richard")
        );
        let tail = f.tail.as_ref().unwrap();
        assert_eq!(
            (tail.start, tail.end, tail.text.as_str()),
            (2, 4, "United States")
        );
        assert_eq!(tail.entity_type.as_deref(), Some("COUNTRY"));
        assert_eq!((edit.start, edit.end), (3, 16));
        assert_eq!(edit.before, "San Francisco");
        assert_eq!(edit.after, "the United States");
    }

    #[test]
    fn refuses_rewrites_that_miss_the_argument_or_touch_the_other() {
        let e = example(&["A", "met", "B", "."], 0..1, 2..3);
        let over_other = Rewrite {
            start: 0,
            end: 3,
            tokens: vec!["C".into()],
            mention: 0..1,
        };
        assert!(rewrite_argument(&e, Role::Head, &over_other, None).is_none());
        let misses = Rewrite {
            start: 1,
            end: 2,
            tokens: vec!["C".into()],
            mention: 0..1,
        };
        assert!(rewrite_argument(&e, Role::Head, &misses, None).is_none());
        let spaced = Rewrite::mention(e.head.as_ref().unwrap(), vec!["C D".into()]);
        assert!(rewrite_argument(&e, Role::Head, &spaced, None).is_none());
    }

    #[test]
    fn clusters_shift_with_the_edit() {
        let mut e = example(&["Ann", "said", "she", "left", "Rome"], 0..1, 4..5);
        // "Ann" 0..3, "she" 9..12
        e.clusters = Some(vec![vec![
            CharSpan { start: 0, end: 3 },
            CharSpan { start: 9, end: 12 },
        ]]);
        let rewrite = Rewrite::mention(e.head.as_ref().unwrap(), tokenize("Mary Jane"));
        let (f, _) = rewrite_argument(&e, Role::Head, &rewrite, None).unwrap();
        // The replaced mention leaves the cluster, which then has one mention and is dropped.
        assert_eq!(f.clusters, Some(vec![]));
        let rewrite = Rewrite::mention(e.tail.as_ref().unwrap(), tokenize("New York"));
        let (f, _) = rewrite_argument(&e, Role::Tail, &rewrite, None).unwrap();
        assert_eq!(f.clusters, e.clusters);
    }

    #[test]
    fn tokenize_splits_trailing_commas() {
        assert_eq!(tokenize("Washington, D.C."), ["Washington", ",", "D.C."]);
        assert_eq!(tokenize("  Tim   Cook "), ["Tim", "Cook"]);
        assert_eq!(tokenize(","), [","]);
    }

    fn word() -> impl Strategy<Value = String> {
        "[a-zA-Zé,.]{1,6}"
    }

    /// Tokens, two disjoint spans (head, tail), the role to rewrite, how far the rewritten
    /// region extends around its span, and the new tokens with the mention inside them.
    #[allow(clippy::type_complexity)]
    fn case() -> impl Strategy<
        Value = (
            Vec<String>,
            Range<usize>,
            Range<usize>,
            Role,
            (usize, usize),
            Vec<String>,
            Range<usize>,
        ),
    > {
        (3usize..14)
            .prop_flat_map(|n| {
                (
                    proptest::collection::vec(word(), n),
                    proptest::sample::subsequence((0..=n).collect::<Vec<_>>(), 4),
                    any::<bool>(),
                    any::<bool>(),
                    (0usize..3, 0usize..3),
                    proptest::collection::vec(word(), 1..5),
                )
            })
            .prop_flat_map(|(tokens, cuts, head_first, tail_role, ext, new)| {
                // cuts a <= b <= c <= d; spans [a, b) and [c, d), made non-empty by nudging.
                let (a, b, c, d) = (cuts[0], cuts[1], cuts[2], cuts[3]);
                let first = a..b.max(a + 1);
                let second = c.max(first.end)..d.max(c.max(first.end) + 1);
                let n = tokens.len();
                let second = if second.end > n {
                    first.clone()
                } else {
                    second
                };
                let (head, tail) = if head_first {
                    (first, second)
                } else {
                    (second, first)
                };
                let role = if tail_role { Role::Tail } else { Role::Head };
                let m = new.len();
                (
                    Just(tokens),
                    Just(head),
                    Just(tail),
                    Just(role),
                    Just(ext),
                    Just(new),
                    (0..m).prop_flat_map(move |s| (Just(s), s + 1..=m)),
                )
            })
            .prop_map(|(t, h, tl, r, e, new, (ms, me))| (t, h, tl, r, e, new, ms..me))
    }

    proptest! {
        #[test]
        fn rewrites_keep_spans_tokens_and_text_consistent(
            (tokens, head, tail, role, (left, right), new, mention) in case()
        ) {
            let refs: Vec<&str> = tokens.iter().map(String::as_str).collect();
            let e = example(&refs, head.clone(), tail.clone());
            let (span, other) = match role {
                Role::Head => (head.clone(), tail.clone()),
                Role::Tail => (tail.clone(), head.clone()),
            };
            let start = span.start.saturating_sub(left);
            let end = (span.end + right).min(tokens.len());
            let rewrite = Rewrite { start, end, tokens: new.clone(), mention: mention.clone() };
            let touches_other = other.start < end && other.end > start;
            let result = rewrite_argument(&e, role, &rewrite, Some("X".into()));
            if touches_other || head == tail {
                prop_assert!(result.is_none());
                return Ok(());
            }
            let (f, edit) = result.expect("a valid rewrite");
            let out = f.tokens.clone().unwrap();
            let text = f.text.clone().unwrap();
            prop_assert_eq!(&text, &out.join(" "));
            // Tokens outside the region are preserved, in order.
            prop_assert_eq!(&out[..start], &tokens[..start]);
            prop_assert_eq!(&out[start + new.len()..], &tokens[end..]);
            // The replaced span's text is the replacement's mention, and its tokens say so.
            let r = role.of(&f).unwrap();
            prop_assert_eq!(&r.text, &new[mention.clone()].join(" "));
            prop_assert_eq!(&out[r.start as usize..r.end as usize].join(" "), &r.text);
            // The untouched span's text is unchanged and it points at the same tokens.
            let o = role.other().of(&f).unwrap();
            let o_before = role.other().of(&e).unwrap();
            prop_assert_eq!(&o.text, &o_before.text);
            prop_assert_eq!(&out[o.start as usize..o.end as usize].join(" "), &o.text);
            prop_assert_eq!(&o.entity_type, &o_before.entity_type);
            // The edit is exact on the source text and reproduces the follow-up text.
            let source_text = e.text.clone().unwrap();
            prop_assert_eq!(chars(&source_text, edit.start, edit.end), edit.before.clone());
            let rebuilt: String = source_text.chars().take(edit.start as usize)
                .chain(edit.after.chars())
                .chain(source_text.chars().skip(edit.end as usize))
                .collect();
            prop_assert_eq!(rebuilt, text);
        }
    }
}
