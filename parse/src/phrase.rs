//! A phrase-structure (constituency) view derived from the dependency parse.
//!
//! MR families need constituents, not only arcs: NLPLego (seed 003) removes and reinserts
//! adjuncts — PPs, ADVPs, participial VPs, subordinate clauses (SBAR) — and CREST (seed 004)
//! compares constituent labels and the depth of mentions. Running a second (constituency) parser
//! is not an option, so this module converts the projective dependency tree with head rules, in
//! the spirit of Collins' and Xia & Palmer's conversions: each head token projects a short
//! *spine* of constituents, and each dependent attaches to one level of its head's spine.
//!
//! # Spines and attachment levels
//!
//! | head (POS / configuration) | spine, inner → outer | dependents attached at each level |
//! |---|---|---|
//! | `VERB`, `AUX`, or any head with a subject or `aux`/`auxpass` dependent | `VP` | everything not listed below: `aux auxpass neg dobj dative attr acomp oprd xcomp ccomp prep agent advmod npadvmod advcl prt dep …` |
//! | | `VP` (coordination) | `conj` without a subject of its own |
//! | | `S` / `SQ` / `SINV` | `nsubj nsubjpass csubj csubjpass expl` |
//! | | `S` (coordination) | `conj` with its own subject |
//! | | `SBAR` / `SBARQ` | `mark`, and a fronted wh-phrase (`WHNP WHADVP WHPP WHADJP`) |
//! | `NOUN`, `PROPN`, `PRON` | `NP` (base) | prenominal dependents (`det amod compound poss nummod …`), and postnominal `case det nummod compound poss nmod predet quantmod` |
//! | | `NP` (post-modified) | `prep relcl acl appos` and other postnominal dependents |
//! | | `NP` (coordination) | `conj` |
//! | `ADJ` | `ADJP`, then `ADJP` (coordination) | all; `conj` at the second level |
//! | `ADV` | `ADVP`, then `ADVP` (coordination) | as `ADJ` |
//! | `ADP` | `PP` (`PRT` for `prt`; `ADVP` for an object-less `advmod`/`npadvmod`), then coordination | as `ADJ` |
//! | `NUM` | `QP` as `nummod`/`quantmod`, else `NP`; then coordination | as `ADJ` |
//! | `INTJ` | `INTJ`, then coordination | as `ADJ` |
//! | other POS (`DET SCONJ CCONJ PART PUNCT SYM X …`) | by its own relation: nominal relations `NP`, `advmod` `ADVP`, `amod acomp` `ADJP`, `prep agent` `PP`, `nummod quantmod` `QP`, `intj` `INTJ`, anything else `FRAG` | as `ADJ` |
//!
//! Flexible dependents — `punct cc preconj` everywhere, and `parataxis meta intj` on verbs —
//! attach as high as possible (punctuation at the clause level, `cc` at the coordination level)
//! *without* forcing other dependents up; see ordering below. Punctuation after a noun prefers
//! the post-modified `NP` level, so a base `NP` never ends in punctuation (it ends where spaCy's
//! noun chunk of its head ends).
//!
//! Clause labels:
//! - the `S` level is required when the verb has a subject, when it is the sentence root, or when
//!   it has an `SBAR` level; it is `SQ` (question: the sentence ends with `?` or starts with an
//!   auxiliary of the root, and the clause is its root or a `conj` of it) or `SINV` (otherwise)
//!   when the verb or one of its `aux`/`auxpass` dependents precedes the subject (`Is he a
//!   doctor?`, `said he`), else `S`;
//! - the `SBAR` level is required for `mark`, a fronted wh-phrase, `relcl` (a relative clause
//!   without a relative pronoun is `(SBAR (S …))`, Penn's empty complementizer) and a `ccomp`
//!   with its own subject; it is `SBARQ` for a question's root clause;
//! - a fronted wh-phrase is the leftmost (non-punctuation) dependent before the verb whose first
//!   token is tagged `WDT WP WP$ WRB` (or a preposition followed by one, `in which`), not an
//!   `aux`/`mark`/`cc`/`neg`; on the sentence root only in questions. Its outermost constituent is
//!   relabelled `WHNP`, `WHADVP`, `WHPP` or `WHADJP`; it attaches at the `SBAR` level even when
//!   it is the subject (`(SBAR (WHNP who) (S (VP came)))`);
//! - a verb without subject and without `SBAR` level that is not the root (`xcomp`, `acl`,
//!   participial `advcl`) is just a `VP`;
//! - the inner `VP` is omitted when the verb itself precedes its subject and has no dependent at
//!   the `VP` level (`(SQ Is (NP he) (NP a doctor) ?)`, as in the Penn Treebank).
//!
//! Which dependents project a constituent of their own: the root, every token with dependents,
//! and a fronted wh-phrase always do. A bare (dependent-less) token does, unless its relation is
//! one of `det predet amod compound nummod poss aux auxpass neg cc preconj punct mark case
//! quantmod nmod dep meta` — those stay words inside their head's phrase, as preterminals do in
//! the Penn Treebank (`(NP the red car)`) — or it is an `advmod` of a non-verb (`very` in
//! `(ADJP very cold)`). So a bare subject or object is an `NP`, a bare `advmod` of a verb an
//! `ADVP`, a bare `prt` a `PRT`, a bare `acomp` an `ADJP`.
//!
//! Within one spine level the dependents on each side must extend the span contiguously, so the
//! levels of a head's dependents are made non-decreasing outward from the head: a dependent
//! farther from the head than one attached at a higher level is raised to that level (a fronted
//! `PP` before the subject attaches to `S`, not `VP`; in `What did you see`, `did` joins the
//! `SQ`). Flexible dependents take their preferred level clamped between their nearer and
//! farther neighbours' levels.
//!
//! # Sentences, malformed input and non-projective trees
//!
//! Each sentence (from the tokens' `sent_start` flags) gets exactly one root constituent
//! (depth 0) spanning it. A head outside the sentence (or the document), or a cycle, makes the
//! token a root; every root but the sentence's first self-headed token (or the first root) is
//! attached to it with relation `dep`. A non-projective arc is *lifted*: the dependent whose
//! subtree leaves a gap in its head's yield is reattached to its head's head (keeping its
//! label), repeatedly, lowest first, until every subtree is contiguous (relative clauses
//! extraposed past the verb end up attached to the verb). After 64 lifts in one sentence the
//! sentence falls back to a flat tree (all tokens attached to the root), so pathological input
//! stays linear-time. Everything else is linear in the number of tokens.
//!
//! Constituents are kept in pre-order (a parent before its children, siblings left to right);
//! depth counts edges from the sentence root, so a unary chain (`(S (VP came))`) has two
//! constituents with equal spans and consecutive depths. Tokens are leaves, not constituents;
//! the depth of a token's preterminal is the depth of the lowest constituent covering it plus
//! one (see [`PhraseStructure::token_depth`]).

use std::ops::Range;

use metamorph_data::Phrase;

use crate::spacy::Doc;

/// A constituent label (Penn Treebank names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Label {
    /// Declarative clause.
    S,
    /// Subordinate clause: complementizer or wh-phrase plus `S`.
    Sbar,
    /// Direct wh-question.
    Sbarq,
    /// Inverted yes/no question, or the clause under `SBARQ`.
    Sq,
    /// Inverted declarative clause.
    Sinv,
    /// Noun phrase.
    Np,
    /// Verb phrase.
    Vp,
    /// Prepositional phrase.
    Pp,
    /// Adjective phrase.
    Adjp,
    /// Adverb phrase.
    Advp,
    /// Quantifier phrase (complex number inside an NP).
    Qp,
    /// Verb particle.
    Prt,
    /// Wh-noun phrase.
    Whnp,
    /// Wh-adverb phrase.
    Whadvp,
    /// Wh-prepositional phrase.
    Whpp,
    /// Wh-adjective phrase.
    Whadjp,
    /// Interjection.
    Intj,
    /// Fragment: a head whose part of speech and relation project no other label.
    Frag,
}

impl Label {
    /// Every label this module produces.
    pub const ALL: [Label; 18] = [
        Label::S,
        Label::Sbar,
        Label::Sbarq,
        Label::Sq,
        Label::Sinv,
        Label::Np,
        Label::Vp,
        Label::Pp,
        Label::Adjp,
        Label::Advp,
        Label::Qp,
        Label::Prt,
        Label::Whnp,
        Label::Whadvp,
        Label::Whpp,
        Label::Whadjp,
        Label::Intj,
        Label::Frag,
    ];

    /// The Penn Treebank spelling (`"S"`, `"SBAR"`, `"NP"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Label::S => "S",
            Label::Sbar => "SBAR",
            Label::Sbarq => "SBARQ",
            Label::Sq => "SQ",
            Label::Sinv => "SINV",
            Label::Np => "NP",
            Label::Vp => "VP",
            Label::Pp => "PP",
            Label::Adjp => "ADJP",
            Label::Advp => "ADVP",
            Label::Qp => "QP",
            Label::Prt => "PRT",
            Label::Whnp => "WHNP",
            Label::Whadvp => "WHADVP",
            Label::Whpp => "WHPP",
            Label::Whadjp => "WHADJP",
            Label::Intj => "INTJ",
            Label::Frag => "FRAG",
        }
    }

    /// Whether this is a clause label (`S SBAR SBARQ SQ SINV`).
    pub fn is_clause(self) -> bool {
        matches!(
            self,
            Label::S | Label::Sbar | Label::Sbarq | Label::Sq | Label::Sinv
        )
    }

    fn wh(self) -> Label {
        match self {
            Label::Np | Label::Qp => Label::Whnp,
            Label::Advp => Label::Whadvp,
            Label::Pp => Label::Whpp,
            Label::Adjp => Label::Whadjp,
            other => other,
        }
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One constituent: a labelled token span with its place in the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constituent {
    /// Label.
    pub label: Label,
    /// First token (document index).
    pub start: usize,
    /// One past the last token.
    pub end: usize,
    /// Edges from the sentence's root constituent (0 for the root).
    pub depth: usize,
    /// The lexical head: the token whose spine this constituent is part of.
    pub head: usize,
    /// Index of the parent constituent in [`PhraseStructure::constituents`]; `None` for a root.
    pub parent: Option<usize>,
    /// Indices of the child constituents, left to right.
    pub children: Vec<usize>,
}

impl Constituent {
    /// The token span `[start, end)`.
    pub fn span(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// The constituency view of a document: one tree per sentence, constituents in pre-order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PhraseStructure {
    nodes: Vec<Constituent>,
    roots: Vec<usize>,
}

impl PhraseStructure {
    /// All constituents in pre-order (each parent before its children, siblings left to right,
    /// sentences in order).
    pub fn constituents(&self) -> &[Constituent] {
        &self.nodes
    }

    /// The root constituent of each sentence, in order (indices into
    /// [`constituents`](Self::constituents)).
    pub fn roots(&self) -> &[usize] {
        &self.roots
    }

    /// The children of constituent `i`, as constituents.
    pub fn children(&self, i: usize) -> impl Iterator<Item = &Constituent> + '_ {
        self.nodes[i].children.iter().map(move |&c| &self.nodes[c])
    }

    /// The constituents as `parsed` records.
    pub fn to_phrases(&self) -> Vec<Phrase> {
        self.nodes
            .iter()
            .map(|c| Phrase {
                label: c.label.as_str().to_string(),
                start: to_u32(c.start),
                end: to_u32(c.end),
                depth: to_u32(c.depth),
            })
            .collect()
    }

    /// The lowest constituent whose span contains the token span `[start, end)` — CREST's
    /// "closest phrase covering the mention" — or `None` for an empty or out-of-range span.
    pub fn lowest_covering(&self, start: usize, end: usize) -> Option<usize> {
        if start >= end {
            return None;
        }
        let r = self.roots.partition_point(|&r| self.nodes[r].end <= start);
        let mut cur = *self.roots.get(r)?;
        if self.nodes[cur].start > start || self.nodes[cur].end < end {
            return None;
        }
        'down: loop {
            for &c in &self.nodes[cur].children {
                let n = &self.nodes[c];
                if n.start <= start && end <= n.end {
                    cur = c;
                    continue 'down;
                }
            }
            return Some(cur);
        }
    }

    /// The depth of token `i`'s preterminal: one more than the depth of the lowest constituent
    /// covering it (CREST counts `it` in `(S (SBAR (S (NP it) …)))` at depth 4 from 0).
    pub fn token_depth(&self, i: usize) -> Option<usize> {
        self.lowest_covering(i, i + 1)
            .map(|c| self.nodes[c].depth + 1)
    }

    /// A Penn-style bracketing, one line per sentence: `(S (NP He) (VP left) .)`. Words are
    /// the tokens' text, with `(` and `)` written `-LRB-` and `-RRB-`; preterminals are omitted.
    pub fn bracketed(&self, doc: &Doc) -> String {
        let mut out = String::new();
        for (k, &r) in self.roots.iter().enumerate() {
            if k > 0 {
                out.push('\n');
            }
            let root = &self.nodes[r];
            let last = self.roots.get(k + 1).copied().unwrap_or(self.nodes.len());
            self.bracket_sentence(doc, r..last, root.span(), &mut out);
        }
        out
    }

    fn bracket_sentence(
        &self,
        doc: &Doc,
        nodes: Range<usize>,
        span: Range<usize>,
        out: &mut String,
    ) {
        let len = span.end - span.start;
        // Opens per start token (pre-order = outer first), closes per end token.
        let mut opens: Vec<Vec<Label>> = vec![Vec::new(); len];
        let mut closes = vec![0usize; len + 1];
        for n in &self.nodes[nodes] {
            opens[n.start - span.start].push(n.label);
            closes[n.end - span.start] += 1;
        }
        let mut first = true;
        for (k, i) in span.enumerate() {
            for l in &opens[k] {
                if !first {
                    out.push(' ');
                }
                out.push('(');
                out.push_str(l.as_str());
                first = false;
            }
            if !first {
                out.push(' ');
            }
            first = false;
            let w = doc
                .tokens
                .get(i)
                .and_then(|t| doc.text.get(t.start..t.end))
                .unwrap_or("");
            match w {
                "(" => out.push_str("-LRB-"),
                ")" => out.push_str("-RRB-"),
                w => out.push_str(w),
            }
            for _ in 0..closes[k + 1] {
                out.push(')');
            }
        }
    }
}

fn to_u32(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// The constituency view of `doc`. Never panics; see the module documentation for the rules.
pub fn phrase_structure(doc: &Doc) -> PhraseStructure {
    let mut ps = PhraseStructure::default();
    // A question ends with `?`, or starts with an auxiliary of the root clause (`Do radio
    // waves travel at the speed of light`, as question data sets often omit the mark).
    let is_question = |r: &Range<usize>| {
        let toks = &doc.tokens[r.clone()];
        let ends_with_mark = toks
            .iter()
            .rev()
            .find(|t| t.pos != "PUNCT" || token_str(doc, t) == "?")
            .is_some_and(|t| token_str(doc, t) == "?");
        let starts_with_aux = toks.iter().find(|t| t.pos != "PUNCT").is_some_and(|t| {
            t.pos == "AUX" && matches!(t.dep.as_str(), "ROOT" | "aux" | "auxpass") && toks.len() > 2
        });
        ends_with_mark || starts_with_aux
    };
    let mut sent = Sentence::default();
    for range in doc.sentences() {
        let question = is_question(&range);
        sent.load(doc, range);
        sent.build(doc, question, &mut ps);
    }
    ps
}

fn token_str<'a>(doc: &'a Doc, t: &crate::spacy::Token) -> &'a str {
    doc.text.get(t.start..t.end).unwrap_or("")
}

const NONE: usize = usize::MAX;
const MAX_LIFTS: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cat {
    Verb,
    Noun,
    Adj,
    Adv,
    Adp,
    Num,
    Intj,
    Other,
}

fn category(pos: &str, tag: &str) -> Cat {
    match pos {
        "VERB" | "AUX" => Cat::Verb,
        "NOUN" | "PROPN" | "PRON" => Cat::Noun,
        "ADJ" => Cat::Adj,
        "ADV" => Cat::Adv,
        "ADP" => Cat::Adp,
        "NUM" => Cat::Num,
        "INTJ" => Cat::Intj,
        "" => match tag {
            t if t.starts_with("VB") || t == "MD" => Cat::Verb,
            t if t.starts_with("NN") || t == "PRP" || t == "WP" => Cat::Noun,
            t if t.starts_with("JJ") => Cat::Adj,
            t if t.starts_with("RB") || t == "WRB" => Cat::Adv,
            "IN" | "RP" => Cat::Adp,
            "CD" => Cat::Num,
            "UH" => Cat::Intj,
            _ => Cat::Other,
        },
        _ => Cat::Other,
    }
}

fn is_subject(dep: &str) -> bool {
    matches!(dep, "nsubj" | "nsubjpass" | "csubj" | "csubjpass" | "expl")
}

fn is_wh_tag(tag: &str) -> bool {
    matches!(tag, "WDT" | "WP" | "WP$" | "WRB")
}

/// Relations whose bare (dependent-less) tokens stay words inside their head's phrase.
fn bare_stays_word(dep: &str) -> bool {
    matches!(
        dep,
        "det"
            | "predet"
            | "amod"
            | "compound"
            | "nummod"
            | "poss"
            | "aux"
            | "auxpass"
            | "neg"
            | "cc"
            | "preconj"
            | "punct"
            | "mark"
            | "case"
            | "quantmod"
            | "nmod"
            | "dep"
            | "meta"
    )
}

// Spine levels.
const V_VP: u8 = 0;
const V_VPC: u8 = 1;
const V_S: u8 = 2;
const V_SC: u8 = 3;
const V_SBAR: u8 = 4;
const N_BASE: u8 = 0;
const N_POST: u8 = 1;
const N_COORD: u8 = 2;
const X_CORE: u8 = 0;
const X_COORD: u8 = 1;

#[derive(Clone, Copy)]
enum Attach {
    Fixed(u8),
    /// Flexible, preferring the spine's top level.
    FlexTop,
    /// Flexible, preferring this level.
    Flex(u8),
}

/// The emitted spine of one token: up to five (level, label, span) entries, inner first.
#[derive(Clone, Copy, Default)]
struct Spine {
    len: u8,
    level: [u8; 5],
    label: [Option<Label>; 5],
    start: [usize; 5],
    end: [usize; 5],
}

/// Per-sentence working state, reused across sentences to avoid reallocation.
#[derive(Default)]
struct Sentence<'a> {
    off: usize,
    n: usize,
    head: Vec<usize>,
    dep: Vec<&'a str>,
    cat: Vec<Cat>,
    /// Children in position order, CSR layout.
    kid_start: Vec<usize>,
    kids: Vec<usize>,
    lo: Vec<usize>,
    hi: Vec<usize>,
    size: Vec<usize>,
    order: Vec<usize>,
    level: Vec<u8>,
    wh: Vec<bool>,
    projected: Vec<bool>,
    spine: Vec<Spine>,
    state: Vec<u8>,
    path: Vec<usize>,
    root: usize,
    scratch_kids: Vec<usize>,
    scratch_attach: Vec<Attach>,
    scratch_side: Vec<usize>,
    scratch_hi: Vec<u8>,
    fill: Vec<usize>,
}

impl<'a> Sentence<'a> {
    /// Loads the sentence's arcs, making them a tree rooted at one token.
    fn load(&mut self, doc: &'a Doc, range: Range<usize>) {
        let (off, n) = (range.start, range.end - range.start);
        self.off = off;
        self.n = n;
        self.head.clear();
        self.dep.clear();
        self.cat.clear();
        let mut self_root = NONE;
        for i in 0..n {
            let t = &doc.tokens[off + i];
            let h = t.head;
            if h == off + i && self_root == NONE {
                self_root = i;
            }
            self.head.push(if h >= off && h < off + n && h != off + i {
                h - off
            } else {
                NONE
            });
            self.dep.push(&t.dep);
            self.cat.push(category(&t.pos, &t.tag));
        }
        // Break cycles: the first node met twice on a walk becomes a root.
        self.state.clear();
        self.state.resize(n, 0);
        for i in 0..n {
            self.path.clear();
            let mut x = i;
            while x != NONE {
                match self.state[x] {
                    2 => break,
                    1 => {
                        self.head[x] = NONE;
                        break;
                    }
                    _ => {
                        self.state[x] = 1;
                        self.path.push(x);
                        x = self.head[x];
                    }
                }
            }
            for &p in &self.path {
                self.state[p] = 2;
            }
        }
        let root = if self_root != NONE && self.head[self_root] == NONE {
            self_root
        } else {
            (0..n).find(|&i| self.head[i] == NONE).unwrap_or(0)
        };
        for i in 0..n {
            if self.head[i] == NONE && i != root {
                self.head[i] = root;
                self.dep[i] = "dep";
            }
        }
        self.head[root] = root;
        self.root = root;
        self.projectivize();
    }

    /// Children lists, BFS order from the root, and subtree edges and sizes.
    fn index(&mut self) {
        let n = self.n;
        self.kid_start.clear();
        self.kid_start.resize(n + 1, 0);
        for i in 0..n {
            if i != self.root {
                self.kid_start[self.head[i] + 1] += 1;
            }
        }
        for i in 0..n {
            self.kid_start[i + 1] += self.kid_start[i];
        }
        self.kids.clear();
        self.kids.resize(n.saturating_sub(1), 0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.kid_start[..n]);
        for i in 0..n {
            if i != self.root {
                let h = self.head[i];
                self.kids[self.fill[h]] = i;
                self.fill[h] += 1;
            }
        }
        self.order.clear();
        self.order.push(self.root);
        let mut k = 0;
        while k < self.order.len() {
            let x = self.order[k];
            for j in self.kid_start[x]..self.kid_start[x + 1] {
                self.order.push(self.kids[j]);
            }
            k += 1;
        }
        self.lo.clear();
        self.lo.extend(0..n);
        self.hi.clear();
        self.hi.extend(0..n);
        self.size.clear();
        self.size.resize(n, 1);
        for k in (1..self.order.len()).rev() {
            let x = self.order[k];
            let h = self.head[x];
            self.lo[h] = self.lo[h].min(self.lo[x]);
            self.hi[h] = self.hi[h].max(self.hi[x]);
            self.size[h] += self.size[x];
        }
    }

    fn kids_of(&self, x: usize) -> &[usize] {
        &self.kids[self.kid_start[x]..self.kid_start[x + 1]]
    }

    /// Lifts non-projective arcs until every subtree is contiguous (see the module docs).
    fn projectivize(&mut self) {
        for _ in 0..=MAX_LIFTS {
            self.index();
            // Reverse BFS order visits a node's descendants before it.
            let bad = self
                .order
                .iter()
                .rev()
                .copied()
                .find(|&x| self.hi[x] + 1 - self.lo[x] != self.size[x]);
            let Some(h) = bad else { return };
            match self.gap_child(h) {
                Some(c) if h != self.root => self.head[c] = self.head[h],
                _ => break,
            }
        }
        // Too many lifts (or no gap found, which cannot happen): flat tree.
        for i in 0..self.n {
            self.head[i] = self.root;
        }
        self.index();
    }

    /// The child of `h` nearest to it beyond a gap in `h`'s yield.
    fn gap_child(&self, h: usize) -> Option<usize> {
        let kids = self.kids_of(h);
        let split = kids.partition_point(|&c| c < h);
        let mut expect = h;
        for &c in kids[..split].iter().rev() {
            if self.hi[c] + 1 != expect {
                return Some(c);
            }
            expect = self.lo[c];
        }
        let mut expect = h + 1;
        for &c in &kids[split..] {
            if self.lo[c] != expect {
                return Some(c);
            }
            expect = self.hi[c] + 1;
        }
        None
    }

    fn has_subject(&self, x: usize) -> bool {
        self.kids_of(x).iter().any(|&c| is_subject(self.dep[c]))
    }

    /// Whether `c`, a dependent of verb `x`, is a fronted wh-phrase.
    fn fronted_wh(&self, doc: &Doc, x: usize, question: bool) -> Option<usize> {
        if x == self.root && !question {
            return None;
        }
        let c = self
            .kids_of(x)
            .iter()
            .copied()
            .find(|&c| self.dep[c] != "punct")?;
        if c > x
            || matches!(
                self.dep[c],
                "aux" | "auxpass" | "mark" | "cc" | "preconj" | "neg"
            )
        {
            return None;
        }
        let tag = |i: usize| doc.tokens[self.off + i].tag.as_str();
        let first = self.lo[c];
        let wh = is_wh_tag(tag(first))
            || (self.cat[c] == Cat::Adp && first == c && c < self.hi[c] && is_wh_tag(tag(c + 1)));
        wh.then_some(c)
    }

    /// The constituents of this sentence, appended to `ps`.
    fn build(&mut self, doc: &Doc, question: bool, ps: &mut PhraseStructure) {
        let n = self.n;
        if n == 0 {
            return;
        }
        self.level.clear();
        self.level.resize(n, 0);
        self.wh.clear();
        self.wh.resize(n, false);
        // A predicate of another part of speech with a subject or auxiliary heads a clause.
        for x in 0..n {
            if self.cat[x] != Cat::Verb
                && self
                    .kids_of(x)
                    .iter()
                    .any(|&c| is_subject(self.dep[c]) || matches!(self.dep[c], "aux" | "auxpass"))
            {
                self.cat[x] = Cat::Verb;
            }
        }
        for x in 0..n {
            if self.cat[x] == Cat::Verb {
                if let Some(c) = self.fronted_wh(doc, x, question) {
                    self.wh[c] = true;
                }
            }
        }
        self.projected.clear();
        for x in 0..n {
            let p = x == self.root
                || self.kid_start[x + 1] > self.kid_start[x]
                || self.wh[x]
                || match self.dep[x] {
                    "advmod" => self.cat[self.head[x]] == Cat::Verb,
                    d => !bare_stays_word(d),
                };
            self.projected.push(p);
        }
        self.spine.clear();
        self.spine.resize(n, Spine::default());
        for x in 0..n {
            if self.projected[x] {
                self.make_spine(x, question);
            }
        }
        self.emit(ps);
    }

    /// Assigns levels to `x`'s dependents and computes its emitted spine.
    fn make_spine(&mut self, x: usize, question: bool) {
        // Scratch buffers live in `self` so that no token allocates.
        let mut kids = std::mem::take(&mut self.scratch_kids);
        kids.clear();
        kids.extend_from_slice(self.kids_of(x));
        let mut attach = std::mem::take(&mut self.scratch_attach);
        attach.clear();
        let mut side = std::mem::take(&mut self.scratch_side);
        let mut hi_from = std::mem::take(&mut self.scratch_hi);
        let split = kids.partition_point(|&c| c < x);
        let cat = self.cat[x];
        let subject = kids
            .iter()
            .copied()
            .find(|&c| is_subject(self.dep[c]) && !self.wh[c]);
        for (k, &c) in kids.iter().enumerate() {
            attach.push(self.attach(cat, c, k < split));
        }
        let has_mark_or_wh = kids.iter().any(|&c| self.wh[c] || self.dep[c] == "mark");
        let dep = self.dep[x];
        let is_clause_root = x == self.root;
        let question_clause =
            question && (is_clause_root || (dep == "conj" && self.head[x] == self.root));
        let mut required = 0u8;
        if cat == Cat::Verb {
            let sbar = has_mark_or_wh || dep == "relcl" || (dep == "ccomp" && subject.is_some());
            if sbar {
                required = V_SBAR;
            } else if subject.is_some() || is_clause_root {
                required = V_S;
            }
        }
        // Pass 1: fixed levels, raised to be non-decreasing outward on each side.
        let mut top = required;
        for left in [true, false] {
            side.clear();
            if left {
                side.extend((0..split).rev());
            } else {
                side.extend(split..kids.len());
            }
            let mut cur = 0u8;
            for &k in &side {
                if let Attach::Fixed(l) = attach[k] {
                    cur = cur.max(l);
                    self.level[kids[k]] = cur;
                    top = top.max(cur);
                }
            }
        }
        // Pass 2: flexible dependents, clamped between their neighbours.
        for left in [true, false] {
            side.clear();
            if left {
                side.extend((0..split).rev());
            } else {
                side.extend(split..kids.len());
            }
            hi_from.clear();
            hi_from.resize(side.len(), u8::MAX);
            let mut next_fixed = u8::MAX;
            for (j, &k) in side.iter().enumerate().rev() {
                hi_from[j] = next_fixed;
                if let Attach::Fixed(_) = attach[k] {
                    next_fixed = self.level[kids[k]];
                }
            }
            let mut lo = 0u8;
            for (j, &k) in side.iter().enumerate() {
                let l = match attach[k] {
                    Attach::Fixed(_) => self.level[kids[k]],
                    Attach::FlexTop => lo.max(top.min(hi_from[j])),
                    Attach::Flex(d) => lo.max(d.min(hi_from[j])),
                };
                self.level[kids[k]] = l;
                lo = l;
            }
        }
        // Emitted levels: the core, every level with dependents, and the required ones.
        let mut used = [false; 5];
        used[0] = true;
        for &c in &kids {
            used[self.level[c] as usize] = true;
        }
        if cat == Cat::Verb {
            for l in [V_S, V_SBAR] {
                if required >= l {
                    used[l as usize] = true;
                }
            }
            let core_has_kids = kids.iter().any(|&c| self.level[c] == V_VP);
            if subject.is_some_and(|s| x < s) && !core_has_kids && used[1..].iter().any(|&u| u) {
                used[0] = false;
            }
        }
        let inverted = subject.is_some_and(|s| {
            x < s
                || kids
                    .iter()
                    .any(|&c| c < s && matches!(self.dep[c], "aux" | "auxpass"))
        });
        let s_label = if inverted {
            if question_clause {
                Label::Sq
            } else {
                Label::Sinv
            }
        } else if subject.is_none() && question_clause && has_mark_or_wh {
            Label::Sq
        } else {
            Label::S
        };
        let base = self.base_label(x);
        let mut sp = Spine::default();
        let (mut lo, mut hi) = (x, x);
        for l in 0..5u8 {
            if !used[l as usize] {
                continue;
            }
            for &c in &kids {
                if self.level[c] == l {
                    lo = lo.min(self.lo[c]);
                    hi = hi.max(self.hi[c]);
                }
            }
            let label = match (cat, l) {
                (Cat::Verb, V_VP | V_VPC) => Label::Vp,
                (Cat::Verb, V_S | V_SC) => s_label,
                (Cat::Verb, _) => {
                    if question_clause && is_clause_root {
                        Label::Sbarq
                    } else {
                        Label::Sbar
                    }
                }
                _ => base,
            };
            let k = sp.len as usize;
            sp.level[k] = l;
            sp.label[k] = Some(label);
            sp.start[k] = lo;
            sp.end[k] = hi + 1;
            sp.len += 1;
        }
        if self.wh[x] && sp.len > 0 {
            let k = sp.len as usize - 1;
            sp.label[k] = sp.label[k].map(Label::wh);
        }
        self.spine[x] = sp;
        self.scratch_kids = kids;
        self.scratch_attach = attach;
        self.scratch_side = side;
        self.scratch_hi = hi_from;
    }

    /// The label of a non-verbal head's spine.
    fn base_label(&self, x: usize) -> Label {
        let dep = self.dep[x];
        let has_object = self
            .kids_of(x)
            .iter()
            .any(|&c| matches!(self.dep[c], "pobj" | "pcomp" | "dobj"));
        let by_relation = || match dep {
            "nsubj" | "nsubjpass" | "dobj" | "pobj" | "attr" | "dative" | "appos" | "oprd"
            | "npadvmod" | "expl" | "poss" => Label::Np,
            "advmod" => Label::Advp,
            "amod" | "acomp" => Label::Adjp,
            "prep" | "agent" => Label::Pp,
            "nummod" | "quantmod" => Label::Qp,
            "intj" => Label::Intj,
            _ => Label::Frag,
        };
        match self.cat[x] {
            Cat::Verb => Label::Vp,
            Cat::Noun => Label::Np,
            Cat::Adj => Label::Adjp,
            Cat::Adv => Label::Advp,
            Cat::Adp => match dep {
                "prt" => Label::Prt,
                "advmod" | "npadvmod" if !has_object => Label::Advp,
                _ => Label::Pp,
            },
            Cat::Num => match dep {
                "nummod" | "quantmod" => Label::Qp,
                _ => Label::Np,
            },
            Cat::Intj => Label::Intj,
            // A determiner or other word heading an argument is labelled by its relation.
            Cat::Other => by_relation(),
        }
    }

    /// Where dependent `c` attaches on its head's spine (head category `cat`).
    fn attach(&self, cat: Cat, c: usize, left: bool) -> Attach {
        let dep = self.dep[c];
        match dep {
            // Punctuation after a noun is not part of the base NP.
            "punct" if cat == Cat::Noun && !left => return Attach::Flex(N_POST),
            "punct" | "cc" | "preconj" => return Attach::FlexTop,
            _ => {}
        }
        match cat {
            Cat::Verb => {
                if self.wh[c] || dep == "mark" {
                    Attach::Fixed(V_SBAR)
                } else if is_subject(dep) {
                    Attach::Fixed(V_S)
                } else if dep == "conj" {
                    Attach::Fixed(if self.has_subject(c) { V_SC } else { V_VPC })
                } else if matches!(dep, "parataxis" | "meta" | "intj") {
                    Attach::Flex(V_S)
                } else {
                    Attach::Fixed(V_VP)
                }
            }
            Cat::Noun => match dep {
                "conj" => Attach::Fixed(N_COORD),
                "prep" | "relcl" | "acl" | "appos" => Attach::Fixed(N_POST),
                _ if left => Attach::Fixed(N_BASE),
                "case" | "nummod" | "compound" | "det" | "predet" | "poss" | "nmod"
                | "quantmod" => Attach::Fixed(N_BASE),
                _ => Attach::Fixed(N_POST),
            },
            _ => Attach::Fixed(if dep == "conj" { X_COORD } else { X_CORE }),
        }
    }

    /// Emits the constituents in pre-order with an explicit stack (trees can be deep).
    fn emit(&self, ps: &mut PhraseStructure) {
        // (token, spine index, depth, parent node)
        let mut stack: Vec<(usize, usize, usize, Option<usize>)> = Vec::new();
        let top = self.spine[self.root].len as usize;
        if top == 0 {
            return;
        }
        stack.push((self.root, top - 1, 0, None));
        let mut pending: Vec<(usize, usize, usize, Option<usize>)> = Vec::new();
        while let Some((x, k, depth, parent)) = stack.pop() {
            let sp = &self.spine[x];
            let id = ps.nodes.len();
            ps.nodes.push(Constituent {
                label: sp.label[k].unwrap_or(Label::Frag),
                start: self.off + sp.start[k],
                end: self.off + sp.end[k],
                depth,
                head: self.off + x,
                parent,
                children: Vec::new(),
            });
            match parent {
                Some(p) => ps.nodes[p].children.push(id),
                None => ps.roots.push(id),
            }
            let level = sp.level[k];
            pending.clear();
            let kids = self.kids_of(x);
            let split = kids.partition_point(|&c| c < x);
            let child_item = |c: usize| {
                let l = self.spine[c].len as usize;
                (self.projected[c] && l > 0).then(|| (c, l - 1, depth + 1, Some(id)))
            };
            for &c in &kids[..split] {
                if self.level[c] == level {
                    pending.extend(child_item(c));
                }
            }
            if k > 0 {
                pending.push((x, k - 1, depth + 1, Some(id)));
            }
            for &c in &kids[split..] {
                if self.level[c] == level {
                    pending.extend(child_item(c));
                }
            }
            stack.extend(pending.drain(..).rev());
        }
    }
}
