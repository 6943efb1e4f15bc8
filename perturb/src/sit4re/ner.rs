//! Named entities of a relation example's sentence, from the parse stage's NER (spaCy 3's
//! `en_core_web_sm`, OntoNotes types) over `text`, mapped back to the example's own tokens and
//! to TACRED's entity types. MR-C1/C2 draw their second pair's candidates from here, and R1/R3
//! type the arguments of untyped data (FewRel) with it.
//!
//! `text` is the example's tokens joined by single spaces, so an entity maps back to a token span
//! exactly when its character span starts at a token start and ends at a token end; an entity
//! that spaCy cut inside a dataset token is dropped. A possessive ending is cut off a mention
//! ("Queen Victoria 's" → "Queen Victoria") and a mention that runs through a verb ("Otto
//! became Duke", an NER error) is dropped: neither is a span an argument can be.

use metamorph_data::{Example, ParsedText};

use super::span_edit::char_offsets;
use crate::lexicon::geography::Gazetteer;

/// A named entity of the sentence as a token span of the example.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mention {
    /// First token.
    pub start: usize,
    /// One past the last token.
    pub end: usize,
    /// The tokens joined by spaces.
    pub text: String,
    /// The NER's OntoNotes type (`PERSON`, `ORG`, `GPE`, …).
    pub ner_type: String,
    /// The TACRED type it maps to ([`tacred_type`]), when one fits.
    pub tacred_type: Option<String>,
}

/// The TACRED entity type of an OntoNotes entity `text` of type `ner_type`. GPEs are split by
/// the gazetteer (a country name → COUNTRY, a US state → STATE_OR_PROVINCE, a city → CITY, other
/// GPEs → LOCATION); OntoNotes types without a TACRED counterpart (WORK_OF_ART, LAW, LANGUAGE,
/// …) map to MISC, and those that are quantities to NUMBER. ORDINAL, PERCENT, MONEY, QUANTITY and
/// TIME have no TACRED type and give `None`.
pub fn tacred_type(
    ner_type: &str,
    text: &str,
    gazetteer: Option<&Gazetteer>,
) -> Option<&'static str> {
    Some(match ner_type {
        "PERSON" => "PERSON",
        "ORG" => "ORGANIZATION",
        // Nationalities, religious and political groups: TACRED's NATIONALITY covers the first
        // and by far most frequent kind ("French filmmaker").
        "NORP" => "NATIONALITY",
        "GPE" => match gazetteer {
            Some(g) if g.is_country(text) => "COUNTRY",
            Some(g) if g.is_us_state(text) => "STATE_OR_PROVINCE",
            Some(g) if g.city(text).is_some() => "CITY",
            _ => "LOCATION",
        },
        "LOC" | "FAC" => "LOCATION",
        "DATE" => "DATE",
        "CARDINAL" => "NUMBER",
        "EVENT" | "WORK_OF_ART" | "LAW" | "LANGUAGE" | "PRODUCT" => "MISC",
        _ => return None,
    })
}

/// The entities of `parse` (the parse of `example.text`) that map onto whole tokens of
/// `example`, in text order.
pub fn mentions(
    example: &Example,
    parse: &ParsedText,
    gazetteer: Option<&Gazetteer>,
) -> Vec<Mention> {
    let Some(tokens) = example.tokens.as_ref() else {
        return Vec::new();
    };
    if example.text.as_deref() != Some(parse.text.as_str()) {
        return Vec::new();
    }
    let offsets = char_offsets(tokens);
    let mut found = Vec::new();
    let mut open: Option<(usize, &str)> = None;
    let close = |open: (usize, &str), end: usize, found: &mut Vec<Mention>| {
        let (first, ner_type) = open;
        // A possessive ending is no part of the name ("Queen Victoria 's" → "Queen Victoria").
        let mut end = end;
        while end > first + 1 && is_possessive(&parse.tokens[end - 1].text) {
            end -= 1;
        }
        // An entity that runs through a verb is two phrases glued together ("Otto became
        // Duke"): no argument span can be made of it.
        let verb = parse.tokens[first..end]
            .iter()
            .any(|t| t.pos == "VERB" || t.pos == "AUX");
        if verb || is_possessive(&parse.tokens[first].text) {
            return;
        }
        let (cs, ce) = (
            parse.tokens[first].start as usize,
            parse.tokens[end - 1].end as usize,
        );
        let start = offsets.iter().position(|&(s, _)| s == cs);
        let stop = offsets.iter().position(|&(_, e)| e == ce);
        if let (Some(start), Some(stop)) = (start, stop) {
            if start <= stop {
                let text = tokens[start..=stop].join(" ");
                let tacred = tacred_type(ner_type, &text, gazetteer).map(str::to_string);
                found.push(Mention {
                    start,
                    end: stop + 1,
                    text,
                    ner_type: ner_type.to_string(),
                    tacred_type: tacred,
                });
            }
        }
    };
    for (i, token) in parse.tokens.iter().enumerate() {
        let continues = token.ent_iob == "I" && open.is_some_and(|(_, t)| t == token.ent_type);
        if continues {
            continue;
        }
        if let Some(o) = open.take() {
            close(o, i, &mut found);
        }
        if (token.ent_iob == "B" || token.ent_iob == "I") && !token.ent_type.is_empty() {
            open = Some((i, token.ent_type.as_str()));
        }
    }
    if let Some(o) = open {
        close(o, parse.tokens.len(), &mut found);
    }
    found
}

/// The parse token that is example token `index` (the same characters), with its index in the
/// parse, when the parse was made from the example's text and splits it there too.
pub fn parse_token<'p>(
    example: &Example,
    parse: &'p ParsedText,
    index: usize,
) -> Option<(usize, &'p metamorph_data::Token)> {
    let tokens = example.tokens.as_ref()?;
    if example.text.as_deref() != Some(parse.text.as_str()) {
        return None;
    }
    let (start, end) = *char_offsets(tokens).get(index)?;
    parse
        .tokens
        .iter()
        .enumerate()
        .find(|(_, t)| t.start as usize == start && t.end as usize == end)
}

/// Whether a token is a possessive ending (`'s`, `'`, `’s`, `’`).
fn is_possessive(token: &str) -> bool {
    matches!(token, "'s" | "'" | "’s" | "’" | "'S")
}

/// The NER mention that is exactly the token span `[start, end)`, or that span with a leading
/// "the" (`the Missouri Highway Department` for the mention `Missouri Highway Department`).
pub fn mention_at<'m>(
    mentions: &'m [Mention],
    tokens: &[String],
    start: usize,
    end: usize,
) -> Option<&'m Mention> {
    mentions.iter().find(|m| {
        m.end == end
            && (m.start == start
                || (m.start + 1 == start && tokens[m.start].eq_ignore_ascii_case("the")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    #[test]
    fn entities_map_back_to_tokens_and_tacred_types() {
        let (example, parses) = testing::relation(
            &[
                "Peterson", "leaves", "behind", "his", "wife", ",", "Kelly", ",", "and", "their",
                "daughter", "Mary", "in", "Paris", ".",
            ],
            (0, 1, None),
            (6, 7, None),
            None,
        );
        let g = testing::resources().gazetteer().unwrap();
        let found = mentions(&example, &parses[0], Some(g));
        let people: Vec<&str> = found
            .iter()
            .filter(|m| m.tacred_type.as_deref() == Some("PERSON"))
            .map(|m| m.text.as_str())
            .collect();
        assert!(people.contains(&"Kelly"), "{found:?}");
        assert!(people.contains(&"Mary"), "{found:?}");
        let paris = found.iter().find(|m| m.text == "Paris").unwrap();
        assert_eq!(paris.tacred_type.as_deref(), Some("CITY"));
        assert_eq!((paris.start, paris.end), (13, 14));
    }

    #[test]
    fn possessives_are_cut_and_spans_through_verbs_dropped() {
        let (example, mut parses) = testing::relation(
            &[
                "Queen", "Victoria", "'s", "son", "Otto", "became", "Duke", "in", "1861", ".",
            ],
            (0, 2, None),
            (4, 5, None),
            None,
        );
        // Mark the two spans the issue found as the NER once did: "Queen Victoria 's" and
        // "Otto became Duke" as PERSON.
        let parse = &mut parses[0];
        for (i, token) in parse.tokens.iter_mut().enumerate() {
            let (iob, ty) = match i {
                0 | 4 => ("B", "PERSON"),
                1 | 2 | 5 | 6 => ("I", "PERSON"),
                _ => ("O", ""),
            };
            token.ent_iob = iob.into();
            token.ent_type = ty.into();
        }
        assert_eq!(parse.tokens[5].text, "became");
        let found = mentions(&example, &parses[0], None);
        let texts: Vec<&str> = found.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(texts, ["Queen Victoria"]);
        assert_eq!((found[0].start, found[0].end), (0, 2));
    }

    #[test]
    fn gpe_types_follow_the_gazetteer() {
        let g = testing::resources().gazetteer().unwrap();
        assert_eq!(tacred_type("GPE", "France", Some(g)), Some("COUNTRY"));
        assert_eq!(
            tacred_type("GPE", "Ohio", Some(g)),
            Some("STATE_OR_PROVINCE")
        );
        assert_eq!(tacred_type("GPE", "Chicago", Some(g)), Some("CITY"));
        assert_eq!(tacred_type("GPE", "Chicago", None), Some("LOCATION"));
        assert_eq!(tacred_type("MONEY", "$5", Some(g)), None);
    }
}
