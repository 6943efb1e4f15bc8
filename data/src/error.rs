//! The crate's one error type.

use std::path::PathBuf;

/// Result alias used throughout `metamorph-data` and the stage crates built on it.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while reading, converting, writing or running records.
///
/// Messages are short and lowercase; the `Display` of a variant names the file, the place in
/// it (line, row or JSON path) and the field whenever the error comes from input data.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be opened, read, written or renamed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying IO error.
        source: std::io::Error,
    },
    /// A record in an input file is malformed (bad JSON, missing or wrongly typed field, …).
    #[error("{}:{location}: field `{field}`: {message}", path.display())]
    Malformed {
        /// The input file.
        path: PathBuf,
        /// Where in the file: `line 12`, `row 3` or a JSON path such as `data[0].paragraphs[2]`.
        location: String,
        /// The offending field (or `-` when the record as a whole is broken).
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// A Parquet file or Arrow batch does not hold the columns a record kind needs.
    #[error("{context}: {message}")]
    Schema {
        /// The file or stage that produced the batch.
        context: String,
        /// What does not match.
        message: String,
    },
    /// A configuration file or flag value is invalid.
    #[error("config: {0}")]
    Config(String),
    /// A model, lexicon or dataset asset could not be found or verified.
    #[error("asset `{name}`: {message}")]
    Asset {
        /// The asset's name or repo id.
        name: String,
        /// What is missing and how to get it.
        message: String,
    },
    /// A model under test failed (child process died, timed out, answered garbage, …).
    #[error("model `{model}`: {message}")]
    Model {
        /// The model's name.
        model: String,
        /// What happened.
        message: String,
    },
    /// A paid endpoint's budget (`max_total_tokens`, `max_requests`) is spent: the run stops
    /// cleanly; what was answered is in the response cache, so a run with a larger budget goes
    /// on from there.
    #[error("budget of `{model}`: {message}")]
    Budget {
        /// The model's or generator's name.
        model: String,
        /// What was spent.
        message: String,
    },
    /// A stage of the runner failed; wraps the stage's own error.
    #[error("stage `{stage}`: {source}")]
    Stage {
        /// The stage's name.
        stage: String,
        /// The error it returned.
        source: Box<Error>,
    },
    /// An error with the unit of work it happened in (e.g. a dataset and shard of the pipeline).
    #[error("{context}: {source}")]
    Context {
        /// Where: `dataset `boolq` shard 1/2`.
        context: String,
        /// The error.
        source: Box<Error>,
    },
    /// The run was interrupted (Ctrl-C / SIGTERM) before it finished.
    #[error("interrupted")]
    Interrupted,
    /// An Arrow error outside any input file (e.g. building a batch).
    #[error("arrow: {0}")]
    Arrow(#[from] arrow::error::ArrowError),
    /// A Parquet encoding or decoding error.
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// A conversion between typed records and Arrow arrays failed.
    #[error("record conversion: {0}")]
    Convert(#[from] serde_arrow::Error),
}

impl Error {
    /// An IO error for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// A malformed-record error for `path` at `location`, field `field`.
    pub fn malformed(
        path: impl Into<PathBuf>,
        location: impl Into<String>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Malformed {
            path: path.into(),
            location: location.into(),
            field: field.into(),
            message: message.into(),
        }
    }

    /// Wraps this error as having happened in stage `stage` (idempotent for the same stage).
    pub fn in_stage(self, stage: &str) -> Self {
        match self {
            Error::Stage { stage: s, source } if s == stage => Error::Stage { stage: s, source },
            Error::Interrupted => Error::Interrupted,
            other => Error::Stage {
                stage: stage.to_string(),
                source: Box::new(other),
            },
        }
    }

    /// Adds the unit of work the error happened in; interruptions stay bare.
    pub fn context(self, context: impl Into<String>) -> Self {
        match self {
            Error::Interrupted => Error::Interrupted,
            other => Error::Context {
                context: context.into(),
                source: Box::new(other),
            },
        }
    }

    /// True when the error (or the error it wraps) is a spent [`Error::Budget`].
    pub fn is_budget(&self) -> bool {
        match self {
            Error::Budget { .. } => true,
            Error::Stage { source, .. } | Error::Context { source, .. } => source.is_budget(),
            _ => false,
        }
    }

    /// True when the error (or the error it wraps) is an interruption.
    pub fn is_interrupted(&self) -> bool {
        match self {
            Error::Interrupted => true,
            Error::Stage { source, .. } | Error::Context { source, .. } => source.is_interrupted(),
            _ => false,
        }
    }
}
