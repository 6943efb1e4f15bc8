//! Lexical attributes of a word, computed as spaCy's English vocabulary computes them, and the
//! hashed feature ids the neural components read.
//!
//! spaCy derives NORM from three sources, first hit wins: the pipeline's `lexeme_norm` lookup
//! table (`vocab/lookups.bin`), spaCy's built-in `BASE_NORMS` (a small table in spaCy's source,
//! `spacy/lang/norm_exceptions.py`, reproduced here because pipeline directories do not carry
//! it), and Python's `str.lower()`. A tokenizer special case's NORM overrides all three.
//! PREFIX is the first character, SUFFIX the last three, SHAPE is `word_shape`; Python's
//! `str.isalpha`/`isdigit`/`isupper`/`isspace` are reproduced with Unicode general categories.

use std::collections::HashMap;
use std::path::Path;

use unicode_general_category::{get_general_category, GeneralCategory};

use super::hash::string_id;
use super::msgpack::{self, Value};
use super::{Doc, LoadError};

/// spaCy's `BASE_NORMS`, applied when the pipeline's `lexeme_norm` table has no entry.
const BASE_NORMS: &[(&str, &str)] = &[
    ("'s", "'s"),
    ("'S", "'s"),
    ("’s", "'s"),
    ("’S", "'s"),
    ("’", "'"),
    ("‘", "'"),
    ("´", "'"),
    ("`", "'"),
    ("”", "\""),
    ("“", "\""),
    ("''", "\""),
    ("``", "\""),
    ("´´", "\""),
    ("„", "\""),
    ("»", "\""),
    ("«", "\""),
    ("‘‘", "\""),
    ("’’", "\""),
    ("？", "?"),
    ("！", "!"),
    ("，", ","),
    ("；", ";"),
    ("：", ":"),
    ("。", "."),
    ("।", "."),
    ("…", "..."),
    ("—", "-"),
    ("–", "-"),
    ("--", "-"),
    ("---", "-"),
    ("——", "-"),
    ("€", "$"),
    ("£", "$"),
    ("¥", "$"),
    ("฿", "$"),
    ("US$", "$"),
    ("C$", "$"),
    ("A$", "$"),
    ("₺", "$"),
    ("₹", "$"),
    ("৳", "$"),
    ("₩", "$"),
    ("Mex$", "$"),
    ("₣", "$"),
    ("E£", "$"),
];

/// Characters outside category Nd for which Python's `str.isdigit()` is true (numeric type
/// "digit": superscripts, subscripts, circled digits, …), as inclusive ranges.
const EXTRA_DIGITS: &[(char, char)] = &[
    ('\u{b2}', '\u{b3}'),
    ('\u{b9}', '\u{b9}'),
    ('\u{1369}', '\u{1371}'),
    ('\u{19da}', '\u{19da}'),
    ('\u{2070}', '\u{2070}'),
    ('\u{2074}', '\u{2079}'),
    ('\u{2080}', '\u{2089}'),
    ('\u{2460}', '\u{2468}'),
    ('\u{2474}', '\u{247c}'),
    ('\u{2488}', '\u{2490}'),
    ('\u{24ea}', '\u{24ea}'),
    ('\u{24f5}', '\u{24fd}'),
    ('\u{24ff}', '\u{24ff}'),
    ('\u{2776}', '\u{277e}'),
    ('\u{2780}', '\u{2788}'),
    ('\u{278a}', '\u{2792}'),
    ('\u{10a40}', '\u{10a43}'),
    ('\u{10e60}', '\u{10e68}'),
    ('\u{11052}', '\u{1105a}'),
    ('\u{1f100}', '\u{1f10a}'),
];

/// Python's `str.isalpha()` for one character: general category L*.
pub fn is_alpha_char(c: char) -> bool {
    use GeneralCategory::*;
    matches!(
        get_general_category(c),
        UppercaseLetter | LowercaseLetter | TitlecaseLetter | ModifierLetter | OtherLetter
    )
}

/// Python's `str.isalpha()`: non-empty and all letters.
pub fn is_alpha(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_alpha_char)
}

/// Python's `str.isdigit()` for one character.
pub fn is_digit_char(c: char) -> bool {
    get_general_category(c) == GeneralCategory::DecimalNumber
        || EXTRA_DIGITS.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// Python's `str.isspace()` for one character (White_Space plus the C0 separators FS/GS/RS/US,
/// which Python counts by their bidirectional class).
pub fn is_space_char(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.isspace()`: non-empty and all whitespace.
pub fn is_space(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_space_char)
}

/// spaCy's `word_shape`: letters become `X`/`x`, digits `d`, other characters stay; runs longer
/// than four are cut to four; strings of 100 characters or more are `LONG`.
pub fn word_shape(text: &str) -> String {
    if text.chars().count() >= 100 {
        return "LONG".to_string();
    }
    let mut shape = String::with_capacity(text.len());
    let mut last = None;
    let mut seq = 0;
    for c in text.chars() {
        let shape_char = if is_alpha_char(c) {
            if c.is_uppercase() {
                'X'
            } else {
                'x'
            }
        } else if is_digit_char(c) {
            'd'
        } else {
            c
        };
        if Some(shape_char) == last {
            seq += 1;
        } else {
            seq = 0;
            last = Some(shape_char);
        }
        if seq < 4 {
            shape.push(shape_char);
        }
    }
    shape
}

/// spaCy's PREFIX: the first character.
pub fn prefix(text: &str) -> &str {
    text.char_indices().nth(1).map_or(text, |(i, _)| &text[..i])
}

/// spaCy's SUFFIX: the last three characters.
pub fn suffix(text: &str) -> &str {
    text.char_indices()
        .rev()
        .nth(2)
        .map_or(text, |(i, _)| &text[i..])
}

/// A token attribute a `MultiHashEmbed` layer can read (`FeatureExtractor` columns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureAttr {
    /// Hash of the verbatim text.
    Orth,
    /// Hash of the lower-cased text.
    Lower,
    /// Hash of the norm.
    Norm,
    /// Hash of the first character.
    Prefix,
    /// Hash of the last three characters.
    Suffix,
    /// Hash of the word shape.
    Shape,
    /// 1 when a space follows the token.
    Spacy,
    /// 1 when the token is whitespace.
    IsSpace,
}

impl FeatureAttr {
    /// Parses a spaCy attribute name.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "ORTH" => Self::Orth,
            "LOWER" => Self::Lower,
            "NORM" => Self::Norm,
            "PREFIX" => Self::Prefix,
            "SUFFIX" => Self::Suffix,
            "SHAPE" => Self::Shape,
            "SPACY" => Self::Spacy,
            "IS_SPACE" => Self::IsSpace,
            _ => return None,
        })
    }
}

/// The hashed lexical features of one token, in [`FeatureAttr`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TokenFeatures {
    /// Values indexed by `FeatureAttr as usize`.
    pub values: [u64; 8],
}

impl TokenFeatures {
    /// The value of one attribute.
    pub fn get(&self, attr: FeatureAttr) -> u64 {
        self.values[attr as usize]
    }
}

/// The vocabulary data a pipeline ships: the `lexeme_norm` table, keyed by string hash.
#[derive(Clone, Debug, Default)]
pub struct Vocab {
    lexeme_norm: HashMap<u64, String>,
}

impl Vocab {
    /// Reads `vocab/lookups.bin` from a pipeline directory (an absent file means no tables).
    pub fn load(pipeline_dir: &Path) -> Result<Self, LoadError> {
        let path = pipeline_dir.join("vocab").join("lookups.bin");
        if !path.exists() {
            return Ok(Self::default());
        }
        let value = msgpack::read_file(&path)?;
        let mut lexeme_norm = HashMap::new();
        if let Some(table) = msgpack::get(&value, "lexeme_norm") {
            let map = table
                .as_map()
                .ok_or_else(|| LoadError::new(&path, "field `lexeme_norm` is not a map"))?;
            for (k, v) in map {
                let (Some(key), Some(norm)) = (k.as_u64(), msgpack::key_str(v)) else {
                    return Err(LoadError::new(
                        &path,
                        "field `lexeme_norm`: entries must map a hash to a string",
                    ));
                };
                lexeme_norm.insert(key, norm.to_string());
            }
        }
        Ok(Self { lexeme_norm })
    }

    /// The lexeme norm of a word (without tokenizer special cases).
    pub fn lexeme_norm(&self, text: &str) -> String {
        if let Some(norm) = self.lexeme_norm.get(&string_id(text)) {
            return norm.clone();
        }
        if let Some((_, norm)) = BASE_NORMS.iter().find(|(k, _)| *k == text) {
            return (*norm).to_string();
        }
        text.to_lowercase()
    }

    /// The norm of token `i`: its special-case norm, else its lexeme norm.
    pub fn token_norm(&self, doc: &Doc, i: usize) -> String {
        match &doc.tokens[i].norm_exception {
            Some(norm) => norm.clone(),
            None => self.lexeme_norm(doc.token_text(i)),
        }
    }

    /// The hashed feature values of token `i`.
    pub fn features(&self, doc: &Doc, i: usize) -> TokenFeatures {
        let text = doc.token_text(i);
        let mut values = [0u64; 8];
        values[FeatureAttr::Orth as usize] = string_id(text);
        values[FeatureAttr::Lower as usize] = string_id(&text.to_lowercase());
        values[FeatureAttr::Norm as usize] = string_id(&self.token_norm(doc, i));
        values[FeatureAttr::Prefix as usize] = string_id(prefix(text));
        values[FeatureAttr::Suffix as usize] = string_id(suffix(text));
        values[FeatureAttr::Shape as usize] = string_id(&word_shape(text));
        values[FeatureAttr::Spacy as usize] = u64::from(doc.tokens[i].whitespace);
        values[FeatureAttr::IsSpace as usize] = u64::from(is_space(text));
        TokenFeatures { values }
    }
}

/// Reads a `FeatureExtractor` column list (msgpack list of attribute names).
pub fn feature_columns(value: &Value) -> Result<Vec<FeatureAttr>, String> {
    let list = value.as_array().ok_or("`columns` is not a list")?;
    list.iter()
        .map(|v| {
            let name = msgpack::key_str(v).ok_or("`columns` holds a non-string")?;
            FeatureAttr::from_name(name)
                .ok_or_else(|| format!("unsupported feature attribute {name:?}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_prefixes_and_suffixes() {
        assert_eq!(word_shape("Apple"), "Xxxxx");
        assert_eq!(word_shape("U.K."), "X.X.");
        assert_eq!(word_shape("looking"), "xxxx");
        assert_eq!(word_shape("1987"), "dddd");
        assert_eq!(word_shape("²"), "d");
        assert_eq!(word_shape("n't"), "x'x");
        assert_eq!(word_shape(&"a".repeat(100)), "LONG");
        assert_eq!(prefix("Zürich"), "Z");
        assert_eq!(prefix("Über"), "Ü");
        assert_eq!(suffix("Zürich"), "ich");
        assert_eq!(suffix("été"), "été");
        assert_eq!(suffix("a"), "a");
        assert!(is_space("\u{1f}"));
        assert!(!is_space(""));
    }
}
