//! A pure-Rust inference port of spaCy v3 trained pipelines (`en_core_web_sm` 3.8.0 first).
//!
//! The pipeline directory is read unchanged: `config.cfg`, `meta.json`, `tokenizer`, `vocab/`
//! and each component's `model`, `cfg` and `moves` files.

pub mod attribute_ruler;
pub mod doc;
pub mod hash;
pub mod lemmatizer;
pub mod lexeme;
pub mod linalg;
pub mod matcher;
pub mod morph;
pub mod msgpack;
pub mod parser;
pub mod pipeline;
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
