//! spaCy's rule-based English lemmatizer (`spacy/pipeline/lemmatizer.py`, `rule_lemmatize`,
//! with `spacy/lang/en/lemmatizer.py`'s `is_base_form`), as configured in `en_core_web_sm`:
//! mode `rule`, `overwrite = false`.
//!
//! Design decisions and spaCy behaviour reproduced:
//!
//! * `lemmatizer/lookups/lookups.bin` is msgpack `{table name: {key: value}}` whose keys are
//!   spaCy string ids: `hash_string(key)`, except that a string which is a spaCy symbol is keyed
//!   by the symbol's number (`get_string_id`). The tables are only ever looked up by a lower-cased
//!   Universal POS name, so the table is read through those names only (`string_id`: `aux`,
//!   `conj`, `det`, `intj`, `num` and `punct` are symbols, as dependency labels; every other
//!   name is hashed). Entries under other keys
//!   cannot be reached by spaCy either and are not read.
//! * `lemma_rules` is required (spaCy refuses to run without it); `lemma_index` and
//!   `lemma_exc` are optional.
//! * A token whose lemma is already set (by the attribute ruler) keeps it (`overwrite = false`;
//!   spaCy tests `token.lemma == 0`, and the empty string is id 0, so "set" means non-empty).
//! * POS `""`, `eol` or `space`: the lower-cased text (spaCy warns W108 for `""`).
//! * `is_base_form` (English): NOUN with `Number=Sing`; VERB with `VerbForm=Inf`; VERB with
//!   `VerbForm=Fin`, `Tense=Pres` and no `Number`; ADJ with `Degree=Pos`; any POS with
//!   `VerbForm=Inf`, with the literal value `VerbForm=None`, or with `Degree=Pos`. Base forms
//!   lemmatise to the lower-cased text. Feature values compare as spaCy's `to_dict()` gives
//!   them, so a multi-valued field (`Degree=Cmp,Pos`) never equals a single value.
//! * When none of the three tables has a non-empty entry for the POS: PROPN keeps its text
//!   unchanged, anything else is lower-cased.
//! * Otherwise, on the lower-cased text: every rule `(old, new)` whose `old` ends the string
//!   gives `stem + new`. A non-empty form in the index is put **at the front**, one that is not
//!   all letters (Python `str.isalpha`) at the back, and the others are kept aside as
//!   out-of-vocabulary forms; duplicates are then dropped, keeping the first. So when two rule
//!   outputs are both indexed words, the *later* rule wins ("hopes" → hop, not hope; "riding"
//!   → rid). This is spaCy 3.8.8 and later (3.8.7 and earlier appended indexed forms, so the
//!   earlier rule won); the golden fixtures are made with the current 3.8 release
//!   (`scripts/spacy_golden.py`, `scripts/spacy_lemma_ties.py`). Exceptions for the string are
//!   then each inserted at the front when not already present, so several exceptions end up in
//!   reverse order. If nothing is left, the OOV forms are used; if still nothing, the original
//!   (not lower-cased) text. The lemma is the first form.
//! * Lower-casing is Rust's `str::to_lowercase`, the same full Unicode mapping as Python's
//!   `str.lower` (final sigma included).
//! * Results are cached per `(text, POS, MORPH)` like spaCy's `self.cache`, in a `RwLock`ed map
//!   that is cleared when it reaches [`CACHE_LIMIT`] entries, so the lemmatizer is `Send + Sync`
//!   and its memory is bounded. A poisoned lock just bypasses the cache.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::RwLock;

use super::doc::Doc;
#[cfg(test)]
use super::hash::hash_string;
use super::hash::string_id;
use super::lexeme::is_alpha;
use super::msgpack::{self, key_str, Value};
use super::{morph, LoadError};

/// The cache is emptied when it holds this many lemmas.
pub const CACHE_LIMIT: usize = 100_000;

/// The lower-cased POS names the lemmatizer can be asked about, with their spaCy string ids.
fn pos_keys() -> Vec<(&'static str, u64)> {
    let names = [
        "adj", "adp", "adv", "aux", "conj", "cconj", "det", "intj", "noun", "num", "part", "pron",
        "propn", "punct", "sconj", "sym", "verb", "x", "eol", "space",
    ];
    names
        .into_iter()
        .map(|name| (name, string_id(name)))
        .collect()
}

/// The three tables' entries for one POS.
#[derive(Clone, Debug, Default)]
struct PosTables {
    index: HashSet<String>,
    exceptions: HashMap<String, Vec<String>>,
    rules: Vec<(String, String)>,
}

impl PosTables {
    fn is_empty(&self) -> bool {
        self.index.is_empty() && self.exceptions.is_empty() && self.rules.is_empty()
    }
}

type CacheKey = (String, String, String);

/// The loaded component.
#[derive(Debug)]
pub struct Lemmatizer {
    tables: HashMap<&'static str, PosTables>,
    cache: RwLock<HashMap<CacheKey, String>>,
}

fn table_entry(table: &Value, key: u64) -> Option<&Value> {
    table
        .as_map()?
        .iter()
        .find_map(|(k, v)| (k.as_u64() == Some(key)).then_some(v))
}

fn strings(value: &Value, what: &str) -> Result<Vec<String>, String> {
    value
        .as_array()
        .ok_or(format!("{what} is not a list"))?
        .iter()
        .map(|s| {
            key_str(s)
                .map(str::to_string)
                .ok_or(format!("{what} holds a non-string"))
        })
        .collect()
}

impl Lemmatizer {
    /// Loads `lookups/lookups.bin` from the component's directory (e.g. `…/lemmatizer`).
    pub fn from_dir(component_dir: &Path) -> Result<Self, LoadError> {
        let path = component_dir.join("lookups").join("lookups.bin");
        let value = msgpack::read_file(&path)?;
        Self::from_value(&value).map_err(|e| LoadError::new(&path, e))
    }

    fn from_value(value: &Value) -> Result<Self, String> {
        if value.as_map().is_none() {
            return Err("not a map of lookup tables".into());
        }
        let table = |name: &str| -> Result<Option<&Value>, String> {
            match msgpack::get(value, name) {
                None => Ok(None),
                Some(t) if t.is_map() => Ok(Some(t)),
                Some(_) => Err(format!("table `{name}` is not a map")),
            }
        };
        let rules =
            table("lemma_rules")?.ok_or("no `lemma_rules` table (required in rule mode)")?;
        let index = table("lemma_index")?;
        let exc = table("lemma_exc")?;
        let mut tables = HashMap::new();
        for (pos, key) in pos_keys() {
            let mut t = PosTables::default();
            if let Some(entry) = table_entry(rules, key) {
                let what = format!("lemma_rules[{pos}]");
                for pair in entry.as_array().ok_or(format!("{what} is not a list"))? {
                    match strings(pair, &what)?.as_slice() {
                        [old, new] => t.rules.push((old.clone(), new.clone())),
                        _ => {
                            return Err(format!(
                                "{what} holds a rule that is not an [old, new] pair"
                            ))
                        }
                    }
                }
            }
            if let Some(entry) = index.and_then(|i| table_entry(i, key)) {
                t.index = strings(entry, &format!("lemma_index[{pos}]"))?
                    .into_iter()
                    .collect();
            }
            if let Some(entry) = exc.and_then(|e| table_entry(e, key)) {
                let what = format!("lemma_exc[{pos}]");
                for (word, forms) in entry.as_map().ok_or(format!("{what} is not a map"))? {
                    let word = key_str(word).ok_or(format!("{what} has a non-string key"))?;
                    let forms = strings(forms, &format!("{what}[{word:?}]"))?;
                    t.exceptions.insert(word.to_string(), forms);
                }
            }
            if !t.is_empty() {
                tables.insert(pos, t);
            }
        }
        Ok(Self {
            tables,
            cache: RwLock::new(HashMap::new()),
        })
    }

    /// Sets the lemma of every token of `doc` that has none yet.
    pub fn apply(&self, doc: &mut Doc) {
        for i in 0..doc.len() {
            if !doc.tokens[i].lemma.is_empty() {
                continue;
            }
            let t = &doc.tokens[i];
            let lemma = self.lemma(doc.token_text(i), &t.pos, &t.morph);
            doc.tokens[i].lemma = lemma;
        }
    }

    /// The lemma of a token with this text, Universal POS (`pos_`, any case) and canonical
    /// morphology: the first of [`Lemmatizer::lemmas`], cached.
    pub fn lemma(&self, text: &str, pos: &str, morph: &str) -> String {
        let key = (text.to_string(), pos.to_string(), morph.to_string());
        if let Ok(cache) = self.cache.read() {
            if let Some(lemma) = cache.get(&key) {
                return lemma.clone();
            }
        }
        let lemma = self
            .lemmas(text, pos, morph)
            .into_iter()
            .next()
            .unwrap_or_default();
        if let Ok(mut cache) = self.cache.write() {
            if cache.len() >= CACHE_LIMIT {
                cache.clear();
            }
            cache.insert(key, lemma.clone());
        }
        lemma
    }

    /// All candidate lemmas, best first, as spaCy's `rule_lemmatize` returns them (never
    /// empty).
    pub fn lemmas(&self, text: &str, pos: &str, morph: &str) -> Vec<String> {
        let univ_pos = pos.to_lowercase();
        if matches!(univ_pos.as_str(), "" | "eol" | "space") {
            return vec![text.to_lowercase()];
        }
        if is_base_form(&univ_pos, morph) {
            return vec![text.to_lowercase()];
        }
        let Some(tables) = self.tables.get(univ_pos.as_str()) else {
            return vec![if univ_pos == "propn" {
                text.to_string()
            } else {
                text.to_lowercase()
            }];
        };
        let string = text.to_lowercase();
        let mut forms: Vec<String> = Vec::new();
        let mut oov_forms: Vec<String> = Vec::new();
        for (old, new) in &tables.rules {
            if let Some(stem) = string.strip_suffix(old.as_str()) {
                let form = format!("{stem}{new}");
                if form.is_empty() {
                    continue;
                }
                if tables.index.contains(&form) {
                    forms.insert(0, form);
                } else if !is_alpha(&form) {
                    forms.push(form);
                } else {
                    oov_forms.push(form);
                }
            }
        }
        // Python's `list(dict.fromkeys(forms))`: the first of each duplicate stays.
        let mut seen = HashSet::new();
        forms.retain(|form| seen.insert(form.clone()));
        if let Some(exceptions) = tables.exceptions.get(&string) {
            for form in exceptions {
                if !forms.contains(form) {
                    forms.insert(0, form.clone());
                }
            }
        }
        if forms.is_empty() {
            forms = oov_forms;
        }
        if forms.is_empty() {
            forms.push(text.to_string());
        }
        forms
    }
}

/// English `is_base_form`: whether the token is uninflected, so its lemma is its lower-cased
/// text (see the module notes).
pub fn is_base_form(univ_pos: &str, feats: &str) -> bool {
    let get = |field: &str| morph::get(feats, field);
    (univ_pos == "noun" && get("Number") == Some("Sing"))
        || (univ_pos == "verb" && get("VerbForm") == Some("Inf"))
        || (univ_pos == "verb"
            && get("VerbForm") == Some("Fin")
            && get("Tense") == Some("Pres")
            && get("Number").is_none())
        || (univ_pos == "adj" && get("Degree") == Some("Pos"))
        || get("VerbForm") == Some("Inf")
        || get("VerbForm") == Some("None")
        || get("Degree") == Some("Pos")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn is_send_and_sync() {
        assert_send_sync::<Lemmatizer>();
    }

    #[test]
    fn symbol_keys() {
        let keys = pos_keys();
        let id = |n: &str| keys.iter().find(|(k, _)| *k == n).unwrap().1;
        assert_eq!(id("punct"), 445);
        assert_eq!(id("noun"), 16833663260455505849);
        assert_eq!(id("verb"), 6360137228241296794);
    }

    fn tiny() -> Lemmatizer {
        use Value as V;
        let s = |x: &str| V::from(x);
        let rules = V::Map(vec![(
            V::from(hash_string("noun")),
            V::Array(vec![
                V::Array(vec![s("s"), s("")]),
                V::Array(vec![s("ies"), s("y")]),
                V::Array(vec![s("es"), s("")]),
            ]),
        )]);
        let index = V::Map(vec![(
            V::from(hash_string("noun")),
            V::Array(vec![s("pony"), s("hope"), s("hop")]),
        )]);
        let exc = V::Map(vec![(
            V::from(hash_string("noun")),
            V::Map(vec![(s("geese"), V::Array(vec![s("goose"), s("geese")]))]),
        )]);
        let lookups = V::Map(vec![
            (s("lemma_rules"), rules),
            (s("lemma_index"), index),
            (s("lemma_exc"), exc),
        ]);
        Lemmatizer::from_value(&lookups).unwrap()
    }

    #[test]
    fn rules_index_and_oov() {
        let l = tiny();
        // "ponies": "ponie" (oov), "pony" (in index), "poni" (oov) → index form wins.
        assert_eq!(l.lemmas("Ponies", "NOUN", "Number=Plur"), ["pony"]);
        // No form in the index: the OOV forms, in rule order.
        assert_eq!(l.lemmas("Cats", "NOUN", "Number=Plur"), ["cat"]);
        assert_eq!(l.lemmas("boxes", "NOUN", "Number=Plur"), ["boxe", "box"]);
        // Nothing applies: the original text, not lower-cased.
        assert_eq!(l.lemmas("Ox", "NOUN", "Number=Plur"), ["Ox"]);
        // Non-alphabetic forms count as known.
        assert_eq!(l.lemmas("B-52s", "NOUN", "Number=Plur"), ["b-52"]);
    }

    #[test]
    fn among_indexed_forms_the_later_rule_wins() {
        // "hopes": "hope" (rule `s`) and "hop" (rule `es`) are both indexed: spaCy ≥ 3.8.8
        // puts each indexed form at the front, so the later rule's form comes first.
        let l = tiny();
        assert_eq!(l.lemmas("hopes", "NOUN", "Number=Plur"), ["hop", "hope"]);
    }

    #[test]
    fn exceptions_go_first_in_reverse_order() {
        let l = tiny();
        assert_eq!(l.lemmas("Geese", "NOUN", "Number=Plur"), ["geese", "goose"]);
    }

    #[test]
    fn fallbacks() {
        let l = tiny();
        assert_eq!(l.lemma("Cats", "", ""), "cats");
        assert_eq!(l.lemma("\n", "SPACE", ""), "\n");
        assert_eq!(l.lemma("Cats", "NOUN", "Number=Sing"), "cats");
        assert_eq!(l.lemma("Londons", "PROPN", "Number=Plur"), "Londons");
        assert_eq!(l.lemma("Runs", "VERB", "Number=Sing"), "runs");
    }
}
