//! spaCy 3.8's rule-based tokenizer (`spacy/tokenizer.pyx`), read from a pipeline's
//! `tokenizer` file and reproducing spaCy's output token for token.
//!
//! Algorithm, as in spaCy:
//!
//! 1. The text is cut into runs of whitespace and of non-whitespace (Python's `str.isspace`,
//!    see the `pyunicode` module). A single `' '` that ends a non-whitespace run is not a token but that
//!    token's trailing space; every other whitespace run (newlines, tabs, the second and later
//!    of several spaces, leading spaces) is itself a span to tokenize.
//! 2. Each span is looked up in the special cases (the `exceptions`), else split: the
//!    prefix/suffix loop (`_split_affixes`, including its early stops when what is left, or
//!    what is left after removing just the prefix or just the suffix, is a special case), then
//!    for the remaining middle (`_attach_tokens`) special case, `token_match`/`url_match`
//!    (kept whole) or the infix split, where — spaCy's quirk — an infix match at position 0 is
//!    skipped and stays part of the following piece. Prefix and suffix lengths are taken in
//!    characters and cut from the ends of the string, exactly as spaCy slices.
//! 3. The special cases that `faster_heuristics` keeps for the matcher (those containing a
//!    prefix, suffix, infix or space) are tokenized without special cases into token
//!    sequences; every occurrence of such a sequence in the document is a candidate match.
//!    Candidates are filtered like `_filter_special_spans` (longest first, then leftmost; a
//!    candidate is rejected only when its *first or last* token is already covered, and every
//!    candidate marks its tokens covered even when rejected), and a kept candidate is
//!    replaced by the special case's tokens only when the covered text (spaces included) is
//!    itself a special case — so a sequence separated by spaces in the text is left alone.
//!
//! spaCy caches span results except those involving special cases; the results of its cache
//! equal fresh computation (a middle string that hits the cache has no prefix or suffix left,
//! so its whole-span tokenization is the same), so this port caches every span's pieces —
//! special-case norms included — in a sharded, bounded, lock-protected map, which keeps
//! [`Tokenizer`] `Send + Sync`. The regexes are Python's, translated by [`pyregex`].

pub mod pyregex;
pub(crate) mod pyunicode;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::path::Path;
use std::sync::RwLock;

use super::doc::{Doc, Token};
use super::msgpack::{self, Value};
use super::LoadError;
use pyregex::{Mode, PyRegex};

/// spaCy's attribute ids in the serialised exceptions.
const ORTH: u64 = 65;
const NORM: u64 = 67;

/// Cache shards and the entries each holds before it is cleared.
const SHARDS: usize = 16;
const SHARD_CAPACITY: usize = 8192;
/// Spans longer than this (bytes) are not cached.
const MAX_CACHED_SPAN: usize = 256;

/// Python's `str.isspace()`.
pub fn is_python_space(c: char) -> bool {
    let cp = c as u32;
    if cp < 0x80 {
        return (0x09..=0x0D).contains(&cp) || (0x1C..=0x20).contains(&cp);
    }
    pyunicode::SPACE
        .binary_search_by(|&(a, b)| {
            if b < cp {
                std::cmp::Ordering::Less
            } else if a > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// One token of a special case: its text and, when the rule sets one, its norm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecialToken {
    /// The token's text (`ORTH`).
    pub orth: String,
    /// The norm the rule assigns (`NORM`), if any.
    pub norm: Option<String>,
}

/// A token of a span: byte range relative to the span, and the special-case norm (an index
/// into [`Tokenizer::norms`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Piece {
    start: u32,
    end: u32,
    norm: u32,
}

const NO_NORM: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Special {
    /// `(byte length, norm index)` per token; lengths add up to the key's length.
    tokens: Vec<(u32, u32)>,
}

/// A token-sequence trie for the special-case matcher (spaCy's `PhraseMatcher` on `ORTH`).
#[derive(Clone, Debug, Default)]
struct TrieNode {
    children: HashMap<Box<str>, usize, FxBuild>,
    terminal: bool,
}

type FxBuild = BuildHasherDefault<FxHasher>;

/// The small multiplicative hasher of rustc (FxHash): fast for short string keys.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.write(&[i]);
    }

    fn write_usize(&mut self, i: usize) {
        self.write(&(i as u64).to_le_bytes());
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type SpanCache = HashMap<Box<str>, Box<[Piece]>, FxBuild>;

/// spaCy's tokenizer for one pipeline: affix and URL regexes, special cases and the cache.
#[derive(Debug)]
pub struct Tokenizer {
    prefix_search: Option<PyRegex>,
    suffix_search: Option<PyRegex>,
    infix_finditer: Option<PyRegex>,
    token_match: Option<PyRegex>,
    url_match: Option<PyRegex>,
    faster_heuristics: bool,
    specials: HashMap<Box<str>, Special, FxBuild>,
    norms: Vec<String>,
    /// The special-case matcher: node 0 is the root.
    trie: Vec<TrieNode>,
    cache: Vec<RwLock<SpanCache>>,
}

impl Tokenizer {
    /// Reads a pipeline's serialised `tokenizer` file (msgpack, as `Tokenizer.to_disk` writes).
    pub fn from_file(path: &Path) -> Result<Tokenizer, LoadError> {
        let value = msgpack::read_file(path)?;
        Self::from_value(&value).map_err(|m| LoadError::new(path, m))
    }

    /// Builds the tokenizer from the decoded `tokenizer` map; errors name the field.
    fn from_value(value: &Value) -> Result<Tokenizer, String> {
        if value.as_map().is_none() {
            return Err("not a serialised tokenizer: expected a msgpack map".into());
        }
        let regex = |field: &str, mode: Mode| -> Result<Option<PyRegex>, String> {
            match msgpack::get(value, field) {
                None | Some(Value::Nil) => Ok(None),
                Some(v) => {
                    let source = msgpack::key_str(v)
                        .ok_or_else(|| format!("field `{field}`: expected a regex string"))?;
                    PyRegex::new(source, mode)
                        .map(Some)
                        .map_err(|e| format!("field `{field}`: {e}"))
                }
            }
        };
        let faster_heuristics = match msgpack::get(value, "faster_heuristics") {
            None | Some(Value::Nil) => true,
            Some(Value::Boolean(b)) => *b,
            Some(other) => {
                return Err(format!(
                    "field `faster_heuristics`: expected a boolean, got {other}"
                ))
            }
        };
        let mut tokenizer = Tokenizer {
            prefix_search: regex("prefix_search", Mode::Search)?,
            suffix_search: regex("suffix_search", Mode::Search)?,
            infix_finditer: regex("infix_finditer", Mode::Search)?,
            token_match: regex("token_match", Mode::Match)?,
            url_match: regex("url_match", Mode::Match)?,
            faster_heuristics,
            specials: HashMap::default(),
            norms: Vec::new(),
            trie: vec![TrieNode::default()],
            cache: (0..SHARDS)
                .map(|_| RwLock::new(SpanCache::default()))
                .collect(),
        };
        let rules = match msgpack::get(value, "exceptions") {
            None | Some(Value::Nil) => Vec::new(),
            Some(Value::Map(m)) => m.clone(),
            Some(_) => return Err("field `exceptions`: expected a map".into()),
        };
        let mut parsed: Vec<(String, Vec<SpecialToken>)> = Vec::with_capacity(rules.len());
        for (k, v) in &rules {
            let chunk = msgpack::key_str(k)
                .ok_or("field `exceptions`: a key is not a string")?
                .to_string();
            let tokens = parse_special(&chunk, v)
                .map_err(|e| format!("field `exceptions`, {chunk:?}: {e}"))?;
            parsed.push((chunk, tokens));
        }
        // spaCy loads special cases in sorted order; a later duplicate key would win.
        parsed.sort_by(|a, b| a.0.cmp(&b.0));
        for (chunk, tokens) in &parsed {
            tokenizer.add_special(chunk, tokens);
        }
        // The matcher patterns need every special case in place (they are tokenized without
        // special cases, but the heuristic's affix searches do not depend on them).
        for (chunk, _) in &parsed {
            tokenizer.add_matcher_pattern(chunk);
        }
        Ok(tokenizer)
    }

    fn add_special(&mut self, chunk: &str, tokens: &[SpecialToken]) {
        let tokens = tokens
            .iter()
            .map(|t| {
                let norm = match &t.norm {
                    Some(n) => {
                        self.norms.push(n.clone());
                        (self.norms.len() - 1) as u32
                    }
                    None => NO_NORM,
                };
                (t.orth.len() as u32, norm)
            })
            .collect();
        self.specials.insert(chunk.into(), Special { tokens });
    }

    /// spaCy's `add_special_case` matcher step, under `faster_heuristics`.
    fn add_matcher_pattern(&mut self, chunk: &str) {
        let keep = !self.faster_heuristics
            || self.find_prefix(chunk) != 0
            || !self.find_infix(chunk).is_empty()
            || self.find_suffix(chunk) != 0
            || chunk.contains(' ');
        if !keep {
            return;
        }
        let (tokens, _) = self.tokenize_affixes(chunk, false);
        if tokens.is_empty() {
            return;
        }
        let mut node = 0;
        for t in &tokens {
            let orth: Box<str> = chunk[t.start..t.end].into();
            node = match self.trie[node].children.get(&orth) {
                Some(&next) => next,
                None => {
                    self.trie.push(TrieNode::default());
                    let next = self.trie.len() - 1;
                    self.trie[node].children.insert(orth, next);
                    next
                }
            };
        }
        self.trie[node].terminal = true;
    }

    /// The special case for `chunk`, if any: its tokens' texts and norms.
    pub fn special_case(&self, chunk: &str) -> Option<Vec<SpecialToken>> {
        let special = self.specials.get(chunk)?;
        let mut at = 0usize;
        Some(
            special
                .tokens
                .iter()
                .map(|&(len, norm)| {
                    let orth = chunk[at..at + len as usize].to_string();
                    at += len as usize;
                    SpecialToken {
                        orth,
                        norm: self.norm(norm).map(str::to_string),
                    }
                })
                .collect(),
        )
    }

    fn norm(&self, index: u32) -> Option<&str> {
        self.norms.get(index as usize).map(String::as_str)
    }

    /// Tokenizes `text` like `nlp.tokenizer(text)`: byte-offset tokens, trailing-space flags
    /// and special-case norms.
    pub fn tokenize(&self, text: &str) -> Doc {
        let (tokens, norms) = self.tokenize_affixes(text, true);
        let (tokens, norms) = self.apply_special_cases(text, tokens, norms);
        let tokens = tokens
            .into_iter()
            .zip(norms)
            .map(|(t, norm)| Token {
                start: t.start,
                end: t.end,
                whitespace: t.whitespace,
                norm_exception: self.norm(norm).map(str::to_string),
                ..Token::default()
            })
            .collect();
        Doc {
            text: text.to_string(),
            tokens,
        }
    }

    /// Tokens as `(start, end, whitespace)` byte ranges plus norm indices: spaCy's
    /// `_tokenize_affixes`.
    fn tokenize_affixes(&self, text: &str, with_specials: bool) -> (Vec<Span>, Vec<u32>) {
        let mut tokens: Vec<Span> = Vec::with_capacity(text.len() / 4 + 1);
        let mut norms: Vec<u32> = Vec::with_capacity(text.len() / 4 + 1);
        let mut pieces: Vec<Piece> = Vec::new();
        let Some(first) = text.chars().next() else {
            return (tokens, norms);
        };
        let mut in_ws = is_python_space(first);
        let mut start = 0usize;
        let mut emit = |from: usize, to: usize, tokens: &mut Vec<Span>, norms: &mut Vec<u32>| {
            pieces.clear();
            self.tokenize_span(&text[from..to], with_specials, &mut pieces);
            for p in &pieces {
                tokens.push(Span {
                    start: from + p.start as usize,
                    end: from + p.end as usize,
                    whitespace: false,
                });
                norms.push(p.norm);
            }
        };
        for (i, c) in text.char_indices() {
            if is_python_space(c) != in_ws {
                if start < i {
                    emit(start, i, &mut tokens, &mut norms);
                }
                if c == ' ' {
                    if let Some(last) = tokens.last_mut() {
                        last.whitespace = true;
                    }
                    start = i + 1;
                } else {
                    start = i;
                }
                in_ws = !in_ws;
            }
        }
        if start < text.len() {
            emit(start, text.len(), &mut tokens, &mut norms);
            if let Some(last) = tokens.last_mut() {
                last.whitespace = text.ends_with(' ') && !in_ws;
            }
        }
        (tokens, norms)
    }

    /// The tokens of one whitespace-delimited span, relative to it.
    fn tokenize_span(&self, span: &str, with_specials: bool, out: &mut Vec<Piece>) {
        if with_specials {
            if let Some(special) = self.specials.get(span) {
                push_special(special, 0, out);
                return;
            }
        }
        let cacheable = with_specials && span.len() <= MAX_CACHED_SPAN;
        let shard = if cacheable {
            let mut h = FxHasher::default();
            span.hash(&mut h);
            let shard = &self.cache[(h.finish() as usize) % SHARDS];
            if let Ok(map) = shard.read() {
                if let Some(hit) = map.get(span) {
                    out.extend_from_slice(hit);
                    return;
                }
            }
            Some(shard)
        } else {
            None
        };
        let before = out.len();
        self.split_span(span, with_specials, out);
        if let Some(shard) = shard {
            if let Ok(mut map) = shard.write() {
                if map.len() >= SHARD_CAPACITY {
                    map.clear();
                }
                map.insert(span.into(), out[before..].into());
            }
        }
    }

    /// spaCy's `_split_affixes` followed by `_attach_tokens`.
    fn split_span(&self, span: &str, with_specials: bool, out: &mut Vec<Piece>) {
        let is_special = |s: &str| with_specials && self.specials.contains_key(s);
        let mut prefixes: Vec<(usize, usize)> = Vec::new();
        let mut suffixes: Vec<(usize, usize)> = Vec::new();
        let (mut a, mut b) = (0usize, span.len());
        let mut last_size = usize::MAX;
        while a < b && b - a != last_size {
            let s = &span[a..b];
            if self.token_match.as_ref().is_some_and(|m| m.is_match(s)) {
                break;
            }
            if is_special(s) {
                break;
            }
            last_size = b - a;
            let pre_len = self.find_prefix(s);
            if pre_len != 0 && a + pre_len < b && is_special(&span[a + pre_len..b]) {
                prefixes.push((a, a + pre_len));
                a += pre_len;
                break;
            }
            let suf_len = self.find_suffix(&span[a + pre_len..b]);
            if suf_len != 0 && a < b - suf_len && is_special(&span[a..b - suf_len]) {
                suffixes.push((b - suf_len, b));
                b -= suf_len;
                break;
            }
            if pre_len != 0 && suf_len != 0 && pre_len + suf_len <= b - a {
                prefixes.push((a, a + pre_len));
                suffixes.push((b - suf_len, b));
                a += pre_len;
                b -= suf_len;
            } else if pre_len != 0 {
                prefixes.push((a, a + pre_len));
                a += pre_len;
            } else if suf_len != 0 {
                suffixes.push((b - suf_len, b));
                b -= suf_len;
            }
        }
        for &(s, e) in &prefixes {
            out.push(piece(s, e));
        }
        if a < b {
            let s = &span[a..b];
            if let Some(special) = with_specials.then(|| self.specials.get(s)).flatten() {
                push_special(special, a, out);
            } else if self.token_match.as_ref().is_some_and(|m| m.is_match(s))
                || self.url_match.as_ref().is_some_and(|m| m.is_match(s))
            {
                out.push(piece(a, b));
            } else {
                let matches = self.find_infix(s);
                if matches.is_empty() {
                    out.push(piece(a, b));
                } else {
                    let mut start = 0usize;
                    for (infix_start, infix_end) in matches {
                        // spaCy compares with the start before any infix: a match at 0 is
                        // skipped and stays in the next piece.
                        if infix_start == 0 {
                            continue;
                        }
                        if infix_start != start {
                            out.push(piece(a + start, a + infix_start));
                        }
                        if infix_start != infix_end {
                            out.push(piece(a + infix_start, a + infix_end));
                        }
                        start = infix_end;
                    }
                    if start < s.len() {
                        out.push(piece(a + start, b));
                    }
                }
            }
        }
        for &(s, e) in suffixes.iter().rev() {
            out.push(piece(s, e));
        }
    }

    /// spaCy's `find_prefix`: the byte length of the first *N* characters, where *N* is the
    /// length in characters of the prefix match (0 for none).
    fn find_prefix(&self, s: &str) -> usize {
        let Some(re) = &self.prefix_search else {
            return 0;
        };
        match re.search(s, 0) {
            Some((start, end)) => {
                let n = s[start..end].chars().count();
                s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
            }
            None => 0,
        }
    }

    /// spaCy's `find_suffix`: the byte length of the last *N* characters, where *N* is the
    /// length in characters of the suffix match (0 for none).
    fn find_suffix(&self, s: &str) -> usize {
        let Some(re) = &self.suffix_search else {
            return 0;
        };
        match re.search(s, 0) {
            Some((start, end)) => {
                let n = s[start..end].chars().count();
                if n == 0 {
                    return 0;
                }
                s.char_indices()
                    .rev()
                    .nth(n - 1)
                    .map_or(s.len(), |(i, _)| s.len() - i)
            }
            None => 0,
        }
    }

    fn find_infix(&self, s: &str) -> Vec<(usize, usize)> {
        match &self.infix_finditer {
            Some(re) => re.finditer(s),
            None => Vec::new(),
        }
    }

    /// spaCy's `_apply_special_cases`: matcher, `_filter_special_spans`,
    /// `_retokenize_special_spans`.
    fn apply_special_cases(
        &self,
        text: &str,
        tokens: Vec<Span>,
        norms: Vec<u32>,
    ) -> (Vec<Span>, Vec<u32>) {
        let mut matches: Vec<(usize, usize)> = Vec::new();
        if self.trie[0].children.is_empty() {
            return (tokens, norms);
        }
        for start in 0..tokens.len() {
            let mut node = 0;
            for (end, t) in tokens.iter().enumerate().skip(start) {
                match self.trie[node].children.get(&text[t.start..t.end]) {
                    Some(&next) => node = next,
                    None => break,
                }
                if self.trie[node].terminal {
                    matches.push((start, end + 1));
                }
            }
        }
        if matches.is_empty() {
            return (tokens, norms);
        }
        // Longest first, then leftmost.
        matches.sort_by(|x, y| (y.1 - y.0).cmp(&(x.1 - x.0)).then(x.0.cmp(&y.0)));
        let mut seen = vec![false; tokens.len()];
        let mut kept: Vec<(usize, usize)> = Vec::new();
        for (s, e) in matches {
            if !seen[s] && !seen[e - 1] {
                kept.push((s, e));
            }
            for flag in &mut seen[s..e] {
                *flag = true;
            }
        }
        kept.sort_by_key(|m| m.0);
        let mut out_tokens = Vec::with_capacity(tokens.len());
        let mut out_norms = Vec::with_capacity(tokens.len());
        let mut i = 0;
        let mut kept = kept.into_iter().peekable();
        while i < tokens.len() {
            match kept.peek() {
                Some(&(s, e)) if s == i => {
                    kept.next();
                    let from = tokens[s].start;
                    let covered = &text[from..tokens[e - 1].end];
                    match self.specials.get(covered) {
                        Some(special) => {
                            let mut at = from;
                            for &(len, norm) in &special.tokens {
                                out_tokens.push(Span {
                                    start: at,
                                    end: at + len as usize,
                                    whitespace: false,
                                });
                                out_norms.push(norm);
                                at += len as usize;
                            }
                            if let Some(last) = out_tokens.last_mut() {
                                last.whitespace = tokens[e - 1].whitespace;
                            }
                        }
                        None => {
                            out_tokens.extend_from_slice(&tokens[s..e]);
                            out_norms.extend_from_slice(&norms[s..e]);
                        }
                    }
                    i = e;
                }
                _ => {
                    out_tokens.push(tokens[i]);
                    out_norms.push(norms[i]);
                    i += 1;
                }
            }
        }
        (out_tokens, out_norms)
    }
}

/// A token as a byte range of the text and its trailing-space flag.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
    whitespace: bool,
}

fn piece(start: usize, end: usize) -> Piece {
    Piece {
        start: start as u32,
        end: end as u32,
        norm: NO_NORM,
    }
}

fn push_special(special: &Special, offset: usize, out: &mut Vec<Piece>) {
    let mut at = offset as u32;
    for &(len, norm) in &special.tokens {
        out.push(Piece {
            start: at,
            end: at + len,
            norm,
        });
        at += len;
    }
}

/// Decodes one exception: a list of `{65: ORTH, 67: NORM}` maps whose ORTHs spell `chunk`.
fn parse_special(chunk: &str, value: &Value) -> Result<Vec<SpecialToken>, String> {
    let list = value
        .as_array()
        .ok_or("expected a list of token attribute maps")?;
    let mut tokens = Vec::with_capacity(list.len());
    for item in list {
        let map = item.as_map().ok_or("expected a token attribute map")?;
        let (mut orth, mut norm) = (None, None);
        for (k, v) in map {
            let attr = match k {
                Value::Integer(i) => i.as_u64(),
                other => match msgpack::key_str(other) {
                    Some("ORTH") => Some(ORTH),
                    Some("NORM") => Some(NORM),
                    _ => None,
                },
            };
            let text = msgpack::key_str(v).map(str::to_string);
            match attr {
                Some(ORTH) => orth = Some(text.ok_or("ORTH is not a string")?),
                Some(NORM) => norm = Some(text.ok_or("NORM is not a string")?),
                _ => return Err(format!("unsupported attribute {k} (only ORTH and NORM)")),
            }
        }
        let orth = orth.ok_or("a token without ORTH")?;
        if orth.is_empty() {
            return Err("a token with an empty ORTH".into());
        }
        tokens.push(SpecialToken { orth, norm });
    }
    let spelled: String = tokens.iter().map(|t| t.orth.as_str()).collect();
    if spelled != chunk || tokens.is_empty() {
        return Err(format!("the tokens' ORTHs spell {spelled:?}, not the key"));
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_space_matches_table() {
        for c in [
            '\t', '\n', '\x0b', '\x0c', '\r', '\x1c', '\x1f', ' ', '\u{85}', '\u{a0}', '\u{3000}',
        ] {
            assert!(is_python_space(c), "{c:?}");
        }
        for c in ['a', '\u{200b}', '\u{180e}', '\x08', '\u{feff}'] {
            assert!(!is_python_space(c), "{c:?}");
        }
    }
}
