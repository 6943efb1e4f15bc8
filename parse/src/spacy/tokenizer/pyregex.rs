//! Python `re` patterns, translated for `fancy_regex` with Python's matching semantics.
//!
//! The pattern is parsed with Python's (3.11) syntax rules into a small AST and re-emitted in
//! `fancy_regex` syntax, so that nothing is left to the two dialects happening to agree:
//!
//! * every literal other than an ASCII letter or digit is written `\x{…}`, and every character
//!   class is resolved to an explicit, flat list of code-point ranges (negation, ranges,
//!   `\d`/`\w`/`\s` inside classes included). Python accepts `[`, `&&`, `--` and `~~` literally
//!   inside a class where the regex crate would read set operations; spaCy's suffix pattern
//!   really contains such a class (`[…٪(?:\'"”…)]`, a quirk of its character-class
//!   concatenation), so this matters;
//! * `\d`, `\w`, `\s` (and their negations) use the tables of the Python that made the golden
//!   data (the `pyunicode` module), not the regex crate's Unicode definitions; the `a` (ASCII) flag
//!   switches to their ASCII forms;
//! * `.` excludes only `\n` (`s` flag: everything); `^` and `\A` are start of text (`m` flag:
//!   also after `\n`); Python's `\Z` is `\z`;
//! * Python's non-multiline `$` matches at the end *or before a final `\n`*. That needs a
//!   look-ahead, which would push every suffix alternative onto fancy-regex's slow backtracking
//!   VM, so each pattern is compiled twice: with `$` as `\z`, used when the text does not end
//!   in `\n` (where the two agree), and with `$` as `(?=\n?\z)` for texts that do;
//! * look-around, atomic groups, possessive repeats and back-references are passed to
//!   fancy-regex, whose look-behind, like Python's, needs a fixed width in characters;
//! * `\b`/`\B` use the regex crate's Unicode word boundary (an approximation of Python's, which
//!   is based on its own `\w`; spaCy's patterns do not use them); the `i` flag uses the regex
//!   crate's simple case folding; `\N{…}` and conditionals are rejected.
//!
//! Matching: a top-level alternation is split into runs of alternatives, each run compiled on
//! its own (runs of look-around-free alternatives go wholesale to the regex crate's automata;
//! each alternative that needs the backtracking VM is its own run). Python's `search` tries
//! start positions left to right and, at each, alternatives in order; so its result is the run
//! whose leftmost match starts first, ties going to the earlier run, which is what
//! [`PyRegex::search`] computes. A run of one alternative is emitted without a wrapping group,
//! so that fancy-regex sees a leading `\A` and tries only position 0; a run whose alternatives
//! all end with `$` and have a bounded length is searched only over that many characters at the
//! end of the text (look-behind still sees what precedes), which keeps the prefix/suffix loop
//! linear per step on long spans (spaCy itself is quadratic there). `finditer` repeats that search from the end of the previous
//! match, keeping each run's next match as long as it still lies ahead (so a long text is not
//! rescanned once per match), with Python 3.7+'s rule that an empty match may not repeat at the
//! position of a previous empty match (approximated by searching again one character later).
//! A search that exceeds fancy-regex's backtracking limit counts as no match.

use std::fmt::Write as _;

use super::pyunicode;

/// How a pattern is used, which decides how it is anchored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `re.search` / `re.finditer`: matches may start anywhere.
    Search,
    /// `re.match`: matches must start at the beginning of the text.
    Match,
}

/// A compiled Python regular expression.
#[derive(Clone, Debug)]
pub struct PyRegex {
    source: String,
    runs: Vec<Run>,
}

#[derive(Clone, Debug)]
struct Run {
    /// `$` compiled as `\z`: exact for texts that do not end in `\n`.
    fast: fancy_regex::Regex,
    /// `$` compiled with Python's "or before a final newline"; `None` when identical to `fast`.
    exact: Option<fancy_regex::Regex>,
    /// When every alternative ends with `$` and spans at most this many characters: matches
    /// start within that many characters (plus one, for a final `\n`) of the end, so the
    /// search starts there instead of trying every position.
    tail_window: Option<usize>,
}

impl Run {
    fn pick(&self, text: &str) -> &fancy_regex::Regex {
        match &self.exact {
            Some(exact) if text.ends_with('\n') => exact,
            _ => &self.fast,
        }
    }

    fn find(&self, text: &str, pos: usize) -> Option<(usize, usize)> {
        let pos = match self.tail_window {
            Some(window) => {
                let tail = text.char_indices().rev().nth(window).map_or(0, |(i, _)| i);
                pos.max(tail)
            }
            None => pos,
        };
        match self.pick(text).find_from_pos(text, pos) {
            Ok(Some(m)) => Some((m.start(), m.end())),
            Ok(None) => None,
            Err(e) => {
                tracing::debug!("regex search gave up: {e}");
                None
            }
        }
    }
}

impl PyRegex {
    /// Parses `source` with Python's syntax and compiles it for `mode`.
    pub fn new(source: &str, mode: Mode) -> Result<Self, String> {
        let ast = Parser::new(source).parse()?;
        let alternatives = match ast {
            Node::Alt(v) => v,
            other => vec![other],
        };
        // Back-references number groups across the whole pattern: keep it in one piece.
        let splittable = !alternatives.iter().any(Node::has_backref);
        let mut runs: Vec<Vec<&Node>> = Vec::new();
        let mut last_easy = false;
        for alt in &alternatives {
            let easy = !alt.is_hard();
            if splittable && !(easy && last_easy) || runs.is_empty() {
                runs.push(Vec::new());
            }
            runs.last_mut().expect("a run was just pushed").push(alt);
            last_easy = easy;
        }
        let runs = runs
            .into_iter()
            .map(|run| compile_run(&run, mode))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            source: source.to_string(),
            runs,
        })
    }

    /// The Python source of the pattern.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Python's `pattern.search(text, pos)`: the leftmost match starting at or after byte `pos`
    /// (look-behind still sees the text before `pos`), as a byte range.
    pub fn search(&self, text: &str, pos: usize) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for run in &self.runs {
            if let Some(m) = run.find(text, pos) {
                if best.is_none_or(|b| m.0 < b.0) {
                    best = Some(m);
                }
            }
        }
        best
    }

    /// Python's `pattern.match(text)` as a yes/no (compile with [`Mode::Match`]).
    pub fn is_match(&self, text: &str) -> bool {
        self.runs.iter().any(|run| run.find(text, 0).is_some())
    }

    /// Python's `pattern.finditer(text)`: non-overlapping matches, left to right, as byte ranges.
    pub fn finditer(&self, text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        // Per run: the match found by its last search (`None`: no match from there on) and
        // the position that search started from.
        let mut next: Vec<Option<(usize, Option<Range>)>> = vec![None; self.runs.len()];
        let mut pos = 0;
        let mut must_advance = false;
        while pos <= text.len() {
            let mut best: Option<(usize, usize)> = None;
            for (run, cached) in self.runs.iter().zip(next.iter_mut()) {
                let found = match *cached {
                    Some((from, found)) if from <= pos && found.is_none_or(|m| m.0 >= pos) => found,
                    _ => {
                        let found = run.find(text, pos);
                        *cached = Some((pos, found));
                        found
                    }
                };
                let found = match found {
                    Some(m) if must_advance && m == (pos, pos) => {
                        let later = next_char(text, pos);
                        let found = if later <= text.len() && later > pos {
                            run.find(text, later)
                        } else {
                            None
                        };
                        *cached = Some((later, found));
                        found
                    }
                    other => other,
                };
                if let Some(m) = found {
                    if best.is_none_or(|b| m.0 < b.0) {
                        best = Some(m);
                    }
                }
            }
            let Some((start, end)) = best else { break };
            out.push((start, end));
            must_advance = start == end;
            pos = end;
        }
        out
    }
}

/// A match as a byte range `(start, end)`.
type Range = (usize, usize);

fn next_char(text: &str, pos: usize) -> usize {
    text[pos..]
        .chars()
        .next()
        .map_or(pos + 1, |c| pos + c.len_utf8())
}

fn compile_run(run: &[&Node], mode: Mode) -> Result<Run, String> {
    let emit = |dollar: Dollar| {
        // A lone alternative is emitted bare so that fancy-regex sees a leading `\A` and only
        // tries position 0.
        let mut out = String::new();
        if mode == Mode::Match {
            out.push_str("\\A");
        }
        if let [alt] = run {
            // An `Alt` node wraps itself in a group, so this concatenates safely.
            alt.emit(&mut out, dollar);
            return out;
        }
        out.push_str("(?:");
        for (i, alt) in run.iter().enumerate() {
            if i > 0 {
                out.push('|');
            }
            alt.emit(&mut out, dollar);
        }
        out.push(')');
        out
    };
    let build = |pattern: &str| {
        fancy_regex::RegexBuilder::new(pattern)
            .delegate_size_limit(1 << 28)
            .delegate_dfa_size_limit(1 << 26)
            .build()
            .map_err(|e| format!("pattern does not compile for fancy-regex: {e}"))
    };
    let fast = build(&emit(Dollar::EndOfText))?;
    let exact = if run.iter().any(|n| n.has_python_dollar()) {
        Some(build(&emit(Dollar::Python))?)
    } else {
        None
    };
    let tail_window = if run.iter().all(|n| n.ends_with_dollar()) {
        run.iter()
            .map(|n| n.max_chars())
            .try_fold(0usize, |acc, m| m.map(|m| acc.max(m)))
            .map(|m| m + 1)
    } else {
        None
    };
    Ok(Run {
        fast,
        exact,
        tail_window,
    })
}

/// How a non-multiline `$` is emitted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dollar {
    EndOfText,
    Python,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GroupKind {
    Capture,
    NonCapture,
    Atomic,
    LookAhead,
    NegLookAhead,
    LookBehind,
    NegLookBehind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Greed {
    Greedy,
    Lazy,
    Possessive,
}

#[derive(Clone, Debug)]
enum Node {
    Empty,
    Literal {
        c: char,
        casei: bool,
    },
    Class {
        ranges: Vec<(u32, u32)>,
        casei: bool,
    },
    Any {
        dotall: bool,
    },
    LineStart {
        multiline: bool,
    },
    LineEnd {
        multiline: bool,
    },
    TextStart,
    TextEnd,
    WordBoundary {
        negated: bool,
    },
    Group(GroupKind, Option<String>, Box<Node>),
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
        greed: Greed,
    },
    Backref(usize),
}

impl Node {
    fn children(&self) -> Vec<&Node> {
        match self {
            Node::Group(_, _, n) => vec![n],
            Node::Repeat { node, .. } => vec![node],
            Node::Concat(v) | Node::Alt(v) => v.iter().collect(),
            _ => Vec::new(),
        }
    }

    fn any(&self, pred: &dyn Fn(&Node) -> bool) -> bool {
        pred(self) || self.children().into_iter().any(|c| c.any(pred))
    }

    fn has_backref(&self) -> bool {
        self.any(&|n| matches!(n, Node::Backref(_)))
    }

    fn has_python_dollar(&self) -> bool {
        self.any(&|n| matches!(n, Node::LineEnd { multiline: false }))
    }

    /// Whether every match ends at the end of the text (a non-multiline `$`, or `\Z`, last).
    fn ends_with_dollar(&self) -> bool {
        match self {
            Node::LineEnd { multiline: false } | Node::TextEnd => true,
            Node::Concat(v) => v.last().is_some_and(Node::ends_with_dollar),
            Node::Alt(v) => v.iter().all(Node::ends_with_dollar),
            Node::Group(GroupKind::Capture | GroupKind::NonCapture | GroupKind::Atomic, _, n) => {
                n.ends_with_dollar()
            }
            _ => false,
        }
    }

    /// The most characters a match can consume; `None` when unbounded.
    fn max_chars(&self) -> Option<usize> {
        match self {
            Node::Literal { .. } | Node::Class { .. } | Node::Any { .. } => Some(1),
            Node::Empty
            | Node::LineStart { .. }
            | Node::LineEnd { .. }
            | Node::TextStart
            | Node::TextEnd
            | Node::WordBoundary { .. } => Some(0),
            Node::Group(GroupKind::Capture | GroupKind::NonCapture | GroupKind::Atomic, _, n) => {
                n.max_chars()
            }
            Node::Group(..) => Some(0),
            Node::Concat(v) => v
                .iter()
                .try_fold(0usize, |acc, n| Some(acc + n.max_chars()?)),
            Node::Alt(v) => v
                .iter()
                .try_fold(0usize, |acc, n| Some(acc.max(n.max_chars()?))),
            Node::Repeat { node, max, .. } => match (node.max_chars()?, max) {
                (0, _) => Some(0),
                (m, Some(max)) => Some(m * *max as usize),
                (_, None) => None,
            },
            Node::Backref(_) => None,
        }
    }

    /// Whether fancy-regex must run it on its backtracking VM.
    fn is_hard(&self) -> bool {
        self.any(&|n| match n {
            Node::Backref(_) => true,
            Node::Group(kind, _, _) => !matches!(kind, GroupKind::Capture | GroupKind::NonCapture),
            Node::Repeat { greed, .. } => *greed == Greed::Possessive,
            _ => false,
        })
    }

    fn emit(&self, out: &mut String, dollar: Dollar) {
        match self {
            Node::Empty => {}
            Node::Literal { c, casei } => {
                if *casei {
                    out.push_str("(?i:");
                }
                push_char(out, *c);
                if *casei {
                    out.push(')');
                }
            }
            Node::Class { ranges, casei } => {
                if *casei {
                    out.push_str("(?i:");
                }
                if ranges.is_empty() {
                    // Matches nothing (e.g. `[^\s\S]`).
                    out.push_str("(?!)");
                } else {
                    out.push('[');
                    for &(a, b) in ranges {
                        push_code_point(out, a);
                        if b != a {
                            out.push('-');
                            push_code_point(out, b);
                        }
                    }
                    out.push(']');
                }
                if *casei {
                    out.push(')');
                }
            }
            Node::Any { dotall: true } => out.push_str("(?s:.)"),
            Node::Any { dotall: false } => out.push_str("[^\\n]"),
            Node::LineStart { multiline: false } | Node::TextStart => out.push_str("\\A"),
            Node::LineStart { multiline: true } => out.push_str("(?m:^)"),
            Node::LineEnd { multiline: true } => out.push_str("(?m:$)"),
            Node::LineEnd { multiline: false } => match dollar {
                Dollar::EndOfText => out.push_str("\\z"),
                Dollar::Python => out.push_str("(?=\\n?\\z)"),
            },
            Node::TextEnd => out.push_str("\\z"),
            Node::WordBoundary { negated } => out.push_str(if *negated { "\\B" } else { "\\b" }),
            Node::Group(kind, name, inner) => {
                out.push_str(match kind {
                    GroupKind::Capture => "(",
                    GroupKind::NonCapture => "(?:",
                    GroupKind::Atomic => "(?>",
                    GroupKind::LookAhead => "(?=",
                    GroupKind::NegLookAhead => "(?!",
                    GroupKind::LookBehind => "(?<=",
                    GroupKind::NegLookBehind => "(?<!",
                });
                if let (GroupKind::Capture, Some(name)) = (kind, name) {
                    // `(` was pushed; turn it into a named group.
                    let _ = write!(out, "?P<{name}>");
                }
                inner.emit(out, dollar);
                out.push(')');
            }
            Node::Concat(v) => {
                for n in v {
                    n.emit(out, dollar);
                }
            }
            Node::Alt(v) => {
                out.push_str("(?:");
                for (i, n) in v.iter().enumerate() {
                    if i > 0 {
                        out.push('|');
                    }
                    n.emit(out, dollar);
                }
                out.push(')');
            }
            Node::Repeat {
                node,
                min,
                max,
                greed,
            } => {
                if *greed == Greed::Possessive {
                    out.push_str("(?>");
                }
                out.push_str("(?:");
                node.emit(out, dollar);
                out.push(')');
                match max {
                    Some(max) => {
                        let _ = write!(out, "{{{min},{max}}}");
                    }
                    None => {
                        let _ = write!(out, "{{{min},}}");
                    }
                }
                if *greed == Greed::Lazy {
                    out.push('?');
                }
                if *greed == Greed::Possessive {
                    out.push(')');
                }
            }
            Node::Backref(n) => {
                let _ = write!(out, "(?:\\{n})");
            }
        }
    }
}

fn push_char(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() {
        out.push(c);
    } else {
        push_code_point(out, c as u32);
    }
}

fn push_code_point(out: &mut String, cp: u32) {
    let _ = write!(out, "\\x{{{cp:X}}}");
}

/// Sorts and merges ranges.
fn normalize(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (a, b) in ranges {
        match out.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// The complement over all Unicode scalar values (surrogates excluded).
fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(a, b) in ranges {
        if a > next {
            out.push((next, a - 1));
        }
        next = b + 1;
    }
    if next <= 0x10FFFF {
        out.push((next, 0x10FFFF));
    }
    // Remove the surrogate block, which no `char` can hold.
    let mut scalar = Vec::with_capacity(out.len() + 1);
    for (a, b) in out {
        if b < 0xD800 || a > 0xDFFF {
            scalar.push((a, b));
        } else {
            if a < 0xD800 {
                scalar.push((a, 0xD7FF));
            }
            if b > 0xDFFF {
                scalar.push((0xE000, b));
            }
        }
    }
    scalar
}

#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    ignore_case: bool,
    multiline: bool,
    dotall: bool,
    verbose: bool,
    ascii: bool,
}

impl Flags {
    fn set(&mut self, flag: char, on: bool) -> Result<(), String> {
        match flag {
            'i' => self.ignore_case = on,
            'm' => self.multiline = on,
            's' => self.dotall = on,
            'x' => self.verbose = on,
            'a' => self.ascii = on,
            'u' => {}
            'L' => return Err("the L (locale) flag is not supported".into()),
            other => return Err(format!("unknown flag {other:?}")),
        }
        Ok(())
    }
}

/// A class shorthand: `\d`, `\w`, `\s`, optionally negated.
fn shorthand(c: char, ascii: bool) -> Option<Vec<(u32, u32)>> {
    let (table, negated): (Vec<(u32, u32)>, bool) = match c {
        'd' | 'D' => (
            if ascii {
                vec![(0x30, 0x39)]
            } else {
                pyunicode::DIGIT.to_vec()
            },
            c == 'D',
        ),
        'w' | 'W' => (
            if ascii {
                vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
            } else {
                pyunicode::WORD.to_vec()
            },
            c == 'W',
        ),
        's' | 'S' => (
            if ascii {
                vec![(0x09, 0x0D), (0x20, 0x20)]
            } else {
                pyunicode::SPACE.to_vec()
            },
            c == 'S',
        ),
        _ => return None,
    };
    Some(if negated { complement(&table) } else { table })
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    flags: Flags,
    groups: usize,
    source: &'a str,
}

impl<'a> Parser<'a> {
    fn new(source: &'a str) -> Self {
        Self {
            chars: source.chars().collect(),
            pos: 0,
            flags: Flags::default(),
            groups: 0,
            source,
        }
    }

    fn err(&self, msg: impl std::fmt::Display) -> String {
        let shown: String = self
            .source
            .chars()
            .skip(self.pos.saturating_sub(20))
            .take(40)
            .collect();
        format!("{msg} at character {} (near {shown:?})", self.pos)
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn next(&mut self) -> Result<char, String> {
        let c = self
            .peek()
            .ok_or_else(|| self.err("unexpected end of pattern"))?;
        self.pos += 1;
        Ok(c)
    }

    fn parse(mut self) -> Result<Node, String> {
        let node = self.parse_alt()?;
        if self.pos < self.chars.len() {
            return Err(self.err("unbalanced parenthesis"));
        }
        Ok(node)
    }

    fn parse_alt(&mut self) -> Result<Node, String> {
        let mut alts = vec![self.parse_concat()?];
        while self.eat('|') {
            alts.push(self.parse_concat()?);
        }
        Ok(if alts.len() == 1 {
            alts.pop().expect("one alternative")
        } else {
            Node::Alt(alts)
        })
    }

    fn skip_verbose(&mut self) {
        if !self.flags.verbose {
            return;
        }
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.pos += 1;
            } else if c == '#' {
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    if c == '\n' {
                        break;
                    }
                }
            } else {
                break;
            }
        }
    }

    fn parse_concat(&mut self) -> Result<Node, String> {
        let mut items: Vec<Node> = Vec::new();
        loop {
            self.skip_verbose();
            let Some(c) = self.peek() else { break };
            if c == '|' || c == ')' {
                break;
            }
            if let Some((min, max)) = self.try_quantifier()? {
                let Some(prev) = items.pop() else {
                    return Err(self.err("nothing to repeat"));
                };
                if matches!(prev, Node::Repeat { .. }) && !matches!(prev, Node::Group(..)) {
                    return Err(self.err("multiple repeat"));
                }
                if matches!(
                    prev,
                    Node::LineStart { .. }
                        | Node::LineEnd { .. }
                        | Node::TextStart
                        | Node::TextEnd
                        | Node::WordBoundary { .. }
                        | Node::Empty
                ) {
                    return Err(self.err("nothing to repeat"));
                }
                let greed = if self.eat('?') {
                    Greed::Lazy
                } else if self.eat('+') {
                    Greed::Possessive
                } else {
                    Greed::Greedy
                };
                items.push(Node::Repeat {
                    node: Box::new(prev),
                    min,
                    max,
                    greed,
                });
                continue;
            }
            let atom = self.parse_atom()?;
            if let Some(atom) = atom {
                items.push(atom);
            }
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().expect("one item"),
            _ => Node::Concat(items),
        })
    }

    /// A quantifier at the cursor, consumed; `{` that does not start one is a literal.
    fn try_quantifier(&mut self) -> Result<Option<(u32, Option<u32>)>, String> {
        match self.peek() {
            Some('*') => {
                self.pos += 1;
                Ok(Some((0, None)))
            }
            Some('+') => {
                self.pos += 1;
                Ok(Some((1, None)))
            }
            Some('?') => {
                self.pos += 1;
                Ok(Some((0, Some(1))))
            }
            Some('{') => {
                if self.peek_at(1) == Some('}') {
                    return Ok(None);
                }
                let here = self.pos;
                self.pos += 1;
                let digits = |p: &mut Self| {
                    let mut s = String::new();
                    while let Some(c) = p.peek().filter(char::is_ascii_digit) {
                        s.push(c);
                        p.pos += 1;
                    }
                    s
                };
                let lo = digits(self);
                let hi = if self.eat(',') {
                    digits(self)
                } else {
                    lo.clone()
                };
                if !self.eat('}') {
                    self.pos = here;
                    return Ok(None);
                }
                let parse = |s: &str| {
                    s.parse::<u32>()
                        .ok()
                        .filter(|&n| n < 65535)
                        .ok_or_else(|| self.err("the repetition number is too large"))
                };
                let min = if lo.is_empty() { 0 } else { parse(&lo)? };
                let max = if hi.is_empty() {
                    None
                } else {
                    Some(parse(&hi)?)
                };
                if max.is_some_and(|max| max < min) {
                    return Err(self.err("min repeat greater than max repeat"));
                }
                Ok(Some((min, max)))
            }
            _ => Ok(None),
        }
    }

    fn literal(&self, c: char) -> Node {
        Node::Literal {
            c,
            casei: self.flags.ignore_case,
        }
    }

    fn class(&self, ranges: Vec<(u32, u32)>) -> Node {
        Node::Class {
            ranges,
            casei: self.flags.ignore_case,
        }
    }

    /// One atom; `None` for constructs that match nothing and emit nothing (global flags,
    /// comments).
    fn parse_atom(&mut self) -> Result<Option<Node>, String> {
        let c = self.next()?;
        Ok(Some(match c {
            '.' => Node::Any {
                dotall: self.flags.dotall,
            },
            '^' => Node::LineStart {
                multiline: self.flags.multiline,
            },
            '$' => Node::LineEnd {
                multiline: self.flags.multiline,
            },
            '[' => self.parse_class()?,
            '(' => return self.parse_group(),
            '\\' => self.parse_escape()?,
            '*' | '+' | '?' => return Err(self.err("multiple repeat")),
            c => self.literal(c),
        }))
    }

    fn parse_group(&mut self) -> Result<Option<Node>, String> {
        if !self.eat('?') {
            self.groups += 1;
            let inner = self.parse_group_body()?;
            return Ok(Some(Node::Group(GroupKind::Capture, None, Box::new(inner))));
        }
        let c = self.next()?;
        let kind = match c {
            ':' => GroupKind::NonCapture,
            '>' => GroupKind::Atomic,
            '=' => GroupKind::LookAhead,
            '!' => GroupKind::NegLookAhead,
            '<' if self.eat('=') => GroupKind::LookBehind,
            '<' if self.eat('!') => GroupKind::NegLookBehind,
            'P' if self.eat('<') => {
                let mut name = String::new();
                loop {
                    let c = self.next()?;
                    if c == '>' {
                        break;
                    }
                    if !(c.is_alphanumeric() || c == '_') {
                        return Err(self.err("bad character in group name"));
                    }
                    name.push(c);
                }
                self.groups += 1;
                let inner = self.parse_group_body()?;
                return Ok(Some(Node::Group(
                    GroupKind::Capture,
                    Some(name),
                    Box::new(inner),
                )));
            }
            'P' if self.eat('=') => {
                return Err(self.err("named back-references (?P=…) are not supported"));
            }
            '#' => {
                while self.next()? != ')' {}
                return Ok(None);
            }
            '(' => return Err(self.err("conditional groups are not supported")),
            c if "aiLmsux-".contains(c) => {
                self.pos -= 1;
                let mut on = String::new();
                while let Some(c) = self.peek().filter(|c| "aiLmsux".contains(*c)) {
                    on.push(c);
                    self.pos += 1;
                }
                let mut off = String::new();
                if self.eat('-') {
                    while let Some(c) = self.peek().filter(|c| "imsx".contains(*c)) {
                        off.push(c);
                        self.pos += 1;
                    }
                }
                if self.eat(')') && off.is_empty() {
                    // Global flags (Python requires them at the start of the pattern).
                    for f in on.chars() {
                        self.flags.set(f, true).map_err(|e| self.err(e))?;
                    }
                    return Ok(None);
                }
                if !self.eat(':') {
                    return Err(self.err("bad inline flags"));
                }
                let saved = self.flags;
                for f in on.chars() {
                    self.flags.set(f, true).map_err(|e| self.err(e))?;
                }
                for f in off.chars() {
                    self.flags.set(f, false).map_err(|e| self.err(e))?;
                }
                let inner = self.parse_group_body();
                self.flags = saved;
                return Ok(Some(Node::Group(
                    GroupKind::NonCapture,
                    None,
                    Box::new(inner?),
                )));
            }
            _ => return Err(self.err("unknown extension")),
        };
        let inner = self.parse_group_body()?;
        Ok(Some(Node::Group(kind, None, Box::new(inner))))
    }

    fn parse_group_body(&mut self) -> Result<Node, String> {
        let saved = self.flags;
        let inner = self.parse_alt()?;
        self.flags.verbose = saved.verbose;
        if !self.eat(')') {
            return Err(self.err("missing ), unterminated subpattern"));
        }
        Ok(inner)
    }

    fn hex(&mut self, n: usize) -> Result<u32, String> {
        let mut v = 0u32;
        for _ in 0..n {
            let c = self.next()?;
            let d = c
                .to_digit(16)
                .ok_or_else(|| self.err("incomplete hex escape"))?;
            v = v * 16 + d;
        }
        Ok(v)
    }

    fn code_point(&self, cp: u32) -> Result<char, String> {
        char::from_u32(cp)
            .ok_or_else(|| self.err(format!("code point {cp:#X} is not a Unicode scalar value")))
    }

    /// Escapes valid both inside and outside classes, giving one character.
    fn char_escape(&mut self, c: char) -> Result<Option<char>, String> {
        Ok(Some(match c {
            'a' => '\x07',
            'f' => '\x0C',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\x0B',
            'x' => {
                let v = self.hex(2)?;
                self.code_point(v)?
            }
            'u' => {
                let v = self.hex(4)?;
                self.code_point(v)?
            }
            'U' => {
                let v = self.hex(8)?;
                self.code_point(v)?
            }
            'N' => return Err(self.err("\\N{…} escapes are not supported")),
            c if c.is_ascii_alphanumeric() => return Ok(None),
            c => c,
        }))
    }

    fn octal(&mut self, first: char) -> Result<char, String> {
        let mut v = first.to_digit(8).unwrap_or(0);
        for _ in 0..2 {
            match self.peek().and_then(|c| c.to_digit(8)) {
                Some(d) => {
                    v = v * 8 + d;
                    self.pos += 1;
                }
                None => break,
            }
        }
        if v > 0o377 {
            return Err(self.err("octal escape value outside of range 0-0o377"));
        }
        self.code_point(v)
    }

    fn parse_escape(&mut self) -> Result<Node, String> {
        let c = self.next()?;
        match c {
            'A' => return Ok(Node::TextStart),
            'Z' => return Ok(Node::TextEnd),
            'b' => return Ok(Node::WordBoundary { negated: false }),
            'B' => return Ok(Node::WordBoundary { negated: true }),
            '0' => {
                let c = self.octal('0')?;
                return Ok(self.literal(c));
            }
            '1'..='9' => {
                // Three octal digits make an octal escape; otherwise a group reference.
                let (d1, d2) = (self.peek(), self.peek_at(1));
                if let (Some(a), Some(b)) = (d1, d2) {
                    if c <= '7' && ('0'..='7').contains(&a) && ('0'..='7').contains(&b) {
                        let c = self.octal(c)?;
                        return Ok(self.literal(c));
                    }
                }
                let mut n = c.to_digit(10).unwrap_or(0) as usize;
                if let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
                    n = n * 10 + d as usize;
                    self.pos += 1;
                }
                if n > self.groups {
                    return Err(self.err("invalid group reference"));
                }
                return Ok(Node::Backref(n));
            }
            _ => {}
        }
        if let Some(ranges) = shorthand(c, self.flags.ascii) {
            return Ok(self.class(ranges));
        }
        match self.char_escape(c)? {
            Some(ch) => Ok(self.literal(ch)),
            None => Err(self.err(format!("bad escape \\{c}"))),
        }
    }

    fn parse_class(&mut self) -> Result<Node, String> {
        let negated = self.eat('^');
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        let mut first = true;
        loop {
            let c = self
                .peek()
                .ok_or_else(|| self.err("unterminated character set"))?;
            if c == ']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            self.pos += 1;
            let lo = match self.class_item(c)? {
                ClassItem::Set(set) => {
                    ranges.extend(set);
                    continue;
                }
                ClassItem::Char(ch) => ch,
            };
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                self.pos += 1;
                let c = self.next()?;
                let hi = match self.class_item(c)? {
                    ClassItem::Char(ch) => ch,
                    ClassItem::Set(_) => return Err(self.err("bad character range")),
                };
                if hi < lo {
                    return Err(self.err("bad character range"));
                }
                ranges.push((lo as u32, hi as u32));
            } else {
                ranges.push((lo as u32, lo as u32));
            }
        }
        let ranges = normalize(ranges);
        Ok(self.class(if negated { complement(&ranges) } else { ranges }))
    }

    fn class_item(&mut self, c: char) -> Result<ClassItem, String> {
        if c != '\\' {
            return Ok(ClassItem::Char(c));
        }
        let e = self.next()?;
        if let Some(set) = shorthand(e, self.flags.ascii) {
            return Ok(ClassItem::Set(set));
        }
        match e {
            'b' => return Ok(ClassItem::Char('\x08')),
            '0'..='7' => return Ok(ClassItem::Char(self.octal(e)?)),
            _ => {}
        }
        match self.char_escape(e)? {
            Some(ch) => Ok(ClassItem::Char(ch)),
            None => Err(self.err(format!("bad escape \\{e}"))),
        }
    }
}

enum ClassItem {
    Char(char),
    Set(Vec<(u32, u32)>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(p: &str, t: &str) -> Option<(usize, usize)> {
        PyRegex::new(p, Mode::Search).unwrap().search(t, 0)
    }

    #[test]
    fn alternatives_prefer_order_then_position() {
        assert_eq!(search("^…|^……", "……x"), Some((0, 3)));
        assert_eq!(search("b$|ab$", "xab"), Some((1, 3)));
        assert_eq!(search("(?<=a)b$|ab$", "xab"), Some((1, 3)));
        assert_eq!(search("ab$|(?<=a)b$", "xab"), Some((1, 3)));
    }

    #[test]
    fn dollar_matches_before_final_newline() {
        assert_eq!(search("x$", "ax\n"), Some((1, 2)));
        assert_eq!(search("x$", "ax"), Some((1, 2)));
        assert_eq!(search("x$", "ax\n\n"), None);
        assert_eq!(search("x\\Z", "ax\n"), None);
    }

    #[test]
    fn classes_are_literal_like_python() {
        // `[`, `(?:` and `&&` are literal members of a Python class.
        let re = PyRegex::new("[a[(?:&&]", Mode::Search).unwrap();
        for t in ["[", "(", "?", ":", "&", "a"] {
            assert!(re.search(t, 0).is_some(), "{t}");
        }
        assert!(re.search("b", 0).is_none());
        assert_eq!(search("[]a]", "]"), Some((0, 1)));
        assert_eq!(search("[a-]", "-"), Some((0, 1)));
        assert_eq!(search("[^\\s]", " x"), Some((1, 2)));
        assert_eq!(search("[\\u00e9-\\u00ea]", "é"), Some((0, 2)));
    }

    #[test]
    fn shorthands_follow_python() {
        // U+1C is whitespace to Python, not to Unicode's White_Space.
        assert_eq!(search("\\s", "a\u{1c}"), Some((1, 2)));
        // Combining marks are not `\w` in Python.
        assert_eq!(search("\\w+", "a\u{301}"), Some((0, 1)));
        assert_eq!(search("(?a)\\w+", "éa"), Some((2, 3)));
        assert_eq!(search("x{,2}y", "xxy"), Some((0, 3)));
        assert_eq!(search("x{}", "x{}"), Some((0, 3)));
    }

    #[test]
    fn finditer_is_non_overlapping() {
        let re = PyRegex::new("\\.\\.+|(?<=[0-9])[+\\-](?=[0-9-])|-", Mode::Search).unwrap();
        assert_eq!(re.finditer("1-2...a-"), vec![(1, 2), (3, 6), (7, 8)]);
        let re = PyRegex::new("x*", Mode::Search).unwrap();
        assert_eq!(re.finditer("axx"), vec![(0, 0), (1, 3), (3, 3)]);
    }

    #[test]
    fn errors_are_reported() {
        assert!(PyRegex::new("(a", Mode::Search).is_err());
        assert!(PyRegex::new("a)", Mode::Search).is_err());
        assert!(PyRegex::new("*a", Mode::Search).is_err());
        assert!(PyRegex::new("\\q", Mode::Search).is_err());
        assert!(PyRegex::new("[a", Mode::Search).is_err());
    }
}
