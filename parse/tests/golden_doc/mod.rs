//! Builds a [`Doc`] from a golden spaCy annotation, for the syntax-view tests.
#![allow(dead_code)]

use metamorph_parse::spacy::{Doc, Token};

use crate::common::GoldenDoc;

/// The golden document as a [`Doc`]: byte offsets from concatenating words and single spaces;
/// tag, pos, lemma, dep, head and sentence starts copied.
pub fn to_doc(g: &GoldenDoc) -> Doc {
    let mut text = String::new();
    let mut tokens = Vec::with_capacity(g.words.len());
    for (i, w) in g.words.iter().enumerate() {
        let start = text.len();
        text.push_str(w);
        let end = text.len();
        if g.ws[i] {
            text.push(' ');
        }
        tokens.push(Token {
            start,
            end,
            whitespace: g.ws[i],
            tag: g.tag[i].clone(),
            pos: g.pos[i].clone(),
            lemma: g.lemma[i].clone(),
            dep: g.dep[i].clone(),
            head: g.head[i],
            sent_start: g.sent_start[i],
            ..Token::default()
        });
    }
    Doc { text, tokens }
}
