//! The `parse` stage: `example` batches in, `parsed` batches out (one row per example and
//! non-empty text field).

use std::path::PathBuf;

use arrow::array::RecordBatch;
use metamorph_data::assets::{resolve, HubOptions, ModelSource};
use metamorph_data::{
    from_batch, Emitter, Error, Example, RecordBuilder, RecordKind, Result, Stage,
};
use serde::Deserialize;

use crate::spacy::pipeline::{Pipeline, TextError, DEFAULT_MAX_LENGTH};
use crate::to_parsed_text;

/// Files a spaCy pipeline directory must hold for this port (fetched one by one from a hub).
/// `config.cfg` comes first: the hub resolver returns the folder of the first file.
pub const PIPELINE_FILES: &[&str] = &[
    "config.cfg",
    "meta.json",
    "tokenizer",
    "vocab/strings.json",
    "vocab/lookups.bin",
    "tok2vec/model",
    "tagger/cfg",
    "tagger/model",
    "parser/model",
    "parser/moves",
    "attribute_ruler/patterns",
    "lemmatizer/lookups/lookups.bin",
    "ner/model",
    "ner/moves",
];

/// The `[parse]` table of the config file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ParseConfig {
    /// The spaCy pipeline: `asset:en_core_web_sm` (default), a local directory, or a hub repo
    /// (`spacy/en_core_web_sm`, `hf:ORG/NAME@REVISION`).
    pub model: String,
    /// Documents per internal batch (each batch is one set of matrix products).
    pub batch_size: usize,
    /// Longest text accepted, in characters (spaCy's `nlp.max_length`).
    pub max_length: usize,
    /// Text fields to parse.
    pub fields: Vec<String>,
    /// Use only the local hub cache.
    pub offline: bool,
    /// Hub cache directory.
    pub cache_dir: Option<PathBuf>,
}

impl Default for ParseConfig {
    fn default() -> Self {
        ParseConfig {
            model: "asset:en_core_web_sm".into(),
            batch_size: 64,
            max_length: DEFAULT_MAX_LENGTH,
            fields: ["context", "question", "text", "text_b"]
                .map(String::from)
                .to_vec(),
            offline: false,
            cache_dir: None,
        }
    }
}

/// Annotates every configured text field of every example.
pub struct ParseStage {
    pipeline: Pipeline,
    fields: Vec<String>,
}

fn field_text<'a>(example: &'a Example, field: &str) -> Option<&'a str> {
    match field {
        "context" => example.context.as_deref(),
        "question" => example.question.as_deref(),
        "text" => example.text.as_deref(),
        "text_b" => example.text_b.as_deref(),
        "title" => example.title.as_deref(),
        _ => None,
    }
}

impl ParseStage {
    /// Resolves and loads the configured pipeline.
    ///
    /// # Errors
    /// [`Error::Config`] for an unknown field, [`Error::Asset`] when the pipeline cannot be
    /// found, [`Error::Model`] when its files cannot be loaded.
    pub fn try_new(config: &ParseConfig) -> Result<Self> {
        for field in &config.fields {
            if !["context", "question", "text", "text_b", "title"].contains(&field.as_str()) {
                return Err(Error::Config(format!(
                    "[parse] fields: unknown text field `{field}` (expected context, question, text, text_b, title)"
                )));
            }
        }
        let source: ModelSource = config.model.parse().map_err(Error::Config)?;
        let hub = HubOptions {
            offline: config.offline,
            cache_dir: config.cache_dir.clone(),
        };
        let dir = resolve(&source, PIPELINE_FILES, &hub)?;
        let mut pipeline = Pipeline::load(&dir).map_err(|e| Error::Model {
            model: source.to_string(),
            message: e.to_string(),
        })?;
        pipeline.batch_size = config.batch_size.max(1);
        pipeline.max_length = config.max_length;
        Ok(ParseStage {
            pipeline,
            fields: config.fields.clone(),
        })
    }

    /// The loaded pipeline.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// The loaded pipeline, owned (for a step that re-parses text, such as validation).
    pub fn into_pipeline(self) -> Pipeline {
        self.pipeline
    }
}

impl Stage for ParseStage {
    fn name(&self) -> &str {
        "parse"
    }

    fn consumes(&self) -> &[RecordKind] {
        &[RecordKind::Example]
    }

    fn produces(&self) -> &[RecordKind] {
        &[RecordKind::Parsed]
    }

    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        let examples: Vec<Example> = from_batch(&batch, "parse input")?;
        let mut keys = Vec::new();
        let mut texts = Vec::new();
        for example in &examples {
            for field in &self.fields {
                if let Some(text) = field_text(example, field).filter(|t| !t.is_empty()) {
                    keys.push((example.id.as_str(), field.as_str()));
                    texts.push(text);
                }
            }
        }
        let docs = self.pipeline.process(&texts).map_err(|TextError::TooLong { index, chars, max }| {
            let (id, field) = keys[index];
            Error::Model {
                model: self.pipeline.name().to_string(),
                message: format!(
                    "example `{id}`: field `{field}`: text has {chars} characters, more than max_length {max} ([parse] max_length)"
                ),
            }
        })?;
        let mut rows = RecordBuilder::new();
        for ((id, field), doc) in keys.iter().zip(&docs) {
            rows.append(to_parsed_text(id, field, doc));
        }
        if !rows.is_empty() {
            emit.emit(rows.finish()?)?;
        }
        // The examples go on to the next stage (perturb reads them too).
        emit.emit(batch)
    }
}
