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

/// Parses the non-empty `fields` of each of `examples` in-process with `pipeline` (what the
/// `parse` stage does), for library users and benchmarks that run relations without the stage.
///
/// # Errors
/// [`metamorph_data::Error::Model`] naming the example and field when a text is longer than the
/// pipeline's `max_length`.
pub fn parse_examples(
    pipeline: &metamorph_parse::spacy::pipeline::Pipeline,
    examples: &[Example],
    fields: &[&str],
) -> metamorph_data::Result<Vec<ParsedText>> {
    let mut keys = Vec::new();
    let mut texts = Vec::new();
    for example in examples {
        for &field in fields {
            if let Some(text) = example.field(field).filter(|t| !t.is_empty()) {
                keys.push((example.id.as_str(), field));
                texts.push(text);
            }
        }
    }
    let docs = pipeline.process(&texts).map_err(|e| {
        let metamorph_parse::spacy::pipeline::TextError::TooLong { index, .. } = &e;
        let (id, field) = keys[*index];
        metamorph_data::Error::Model {
            model: pipeline.name().to_string(),
            message: format!("example `{id}`: field `{field}`: {e}"),
        }
    })?;
    Ok(keys
        .iter()
        .zip(&docs)
        .map(|((id, field), doc)| metamorph_parse::to_parsed_text(id, field, doc))
        .collect())
}

/// Parses each of `texts` alone with `pipeline` (what relations that re-parse follow-up
/// sentences do: CREST's selection, NLPLego's keep-test); `purpose` names the caller in errors.
///
/// # Errors
/// [`metamorph_data::Error::Model`] when a text is longer than the pipeline's `max_length`.
pub fn parse_alone(
    pipeline: &metamorph_parse::spacy::pipeline::Pipeline,
    texts: &[&str],
    purpose: &str,
) -> metamorph_data::Result<Vec<ParsedText>> {
    let docs = pipeline
        .process(texts)
        .map_err(|e| metamorph_data::Error::Model {
            model: pipeline.name().to_string(),
            message: format!("{purpose}: {e}"),
        })?;
    Ok(docs
        .iter()
        .map(|d| metamorph_parse::to_parsed_text("", "text", d))
        .collect())
}
