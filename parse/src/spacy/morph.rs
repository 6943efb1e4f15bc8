//! Morphological feature strings in spaCy's canonical (UD FEATS) form.
//!
//! spaCy stores a token's morphology as the hash of a normalised FEATS string
//! (`spacy/morphology.pyx`, `Morphology.add` / `normalize_features`). Reproduced here:
//!
//! * values of one field are sorted (`Number=Sing,Plur` becomes `Number=Plur,Sing`);
//! * the `Field=Values` items are sorted **as whole strings** (not by field name alone), in
//!   code-point order (Rust's byte order on UTF-8 is the same order);
//! * a repeated field keeps its last values (Python dict semantics);
//! * a field spelled `pos` in any case becomes `POS`, and its value is upper-cased when it is a
//!   Universal POS name (spaCy converts it to the POS symbol and back);
//! * both `""` and `"_"` mean "no features"; spaCy keys that as `_` but prints it as `""`,
//!   and [`canonical`] returns `""` because [`super::Token::morph`] stores the printed form;
//! * an item without exactly one `=` is an error (spaCy fails on the tuple unpacking).

/// The Universal POS names spaCy knows (`spacy.parts_of_speech.IDS`, without the empty one).
pub const UNIVERSAL_POS: [&str; 19] = [
    "ADJ", "ADP", "ADV", "AUX", "CONJ", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON",
    "PROPN", "PUNCT", "SCONJ", "SYM", "VERB", "X", "EOL",
];

/// `SPACE` is a Universal POS in spaCy as well; kept apart from [`UNIVERSAL_POS`] only because
/// spaCy's list orders it after `EOL`.
pub fn is_universal_pos(name: &str) -> bool {
    name == "SPACE" || UNIVERSAL_POS.contains(&name)
}

/// Parses a FEATS string into `(field, sorted values)` pairs in first-seen field order, a
/// repeated field taking its last values (spaCy's `Morphology.feats_to_dict`).
pub fn feats_to_pairs(feats: &str) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    if feats.is_empty() || feats == "_" {
        return Ok(out);
    }
    for item in feats.split('|') {
        let mut parts = item.split('=');
        let (Some(field), Some(values), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!(
                "morphological feature {item:?} in {feats:?} is not of the form Field=Value"
            ));
        };
        let mut values: Vec<&str> = values.split(',').collect();
        values.sort_unstable();
        let values = values.join(",");
        match out.iter_mut().find(|(f, _)| f == field) {
            Some(slot) => slot.1 = values,
            None => out.push((field.to_string(), values)),
        }
    }
    Ok(out)
}

/// The canonical form of a FEATS string, `""` for no features (see the module notes).
pub fn canonical(feats: &str) -> Result<String, String> {
    let pairs = feats_to_pairs(feats)?;
    let mut items: Vec<String> = pairs
        .into_iter()
        .map(|(field, values)| {
            if field.eq_ignore_ascii_case("pos") {
                let upper = values.to_uppercase();
                let value = if is_universal_pos(&upper) {
                    upper
                } else {
                    values
                };
                format!("POS={value}")
            } else {
                format!("{field}={values}")
            }
        })
        .collect();
    items.sort_unstable();
    Ok(items.join("|"))
}

/// The values of `field` in a canonical FEATS string, joined by `,` as spaCy's
/// `MorphAnalysis.to_dict()` gives them; `None` when the field is absent or the string is
/// malformed.
pub fn get<'a>(feats: &'a str, field: &str) -> Option<&'a str> {
    if feats.is_empty() || feats == "_" {
        return None;
    }
    feats.split('|').rev().find_map(|item| {
        let (f, v) = item.split_once('=')?;
        (f == field).then_some(v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_items_and_values() {
        assert_eq!(
            canonical("PronType=Prs|Case=Nom|Number=Sing,Plur").unwrap(),
            "Case=Nom|Number=Plur,Sing|PronType=Prs"
        );
    }

    #[test]
    fn empty_forms() {
        assert_eq!(canonical("_").unwrap(), "");
        assert_eq!(canonical("").unwrap(), "");
    }

    #[test]
    fn items_sort_as_whole_strings() {
        // "Foo=B" < "Foo_x=A" because '=' (0x3D) < '_' (0x5F).
        assert_eq!(canonical("Foo_x=A|Foo=B").unwrap(), "Foo=B|Foo_x=A");
    }

    #[test]
    fn repeated_field_keeps_last() {
        assert_eq!(canonical("Number=Sing|Number=Plur").unwrap(), "Number=Plur");
    }

    #[test]
    fn pos_field_is_normalised() {
        assert_eq!(canonical("pos=noun|Case=Nom").unwrap(), "Case=Nom|POS=NOUN");
    }

    #[test]
    fn malformed_items_are_errors() {
        assert!(canonical("Number").is_err());
        assert!(canonical("Number=Sing|").is_err());
        assert!(canonical("A=B=C").is_err());
    }

    #[test]
    fn get_field() {
        let m = "Mood=Ind|Tense=Pres|VerbForm=Fin";
        assert_eq!(get(m, "Tense"), Some("Pres"));
        assert_eq!(get(m, "Number"), None);
        assert_eq!(get("", "Number"), None);
    }
}
