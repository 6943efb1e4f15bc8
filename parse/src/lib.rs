//! `metamorph-parse`: linguistic annotation of example texts into `parsed` records.
//!
//! * [`spacy`]: a pure-Rust inference port of spaCy v3 trained pipelines. It loads the pipeline
//!   directory of `en_core_web_sm` 3.8.0 unchanged and reproduces spaCy 3.8's (3.8.18's) tokenizer,
//!   tagger, dependency parser, attribute ruler, lemmatizer and entity recogniser token for token
//!   (see `parse/tests/spacy_pipeline.rs` and the README for the parity figures).
//! * [`noun_chunks`]: spaCy's English noun chunks; [`phrase`]: a constituency view derived from
//!   the dependency tree with documented head rules (labels S, SBAR, NP, VP, PP, ADJP, ADVP, …).
//! * [`stage`]: the `parse` stage (`example` → `parsed`) behind the `metamorph-parse` binary, and
//!   [`SpacyParser`], the [`TextParser`] the MR families use.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let nlp = metamorph_parse::spacy::pipeline::Pipeline::load(&metamorph_data::assets::ensure("en_core_web_sm")?)?;
//! let docs = nlp.process(&["Apple is looking at buying U.K. startup for $1 billion."])?;
//! let doc = &docs[0];
//! assert_eq!(doc.token_text(0), "Apple");
//! assert_eq!((doc.tokens[0].tag.as_str(), doc.tokens[0].dep.as_str(), doc.tokens[0].ent_type.as_str()), ("NNP", "nsubj", "ORG"));
//! assert_eq!(doc.tokens[2].lemma, "look");
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod noun_chunks;
pub mod phrase;
pub mod spacy;
pub mod stage;

use metamorph_data::{ParsedText, Result, Token, TokenSpan};

/// One text to annotate: which example and field it comes from, and the text itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextRef<'a> {
    /// The example's id.
    pub id: &'a str,
    /// The text field (`context`, `question`, `text`, `text_b`).
    pub field: &'a str,
    /// The text.
    pub text: &'a str,
}

/// Annotates texts.
pub trait TextParser: Send + Sync {
    /// The pipeline's name and version, e.g. `en_core_web_sm-3.8.0`.
    fn name(&self) -> &str;

    /// Annotates every text of `batch`, returning one [`ParsedText`] per input, in order.
    ///
    /// # Errors
    /// [`metamorph_data::Error`] naming the example and field of a text that cannot be parsed
    /// (e.g. longer than the pipeline's limit).
    fn parse_batch(&self, batch: &[TextRef<'_>]) -> Result<Vec<ParsedText>>;
}

/// Converts an annotated [`spacy::Doc`] into a `parsed` record: tokens with character offsets,
/// sentences, noun chunks and the phrase-structure view.
pub fn to_parsed_text(id: &str, field: &str, doc: &spacy::Doc) -> ParsedText {
    // Byte offset → character offset, for the tokens' `start`/`end`.
    let mut char_at = vec![0u32; doc.text.len() + 1];
    let mut chars = 0u32;
    for (byte, _) in doc.text.char_indices() {
        char_at[byte] = chars;
        chars += 1;
    }
    char_at[doc.text.len()] = chars;
    let tokens = doc
        .tokens
        .iter()
        .enumerate()
        .map(|(i, t)| Token {
            text: doc.token_text(i).to_string(),
            whitespace: if t.whitespace { " " } else { "" }.to_string(),
            lemma: t.lemma.clone(),
            pos: t.pos.clone(),
            tag: t.tag.clone(),
            morph: t.morph.clone(),
            dep: t.dep.clone(),
            head: t.head as u32,
            ent_iob: t.ent_iob.as_str().to_string(),
            ent_type: t.ent_type.clone(),
            start: char_at[t.start],
            end: char_at[t.end],
        })
        .collect();
    let span = |r: std::ops::Range<usize>| TokenSpan {
        start: r.start as u32,
        end: r.end as u32,
    };
    ParsedText {
        id: id.to_string(),
        field: field.to_string(),
        text: doc.text.clone(),
        tokens,
        sentences: doc.sentences().into_iter().map(span).collect(),
        noun_chunks: noun_chunks::noun_chunks(doc)
            .into_iter()
            .map(span)
            .collect(),
        phrases: phrase::phrase_structure(doc).to_phrases(),
    }
}

/// A spaCy pipeline as a [`TextParser`].
pub struct SpacyParser {
    pipeline: spacy::pipeline::Pipeline,
}

impl SpacyParser {
    /// Wraps a loaded pipeline.
    pub fn new(pipeline: spacy::pipeline::Pipeline) -> Self {
        Self { pipeline }
    }
}

impl TextParser for SpacyParser {
    fn name(&self) -> &str {
        self.pipeline.name()
    }

    fn parse_batch(&self, batch: &[TextRef<'_>]) -> Result<Vec<ParsedText>> {
        let texts: Vec<&str> = batch.iter().map(|t| t.text).collect();
        let docs = self.pipeline.process(&texts).map_err(|spacy::pipeline::TextError::TooLong { index, chars, max }| {
            metamorph_data::Error::Model {
                model: self.pipeline.name().to_string(),
                message: format!(
                    "example `{}`: field `{}`: text has {chars} characters, more than max_length {max}",
                    batch[index].id, batch[index].field
                ),
            }
        })?;
        Ok(batch
            .iter()
            .zip(&docs)
            .map(|(t, doc)| to_parsed_text(t.id, t.field, doc))
            .collect())
    }
}
