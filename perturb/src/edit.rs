//! Text edits in character offsets: apply replacements to a field and record them as
//! [`Edit`]s, so every relation reports its edits the same way.

use metamorph_data::Edit;

/// One replacement of characters `[start, end)` of a text by `after`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// First replaced character.
    pub start: usize,
    /// One past the last replaced character.
    pub end: usize,
    /// The new text.
    pub after: String,
}

impl Replacement {
    /// Replaces characters `[start, end)` by `after`.
    pub fn new(start: usize, end: usize, after: impl Into<String>) -> Self {
        Replacement {
            start,
            end,
            after: after.into(),
        }
    }
}

/// Applies `replacements` (character offsets into `text`, any order, not overlapping) and
/// returns the new text with one [`Edit`] per replacement, in text order, offsets in `text`.
///
/// Returns `None` when two replacements overlap or one falls outside the text (a relation bug
/// that must not produce a case).
///
/// ```
/// use metamorph_perturb::edit::{apply, Replacement};
///
/// let (text, edits) = apply(
///     "question",
///     "is the sky blue",
///     vec![Replacement::new(11, 15, "grey"), Replacement::new(0, 2, "was")],
/// )
/// .unwrap();
/// assert_eq!(text, "was the sky grey");
/// assert_eq!((edits[0].start, edits[0].before.as_str()), (0, "is"));
/// ```
pub fn apply(
    field: &str,
    text: &str,
    mut replacements: Vec<Replacement>,
) -> Option<(String, Vec<Edit>)> {
    replacements.sort_by_key(|r| (r.start, r.end));
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(text.len()))
        .collect();
    let chars = boundaries.len() - 1;
    let mut out = String::with_capacity(text.len() + 16);
    let mut edits = Vec::with_capacity(replacements.len());
    let mut at = 0usize; // characters of `text` consumed
    for r in replacements {
        if r.start < at || r.end < r.start || r.end > chars {
            return None;
        }
        out.push_str(&text[boundaries[at]..boundaries[r.start]]);
        out.push_str(&r.after);
        edits.push(Edit {
            field: field.to_string(),
            start: r.start as u32,
            end: r.end as u32,
            before: text[boundaries[r.start]..boundaries[r.end]].to_string(),
            after: r.after,
        });
        at = r.end;
    }
    out.push_str(&text[boundaries[at]..]);
    Some((out, edits))
}

/// The one edit turning `before` into `after`: the characters between their common prefix and
/// their common suffix (`None` when the texts are equal). For follow-ups built by insertion,
/// where the relation has no replacement list of its own.
///
/// ```
/// let edit = metamorph_perturb::edit::difference("text", "a movie", "a tv movie").unwrap();
/// assert_eq!((edit.start, edit.end, edit.after.as_str()), (2, 2, "tv "));
/// ```
pub fn difference(field: &str, before: &str, after: &str) -> Option<Edit> {
    let b: Vec<char> = before.chars().collect();
    let a: Vec<char> = after.chars().collect();
    let prefix = b.iter().zip(&a).take_while(|(x, y)| x == y).count();
    if prefix == b.len() && prefix == a.len() {
        return None;
    }
    let max_suffix = b.len().min(a.len()) - prefix;
    let suffix = b
        .iter()
        .rev()
        .zip(a.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    Some(Edit {
        field: field.to_string(),
        start: prefix as u32,
        end: (b.len() - suffix) as u32,
        before: b[prefix..b.len() - suffix].iter().collect(),
        after: a[prefix..a.len() - suffix].iter().collect(),
    })
}

/// `word` written with the capitalisation pattern of `model`: all upper case, Title case, or
/// as given.
pub fn match_case(model: &str, word: &str) -> String {
    let letters = || model.chars().filter(|c| c.is_alphabetic());
    if letters().count() > 1 && letters().all(char::is_uppercase) {
        word.to_uppercase()
    } else if model.chars().next().is_some_and(char::is_uppercase) {
        capitalize(word)
    } else {
        word.to_string()
    }
}

/// `text` with its first character upper-cased.
pub fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The indefinite article ("a" or "an") that goes before `word`, by its first sound: "an" before
/// a vowel sound ("an honest", "an illegal", "an unusual"), "a" before a consonant sound,
/// including a vowel letter read as /j/ or /w/ ("a useful", "a unique", "a European", "a
/// one-sided"). A spelling heuristic for ordinary words (what WordNet substitutes); an acronym
/// in capitals is read letter by letter ("an RN", "an FBI agent", "a UN body").
pub fn indefinite_article(word: &str) -> &'static str {
    let letters: Vec<char> = word.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() >= 2 && letters.iter().all(|c| c.is_ascii_uppercase()) {
        return match letters[0] {
            'A' | 'E' | 'F' | 'H' | 'I' | 'L' | 'M' | 'N' | 'O' | 'R' | 'S' | 'X' => "an",
            _ => "a",
        };
    }
    let lower = word.to_lowercase();
    const SILENT_H: &[&str] = &["honest", "honor", "honour", "hour", "heir"];
    const CONSONANT_SOUND: &[&str] = &[
        "eu",
        "ewe",
        "one",
        "once",
        "unique",
        "univers",
        "uniform",
        "union",
        "unit",
        "unilateral",
        "unicorn",
        "unif",
        "unison",
        "unisex",
        "usu",
        "use",
        "usa",
        "uti",
        "utopia",
        "ura",
        "uri",
        "uro",
        "ubiq",
    ];
    if SILENT_H.iter().any(|p| lower.starts_with(p)) {
        return "an";
    }
    if CONSONANT_SOUND.iter().any(|p| lower.starts_with(p)) {
        return "a";
    }
    match lower.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacements_keep_offsets_in_characters() {
        let (text, edits) = apply(
            "context",
            "Müller saw Zoë.",
            vec![
                Replacement::new(11, 14, "Ann"),
                Replacement::new(0, 6, "He"),
            ],
        )
        .unwrap();
        assert_eq!(text, "He saw Ann.");
        assert_eq!(edits.len(), 2);
        assert_eq!((edits[1].start, edits[1].end), (11, 14));
        assert_eq!(edits[1].before, "Zoë");
    }

    #[test]
    fn overlapping_or_out_of_range_replacements_are_refused() {
        assert!(apply(
            "q",
            "abcdef",
            vec![Replacement::new(0, 3, "x"), Replacement::new(2, 4, "y")]
        )
        .is_none());
        assert!(apply("q", "abc", vec![Replacement::new(2, 4, "y")]).is_none());
        // Insertions at the same point are fine when they do not overlap a replacement.
        let (text, _) = apply(
            "q",
            "abc",
            vec![Replacement::new(3, 3, "!"), Replacement::new(0, 0, "<")],
        )
        .unwrap();
        assert_eq!(text, "<abc!");
    }

    #[test]
    fn case_patterns() {
        assert_eq!(match_case("Before", "after"), "After");
        assert_eq!(match_case("AFTER", "before"), "BEFORE");
        assert_eq!(match_case("after", "before"), "before");
        assert_eq!(match_case("I", "me"), "Me");
        assert_eq!(capitalize("éte"), "Éte");
    }

    #[test]
    fn acronyms_take_the_article_of_their_first_letter() {
        assert_eq!(indefinite_article("RN"), "an");
        assert_eq!(indefinite_article("FBI"), "an");
        assert_eq!(indefinite_article("UN"), "a");
        assert_eq!(indefinite_article("NBA"), "an");
        assert_eq!(indefinite_article("BBC"), "a");
    }

    #[test]
    fn indefinite_articles_follow_the_first_sound() {
        for (word, article) in [
            ("honest", "an"),
            ("dishonest", "a"),
            ("legal", "a"),
            ("illegal", "an"),
            ("unusual", "an"),
            ("unimportant", "an"),
            ("useful", "a"),
            ("unique", "a"),
            ("European", "a"),
            ("one-sided", "a"),
            ("hourly", "an"),
            ("historic", "a"),
            ("Old", "an"),
        ] {
            assert_eq!(indefinite_article(word), article, "{word}");
        }
    }
}
