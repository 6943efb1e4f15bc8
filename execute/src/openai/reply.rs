//! Reading a label, a yes/no or an answer span out of a chat model's free-text reply.
//!
//! Chat models rarely answer with the bare token asked for: "Yes.", "**No**", "The answer is
//! yes", "Sentiment: positive". The parsers accept those and refuse what stays ambiguous (both
//! yes and no, two labels, nothing recognisable): an invented label would silently corrupt the
//! verdicts, so the caller turns a refusal into an error naming the example.
//! `<think>…</think>` blocks (reasoning models) are dropped first.

use metamorph_data::AnswerSpan;

/// The reply without reasoning blocks and surrounding whitespace.
fn strip_thinking(reply: &str) -> &str {
    // An unclosed block means the reply was cut off while reasoning: nothing usable after it.
    match reply.rfind("</think>") {
        Some(end) => reply[end + "</think>".len()..].trim(),
        None if reply.trim_start().starts_with("<think>") => "",
        None => reply.trim(),
    }
}

/// Markdown emphasis, code ticks and quotes a model wraps a short answer in.
fn is_wrapper(c: char) -> bool {
    matches!(
        c,
        '*' | '_' | '`' | '"' | '\'' | '“' | '”' | '‘' | '’' | '«' | '»'
    )
}

/// Sentence punctuation a model ends a short answer with.
fn is_trailing_punctuation(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | ',' | ';' | ':')
}

/// The reply's lowercase words (runs of letters and digits).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn polarity(word: &str) -> Option<bool> {
    match word {
        "yes" | "true" => Some(true),
        "no" | "false" => Some(false),
        _ => None,
    }
}

/// The first non-empty line of a reply of several lines (a model that answers, then explains).
fn first_line_of_several(text: &str) -> Option<&str> {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    (first != text.trim()).then_some(first)
}

/// `true` for yes, `false` for no.
///
/// The first word decides when it is yes/no/true/false ("No, it is not true" is no);
/// otherwise the reply must mention exactly one polarity ("The answer is yes"), else its first
/// line must.
///
/// # Errors
/// A message saying why the reply is neither or both.
pub fn parse_yes_no(reply: &str) -> Result<bool, String> {
    let body = strip_thinking(reply);
    yes_no_in(body, reply).or_else(|e| match first_line_of_several(body) {
        Some(line) => yes_no_in(line, reply).map_err(|_| e),
        None => Err(e),
    })
}

/// [`parse_yes_no`] on `text`; messages quote `reply`.
fn yes_no_in(text: &str, reply: &str) -> Result<bool, String> {
    let words = words(text);
    if let Some(first) = words.first().and_then(|w| polarity(w)) {
        return Ok(first);
    }
    let yes = words.iter().any(|w| polarity(w) == Some(true));
    let no = words.iter().any(|w| polarity(w) == Some(false));
    match (yes, no) {
        (true, false) => Ok(true),
        (false, true) => Ok(false),
        (true, true) => Err(format!("the reply says both yes and no: {}", quoted(reply))),
        (false, false) => Err(format!(
            "the reply is neither yes nor no: {}",
            quoted(reply)
        )),
    }
}

/// The label of `labels` the reply gives: the reply itself (exactly, then ignoring case and
/// wrapping quotes/emphasis/final punctuation), else the one label it mentions as a whole word.
/// A mention inside a longer mentioned label counts for the longer one only. When the whole
/// reply gives none or several, its first line is read the same way.
///
/// # Errors
/// A message when the reply mentions none or several labels.
pub fn parse_label(reply: &str, labels: &[String]) -> Result<String, String> {
    let body = strip_thinking(reply);
    label_in(body, labels, reply).or_else(|e| match first_line_of_several(body) {
        Some(line) => label_in(line, labels, reply).map_err(|_| e),
        None => Err(e),
    })
}

/// [`parse_label`] on `body`; messages quote `reply`.
fn label_in(body: &str, labels: &[String], reply: &str) -> Result<String, String> {
    if let Some(l) = labels.iter().find(|l| l.as_str() == body) {
        return Ok(l.clone());
    }
    let bare = strip_wrapping(body);
    if let Some(l) = labels
        .iter()
        .find(|l| l.to_lowercase() == bare.to_lowercase())
    {
        return Ok(l.clone());
    }
    let lower = body.to_lowercase();
    // (start, end, label index) of every whole-word mention.
    let mut mentions = Vec::new();
    for (i, label) in labels.iter().enumerate() {
        let needle = label.to_lowercase();
        if needle.is_empty() {
            continue;
        }
        for (start, _) in lower.match_indices(&needle) {
            let end = start + needle.len();
            let before = lower[..start].chars().next_back();
            let after = lower[end..].chars().next();
            let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
            if boundary(before) && boundary(after) {
                mentions.push((start, end, i));
            }
        }
    }
    let outer: Vec<usize> = mentions
        .iter()
        .filter(|(s, e, _)| {
            !mentions
                .iter()
                .any(|(s2, e2, _)| s2 <= s && e <= e2 && (e2 - s2) > (e - s))
        })
        .map(|&(_, _, i)| i)
        .collect();
    let mut found: Vec<usize> = outer.clone();
    found.sort_unstable();
    found.dedup();
    match found.as_slice() {
        [one] => Ok(labels[*one].clone()),
        [] => Err(format!(
            "the reply names none of the labels ({}): {}",
            labels.join(", "),
            quoted(reply)
        )),
        many => Err(format!(
            "the reply names several labels ({}): {}",
            many.iter()
                .map(|&i| labels[i].as_str())
                .collect::<Vec<_>>()
                .join(", "),
            quoted(reply)
        )),
    }
}

/// The reply without wrapping quotes/emphasis, a leading `Answer:` and final punctuation.
fn strip_wrapping(text: &str) -> &str {
    let mut t = strip_answer_prefix(text);
    if t.len() >= "label:".len()
        && t.is_char_boundary("label:".len())
        && t[.."label:".len()].eq_ignore_ascii_case("label:")
    {
        t = t["label:".len()..].trim_start();
    }
    loop {
        let next = t
            .trim()
            .trim_end_matches(is_trailing_punctuation)
            .trim_matches(is_wrapper)
            .trim();
        if next == t {
            return t;
        }
        t = next;
    }
}

/// Replies that mean "the passage does not answer the question" (SQuAD 2.0).
const NO_ANSWER: [&str; 8] = [
    "",
    "unanswerable",
    "no answer",
    "none",
    "n/a",
    "not answerable",
    "cannot be answered",
    "the question cannot be answered",
];

/// The answer span a reply gives for `context`, with character offsets when it occurs there.
///
/// The reply is tried as written (trimmed, without wrapping quotes/emphasis or a leading
/// `Answer:`), then without final punctuation; each first case-sensitively, then ignoring case;
/// runs of whitespace match any run of whitespace. The text is that of the context when found,
/// the reply's otherwise (DROP numbers, paraphrased answers) with no offsets. "unanswerable",
/// "none", … and an empty reply give the empty answer (SQuAD 2.0's null answer).
pub fn parse_span(reply: &str, context: &str) -> AnswerSpan {
    let answer = |text: &str, start: Option<u32>, end: Option<u32>| AnswerSpan {
        text: text.to_string(),
        start,
        end,
        score: None,
    };
    let body = strip_answer_prefix(strip_thinking(reply));
    // The whole reply, then its first line (a model that explains after answering).
    let mut candidates = vec![body];
    if let Some(line) = first_line_of_several(body) {
        candidates.push(strip_answer_prefix(line));
    }
    if let Some(word) = yes_no_opening(body) {
        return answer(word, None, None);
    }
    let mut fallback = "";
    for candidate in candidates {
        let unwrapped = candidate.trim_matches(is_wrapper).trim();
        let bare = strip_wrapping(candidate);
        if NO_ANSWER.contains(&bare.to_lowercase().as_str()) {
            return answer("", None, None);
        }
        for text in [unwrapped, bare] {
            for fold_case in [false, true] {
                if let Some((start, end)) = find_chars(context, text, fold_case) {
                    let text: String = context.chars().skip(start).take(end - start).collect();
                    return answer(&text, Some(start as u32), Some(end as u32));
                }
            }
        }
        fallback = bare;
    }
    answer(fallback, None, None)
}

/// `text` without a leading `Answer:`, `Final answer:` or "The answer (to the question) is"
/// (any case).
fn strip_answer_prefix(text: &str) -> &str {
    let mut t = text.trim();
    for prefix in [
        "final answer:",
        "answer:",
        "the answer to the question is",
        "the answer to this question is",
        "the answer is",
    ] {
        if t.len() >= prefix.len()
            && t.is_char_boundary(prefix.len())
            && t[..prefix.len()].eq_ignore_ascii_case(prefix)
        {
            t = t[prefix.len()..]
                .trim_start()
                .trim_start_matches(':')
                .trim_start();
        }
    }
    t
}

/// `yes` or `no` when the reply opens with that word ("Yes, Mason Crosby kicked …"): the
/// answer of a yes/no question, which no passage span holds.
fn yes_no_opening(text: &str) -> Option<&'static str> {
    let first: String = text
        .trim_start_matches(is_wrapper)
        .chars()
        .take_while(|c| c.is_alphabetic())
        .collect();
    match first.to_lowercase().as_str() {
        "yes" => Some("yes"),
        "no" => Some("no"),
        _ => None,
    }
}

/// Character offsets `(start, end)` of the first occurrence of `needle` in `haystack`; runs of
/// whitespace in `needle` match runs of whitespace.
fn find_chars(haystack: &str, needle: &str, fold_case: bool) -> Option<(usize, usize)> {
    let hay: Vec<char> = haystack.chars().collect();
    let pat: Vec<char> = needle.chars().collect();
    if pat.is_empty() {
        return None;
    }
    let same = |a: char, b: char| a == b || (fold_case && a.to_lowercase().eq(b.to_lowercase()));
    (0..hay.len()).find_map(|start| {
        let (mut h, mut p) = (start, 0);
        while p < pat.len() {
            if pat[p].is_whitespace() {
                if h >= hay.len() || !hay[h].is_whitespace() {
                    return None;
                }
                while p < pat.len() && pat[p].is_whitespace() {
                    p += 1;
                }
                while h < hay.len() && hay[h].is_whitespace() {
                    h += 1;
                }
            } else {
                if h >= hay.len() || !same(pat[p], hay[h]) {
                    return None;
                }
                h += 1;
                p += 1;
            }
        }
        Some((start, h))
    })
}

pub(crate) use metamorph_data::http::quoted;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yes_no_replies() {
        for reply in [
            "Yes.",
            "yes",
            "**Yes**",
            "The answer is yes.",
            "True",
            "Answer: YES",
            "<think>Is it no? Let me check.</think>\nYes",
            "Yes, although one could say no.",
        ] {
            assert_eq!(parse_yes_no(reply), Ok(true), "{reply}");
        }
        for reply in [
            "No",
            "**No**",
            "no.",
            "The answer is no",
            "False.",
            "No, it is not true.",
            "`no`",
        ] {
            assert_eq!(parse_yes_no(reply), Ok(false), "{reply}");
        }
        assert!(parse_yes_no("I cannot tell.")
            .unwrap_err()
            .contains("neither yes nor no"));
        assert!(parse_yes_no("It could be yes or no.")
            .unwrap_err()
            .contains("both yes and no"));
        assert!(parse_yes_no("").is_err());
        // The first line decides when the whole reply is ambiguous.
        assert_eq!(
            parse_yes_no("The answer is yes.\nIt is not false that the sky is blue."),
            Ok(true)
        );
        // "Nothing", "yesterday", "not" are not answers.
        assert!(parse_yes_no("Nothing happened yesterday.").is_err());
        // A reply cut off while reasoning has no answer.
        assert!(parse_yes_no("<think>yes, because").is_err());
    }

    fn labels(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn labels_exact_case_insensitive_or_the_one_mentioned() {
        let sentiment = labels(&["positive", "negative", "neutral"]);
        assert_eq!(parse_label("positive", &sentiment).unwrap(), "positive");
        assert_eq!(parse_label("Negative.", &sentiment).unwrap(), "negative");
        assert_eq!(parse_label("**NEUTRAL**", &sentiment).unwrap(), "neutral");
        assert_eq!(
            parse_label("The sentiment of this text is positive.", &sentiment).unwrap(),
            "positive"
        );
        assert!(parse_label("mixed feelings", &sentiment)
            .unwrap_err()
            .contains("none of the labels"));
        let err = parse_label("not negative but positive", &sentiment).unwrap_err();
        assert!(err.contains("several labels (positive, negative)"), "{err}");
        assert_eq!(
            parse_label(
                "Positive\n\nThe reviewer is not negative at all.",
                &sentiment
            )
            .unwrap(),
            "positive"
        );
        // Whole words only: "nonpositive" mentions nothing.
        assert!(parse_label("nonpositive", &sentiment).is_err());
    }

    #[test]
    fn a_label_inside_a_longer_mentioned_label_counts_once() {
        let relations = labels(&["per:title", "no_relation", "org:member_of", "org:members"]);
        assert_eq!(
            parse_label("Relation: org:member_of", &relations).unwrap(),
            "org:member_of"
        );
        assert_eq!(parse_label("PER:TITLE", &relations).unwrap(), "per:title");
        assert_eq!(
            parse_label("I'd say no_relation.", &relations).unwrap(),
            "no_relation"
        );
        let nested = labels(&["title", "per:title"]);
        assert_eq!(
            parse_label("It is per:title.", &nested).unwrap(),
            "per:title"
        );
    }

    #[test]
    fn spans_get_character_offsets_in_the_context() {
        let context = "Die Wolga fließt ins Kaspische Meer. The Volga is Europe's longest river.";
        let span = parse_span("\"the Volga\".", context);
        assert_eq!(span.text, "The Volga");
        let start = context.chars().position(|c| c == 'T').unwrap() as u32;
        assert_eq!((span.start, span.end), (Some(start), Some(start + 9)));
        // Offsets count characters, not bytes (ß is two bytes).
        let span = parse_span("Kaspische Meer", context);
        assert_eq!((span.start, span.end), (Some(21), Some(35)));
        // Exact text wins over the case-folded one; final punctuation that is part of the
        // context is kept.
        let span = parse_span("Answer: **Europe's longest river.**", context);
        assert_eq!(span.text, "Europe's longest river.");
        // Whitespace runs match any whitespace run.
        let span = parse_span("Kaspische\n  Meer", context);
        assert_eq!(span.text, "Kaspische Meer");
        // Not in the context: the reply's text, no offsets.
        let span = parse_span("3,530 km.", context);
        assert_eq!(
            (span.text.as_str(), span.start, span.end),
            ("3,530 km", None, None)
        );
        // A model that explains after answering: the first line is the answer.
        let span = parse_span(
            "Kaspische Meer\n\nThe passage says it flows there.",
            context,
        );
        assert_eq!(
            (span.text.as_str(), span.start),
            ("Kaspische Meer", Some(21))
        );
        let span = parse_span("Answer: 3,530 km\nBecause …", context);
        assert_eq!((span.text.as_str(), span.start), ("3,530 km", None));
        // Small chat models' lead-ins, and yes/no answers (BPB's AppendBool questions).
        let span = parse_span("The answer is \"the Volga\".", context);
        assert_eq!(span.text, "The Volga");
        let span = parse_span("The answer to the question is: Kaspische Meer", context);
        assert_eq!(span.start, Some(21));
        let span = parse_span("The answer is \"Yes, it flows into the sea", context);
        assert_eq!((span.text.as_str(), span.start), ("yes", None));
        let span = parse_span("No.", context);
        assert_eq!(span.text, "no");
        let span = parse_span("Unanswerable.\nThe passage does not say.", context);
        assert_eq!((span.text.as_str(), span.start), ("", None));
        for null in ["unanswerable", "Unanswerable.", "", "  ", "N/A", "None."] {
            let span = parse_span(null, context);
            assert_eq!((span.text.as_str(), span.start), ("", None), "{null:?}");
        }
    }

    #[test]
    fn long_replies_are_cut_in_messages() {
        let message = quoted(&"x".repeat(500));
        assert!(message.ends_with('…') && message.len() < 210);
    }
}
