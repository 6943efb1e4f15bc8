//! The spans check: every answer, relation argument and coreference mention of a follow-up still
//! covers whole words of its text, does not end in a possessive clitic ("Queen Victoria 's"),
//! and — where the change was re-parsed — a mention is headed by a noun, not a verb ("Otto
//! became Duke").

use metamorph_data::{Example, ParsedText};

/// What is wrong with the first broken span of `followup`, or `None` when all are whole.
/// `text_parse` is a re-parse of the follow-up's whole `text`, when there is one: mentions are
/// tested for a verb head against it.
pub fn broken_span(followup: &Example, text_parse: Option<&ParsedText>) -> Option<String> {
    if let Some(answers) = &followup.answers {
        let context: Vec<char> = followup.context.as_deref().unwrap_or("").chars().collect();
        for a in answers {
            let Some(start) = a.start.map(|s| s as usize) else {
                continue;
            };
            let end = start + a.text.chars().count();
            if end > context.len() || context[start..end].iter().collect::<String>() != a.text {
                return Some(format!(
                    "answer {:?} is not at character {start} of the context",
                    a.text
                ));
            }
            if let Some(why) = unwhole(&context, start, end) {
                return Some(format!("answer {:?} {why}", a.text));
            }
        }
    }
    if let Some(tokens) = &followup.tokens {
        for (role, arg) in [("head", &followup.head), ("tail", &followup.tail)] {
            let Some(arg) = arg else { continue };
            let (s, e) = (arg.start as usize, arg.end as usize);
            if s >= e || e > tokens.len() {
                return Some(format!(
                    "{role} {:?} spans tokens {s}..{e} of a {}-token sentence",
                    arg.text,
                    tokens.len()
                ));
            }
            if tokens[s..e].join(" ") != arg.text {
                return Some(format!(
                    "{role} {:?} is not the text of its tokens {s}..{e} ({:?})",
                    arg.text,
                    tokens[s..e].join(" ")
                ));
            }
            if is_clitic(&tokens[e - 1]) || is_clitic(&tokens[s]) {
                return Some(format!(
                    "{role} {:?} takes in a possessive clitic",
                    arg.text
                ));
            }
        }
    }
    if let (Some(clusters), Some(text)) = (&followup.clusters, &followup.text) {
        let chars: Vec<char> = text.chars().collect();
        for span in clusters.iter().flatten() {
            let (s, e) = (span.start as usize, span.end as usize);
            if s >= e || e > chars.len() {
                return Some(format!(
                    "mention {s}..{e} lies outside the {}-character text",
                    chars.len()
                ));
            }
            let mention: String = chars[s..e].iter().collect();
            if let Some(why) = unwhole(&chars, s, e) {
                return Some(format!("mention {mention:?} {why}"));
            }
            if let Some(head) = text_parse.and_then(|p| verb_head(p, s, e)) {
                return Some(format!(
                    "mention {mention:?} is headed by the verb {head:?}"
                ));
            }
        }
    }
    None
}

/// Why `text[start..end]` is not a sequence of whole words, if it is not.
fn unwhole(text: &[char], start: usize, end: usize) -> Option<&'static str> {
    let word = |i: usize| text.get(i).is_some_and(|c| c.is_alphanumeric());
    if start > 0 && word(start - 1) && word(start) {
        return Some("starts inside a word");
    }
    if word(end - 1) && word(end) {
        return Some("ends inside a word");
    }
    let span: String = text[start..end].iter().collect();
    let last = span.split_whitespace().last().unwrap_or("");
    let first = span.split_whitespace().next().unwrap_or("");
    if span.split_whitespace().count() > 1 && (is_clitic(last) || is_clitic(first)) {
        return Some("takes in a possessive clitic");
    }
    if span.trim() != span {
        return Some("has spaces at its ends");
    }
    None
}

fn is_clitic(word: &str) -> bool {
    matches!(word, "'s" | "’s" | "'" | "’")
}

/// The verb heading characters `start..end` of `parse`'s text, when the span's head (its token
/// whose head lies outside it) is a verb or auxiliary and the span is more than that word.
fn verb_head(parse: &ParsedText, start: usize, end: usize) -> Option<String> {
    let in_span: Vec<usize> = parse
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.start as usize >= start && t.end as usize <= end)
        .map(|(i, _)| i)
        .collect();
    let inside = |i: usize| in_span.contains(&i);
    let heads: Vec<usize> = in_span
        .iter()
        .copied()
        .filter(|&i| {
            let h = parse.tokens[i].head as usize;
            h == i || !inside(h)
        })
        .collect();
    match heads[..] {
        [head] if in_span.len() > 1 => {
            let t = &parse.tokens[head];
            matches!(t.pos.as_str(), "VERB" | "AUX").then(|| t.text.clone())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::{Answer, CharSpan, EntitySpan, Task};

    #[test]
    fn answers_must_sit_on_whole_words() {
        let mut e = Example::new("x", Task::Squad);
        e.context = Some("Paris is the capital.".into());
        e.answers = Some(vec![Answer {
            text: "Paris".into(),
            start: Some(0),
        }]);
        assert_eq!(broken_span(&e, None), None);
        e.answers = Some(vec![Answer {
            text: "ari".into(),
            start: Some(1),
        }]);
        let why = broken_span(&e, None).unwrap();
        assert!(why.contains("inside a word"), "{why}");
        e.answers = Some(vec![Answer {
            text: "Rome".into(),
            start: Some(0),
        }]);
        assert!(broken_span(&e, None)
            .unwrap()
            .contains("not at character 0"));
    }

    #[test]
    fn arguments_and_mentions_must_not_take_a_clitic() {
        let mut e = Example::new("x", Task::Relation);
        e.tokens = Some(
            ["Queen", "Victoria", "'s", "son", "died"]
                .map(String::from)
                .to_vec(),
        );
        e.head = Some(EntitySpan {
            text: "Queen Victoria 's".into(),
            start: 0,
            end: 3,
            entity_type: None,
        });
        assert!(broken_span(&e, None).unwrap().contains("clitic"));
        e.head = Some(EntitySpan {
            text: "Queen Victoria".into(),
            start: 0,
            end: 2,
            entity_type: None,
        });
        assert_eq!(broken_span(&e, None), None);

        let mut c = Example::new("y", Task::Coref);
        c.text = Some("Queen Victoria 's son met her.".into());
        c.clusters = Some(vec![vec![
            CharSpan { start: 0, end: 17 },
            CharSpan { start: 26, end: 29 },
        ]]);
        assert!(broken_span(&c, None).unwrap().contains("clitic"));
    }
}
