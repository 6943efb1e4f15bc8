//! The one builder of SIT4RE's entity pools from a relation dataset, used by the pipeline (each
//! relation dataset's own pool), `metamorph preview` and `metamorph pool`.

use std::path::Path;

use metamorph_data::{DatasetFormat, DatasetReader, Example, ReadOptions, Result};
use metamorph_parse::spacy::pipeline::Pipeline;
use metamorph_perturb::lexicon::entity_pool::EntityPool;

/// Reads `limit` examples (all when `None`) of the dataset file at `path`.
///
/// # Errors
/// Dataset errors naming the file and the record.
pub fn read_examples(
    path: &Path,
    format: DatasetFormat,
    limit: Option<usize>,
    skip_bad: bool,
) -> Result<Vec<Example>> {
    let reader = DatasetReader::open(
        path,
        format,
        ReadOptions::default()
            .with_skip_bad(skip_bad)
            .with_limit(limit),
    )?;
    reader.examples().collect()
}

/// Whether some example's head and tail carry no gold entity type, so that the pool needs the
/// NER (FewRel) — callers load a parser only then.
pub fn needs_ner(examples: &[Example]) -> bool {
    examples.iter().any(|example| {
        ![&example.head, &example.tail]
            .into_iter()
            .flatten()
            .any(|s| s.entity_type.is_some())
    })
}

/// Builds `dataset`'s entity pool from its examples (gold typed spans; the NER of `parser` for
/// untyped ones) and saves it at `path` (written to a temporary name and renamed, so an
/// interrupted build leaves no partial pool).
///
/// # Errors
/// NER failures, IO errors naming the file.
pub fn build_entity_pool(
    dataset: &str,
    examples: &[Example],
    parser: Option<&Pipeline>,
    path: &Path,
) -> Result<EntityPool> {
    let pool = EntityPool::from_examples(examples, parser)?;
    pool.save_json(path)?;
    tracing::info!(dataset, entries = pool.len(), source = pool.source(), path = %path.display(), "entity pool");
    Ok(pool)
}
