//! The library behind `cargo xtask`: the in-process pipeline that runs every stage over the
//! configured datasets (the main job), so that tests can drive it as a user would.
//!
//! Decisions recorded here: each dataset is processed in `shards` units; a unit streams the
//! dataset's rows of its shard through `perturb → execute → judge` over bounded channels and
//! writes `example`, `case`, `prediction` and `verdict` Parquet files under
//! `<output>/<dataset>/<kind>/`, then a manifest; a re-run skips units whose manifest exists.
//! Models are started once per run and shared by all units. `summary.json` is rebuilt at the
//! end from every verdict file, so resumed units count too, and so is `report.html`.
//! [`report_check`] renders that report in headless Chromium (`cargo xtask report-check`);
//! [`gpu_kit`] builds the cuda binaries and the GPU kit (`cargo xtask cuda`, `cargo xtask gpu-kit`).
#![deny(missing_docs)]

pub mod gpu_kit;
mod pipeline;
pub mod report_check;

pub use pipeline::{
    check_config, run_pipeline, DatasetEntry, PipelineConfig, PipelineOptions, PipelineReport,
};
