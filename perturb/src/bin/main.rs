//! `metamorph-perturb`: derive follow-up cases from `example` Parquet shards.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{load_config, run_stage, stage_main, StageArgs};
use metamorph_perturb::{PerturbConfig, PerturbStage};

/// Derive metamorphic follow-up cases from examples (reads `example`, writes `case`).
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    stage: StageArgs,
}

fn main() -> ExitCode {
    let args = &Cli::parse().stage;
    stage_main(args, || {
        let config: PerturbConfig = load_config(args)?.section("perturb")?;
        run_stage(args, "perturb", &[], || {
            let stage = PerturbStage::try_new(&config)?;
            tracing::info!(relations = ?stage.relation_names(), "perturb");
            Ok(Arc::new(stage))
        })
    })
}
