//! `metamorph-execute`: run the configured models on `case` Parquet shards.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{init_logging, load_config, report_error, run_stage, StageArgs};
use metamorph_execute::{ExecuteConfig, ExecuteStage};

/// Run the models under test on every source and follow-up input (reads `case`, writes
/// `prediction`). Models are configured in the `[[execute.models]]` tables of `--config`.
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
        let config: ExecuteConfig = load_config(&cli.stage)?.section("execute")?;
        let base = cli
            .stage
            .config
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."));
        let stage = ExecuteStage::from_config(&config, base)?;
        run_stage(&cli.stage, Arc::new(stage), &[])
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_error(&e),
    }
}
