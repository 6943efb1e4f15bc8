//! A pure-Rust inference port of spaCy v3 trained pipelines (`en_core_web_sm` 3.8.0 first).
//!
//! The pipeline directory is read unchanged: `config.cfg`, `meta.json`, `tokenizer`, `vocab/`
//! and each component's `model`, `cfg`, `moves` and lookup files ([`pipeline::Pipeline::load`]).
//! One module per spaCy piece: [`tokenizer`], [`lexeme`] (NORM/PREFIX/SUFFIX/SHAPE and the
//! string ids that [`hash`] computes), [`tok2vec`], [`tagger`], [`parser`] with the
//! [`transition`] systems (arc-eager, BILUO, pseudo-projective decoding), [`attribute_ruler`]
//! with its [`matcher`], [`lemmatizer`] (with [`morph`]), and [`msgpack`] for the weights.
//!
//! Decisions recorded here:
//! * **Exactness over re-design.** Where spaCy or thinc has a quirk that changes output —
//!   symbol ids instead of hashes for strings like `number`, zero pad rows between documents
//!   that pass through the encoder, stale subtree edges during deprojectivisation, the
//!   attribute ruler's `DEP = dep` for whitespace — it is reproduced and named in the module
//!   that does it, because the parity target is spaCy's output, not a cleaner design.
//! * **Batches, not documents.** Every neural layer runs once per batch as one SGEMM
//!   (`matrixmultiply`, no BLAS to install); parser states of a batch are scored together.
//!   Batches run on rayon's pool, so results never depend on batching or thread count.
//! * **No hub-only features.** Pipelines with other factories (e.g. `transformer`,
//!   `morphologizer`, `entity_ruler`, an enabled `senter`) fail to load with a message naming
//!   the component, rather than annotating partially.

pub mod attribute_ruler;
pub mod doc;
pub mod hash;
pub mod lemmatizer;
pub mod lexeme;
pub mod linalg;
pub mod matcher;
pub mod morph;
pub mod msgpack;
pub mod packed;
pub mod parser;
pub mod pipeline;
pub mod sgemm;
mod symbols;
pub mod tagger;
pub mod tok2vec;
pub mod tokenizer;
pub mod transition;

use std::path::{Path, PathBuf};

pub use doc::{Doc, EntIob, Token};

/// A pipeline file that cannot be used: which file, and what is wrong with it.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct LoadError {
    /// The offending file (or directory).
    pub path: PathBuf,
    /// What is wrong, naming the field where there is one.
    pub message: String,
}

impl LoadError {
    /// An error about `path`.
    pub fn new(path: &Path, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}
