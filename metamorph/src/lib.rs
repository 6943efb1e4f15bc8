//! metamorph: metamorphic testing of NLP models without labelled data. This crate owns the
//! orchestration — the pipeline that runs every stage crate over the configured datasets — and
//! the `metamorph` command (`metamorph --help`).
//!
//! * [`Plan`] is one run: [`Plan::load`] reads and checks the config (every table through its
//!   stage's typed config), fingerprints every dataset and loads what all units share;
//!   [`Plan::run`] runs one [`Unit`] — a dataset's shard streamed `parse → perturb → generate →
//!   validate → execute → judge` over bounded channels, each record kind written as Parquet
//!   under `<output>/<dataset>/<kind>/`, then a manifest; [`Plan::finish`] writes
//!   `summary.json` and `report.html` over every unit of this config. [`run_pipeline`] does
//!   all three.
//! * [`preview`] shows a seeded sample of what the relations do on a dataset file, optionally
//!   marked by the validity step; [`entity_pool`] is the one builder of SIT4RE's entity pools.
//!
//! Decisions recorded here: a unit whose manifest matches its fingerprint is skipped (so a
//! rerun resumes); models are started only when the first unit runs and are shared by all
//! units; the summary is rebuilt from every verdict file of the configured datasets, so
//! resumed units count too. `cargo xtask pipeline` is `metamorph run` through cargo; xtask
//! keeps only the developer chores (fixtures, book, cuda build, GPU kit, benchmarks).
#![deny(missing_docs)]

pub mod assets;
mod config;
pub mod entity_pool;
mod plan;
pub mod preview;
mod run_table;
mod step_qa;
mod unit;

pub use config::{check_config, DatasetEntry, PipelineConfig, CONFIG_SECTIONS, STAGES};
pub use plan::{run_pipeline, PipelineOptions, PipelineReport, Plan, Unit, UnitOutcome};
pub use run_table::render_run;
