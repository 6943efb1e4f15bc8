//! spaCy's `attribute_ruler` component (`spacy/pipeline/attributeruler.py`): token patterns
//! that set `TAG`, `POS`, `MORPH`, `LEMMA`, `DEP` or `NORM` on one token of each match.
//!
//! Design decisions and spaCy behaviour reproduced:
//!
//! * The `patterns` file is a msgpack list of `{patterns, attrs, index}`; rule `i` is added to
//!   the [`Matcher`] under key `i`, exactly as spaCy adds it under the string `str(i)`.
//! * All matches are found first (on the annotations as they were before the component ran),
//!   then sorted by `(rule index, start, end)` — spaCy sorts on `int(key)` — and applied in that
//!   order, so a later rule overrides an earlier one on the same token, and within a rule a later
//!   match wins.
//! * `index` picks the token within the matched span, Python-style (negative counts from the
//!   end). spaCy raises when it is out of range; here that match is skipped with a `tracing`
//!   warning, so that [`AttributeRuler::apply`] never fails.
//! * `MORPH` values are stored in canonical form at load time ([`super::morph::canonical`];
//!   `_` means no features). `POS` must be a Universal POS name, as spaCy's POS symbols are.
//! * Setting an attribute never changes another one (spaCy v3 no longer maps `TAG` to `POS`).

use std::path::Path;

use serde_json::Value as Json;

use super::doc::Doc;
use super::matcher::{msgpack_to_json, Matcher};
use super::{morph, msgpack, LoadError};

/// The attributes one rule assigns; `None` leaves an attribute alone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleAttrs {
    /// Fine-grained tag.
    pub tag: Option<String>,
    /// Universal POS.
    pub pos: Option<String>,
    /// Canonical morphological features (`""` for none).
    pub morph: Option<String>,
    /// Lemma.
    pub lemma: Option<String>,
    /// Dependency label.
    pub dep: Option<String>,
    /// Norm (stored as the token's norm exception).
    pub norm: Option<String>,
}

/// One rule: the attributes to set and which token of a match receives them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// What to assign.
    pub attrs: RuleAttrs,
    /// The token within the matched span, negative counting from its end.
    pub index: i64,
}

/// The loaded component.
#[derive(Clone, Debug)]
pub struct AttributeRuler {
    matcher: Matcher,
    rules: Vec<Rule>,
}

impl AttributeRuler {
    /// Loads `patterns` from the component's directory (e.g. `…/attribute_ruler`).
    pub fn from_dir(component_dir: &Path) -> Result<Self, LoadError> {
        let path = component_dir.join("patterns");
        let value = msgpack::read_file(&path)?;
        let json = msgpack_to_json(&value).map_err(|e| LoadError::new(&path, e))?;
        Self::from_json(&json).map_err(|e| LoadError::new(&path, e))
    }

    /// Builds the ruler from the JSON form of spaCy's pattern list
    /// (`[{"patterns": [[token spec, …], …], "attrs": {…}, "index": 0}, …]`).
    pub fn from_json(rules: &Json) -> Result<Self, String> {
        let rules = rules
            .as_array()
            .ok_or("the pattern file is not a list of rules")?;
        let mut matcher = Matcher::new();
        let mut out = Vec::with_capacity(rules.len());
        for (i, rule) in rules.iter().enumerate() {
            let field = |name: &str| rule.get(name).ok_or(format!("rule {i}: no `{name}`"));
            let patterns = field("patterns")?
                .as_array()
                .ok_or(format!("rule {i}: `patterns` is not a list"))?;
            matcher
                .add(i, patterns)
                .map_err(|e| format!("rule {i}: `patterns`: {e}"))?;
            let attrs =
                parse_attrs(field("attrs")?).map_err(|e| format!("rule {i}: `attrs`: {e}"))?;
            let index = match rule.get("index") {
                None => 0,
                Some(v) => v
                    .as_i64()
                    .ok_or(format!("rule {i}: `index` {v} is not an integer"))?,
            };
            out.push(Rule { attrs, index });
        }
        Ok(Self {
            matcher,
            rules: out,
        })
    }

    /// The rules, in file order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Sets the rules' attributes on `doc`'s matching tokens (see the module notes for order).
    pub fn apply(&self, doc: &mut Doc) {
        let mut matches = self.matcher.find(doc);
        matches.sort_unstable();
        for m in matches {
            let rule = &self.rules[m.key];
            let len = (m.end - m.start) as i64;
            let offset = if rule.index < 0 {
                len + rule.index
            } else {
                rule.index
            };
            if !(0..len).contains(&offset) {
                tracing::warn!(
                    "attribute_ruler: rule {} has index {} outside its match of {len} tokens at {}",
                    m.key,
                    rule.index,
                    m.start
                );
                continue;
            }
            let token = &mut doc.tokens[m.start + offset as usize];
            let a = &rule.attrs;
            let set = |slot: &mut String, value: &Option<String>| {
                if let Some(v) = value {
                    slot.clone_from(v);
                }
            };
            set(&mut token.tag, &a.tag);
            set(&mut token.pos, &a.pos);
            set(&mut token.morph, &a.morph);
            set(&mut token.lemma, &a.lemma);
            set(&mut token.dep, &a.dep);
            if let Some(norm) = &a.norm {
                token.norm_exception = Some(norm.clone());
            }
        }
    }
}

fn parse_attrs(attrs: &Json) -> Result<RuleAttrs, String> {
    let attrs = attrs.as_object().ok_or("not a map")?;
    let mut out = RuleAttrs::default();
    for (name, value) in attrs {
        let text = || {
            value
                .as_str()
                .map(str::to_string)
                .ok_or(format!("{name}: {value} is not a string"))
        };
        match name.to_uppercase().as_str() {
            "TAG" => out.tag = Some(text()?),
            "POS" => {
                let pos = text()?;
                if !morph::is_universal_pos(&pos) {
                    return Err(format!("POS: {pos:?} is not a Universal POS tag"));
                }
                out.pos = Some(pos);
            }
            "MORPH" => {
                out.morph = Some(morph::canonical(&text()?).map_err(|e| format!("MORPH: {e}"))?)
            }
            "LEMMA" => out.lemma = Some(text()?),
            "DEP" => out.dep = Some(text()?),
            "NORM" => out.norm = Some(text()?),
            _ => return Err(format!("attribute {name:?} is not supported")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spacy::doc::Token;
    use serde_json::json;

    fn doc(words: &[(&str, &str, &str)]) -> Doc {
        let mut text = String::new();
        let mut tokens = Vec::new();
        for (w, tag, dep) in words {
            let start = text.len();
            text.push_str(w);
            tokens.push(Token {
                start,
                end: text.len(),
                whitespace: true,
                tag: tag.to_string(),
                dep: dep.to_string(),
                ..Token::default()
            });
            text.push(' ');
        }
        Doc { text, tokens }
    }

    #[test]
    fn later_rules_override_and_index_picks_token() {
        let ruler = AttributeRuler::from_json(&json!([
            {"patterns": [[{"TAG": "NN"}]], "attrs": {"POS": "NOUN", "MORPH": "Number=Sing"}, "index": 0},
            {"patterns": [[{"LOWER": "gon"}, {"LOWER": "na"}]], "attrs": {"LEMMA": "to"}, "index": -1},
            {"patterns": [[{"LOWER": "gon"}]], "attrs": {"POS": "VERB", "MORPH": "_"}, "index": 0},
        ]))
        .unwrap();
        let mut d = doc(&[("Gon", "NN", ""), ("na", "TO", ""), ("cat", "NN", "")]);
        ruler.apply(&mut d);
        assert_eq!(d.tokens[0].pos, "VERB");
        assert_eq!(d.tokens[0].morph, "");
        assert_eq!(d.tokens[1].lemma, "to");
        assert_eq!(d.tokens[1].pos, "");
        assert_eq!(d.tokens[2].pos, "NOUN");
        assert_eq!(d.tokens[2].morph, "Number=Sing");
    }

    #[test]
    fn matches_see_the_annotations_before_the_component() {
        // Rule 1 rewrites the tag; rule 2 still matches on the original tag.
        let ruler = AttributeRuler::from_json(&json!([
            {"patterns": [[{"TAG": "XX"}]], "attrs": {"TAG": "YY"}},
            {"patterns": [[{"TAG": "XX"}]], "attrs": {"POS": "X"}},
        ]))
        .unwrap();
        let mut d = doc(&[("a", "XX", "")]);
        ruler.apply(&mut d);
        assert_eq!(
            (d.tokens[0].tag.as_str(), d.tokens[0].pos.as_str()),
            ("YY", "X")
        );
    }

    #[test]
    fn out_of_range_index_is_skipped() {
        let ruler = AttributeRuler::from_json(&json!([
            {"patterns": [[{"TAG": "XX"}]], "attrs": {"POS": "X"}, "index": 1},
        ]))
        .unwrap();
        let mut d = doc(&[("a", "XX", "")]);
        ruler.apply(&mut d);
        assert_eq!(d.tokens[0].pos, "");
    }

    #[test]
    fn bad_rules_are_errors_naming_the_field() {
        let err = AttributeRuler::from_json(&json!([
            {"patterns": [[{"TAG": "XX"}]], "attrs": {"POS": "NOUNY"}},
        ]))
        .unwrap_err();
        assert!(err.contains("rule 0") && err.contains("POS"), "{err}");
        let err = AttributeRuler::from_json(&json!([
            {"patterns": [[{"TAG": "XX"}]], "attrs": {"MORPH": "Number"}},
        ]))
        .unwrap_err();
        assert!(err.contains("MORPH"), "{err}");
        let err = AttributeRuler::from_json(&json!([{"attrs": {}}])).unwrap_err();
        assert!(err.contains("patterns"), "{err}");
    }
}
