//! The library behind `cargo xtask`, the project's developer chores: [`report_check`] renders a
//! run's report in headless Chromium (`cargo xtask report-check`); [`test_setup`] prepares what
//! the tests of real components need (`cargo xtask test`, the README's test command). The pipeline itself lives in
//! the `metamorph` crate (`cargo xtask pipeline` calls it); the GPU kit's assembly in
//! `metamorph-benches` (`metamorph_benches::gpu_kit`).
#![deny(missing_docs)]

pub mod report_check;
pub mod test_setup;
