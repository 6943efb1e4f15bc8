//! Capitalisation: the lookup key of a word and carrying a lemma's capitals (`Caps`) over to the
//! form found for it.

/// The table key of `word`: lower case, or capitalised for proper nouns (as lemminflect).
pub(super) fn lookup_key(word: &str, proper: bool) -> String {
    let lower = word.to_lowercase();
    if proper {
        capitalize(&lower)
    } else {
        lower
    }
}

/// lemminflect's capitalisation styles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Caps {
    AllUpper,
    FirstUpper,
    Lower,
}

/// lemminflect's `getCapsStyle` (Python's `str.isupper` and `str[0].isupper`).
pub(super) fn caps_style(word: &str) -> Caps {
    let has_upper = word.chars().any(char::is_uppercase);
    let has_lower = word.chars().any(char::is_lowercase);
    if has_upper && !has_lower {
        Caps::AllUpper
    } else if word.chars().next().is_some_and(char::is_uppercase) {
        Caps::FirstUpper
    } else {
        Caps::Lower
    }
}

/// lemminflect's `applyCapsStyle` (Python's `upper`, `capitalize`, `lower`).
pub(super) fn apply_caps(word: &str, style: Caps) -> String {
    match style {
        Caps::AllUpper => word.to_uppercase(),
        Caps::FirstUpper => capitalize(word),
        Caps::Lower => word.to_lowercase(),
    }
}

pub(super) fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.as_str().to_lowercase().chars())
            .collect(),
        None => String::new(),
    }
}
