//! `metamorph-parse`: linguistic annotation of example texts into `parsed` records.
//!
//! This crate defines the contract every MR family relies on: a [`TextParser`] turns texts into
//! [`ParsedText`] rows (tokens with whitespace, lemma, POS, tag, dependency head and label,
//! entity IOB and type, character offsets; sentences; noun chunks; phrase-structure spans). The
//! pure-Rust inference port of spaCy v3 pipelines (`en_core_web_sm` 3.8.0) that implements it,
//! and the `parse` stage and binary, are the parse issue's work; nothing here pretends to parse.
#![deny(missing_docs)]

pub mod noun_chunks;
pub mod phrase;
pub mod spacy;

use metamorph_data::{ParsedText, Result};

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
