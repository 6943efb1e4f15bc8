//! This project's regular-morphology rules ([`rule_inflect`], [`rule_lemma`]): the guess for a word
//! lemminflect's tables do not know. Pure string functions; a leaf but for the tag vocabulary.

use super::tags::{parse_penn, Tag};

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// Whether the letter at `i` of `w` is a vowel: `aeiou`, `y` after a consonant, but not the
/// `u` of `qu`.
fn vowel_at(w: &[u8], i: usize) -> bool {
    let Some(&c) = w.get(i) else { return false };
    let prev = i.checked_sub(1).and_then(|j| w.get(j)).copied();
    match c {
        b'u' if prev == Some(b'q') => false,
        b'y' => prev.is_some_and(|p| !is_vowel(p)),
        c => is_vowel(c),
    }
}

/// Number of vowel groups, not counting a silent final `e` after a consonant: a rough
/// syllable count (`snube` 1, `simple` 1, `happy` 2).
fn syllables(w: &[u8]) -> usize {
    let groups = (0..w.len())
        .filter(|&i| vowel_at(w, i) && (i == 0 || !vowel_at(w, i - 1)))
        .count();
    let n = w.len();
    let silent_e = n >= 2 && w[n - 1] == b'e' && !vowel_at(w, n - 2);
    if silent_e && groups > 1 {
        groups - 1
    } else {
        groups
    }
}

/// A monosyllable ending consonant–single vowel–consonant whose last consonant is not
/// `w`, `x` or `y` (`stop`, `big`, `quit`): its final consonant doubles before `-ed`,
/// `-ing`, `-er`, `-est`.
pub(super) fn doubles_final(w: &[u8]) -> bool {
    let n = w.len();
    if n < 3 || syllables(w) != 1 {
        return false;
    }
    let (c1, last) = (n - 3, n - 1);
    !vowel_at(w, last)
        && !matches!(w[last], b'w' | b'x' | b'y')
        && vowel_at(w, n - 2)
        && !vowel_at(w, c1)
}

/// Ends in a sibilant: `s`, `z`, `x`, `ch`, `sh` (takes `-es`).
fn sibilant(w: &str) -> bool {
    ["s", "z", "x", "ch", "sh"].iter().any(|s| w.ends_with(s))
}

/// Ends consonant + `y` (`carry`, `happy`): `y` becomes `i` before a suffix.
fn consonant_y(w: &[u8]) -> bool {
    w.len() >= 2 && w[w.len() - 1] == b'y' && !is_vowel(w[w.len() - 2])
}

/// This project's regular English morphology, for a lower-case `lemma` the tables do not
/// know, by Penn `tag`. These are not lemminflect's rules (its out-of-vocabulary path is a
/// neural model that chooses between a regular and a doubling style); they are the textbook
/// rules, applied to the letters alone:
/// * `-s`/`-es` (`VBZ`, `NNS`): `-es` after `s z x ch sh` (`fizzes`), consonant + `y` →
///   `-ies` (`carries`); verbs add `-es` after consonant + `o` (`goes`); otherwise `-s`.
/// * `-ed` (`VBD`, `VBN`): after `e` just `-d` (`baked`); consonant + `y` → `-ied`
///   (`carried`); a consonant–vowel–consonant monosyllable doubles its final consonant
///   (`stapped`), except after `w`, `x`, `y`; otherwise `-ed` (`blorped`).
/// * `-ing` (`VBG`): `-ie` → `-ying` (`lying`); a silent final `e` after a consonant drops
///   (`baking`, but `seeing`, `dyeing`); doubling as for `-ed`; otherwise `-ing`.
/// * `-er`/`-est` (`JJR`, `JJS`, `RBR`, `RBS`): words of one syllable and two-syllable
///   words in consonant + `y` are inflected (`e` + `-r`/`-st`, `-y` → `-ier`/`-iest`,
///   doubling as above); longer words, and adverbs in `-ly`, take `more`/`most`.
/// * Base tags (`VB`, `VBP`, `NN`, `JJ`, `RB`) return the lemma.
///
/// Returns `None` for an empty lemma, a lemma that is not ASCII lower-case letters (with
/// `-` or `'`), and tags other than those above.
pub fn rule_inflect(lemma: &str, tag: &str) -> Option<String> {
    let (tag, _) = parse_penn(tag)?;
    let w = lemma.as_bytes();
    if w.is_empty()
        || !w
            .iter()
            .all(|c| c.is_ascii_lowercase() || *c == b'-' || *c == b'\'')
    {
        return None;
    }
    let stem = &lemma[..lemma.len() - 1];
    let last = w[w.len() - 1];
    let double = |suffix: &str| format!("{lemma}{}{suffix}", last as char);
    Some(match tag {
        Tag::Vb | Tag::Vbp | Tag::Nn | Tag::Jj | Tag::Rb => lemma.to_string(),
        Tag::Vbz | Tag::Nns => {
            if sibilant(lemma) {
                format!("{lemma}es")
            } else if consonant_y(w) {
                format!("{stem}ies")
            } else if tag == Tag::Vbz && last == b'o' && w.len() >= 2 && !is_vowel(w[w.len() - 2]) {
                format!("{lemma}es")
            } else {
                format!("{lemma}s")
            }
        }
        Tag::Vbd | Tag::Vbn => {
            if last == b'e' {
                format!("{lemma}d")
            } else if consonant_y(w) {
                format!("{stem}ied")
            } else if doubles_final(w) {
                double("ed")
            } else {
                format!("{lemma}ed")
            }
        }
        Tag::Vbg => {
            if let Some(base) = lemma.strip_suffix("ie") {
                format!("{base}ying")
            } else if last == b'e'
                && w.len() >= 3
                && !matches!(w[w.len() - 2], b'e' | b'o' | b'y' | b'i')
            {
                format!("{stem}ing")
            } else if doubles_final(w) {
                double("ing")
            } else {
                format!("{lemma}ing")
            }
        }
        Tag::Jjr | Tag::Jjs | Tag::Rbr | Tag::Rbs => {
            let superlative = matches!(tag, Tag::Jjs | Tag::Rbs);
            let n = syllables(w);
            let adverb_ly = matches!(tag, Tag::Rbr | Tag::Rbs) && lemma.ends_with("ly");
            if adverb_ly || n > 2 || (n == 2 && !consonant_y(w)) {
                let more = if superlative { "most" } else { "more" };
                format!("{more} {lemma}")
            } else {
                let suffix = if superlative { "est" } else { "er" };
                if last == b'e' {
                    format!("{lemma}{}", &suffix[1..])
                } else if consonant_y(w) {
                    format!("{stem}i{suffix}")
                } else if doubles_final(w) {
                    double(suffix)
                } else {
                    format!("{lemma}{suffix}")
                }
            }
        }
    })
}

/// Undoes a suffix this module's rules add: `stem` is what is left after removing it, and
/// the lemma is the stem with a doubled final consonant undone (`stopp` → `stop`), a silent
/// `e` restored where the stem is a consonant–vowel–consonant monosyllable that would
/// otherwise have doubled (`snib` → `snibe`), or the stem itself (`blorp`).
fn undo_suffix(stem: &str) -> String {
    let w = stem.as_bytes();
    let n = w.len();
    if n >= 4 && w[n - 1] == w[n - 2] && !vowel_at(w, n - 1) {
        let single = &stem[..n - 1];
        if doubles_final(single.as_bytes()) {
            return single.to_string();
        }
    }
    if doubles_final(w) {
        return format!("{stem}e");
    }
    stem.to_string()
}

/// This project's rule lemmatiser for a lower-case `word` the tables do not list, the
/// inverse of [`rule_inflect`] (not lemminflect's neural model): by `upos`
/// * `VERB`/`AUX`: `-ies`/`-ied` → `-y`, `-ying` → `-ie` when the rest is one consonant
///   (`lying`), `-ed`/`-ing` removed, undoing a doubled final consonant (`stopped`) or
///   restoring a silent `e` where the stem would otherwise have doubled (`baked`), `-es` after a sibilant or consonant + `o` removed, `-s` (not `-ss`) removed;
/// * `NOUN`/`PROPN`: `-ies` → `-y`, `-es` after a sibilant removed, `-s` (not `-ss`, `-us`,
///   `-is`) removed;
/// * `ADJ`/`ADV`: `-ier`/`-iest` → `-y`, `-er`/`-est` removed the same way, and
///   `more X`/`most X` → `X`.
///
/// A word without any of those endings is its own lemma. Returns `None` for an empty word,
/// one that is not ASCII lower-case letters (with `-` or `'`), or another upos.
pub fn rule_lemma(word: &str, upos: &str) -> Option<String> {
    let ok = |w: &str| {
        !w.is_empty()
            && w.bytes()
                .all(|c| c.is_ascii_lowercase() || c == b'-' || c == b'\'')
    };
    let long = |stem: &str| stem.len() >= 2;
    match upos {
        "VERB" | "AUX" => {
            if !ok(word) {
                return None;
            }
            if let Some(stem) = word.strip_suffix("ies").or(word.strip_suffix("ied")) {
                if long(stem) {
                    return Some(format!("{stem}y"));
                }
            }
            if let Some(stem) = word.strip_suffix("ying") {
                if stem.len() == 1 && !vowel_at(stem.as_bytes(), 0) {
                    return Some(format!("{stem}ie"));
                }
            }
            for suffix in ["ing", "ed"] {
                if let Some(stem) = word.strip_suffix(suffix) {
                    if long(stem) && stem.bytes().any(|c| is_vowel(c) || c == b'y') {
                        if suffix == "ed" && stem.ends_with('e') {
                            return Some(stem.to_string());
                        }
                        return Some(undo_suffix(stem));
                    }
                }
            }
            if let Some(stem) = word.strip_suffix("es") {
                let w = stem.as_bytes();
                let o_after_consonant =
                    stem.ends_with('o') && w.len() >= 2 && !is_vowel(w[w.len() - 2]);
                if long(stem) && (sibilant(stem) || o_after_consonant) {
                    return Some(stem.to_string());
                }
            }
            match word.strip_suffix('s') {
                Some(stem) if long(stem) && !stem.ends_with('s') => Some(stem.to_string()),
                _ => Some(word.to_string()),
            }
        }
        "NOUN" | "PROPN" => {
            if !ok(word) {
                return None;
            }
            if let Some(stem) = word.strip_suffix("ies") {
                if long(stem) {
                    return Some(format!("{stem}y"));
                }
            }
            if let Some(stem) = word.strip_suffix("es") {
                if long(stem) && sibilant(stem) {
                    return Some(stem.to_string());
                }
            }
            match word.strip_suffix('s') {
                Some(stem) if long(stem) && !["s", "u", "i"].iter().any(|e| stem.ends_with(e)) => {
                    Some(stem.to_string())
                }
                _ => Some(word.to_string()),
            }
        }
        "ADJ" | "ADV" => {
            if let Some(rest) = word.strip_prefix("more ").or(word.strip_prefix("most ")) {
                return ok(rest).then(|| rest.to_string());
            }
            if !ok(word) {
                return None;
            }
            for suffix in ["iest", "ier"] {
                if let Some(stem) = word.strip_suffix(suffix) {
                    if long(stem) {
                        return Some(format!("{stem}y"));
                    }
                }
            }
            for suffix in ["est", "er"] {
                if let Some(stem) = word.strip_suffix(suffix) {
                    if long(stem) && stem.bytes().any(is_vowel) {
                        return Some(undo_suffix(stem));
                    }
                }
            }
            Some(word.to_string())
        }
        _ => None,
    }
}
