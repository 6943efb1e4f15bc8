//! A source example together with the parses of its text fields: what a relation reads.

use metamorph_data::{Example, ParsedText};

/// One source example and the `parsed` records of its fields (from the `parse` stage).
///
/// Relations that need syntax ask for a field's parse with [`Source::parse`]; when it is
/// missing (the pipeline ran without `parse`), they produce no case for that source, and the
/// stage reports how many sources went unparsed.
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    /// The example.
    pub example: &'a Example,
    parses: &'a [ParsedText],
}

impl<'a> Source<'a> {
    /// `example` with the parses of its fields (rows of other examples are ignored).
    pub fn new(example: &'a Example, parses: &'a [ParsedText]) -> Self {
        Source { example, parses }
    }

    /// `example` without any parse.
    pub fn unparsed(example: &'a Example) -> Self {
        Source {
            example,
            parses: &[],
        }
    }

    /// The parse of text field `field` (`question`, `context`, `text`, `text_b`), if present
    /// and made from the field's current text.
    pub fn parse(&self, field: &str) -> Option<&'a ParsedText> {
        let text = self.example.field(field)?;
        self.parses
            .iter()
            .find(|p| p.id == self.example.id && p.field == field && p.text == text)
    }
}
