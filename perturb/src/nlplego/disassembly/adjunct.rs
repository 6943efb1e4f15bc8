//! An adjunct, its kind, and a disassembly `D(s) = {p0, B}` with how its levels are rendered as
//! text. The leaf the other disassembly modules build on; it imports none of them.

use std::ops::Range;

use metamorph_data::{ParsedText, Token};

use crate::edit::{capitalize, indefinite_article, match_case};

/// The kind of an adjunct (the paper's component types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AdjunctKind {
    /// An adjectival modifier (`amod`).
    Adjective,
    /// An adverbial modifier (`advmod`).
    Adverb,
    /// A prepositional phrase (`prep`).
    Prepositional,
    /// A participial verb phrase modifying a noun (`acl`).
    Verbal,
    /// A subordinate clause (`SBAR`, `relcl`, `advcl`).
    Clause,
    /// The conjuncts after the first of a coordination, with their conjunction ("political[,
    /// cultural and military]", "emerged in the 10th century[, and it continued to evolve]").
    Coordinate,
    /// A bracketed aside, brackets included ("The Normans [(Norman: Nourmands)] were").
    Parenthetical,
    /// A comma-set apposition ("to Normandy[, a region in France]").
    Appositive,
}

impl AdjunctKind {
    /// A short name, for logs and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            AdjunctKind::Adjective => "adjective",
            AdjunctKind::Adverb => "adverb",
            AdjunctKind::Prepositional => "prepositional",
            AdjunctKind::Verbal => "verbal",
            AdjunctKind::Clause => "clause",
            AdjunctKind::Coordinate => "coordinate",
            AdjunctKind::Parenthetical => "parenthetical",
            AdjunctKind::Appositive => "appositive",
        }
    }
}

/// One adjunct: a run of tokens of the parsed text (commas that travel with it included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adjunct {
    /// What it is.
    pub kind: AdjunctKind,
    /// Its tokens, `[start, end)`, attached commas included.
    pub tokens: Range<usize>,
    /// Its words without the attached commas: what is mutated and what a model reads when the
    /// adjunct is classified alone.
    pub core: Range<usize>,
}

/// A disassembled text: its parse (made alone, by the relation's parser) and its adjuncts, left
/// to right. The basic sentence is every token outside the adjuncts.
#[derive(Clone, Debug)]
pub struct Disassembly {
    /// The text's parse.
    pub parsed: ParsedText,
    /// The adjuncts `b1..bn`, left to right, disjoint.
    pub adjuncts: Vec<Adjunct>,
}

impl Disassembly {
    /// The tokens present at tree level `level` (adjuncts `1..=level` inserted).
    pub fn included(&self, level: usize) -> Vec<bool> {
        included_at(self.parsed.tokens.len(), &self.adjuncts, level)
    }

    /// The basic sentence `s0`.
    pub fn basic_sentence(&self) -> String {
        render(&self.parsed.tokens, &self.included(0), |i| {
            self.parsed.tokens[i].text.as_str()
        })
    }

    /// The template `p0`: the basic sentence with the slots written `[1]`, `[2]`, … where the
    /// adjuncts were (seed-003's `"[1], Downtown Jacksonville was ravaged by a fire [2]."`).
    pub fn template(&self) -> String {
        let tokens = &self.parsed.tokens;
        let mut out = String::new();
        let mut i = 0;
        let mut capitalise_next = false;
        while i < tokens.len() {
            if let Some(k) = self.adjuncts.iter().position(|a| a.tokens.start == i) {
                let adjunct = &self.adjuncts[k];
                if !out.is_empty() && !out.ends_with(' ') {
                    out.push(' ');
                }
                out.push_str(&format!("[{}]", k + 1));
                // The slot keeps the comma that travels with the adjunct.
                let last = &tokens[adjunct.tokens.end - 1];
                if adjunct.core.end < adjunct.tokens.end && last.text == "," {
                    out.push(',');
                }
                out.push_str(&last.whitespace);
                capitalise_next = adjunct.tokens.start == 0;
                i = adjunct.tokens.end;
                continue;
            }
            if capitalise_next {
                out.push_str(&capitalize(&tokens[i].text));
                capitalise_next = false;
            } else {
                out.push_str(&tokens[i].text);
            }
            out.push_str(&tokens[i].whitespace);
            i += 1;
        }
        out.trim_end().to_string()
    }
}

/// Which of `len` tokens are present at tree level `level` of `adjuncts` (sorted; adjuncts
/// `1..=level` inserted, the rest removed).
pub(super) fn included_at(len: usize, adjuncts: &[Adjunct], level: usize) -> Vec<bool> {
    let mut included = vec![true; len];
    for adjunct in &adjuncts[level.min(adjuncts.len())..] {
        included[adjunct.tokens.clone()].fill(false);
    }
    included
}

/// The text of the `included` tokens, `word(i)` giving token `i`'s (possibly mutated) text.
///
/// A removed run takes its trailing space with it (the last kept token before a gap gets the
/// whitespace of the gap's last token), when a sentence's first words are removed its first kept
/// word is capitalised, and an indefinite article takes the form of the word now after it
/// ("an old house" without "old" is "a house").
pub fn render<'a>(tokens: &[Token], included: &[bool], word: impl Fn(usize) -> &'a str) -> String {
    render_spans(tokens, included, word).0
}

/// [`render`], also giving each rendered token's character span `[start, end)` in the result
/// (`None` for tokens left out): where a masked LM masks a word in context.
pub fn render_spans<'a>(
    tokens: &[Token],
    included: &[bool],
    word: impl Fn(usize) -> &'a str,
) -> (String, Vec<Option<(usize, usize)>>) {
    let mut out = String::new();
    let mut spans = vec![None; tokens.len()];
    let mut chars = 0usize;
    let kept: Vec<usize> = (0..tokens.len()).filter(|&i| included[i]).collect();
    for (k, &i) in kept.iter().enumerate() {
        let mut text = std::borrow::Cow::Borrowed(word(i));
        let lower = text.to_lowercase();
        // Only a gap or a new word after the article changes it: the writer's own "an RN" stays.
        if (lower == "a" || lower == "an") && tokens[i].tag == "DT" {
            let as_written = |next: usize| next == i + 1 && word(next) == tokens[next].text;
            if let Some(&next) = kept.get(k + 1).filter(|&&next| !as_written(next)) {
                let article = indefinite_article(word(next));
                text = std::borrow::Cow::Owned(match_case(&text, article));
            }
        }
        // A sentence whose opening words were removed starts with a capital: the text's first
        // sentence, or one after a kept full stop ("However, it was cold." → "It was cold.").
        let after_gap = if k == 0 {
            i > 0
        } else {
            let previous = kept[k - 1];
            previous + 1 < i && matches!(tokens[previous].text.as_str(), "." | "!" | "?")
        };
        if after_gap {
            text = std::borrow::Cow::Owned(capitalize(&text));
        }
        let len = text.chars().count();
        spans[i] = Some((chars, chars + len));
        out.push_str(&text);
        chars += len;
        if let Some(&next) = kept.get(k + 1) {
            let space = &tokens[next - 1].whitespace;
            out.push_str(space);
            chars += space.chars().count();
        }
    }
    (out, spans)
}

/// Whether two adjuncts share a token.
pub(super) fn overlap(a: &Adjunct, b: &Adjunct) -> bool {
    a.tokens.start < b.tokens.end && b.tokens.start < a.tokens.end
}
