//! SIT4RE MR-R4, "Replacement with a coreferential entity": the head (or tail) span moves to a
//! mention in the same sentence that refers to the same entity; **the text is not changed**, only
//! the span pointer ("John is a father , he loves his child Mary": the tail `he` → `John`).
//! Expectation `Equal`, no precondition.
//!
//! The paper ran NeuralCoref (spaCy 2 only) and took the highest-scoring coreferent. We read the
//! example's own `clusters` (character spans into `text`, e.g. a dataset's coreference
//! annotation merged into the relation file). Gold clusters carry no scores, so every other
//! mention of the argument's cluster gives a case. A mention must cover whole tokens, differ from
//! the argument and not overlap the other argument; the moved span keeps the argument's entity
//! type (the paper leaves a pronoun's type open; inheriting it keeps typed inputs typed).
//!
//! An example without clusters yields nothing (the stage's counts show it); the relation logs
//! one notice per run saying that R4 needs coreference clusters.

use metamorph_data::{Case, CharSpan, Expectation, Result, Task};

use super::span_edit::{char_offsets, Role};
use super::{followup_of, span, well_formed, Notice, FAMILY};
use crate::{MetamorphicRelation, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR-R4";

/// SIT4RE MR-R4 (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct CoreferentialMention;

static NO_CLUSTERS: Notice = Notice::new();

impl MetamorphicRelation for CoreferentialMention {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::Relation]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let example = source.example;
        let Some(clusters) = example.clusters.as_ref() else {
            NO_CLUSTERS.once(
                NAME,
                "MR-R4 needs coreference clusters in the relation examples (`clusters`, character spans into `text`); examples without them give no MR-R4 case",
            );
            return Ok(Vec::new());
        };
        if !well_formed(example) {
            return Ok(Vec::new());
        }
        let tokens = example.tokens.as_ref().expect("well formed");
        let offsets = char_offsets(tokens);
        let token_span = |m: &CharSpan| {
            let start = offsets.iter().position(|&(s, _)| s == m.start as usize)?;
            let end = offsets.iter().position(|&(_, e)| e == m.end as usize)?;
            (start <= end).then_some((start, end + 1))
        };
        let mut cases = Vec::new();
        for role in Role::BOTH {
            let arg = role.of(example).expect("well formed");
            let other = role.other().of(example).expect("well formed");
            let here = CharSpan {
                start: offsets[arg.start as usize].0 as u32,
                end: offsets[arg.end as usize - 1].1 as u32,
            };
            let Some(cluster) = clusters.iter().find(|c| c.contains(&here)) else {
                continue;
            };
            for mention in cluster.iter().filter(|m| **m != here) {
                let Some((start, end)) = token_span(mention) else {
                    continue;
                };
                if start < other.end as usize && end > other.start as usize {
                    continue;
                }
                let mut followup = followup_of(example, NAME, cases.len());
                let moved = span(tokens, start, end, arg.entity_type.clone());
                match role {
                    Role::Head => followup.head = Some(moved),
                    Role::Tail => followup.tail = Some(moved),
                }
                cases.push(Case::new(
                    FAMILY,
                    NAME,
                    vec![example.clone()],
                    followup,
                    &Expectation::Equal,
                ));
            }
        }
        Ok(cases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::{EntitySpan, Example, Task};

    fn example(tokens: &[&str], head: (u32, u32), tail: (u32, u32)) -> Example {
        let tokens: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
        let s = |(a, b): (u32, u32)| EntitySpan {
            text: tokens[a as usize..b as usize].join(" "),
            start: a,
            end: b,
            entity_type: Some("PERSON".into()),
        };
        let mut e = Example::new("r", Task::Relation);
        e.head = Some(s(head));
        e.tail = Some(s(tail));
        e.text = Some(tokens.join(" "));
        e.tokens = Some(tokens);
        e
    }

    #[test]
    fn table_2_the_tail_moves_from_he_to_john() {
        // "John is a father , he loves his child Mary ." (h = Mary, t = he) → per:parents.
        let mut e = example(
            &[
                "John", "is", "a", "father", ",", "he", "loves", "his", "child", "Mary", ".",
            ],
            (9, 10),
            (5, 6),
        );
        let at = char_offsets(e.tokens.as_ref().unwrap());
        let mention = |i: usize| CharSpan {
            start: at[i].0 as u32,
            end: at[i].1 as u32,
        };
        e.clusters = Some(vec![vec![mention(0), mention(5), mention(7)]]);
        assert_eq!(&e.text.as_deref().unwrap()[19..21], "he");
        let cases = CoreferentialMention
            .follow_ups(&Source::unparsed(&e))
            .unwrap();
        assert_eq!(cases.len(), 2);
        let f = &cases[0].followup;
        assert_eq!(f.text, e.text);
        assert_eq!(f.tokens, e.tokens);
        let tail = f.tail.as_ref().unwrap();
        assert_eq!((tail.start, tail.end, tail.text.as_str()), (0, 1, "John"));
        assert_eq!(tail.entity_type.as_deref(), Some("PERSON"));
        assert_eq!(f.head, e.head);
        assert!(cases[0].edits.is_empty());
        assert_eq!(cases[0].expectation().unwrap(), Expectation::Equal);
        assert_eq!(cases[1].followup.tail.as_ref().unwrap().text, "his");
        assert_eq!(cases[1].case_id, "r:MR-R4:1");
    }

    #[test]
    fn without_clusters_or_with_misaligned_mentions_there_is_no_case() {
        let mut e = example(&["Ann", "met", "Bob", "."], (0, 1), (2, 3));
        let r4 = CoreferentialMention;
        assert!(r4.follow_ups(&Source::unparsed(&e)).unwrap().is_empty());
        // A mention inside a token, and one on the other argument.
        e.clusters = Some(vec![vec![
            CharSpan { start: 0, end: 3 },
            CharSpan { start: 5, end: 6 },
            CharSpan { start: 8, end: 11 },
        ]]);
        assert!(r4.follow_ups(&Source::unparsed(&e)).unwrap().is_empty());
    }
}
