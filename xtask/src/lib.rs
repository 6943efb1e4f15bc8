//! The library behind `cargo xtask`, the project's developer chores: [`report_check`] renders a
//! run's report in headless Chromium (`cargo xtask report-check`). The pipeline itself lives in
//! the `metamorph` crate (`cargo xtask pipeline` calls it); the GPU kit's assembly in
//! `metamorph-benches` (`metamorph_benches::gpu_kit`).
#![deny(missing_docs)]

pub mod report_check;
