//! `metamorph-execute`: run the configured models on `case` Parquet shards.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{load_config, run_stage, stage_main, StageArgs};
use metamorph_execute::{ExecuteConfig, ExecuteStage};

/// Run the models under test on every source and follow-up input (reads `case`, writes
/// `prediction`). Models are configured in the `[[execute.models]]` tables of `--config`.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    stage: StageArgs,
}

fn main() -> ExitCode {
    let args = &Cli::parse().stage;
    stage_main(args, || {
        let config: ExecuteConfig = load_config(args)?.section("execute")?;
        let base = args
            .config
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."));
        run_stage(args, "execute", &[], || {
            Ok(Arc::new(ExecuteStage::from_config(&config, base)?))
        })
    })
}
