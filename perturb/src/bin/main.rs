//! `metamorph-perturb`: derive follow-up cases from `example` Parquet shards.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{init_logging, load_config, report_error, run_stage, StageArgs};
use metamorph_perturb::{PerturbConfig, PerturbStage};

/// Derive metamorphic follow-up cases from examples (reads `example`, writes `case`).
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(flatten)]
    stage: StageArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.stage.quiet);
    let run = || -> metamorph_data::Result<()> {
        let config: PerturbConfig = load_config(&cli.stage)?.section("perturb")?;
        let stage = PerturbStage::try_new(&config)?;
        tracing::info!(relations = ?stage.relation_names(), "perturb");
        run_stage(&cli.stage, Arc::new(stage), &[])
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_error(&e),
    }
}
