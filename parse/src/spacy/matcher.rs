//! spaCy's token-pattern `Matcher` (`spacy/matcher/matcher.pyx`), for the attributes and
//! predicates rule-based components use.
//!
//! Design decisions:
//!
//! * Patterns are compiled the way spaCy compiles them: every token spec becomes one or more
//!   nodes with a quantifier (`OP` `"!"` → ZERO, `"?"` → ZERO_ONE, `"*"` → ZERO_PLUS, `"+"` →
//!   ONE then ZERO_PLUS, `"{n}"`, `"{n,m}"`, `"{n,}"`, `"{,m}"` → runs of ONE / ZERO_ONE /
//!   ZERO_PLUS), and matching is a port of spaCy's state machine (`find_matches`,
//!   `transition_states`, `finish_states`, `get_action`), so matches come out in spaCy's order:
//!   in the order the states complete, de-duplicated on `(key, start, end)`, zero-length
//!   matches dropped. No `greedy` filter and no callbacks (no rule component here uses them).
//! * Values are compared as strings rather than as string-store hashes; two strings are equal
//!   exactly when their hashes are, so this is the same test. An unset string attribute is `""`,
//!   which is what spaCy's hash 0 stands for (so `{"TAG": {"NOT_IN": [""]}}` means "tagged").
//!   Boolean flags and `LENGTH` are integers; a string never equals an integer.
//! * Supported attributes: `ORTH`/`TEXT`, `LOWER`, `NORM`, `TAG`, `POS`, `MORPH`, `LEMMA`,
//!   `DEP`, `ENT_TYPE`, `ENT_IOB`, the flags whose Python definition is a `str` method
//!   (`IS_SPACE`, `IS_ALPHA`, `IS_DIGIT`, `IS_LOWER`, `IS_UPPER`, `IS_TITLE`), `LENGTH`,
//!   `SENT_START`/`IS_SENT_START`. Supported predicates: `IN`,
//!   `NOT_IN`, `IS_SUBSET`, `IS_SUPERSET`, `INTERSECTS`, `REGEX`, and `==`, `!=`, `>=`, `<=`,
//!   `>`, `<` on integer attributes. Anything else is a compile error (spaCy would either raise or
//!   need Python callables), except an unknown predicate name, which spaCy ignores with warning
//!   W035 and so is ignored here too (with a `tracing` warning).
//! * `LOWER` is Rust's `str::to_lowercase`, which applies the same full Unicode case mapping
//!   (final sigma included) as Python's `str.lower`. `NORM` is the tokenizer's norm exception
//!   when there is one, else the lower-cased text (spaCy's default English norm also maps
//!   spelling variants through a lookup table, which is not loaded here).
//! * `IS_SPACE` is Python's `str.isspace`: non-empty and every character whitespace, where
//!   U+001C..U+001F count as whitespace (Python does, Rust's `char::is_whitespace` does not).
//! * `REGEX` is Python `re.search`: unanchored, and an unescaped `$` outside a character class
//!   also matches before a final `\n` (translated to `(?=\n?\z)`), as Python's `$` does.
//! * `MORPH` values in `IN`/`NOT_IN` are canonicalised first (spaCy adds them to the
//!   morphology table); `IS_SUBSET`/`IS_SUPERSET`/`INTERSECTS` on `MORPH` compare the token's
//!   `Field=Value` features.

use std::collections::{HashMap, HashSet};

use fancy_regex::Regex;
use serde_json::Value as Json;

use super::doc::Doc;
use super::lexeme::{is_alpha, is_space};
use super::morph;

/// A token attribute a pattern can test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Attr {
    /// Verbatim text (`ORTH`, `TEXT`).
    Orth,
    /// Lower-cased text.
    Lower,
    /// Norm: the tokenizer's norm exception, else the lower-cased text.
    Norm,
    /// Fine-grained tag.
    Tag,
    /// Universal POS.
    Pos,
    /// Canonical morphological features.
    Morph,
    /// Lemma.
    Lemma,
    /// Dependency label.
    Dep,
    /// Entity label.
    EntType,
    /// Entity IOB code as a string (`"B"`, `"I"`, `"O"`, `""`).
    EntIob,
    /// Python `str.isspace()`.
    IsSpace,
    /// Python `str.isalpha()`.
    IsAlpha,
    /// Python `str.isdigit()`, approximated by `char::is_numeric` on every character.
    IsDigit,
    /// Python `str.islower()`.
    IsLower,
    /// Python `str.isupper()`.
    IsUpper,
    /// Python `str.istitle()`, approximated per word of cased letters.
    IsTitle,
    /// Length in characters.
    Length,
    /// Whether the token starts a sentence.
    SentStart,
}

impl Attr {
    /// The attribute named `name` (upper-cased first, as spaCy does).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name.to_uppercase().as_str() {
            "ORTH" | "TEXT" => Attr::Orth,
            "LOWER" => Attr::Lower,
            "NORM" => Attr::Norm,
            "TAG" => Attr::Tag,
            "POS" => Attr::Pos,
            "MORPH" => Attr::Morph,
            "LEMMA" => Attr::Lemma,
            "DEP" => Attr::Dep,
            "ENT_TYPE" => Attr::EntType,
            "ENT_IOB" => Attr::EntIob,
            "IS_SPACE" => Attr::IsSpace,
            "IS_ALPHA" => Attr::IsAlpha,
            "IS_DIGIT" => Attr::IsDigit,
            "IS_LOWER" => Attr::IsLower,
            "IS_UPPER" => Attr::IsUpper,
            "IS_TITLE" => Attr::IsTitle,
            "LENGTH" => Attr::Length,
            "SENT_START" | "IS_SENT_START" => Attr::SentStart,
            _ => return None,
        })
    }

    fn is_integer(self) -> bool {
        matches!(
            self,
            Attr::IsSpace
                | Attr::IsAlpha
                | Attr::IsDigit
                | Attr::IsLower
                | Attr::IsUpper
                | Attr::IsTitle
                | Attr::Length
                | Attr::SentStart
        )
    }
}

/// An attribute value: spaCy compares string hashes or integers; a string never equals an
/// integer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AttrValue {
    /// A string attribute's value.
    Str(String),
    /// A flag (0/1) or a count.
    Int(i64),
}

fn is_cased_lower(c: char) -> bool {
    c.is_lowercase()
}

fn is_cased_upper(c: char) -> bool {
    c.is_uppercase()
}

fn py_islower(s: &str) -> bool {
    s.chars().any(is_cased_lower) && !s.chars().any(|c| is_cased_upper(c) || is_titlecase(c))
}

fn py_isupper(s: &str) -> bool {
    s.chars().any(is_cased_upper) && !s.chars().any(|c| is_cased_lower(c) || is_titlecase(c))
}

fn is_titlecase(c: char) -> bool {
    use unicode_general_category::{get_general_category, GeneralCategory as G};
    get_general_category(c) == G::TitlecaseLetter
}

fn py_istitle(s: &str) -> bool {
    let mut cased = false;
    let mut previous_cased = false;
    for c in s.chars() {
        if is_cased_upper(c) || is_titlecase(c) {
            if previous_cased {
                return false;
            }
            previous_cased = true;
            cased = true;
        } else if is_cased_lower(c) {
            if !previous_cased {
                return false;
            }
            previous_cased = true;
            cased = true;
        } else {
            previous_cased = false;
        }
    }
    cased
}

/// The attribute values of one token, computed once per document.
struct TokenView<'d> {
    doc: &'d Doc,
    lower: Vec<String>,
}

impl<'d> TokenView<'d> {
    fn new(doc: &'d Doc) -> Self {
        let lower = (0..doc.len())
            .map(|i| doc.token_text(i).to_lowercase())
            .collect();
        Self { doc, lower }
    }

    fn str_value(&self, i: usize, attr: Attr) -> &str {
        let t = &self.doc.tokens[i];
        match attr {
            Attr::Orth => self.doc.token_text(i),
            Attr::Lower => &self.lower[i],
            Attr::Norm => t.norm_exception.as_deref().unwrap_or(&self.lower[i]),
            Attr::Tag => &t.tag,
            Attr::Pos => &t.pos,
            Attr::Morph => &t.morph,
            Attr::Lemma => &t.lemma,
            Attr::Dep => &t.dep,
            Attr::EntType => &t.ent_type,
            Attr::EntIob => t.ent_iob.as_str(),
            _ => "",
        }
    }

    fn int_value(&self, i: usize, attr: Attr) -> i64 {
        let text = self.doc.token_text(i);
        let flag = |b: bool| i64::from(b);
        match attr {
            Attr::IsSpace => flag(is_space(text)),
            Attr::IsAlpha => flag(is_alpha(text)),
            Attr::IsDigit => flag(!text.is_empty() && text.chars().all(|c| c.is_numeric())),
            Attr::IsLower => flag(py_islower(text)),
            Attr::IsUpper => flag(py_isupper(text)),
            Attr::IsTitle => flag(py_istitle(text)),
            Attr::Length => text.chars().count() as i64,
            Attr::SentStart => flag(self.doc.tokens[i].sent_start),
            _ => 0,
        }
    }

    fn value(&self, i: usize, attr: Attr) -> AttrValue {
        if attr.is_integer() {
            AttrValue::Int(self.int_value(i, attr))
        } else {
            AttrValue::Str(self.str_value(i, attr).to_string())
        }
    }

    fn equals(&self, i: usize, attr: Attr, value: &AttrValue) -> bool {
        match value {
            AttrValue::Str(s) => !attr.is_integer() && self.str_value(i, attr) == s,
            AttrValue::Int(n) => attr.is_integer() && self.int_value(i, attr) == *n,
        }
    }
}

/// A set-valued predicate (`IN`, `NOT_IN`, `IS_SUBSET`, `IS_SUPERSET`, `INTERSECTS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SetOp {
    In,
    NotIn,
    IsSubset,
    IsSuperset,
    Intersects,
}

/// A comparison predicate on an integer attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CmpOp {
    Eq,
    Ne,
    Ge,
    Le,
    Gt,
    Lt,
}

#[derive(Clone, Debug)]
enum Predicate {
    Set {
        attr: Attr,
        op: SetOp,
        values: HashSet<AttrValue>,
    },
    Regex {
        attr: Attr,
        regex: Regex,
    },
    Cmp {
        attr: Attr,
        op: CmpOp,
        value: i64,
    },
}

impl Predicate {
    fn test(&self, view: &TokenView, i: usize) -> bool {
        match self {
            Predicate::Set { attr, op, values } => {
                let token: HashSet<AttrValue> = if *attr == Attr::Morph
                    && matches!(op, SetOp::IsSubset | SetOp::IsSuperset | SetOp::Intersects)
                {
                    morph_features(view.str_value(i, Attr::Morph))
                        .into_iter()
                        .map(AttrValue::Str)
                        .collect()
                } else {
                    std::iter::once(view.value(i, *attr)).collect()
                };
                match op {
                    SetOp::In => token.iter().any(|v| values.contains(v)),
                    SetOp::NotIn => !token.iter().any(|v| values.contains(v)),
                    SetOp::IsSubset => token.is_subset(values),
                    SetOp::IsSuperset => token.is_superset(values),
                    SetOp::Intersects => !token.is_disjoint(values),
                }
            }
            // A regex that fails at run time (backtracking limit) does not match.
            Predicate::Regex { attr, regex } => {
                regex.is_match(view.str_value(i, *attr)).unwrap_or(false)
            }
            Predicate::Cmp { attr, op, value } => {
                let v = view.int_value(i, *attr);
                match op {
                    CmpOp::Eq => v == *value,
                    CmpOp::Ne => v != *value,
                    CmpOp::Ge => v >= *value,
                    CmpOp::Le => v <= *value,
                    CmpOp::Gt => v > *value,
                    CmpOp::Lt => v < *value,
                }
            }
        }
    }
}

/// The individual `Field=Value` features of a canonical FEATS string (multi-valued fields
/// split, as spaCy's `MorphAnalysis` iterates them).
fn morph_features(feats: &str) -> Vec<String> {
    let Ok(pairs) = morph::feats_to_pairs(feats) else {
        return Vec::new();
    };
    pairs
        .iter()
        .flat_map(|(f, vs)| vs.split(',').map(move |v| format!("{f}={v}")))
        .collect()
}

/// How often a token spec may repeat (spaCy's quantifiers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Quantifier {
    /// Exactly once.
    One,
    /// Exactly once, a token that does **not** match (`"!"`).
    Zero,
    /// Zero or more times (`"*"`).
    ZeroPlus,
    /// Optional (`"?"`).
    ZeroOne,
}

/// One compiled node: a quantifier, attribute equalities and predicate indices.
#[derive(Clone, Debug)]
struct Node {
    quantifier: Quantifier,
    attrs: Vec<(Attr, AttrValue)>,
    predicates: Vec<usize>,
}

#[derive(Clone, Debug)]
struct CompiledPattern {
    key: usize,
    nodes: Vec<Node>,
}

/// A match: the key its pattern was added under and the token range `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Match {
    /// The key passed to [`Matcher::add`].
    pub key: usize,
    /// First token.
    pub start: usize,
    /// One past the last token.
    pub end: usize,
}

/// A set of token patterns, each added under a key; finds all their matches in a [`Doc`].
#[derive(Clone, Debug, Default)]
pub struct Matcher {
    patterns: Vec<CompiledPattern>,
    predicates: Vec<Predicate>,
    /// Patterns whose first token must have a given string value (`{"TAG": "NN"}`), by
    /// attribute and value. A pattern is only started at tokens with that value: anywhere else
    /// its first step would reject it at once, so skipping it changes nothing but the time.
    first_token_index: Vec<(Attr, HashMap<String, Vec<usize>>)>,
    /// Patterns started at every token.
    unindexed: Vec<usize>,
}

/// Converts a msgpack value to JSON (map keys as strings), so that patterns from msgpack files
/// and from JSON share one parser.
pub fn msgpack_to_json(value: &rmpv::Value) -> Result<Json, String> {
    use rmpv::Value as V;
    Ok(match value {
        V::Nil => Json::Null,
        V::Boolean(b) => Json::Bool(*b),
        V::Integer(n) => {
            if let Some(i) = n.as_i64() {
                Json::from(i)
            } else if let Some(u) = n.as_u64() {
                Json::from(u)
            } else {
                return Err(format!("integer {n} out of range"));
            }
        }
        V::F32(f) => Json::from(f64::from(*f)),
        V::F64(f) => Json::from(*f),
        V::String(s) => Json::String(s.as_str().ok_or("string that is not UTF-8")?.to_string()),
        V::Binary(b) => Json::String(
            std::str::from_utf8(b)
                .map_err(|_| "binary value that is not UTF-8")?
                .to_string(),
        ),
        V::Array(items) => Json::Array(
            items
                .iter()
                .map(msgpack_to_json)
                .collect::<Result<_, _>>()?,
        ),
        V::Map(entries) => {
            let mut out = serde_json::Map::new();
            for (k, v) in entries {
                let key = super::msgpack::key_str(k).ok_or("map key that is not a string")?;
                out.insert(key.to_string(), msgpack_to_json(v)?);
            }
            Json::Object(out)
        }
        V::Ext(..) => return Err("msgpack extension value".into()),
    })
}

fn json_attr_value(attr: Attr, value: &Json) -> Result<AttrValue, String> {
    Ok(match value {
        Json::String(s) if attr == Attr::Morph => AttrValue::Str(morph::canonical(s)?),
        Json::String(s) => AttrValue::Str(s.clone()),
        Json::Bool(b) => AttrValue::Int(i64::from(*b)),
        Json::Number(n) => AttrValue::Int(
            n.as_i64()
                .ok_or_else(|| format!("value {n} is not an integer"))?,
        ),
        other => return Err(format!("unsupported value {other}")),
    })
}

/// Python `re` semantics for `$`: also match before a final newline.
fn python_regex(pattern: &str) -> Result<Regex, String> {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` right after `[` or `[^` is literal.
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    out.push(']');
                    chars.next();
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '$' if !in_class => out.push_str(r"(?=\n?\z)"),
            _ => out.push(c),
        }
    }
    Regex::new(&out).map_err(|e| format!("invalid REGEX {pattern:?}: {e}"))
}

fn quantifiers(op: Option<&Json>) -> Result<Vec<Quantifier>, String> {
    use Quantifier::*;
    let Some(op) = op else { return Ok(vec![One]) };
    let op = op
        .as_str()
        .ok_or_else(|| format!("OP {op} is not a string"))?;
    Ok(match op {
        "*" => vec![ZeroPlus],
        "+" => vec![One, ZeroPlus],
        "?" => vec![ZeroOne],
        "1" => vec![One],
        "!" => vec![Zero],
        _ if op.starts_with('{') && op.ends_with('}') && op.len() >= 2 => {
            let inner = &op[1..op.len() - 1];
            let (n, m) = inner.split_once(',').unwrap_or((inner, inner));
            let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
            let bad = || format!("invalid OP {op:?}");
            if (!digits(n) && !digits(m))
                || (!n.is_empty() && !digits(n))
                || (!m.is_empty() && !digits(m))
            {
                return Err(bad());
            }
            let n: usize = if n.is_empty() {
                0
            } else {
                n.parse().map_err(|_| bad())?
            };
            let mut out = vec![One; n];
            if m.is_empty() {
                out.push(ZeroPlus);
            } else {
                let m: usize = m.parse().map_err(|_| bad())?;
                if n > m {
                    return Err(bad());
                }
                out.extend(std::iter::repeat_n(ZeroOne, m - n));
            }
            out
        }
        _ => return Err(format!("invalid OP {op:?}")),
    })
}

impl Matcher {
    /// An empty matcher.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether no pattern was added.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Adds token patterns (each a JSON list of token specs, as spaCy's `Matcher.add` takes
    /// them) under `key`. Patterns are tried in the order they were added.
    pub fn add(&mut self, key: usize, patterns: &[Json]) -> Result<(), String> {
        for (p, pattern) in patterns.iter().enumerate() {
            let specs = pattern
                .as_array()
                .ok_or_else(|| format!("pattern {p} is not a list of token specs"))?;
            if specs.is_empty() {
                return Err(format!("pattern {p} is empty"));
            }
            let mut nodes = Vec::new();
            for (t, spec) in specs.iter().enumerate() {
                let compiled = self
                    .compile_spec(spec)
                    .map_err(|e| format!("pattern {p}, token {t}: {e}"))?;
                nodes.extend(compiled);
            }
            self.index_first_token(self.patterns.len(), &nodes[0]);
            self.patterns.push(CompiledPattern { key, nodes });
        }
        Ok(())
    }

    fn index_first_token(&mut self, pattern: usize, first: &Node) {
        let key = (first.quantifier == Quantifier::One)
            .then(|| {
                first.attrs.iter().find_map(|(attr, value)| match value {
                    AttrValue::Str(v) if !attr.is_integer() => Some((*attr, v.clone())),
                    _ => None,
                })
            })
            .flatten();
        let Some((attr, value)) = key else {
            self.unindexed.push(pattern);
            return;
        };
        let slot = match self.first_token_index.iter().position(|(a, _)| *a == attr) {
            Some(slot) => slot,
            None => {
                self.first_token_index.push((attr, HashMap::new()));
                self.first_token_index.len() - 1
            }
        };
        self.first_token_index[slot]
            .1
            .entry(value)
            .or_default()
            .push(pattern);
    }

    fn compile_spec(&mut self, spec: &Json) -> Result<Vec<Node>, String> {
        let spec = spec.as_object().ok_or("token spec is not a map")?;
        let op = spec
            .iter()
            .find_map(|(k, v)| k.eq_ignore_ascii_case("op").then_some(v));
        let quantifiers = quantifiers(op)?;
        let mut attrs = Vec::new();
        let mut predicates = Vec::new();
        for (name, value) in spec {
            if name.eq_ignore_ascii_case("op") {
                continue;
            }
            if name == "_" {
                return Err("extension attributes (`_`) are not supported".into());
            }
            let attr =
                Attr::from_name(name).ok_or_else(|| format!("unknown attribute {name:?}"))?;
            match value {
                Json::Object(preds) => {
                    for (kind, arg) in preds {
                        if let Some(p) = self.compile_predicate(attr, kind, arg)? {
                            predicates.push(p);
                        }
                    }
                }
                _ => attrs.push((
                    attr,
                    json_attr_value(attr, value).map_err(|e| format!("{name}: {e}"))?,
                )),
            }
        }
        Ok(quantifiers
            .into_iter()
            .map(|quantifier| Node {
                quantifier,
                attrs: attrs.clone(),
                predicates: predicates.clone(),
            })
            .collect())
    }

    fn compile_predicate(
        &mut self,
        attr: Attr,
        kind: &str,
        arg: &Json,
    ) -> Result<Option<usize>, String> {
        let set_op = match kind.to_uppercase().as_str() {
            "IN" => Some(SetOp::In),
            "NOT_IN" => Some(SetOp::NotIn),
            "IS_SUBSET" => Some(SetOp::IsSubset),
            "IS_SUPERSET" => Some(SetOp::IsSuperset),
            "INTERSECTS" => Some(SetOp::Intersects),
            _ => None,
        };
        let cmp_op = match kind {
            "==" => Some(CmpOp::Eq),
            "!=" => Some(CmpOp::Ne),
            ">=" => Some(CmpOp::Ge),
            "<=" => Some(CmpOp::Le),
            ">" => Some(CmpOp::Gt),
            "<" => Some(CmpOp::Lt),
            _ => None,
        };
        let predicate = if let Some(op) = set_op {
            let items = arg
                .as_array()
                .ok_or_else(|| format!("{kind} needs a list, got {arg}"))?;
            let values = items
                .iter()
                .map(|v| json_attr_value(attr, v))
                .collect::<Result<HashSet<_>, _>>()
                .map_err(|e| format!("{kind}: {e}"))?;
            Predicate::Set { attr, op, values }
        } else if kind.eq_ignore_ascii_case("REGEX") {
            if attr.is_integer() {
                return Err(format!("REGEX on the integer attribute {attr:?}"));
            }
            let pattern = arg
                .as_str()
                .ok_or_else(|| format!("REGEX needs a string, got {arg}"))?;
            Predicate::Regex {
                attr,
                regex: python_regex(pattern)?,
            }
        } else if let Some(op) = cmp_op {
            if !attr.is_integer() {
                return Err(format!("{kind} on the string attribute {attr:?}"));
            }
            let value = match arg {
                Json::Bool(b) => i64::from(*b),
                _ => arg
                    .as_i64()
                    .ok_or_else(|| format!("{kind} needs an integer, got {arg}"))?,
            };
            Predicate::Cmp { attr, op, value }
        } else if kind.to_uppercase().starts_with("FUZZY") {
            return Err(format!("predicate {kind} is not supported"));
        } else {
            tracing::warn!("ignoring unknown matcher predicate {kind:?} (spaCy warning W035)");
            return Ok(None);
        };
        self.predicates.push(predicate);
        Ok(Some(self.predicates.len() - 1))
    }

    /// All matches in `doc`, in spaCy's order (see the module notes).
    pub fn find(&self, doc: &Doc) -> Vec<Match> {
        let n = doc.len();
        if n == 0 || self.patterns.is_empty() {
            return Vec::new();
        }
        let view = TokenView::new(doc);
        let mut cache = PredicateCache {
            results: vec![0; self.predicates.len()],
        };
        let mut states: Vec<State> = Vec::new();
        let mut raw: Vec<Match> = Vec::new();
        let mut candidates: Vec<usize> = Vec::with_capacity(self.patterns.len());
        for i in 0..n {
            cache.results.iter_mut().for_each(|r| *r = 0);
            candidates.clear();
            candidates.extend_from_slice(&self.unindexed);
            for (attr, by_value) in &self.first_token_index {
                if let Some(patterns) = by_value.get(view.str_value(i, *attr)) {
                    candidates.extend_from_slice(patterns);
                }
            }
            // Started in the order the patterns were added, as spaCy does.
            candidates.sort_unstable();
            for &p in &candidates {
                states.push(State {
                    pattern: p,
                    node: 0,
                    start: i,
                    length: 0,
                });
            }
            self.transition(&mut states, &mut raw, &view, i, &mut cache);
        }
        self.finish(&states, &mut raw);
        let mut seen = HashSet::new();
        raw.into_iter()
            .filter(|m| m.end > m.start && seen.insert(*m))
            .collect()
    }

    fn is_match(
        &self,
        state: &State,
        view: &TokenView,
        i: usize,
        cache: &mut PredicateCache,
    ) -> bool {
        let node = &self.patterns[state.pattern].nodes[state.node];
        for &p in &node.predicates {
            if !cache.get(p, || self.predicates[p].test(view, i)) {
                return false;
            }
        }
        node.attrs
            .iter()
            .all(|(attr, value)| view.equals(i, *attr, value))
    }

    fn is_final(&self, state: &State) -> bool {
        state.node + 1 == self.patterns[state.pattern].nodes.len()
    }

    fn action(
        &self,
        state: &State,
        view: &TokenView,
        i: usize,
        cache: &mut PredicateCache,
    ) -> Action {
        let mut is_match = self.is_match(state, view, i, cache);
        let mut quantifier = self.patterns[state.pattern].nodes[state.node].quantifier;
        let is_final = self.is_final(state);
        if quantifier == Quantifier::Zero {
            is_match = !is_match;
            quantifier = Quantifier::One;
        }
        match (quantifier, is_match, is_final) {
            (Quantifier::One, true, true) => Action::Match,
            (Quantifier::One, true, false) => Action::Advance,
            (Quantifier::One, false, _) => Action::Reject,
            (Quantifier::ZeroPlus, true, true) => Action::MatchExtend,
            (Quantifier::ZeroPlus, true, false) => Action::RetryExtend,
            (Quantifier::ZeroPlus, false, true) => Action::MatchReject,
            (Quantifier::ZeroPlus, false, false) => Action::Retry,
            (Quantifier::ZeroOne, true, true) => Action::MatchDouble,
            (Quantifier::ZeroOne, true, false) => Action::RetryAdvance,
            (Quantifier::ZeroOne, false, true) => Action::MatchReject,
            (Quantifier::ZeroOne, false, false) => Action::Retry,
            (Quantifier::Zero, ..) => Action::Reject,
        }
    }

    /// One step of spaCy's `transition_states` over token `i`.
    fn transition(
        &self,
        states: &mut Vec<State>,
        matches: &mut Vec<Match>,
        view: &TokenView,
        i: usize,
        cache: &mut PredicateCache,
    ) {
        let mut q = 0;
        let mut new_states = Vec::new();
        for s in 0..states.len() {
            let mut action = self.action(&states[s], view, i, cache);
            if action == Action::Reject {
                continue;
            }
            let state = states[s];
            states[q] = state;
            while matches!(
                action,
                Action::Retry | Action::RetryAdvance | Action::RetryExtend
            ) {
                if action == Action::RetryExtend {
                    new_states.push(State {
                        length: state.length + 1,
                        ..states[q]
                    });
                }
                if action == Action::RetryAdvance {
                    new_states.push(State {
                        node: states[q].node + 1,
                        length: state.length + 1,
                        ..states[q]
                    });
                }
                states[q].node += 1;
                action = self.action(&states[q], view, i, cache);
            }
            let key = self.patterns[state.pattern].key;
            let emit = |matches: &mut Vec<Match>, length: usize| {
                matches.push(Match {
                    key,
                    start: state.start,
                    end: state.start + length,
                })
            };
            match action {
                Action::Reject => {}
                Action::Advance => {
                    states[q].node += 1;
                    states[q].length += 1;
                    q += 1;
                }
                Action::Match => emit(matches, state.length + 1),
                Action::MatchDouble => {
                    if state.length > 0 {
                        emit(matches, state.length);
                    }
                    emit(matches, state.length + 1);
                }
                Action::MatchReject => emit(matches, state.length),
                Action::MatchExtend => {
                    emit(matches, state.length);
                    states[q].length += 1;
                    q += 1;
                }
                Action::Retry | Action::RetryAdvance | Action::RetryExtend => {}
            }
        }
        states.truncate(q);
        states.extend(new_states);
    }

    /// spaCy's `finish_states`: states waiting on trailing optional nodes complete.
    fn finish(&self, states: &[State], matches: &mut Vec<Match>) {
        for state in states {
            let mut state = *state;
            let nodes = &self.patterns[state.pattern].nodes;
            while state.node < nodes.len()
                && matches!(
                    nodes[state.node].quantifier,
                    Quantifier::ZeroPlus | Quantifier::ZeroOne
                )
            {
                if self.is_final(&state) {
                    matches.push(Match {
                        key: self.patterns[state.pattern].key,
                        start: state.start,
                        end: state.start + state.length,
                    });
                    break;
                }
                state.node += 1;
            }
        }
    }
}

/// Per-token memo of predicate results (0 unknown, 1 true, -1 false), as spaCy caches them.
struct PredicateCache {
    results: Vec<i8>,
}

impl PredicateCache {
    fn get(&mut self, p: usize, test: impl FnOnce() -> bool) -> bool {
        if self.results[p] == 0 {
            self.results[p] = if test() { 1 } else { -1 };
        }
        self.results[p] == 1
    }
}

#[derive(Clone, Copy, Debug)]
struct State {
    pattern: usize,
    node: usize,
    start: usize,
    length: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Reject,
    Match,
    Advance,
    Retry,
    MatchExtend,
    RetryAdvance,
    RetryExtend,
    MatchReject,
    MatchDouble,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spacy::doc::Token;

    fn doc(words: &[&str]) -> Doc {
        let mut text = String::new();
        let mut tokens = Vec::new();
        for w in words {
            let start = text.len();
            text.push_str(w);
            tokens.push(Token {
                start,
                end: text.len(),
                ..Token::default()
            });
        }
        Doc { text, tokens }
    }

    /// `[patterns, spaCy 3.8.7's (start, end) matches in order]` over the words of
    /// [`WORDS`], from `Matcher(nlp.vocab); m.add("K", patterns); m(doc)`.
    const SPACY_CASES: &[&str] = &[
        r#"[[[{"LOWER": "a"}, {"LOWER": "b", "OP": "?"}]], [[0, 1], [0, 2], [2, 3], [3, 4], [3, 5]]]"#,
        r#"[[[{"LOWER": "a", "OP": "+"}, {"LOWER": "b"}]], [[0, 2], [3, 5], [2, 5]]]"#,
        r#"[[[{"LOWER": "a", "OP": "*"}]], [[0, 1], [2, 3], [2, 4], [3, 4]]]"#,
        r#"[[[{"LOWER": "a"}, {"LOWER": "a", "OP": "!"}]], [[0, 2], [3, 5]]]"#,
        r#"[[[{"LOWER": {"IN": ["a", "c"]}}], [{"IS_SPACE": true}]], [[0, 1], [2, 3], [3, 4], [5, 6], [6, 7], [8, 9]]]"#,
        r#"[[[{"LOWER": {"REGEX": "^n'?t$"}}]], [[7, 8]]]"#,
        r#"[[[{"ORTH": {"REGEX": "^\\s$"}}]], [[5, 6], [8, 9]]]"#,
        r#"[[[{"LOWER": {"NOT_IN": ["a", "b"]}, "IS_SPACE": false}]], [[6, 7], [7, 8]]]"#,
        r#"[[[{"LOWER": "a", "OP": "{1,2}"}, {}]], [[0, 2], [2, 4], [3, 5], [2, 5]]]"#,
        r#"[[[{"LENGTH": {">=": 2}}]], [[7, 8]]]"#,
        r#"[[[{}, {"LOWER": "b"}]], [[0, 2], [3, 5]]]"#,
        r#"[[[{"LOWER": "b"}, {"OP": "?"}, {"LOWER": "a", "OP": "?"}]], [[1, 2], [1, 3], [1, 4], [4, 5], [4, 6]]]"#,
    ];
    const WORDS: [&str; 9] = ["a", "b", "a", "a", "b", " ", "C", "n't", "\n"];

    #[test]
    fn matches_and_order_agree_with_spacy() {
        let d = doc(&WORDS);
        for case in SPACY_CASES {
            let case: Json = serde_json::from_str(case).unwrap();
            let mut m = Matcher::new();
            m.add(7, case[0].as_array().unwrap()).unwrap();
            let ours: Vec<(usize, usize)> = m
                .find(&d)
                .into_iter()
                .map(|x| {
                    assert_eq!(x.key, 7);
                    (x.start, x.end)
                })
                .collect();
            let theirs: Vec<(usize, usize)> = serde_json::from_value(case[1].clone()).unwrap();
            assert_eq!(ours, theirs, "patterns {}", case[0]);
        }
    }

    #[test]
    fn multi_token_pattern_with_in_and_regex() {
        let mut d = doc(&["I", "ai", "n't", "sure", "ai", "nt"]);
        d.tokens[1].tag = "VBP".into();
        d.tokens[4].tag = "VBZ".into();
        let mut m = Matcher::new();
        let pattern = serde_json::json!([[
            {"TAG": {"IN": ["VBP", "VBZ"]}, "LOWER": "ai"},
            {"LOWER": {"REGEX": "^n'?t$"}}
        ]]);
        m.add(0, pattern.as_array().unwrap()).unwrap();
        let found: Vec<_> = m.find(&d).into_iter().map(|x| (x.start, x.end)).collect();
        assert_eq!(found, [(1, 3), (4, 6)]);
        d.tokens[4].tag = "MD".into();
        assert_eq!(m.find(&d).len(), 1);
    }

    #[test]
    fn unset_strings_are_the_empty_value() {
        let mut d = doc(&["x", "y"]);
        d.tokens[0].dep = "nsubj".into();
        let mut m = Matcher::new();
        let pattern = serde_json::json!([[{"DEP": {"NOT_IN": [""]}}]]);
        m.add(0, pattern.as_array().unwrap()).unwrap();
        let found: Vec<_> = m.find(&d).into_iter().map(|x| x.start).collect();
        assert_eq!(found, [0]);
    }

    #[test]
    fn morph_predicates() {
        let mut d = doc(&["x", "y"]);
        d.tokens[0].morph = "Number=Sing|Person=3".into();
        d.tokens[1].morph = "Number=Plur".into();
        let find = |spec: Json| {
            let mut m = Matcher::new();
            m.add(0, &[Json::Array(vec![spec])]).unwrap();
            m.find(&d).into_iter().map(|x| x.start).collect::<Vec<_>>()
        };
        assert_eq!(
            find(serde_json::json!({"MORPH": "Person=3|Number=Sing"})),
            [0]
        );
        assert_eq!(
            find(serde_json::json!({"MORPH": {"IN": ["Person=3|Number=Sing"]}})),
            [0]
        );
        assert_eq!(
            find(serde_json::json!({"MORPH": {"IS_SUPERSET": ["Number=Sing"]}})),
            [0]
        );
        assert_eq!(
            find(serde_json::json!({"MORPH": {"IS_SUBSET": ["Number=Plur", "Person=1"]}})),
            [1]
        );
        assert_eq!(
            find(serde_json::json!({"MORPH": {"INTERSECTS": ["Number=Plur", "Person=3"]}})),
            [0, 1]
        );
    }

    #[test]
    fn python_string_predicates() {
        assert!(is_space(" \n\u{1f}"));
        assert!(!is_space(""));
        assert!(!is_space("a "));
        assert!(is_alpha("Straße"));
        assert!(!is_alpha("b-52"));
        assert!(py_istitle("Hello World"));
        assert!(!py_istitle("HeLLo"));
    }

    #[test]
    fn python_dollar_matches_before_a_final_newline() {
        let re = python_regex("^a$").unwrap();
        assert!(re.is_match("a\n").unwrap());
        assert!(!re.is_match("a\n\n").unwrap());
        let re = python_regex(r"^[$]\$$").unwrap();
        assert!(re.is_match("$$").unwrap());
    }

    #[test]
    fn bad_patterns_are_errors() {
        let mut m = Matcher::new();
        for bad in [
            serde_json::json!([[{"NOPE": "x"}]]),
            serde_json::json!([[{"LOWER": "x", "OP": "{3,1}"}]]),
            serde_json::json!([[{"LOWER": {"REGEX": "("}}]]),
            serde_json::json!([[{"LOWER": {"FUZZY": "x"}}]]),
            serde_json::json!([[]]),
        ] {
            assert!(m.add(0, bad.as_array().unwrap()).is_err(), "{bad}");
        }
    }
}
