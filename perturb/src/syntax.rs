//! Dependency-tree helpers over a [`ParsedText`]: children, subtrees, sentence roots and the
//! character offsets of token ranges — what the MT4MRC relations need to find a question's
//! subject, root verb or adverbial (spaCy's `token.children`, `token.subtree`, `sent.root`).

use std::ops::Range;

use metamorph_data::{ParsedText, Token};

/// The token ranges inside quotation marks, each opening quote paired with the next closing
/// one: PTB's `` `` `` (which the tokenizer may split into two `` ` ``) or a curly quote, or a
/// straight quote with no space after it, closed by `''`, a curly or a straight quote. What is
/// quoted is cited, not composed: a relation must not change it.
pub fn quotations(tokens: &[Token]) -> Vec<Range<usize>> {
    let opening = |t: &Token| {
        matches!(t.text.as_str(), "``" | "`" | "\u{201c}")
            || (t.text == "\"" && t.whitespace.is_empty())
    };
    let closing = |t: &Token| matches!(t.text.as_str(), "''" | "\u{201d}" | "\"");
    let mut spans = Vec::new();
    let mut open: Option<usize> = None;
    for (j, t) in tokens.iter().enumerate() {
        match open {
            None if opening(t) => open = Some(j),
            Some(o) if closing(t) => {
                spans.push(o + 1..j);
                open = None;
            }
            _ => {}
        }
    }
    spans
}

/// A read-only view of one parsed text as a dependency forest.
#[derive(Clone, Copy, Debug)]
pub struct Tree<'a> {
    parsed: &'a ParsedText,
}

impl<'a> Tree<'a> {
    /// The tree of `parsed`.
    pub fn new(parsed: &'a ParsedText) -> Self {
        Tree { parsed }
    }

    /// The parsed text.
    pub fn parsed(&self) -> &'a ParsedText {
        self.parsed
    }

    /// The tokens.
    pub fn tokens(&self) -> &'a [Token] {
        &self.parsed.tokens
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.parsed.tokens.len()
    }

    /// Whether there are no tokens.
    pub fn is_empty(&self) -> bool {
        self.parsed.tokens.is_empty()
    }

    /// Token `i`.
    pub fn token(&self, i: usize) -> &'a Token {
        &self.parsed.tokens[i]
    }

    /// The syntactic head of token `i` (itself for a root).
    pub fn head(&self, i: usize) -> usize {
        self.parsed.tokens[i].head as usize
    }

    /// The token ranges of the sentences.
    pub fn sentences(&self) -> impl Iterator<Item = Range<usize>> + 'a {
        self.parsed
            .sentences
            .iter()
            .map(|s| s.start as usize..s.end as usize)
    }

    /// The sentence containing token `i`.
    pub fn sentence_of(&self, i: usize) -> Range<usize> {
        self.sentences()
            .find(|s| s.contains(&i))
            .unwrap_or(0..self.len())
    }

    /// The root of the sentence `sentence` (the first token that heads itself).
    pub fn root(&self, sentence: Range<usize>) -> Option<usize> {
        sentence.into_iter().find(|&i| self.head(i) == i)
    }

    /// The children of token `i`, left to right.
    pub fn children(&self, i: usize) -> impl Iterator<Item = usize> + 'a {
        let tokens = &self.parsed.tokens;
        let sentence = self.sentence_of(i);
        sentence.filter(move |&c| c != i && tokens[c].head as usize == i)
    }

    /// The first child of `i` whose dependency label is one of `deps`, trying the labels in the
    /// order given (spaCy-era scripts look for `nsubj` before `nsubjpass`, …).
    pub fn child_with_dep(&self, i: usize, deps: &[&str]) -> Option<usize> {
        deps.iter()
            .find_map(|dep| self.children(i).find(|&c| self.token(c).dep == *dep))
    }

    /// Token `i` and its heads up to its sentence's root, nearest first. Heads form a tree
    /// per sentence; the step bound guards against a malformed input.
    pub fn path_to_root(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let mut next = Some(i);
        let mut steps = 0;
        std::iter::from_fn(move || {
            let current = next?;
            steps += 1;
            let head = self.head(current);
            next = (head != current && steps <= self.len()).then_some(head);
            Some(current)
        })
    }

    /// Whether `i` lies in the subtree of `ancestor` (a token is in its own subtree).
    pub fn is_descendant(&self, i: usize, ancestor: usize) -> bool {
        self.path_to_root(i).any(|j| j == ancestor)
    }

    /// The token range covered by the subtree of `i` (spaCy's `left_edge..=right_edge`).
    pub fn subtree(&self, i: usize) -> Range<usize> {
        let sentence = self.sentence_of(i);
        let mut lo = i;
        let mut hi = i;
        for t in sentence {
            if self.is_descendant(t, i) {
                lo = lo.min(t);
                hi = hi.max(t);
            }
        }
        lo..hi + 1
    }

    /// Character offsets `[start, end)` of tokens `range` in the text (trailing whitespace of
    /// the last token excluded).
    pub fn char_span(&self, range: Range<usize>) -> (usize, usize) {
        let tokens = &self.parsed.tokens;
        if range.is_empty() {
            let at = tokens
                .get(range.start)
                .map(|t| t.start as usize)
                .unwrap_or_else(|| self.parsed.text.chars().count());
            return (at, at);
        }
        (
            tokens[range.start].start as usize,
            tokens[range.end - 1].end as usize,
        )
    }

    /// The text of tokens `range`, with their original whitespace between them.
    pub fn text(&self, range: Range<usize>) -> String {
        let mut out = String::new();
        let end = range.end;
        for i in range {
            out.push_str(&self.parsed.tokens[i].text);
            if i + 1 < end {
                out.push_str(&self.parsed.tokens[i].whitespace);
            }
        }
        out
    }

    /// The lower-cased text of token `i`.
    pub fn lower(&self, i: usize) -> String {
        self.parsed.tokens[i].text.to_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::TokenSpan;

    /// "is the sky blue" with a hand-written copular parse: root "is".
    fn parsed() -> ParsedText {
        let words = [
            ("is", "AUX", "VBZ", "ROOT", 0),
            ("the", "DET", "DT", "det", 2),
            ("sky", "NOUN", "NN", "nsubj", 0),
            ("blue", "ADJ", "JJ", "acomp", 0),
        ];
        let mut at = 0;
        let tokens = words
            .iter()
            .enumerate()
            .map(|(i, (w, pos, tag, dep, head))| {
                let start = at;
                at += w.len() as u32 + 1;
                Token {
                    text: w.to_string(),
                    whitespace: if i + 1 < words.len() { " " } else { "" }.into(),
                    lemma: w.to_string(),
                    pos: pos.to_string(),
                    tag: tag.to_string(),
                    morph: String::new(),
                    dep: dep.to_string(),
                    head: *head,
                    ent_iob: "O".into(),
                    ent_type: String::new(),
                    start,
                    end: start + w.len() as u32,
                }
            })
            .collect();
        ParsedText {
            id: "q".into(),
            field: "question".into(),
            text: "is the sky blue".into(),
            tokens,
            sentences: vec![TokenSpan { start: 0, end: 4 }],
            noun_chunks: vec![],
            phrases: vec![],
        }
    }

    #[test]
    fn navigation() {
        let p = parsed();
        let t = Tree::new(&p);
        assert_eq!(t.root(0..4), Some(0));
        assert_eq!(t.children(0).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(t.child_with_dep(0, &["csubj", "nsubj"]), Some(2));
        assert_eq!(t.subtree(2), 1..3);
        assert_eq!(t.subtree(0), 0..4);
        assert_eq!(t.char_span(1..3), (3, 10));
        assert_eq!(t.text(1..3), "the sky");
        assert!(t.is_descendant(1, 0) && !t.is_descendant(3, 2));
    }
}
