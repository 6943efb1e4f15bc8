//! `metamorph-validate`: score the follow-ups of `case` Parquet shards; passing cases are written
//! as `case` (with their validity), failing ones as `rejected` (or every case as `case` with
//! `mode = "flag"`).

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{load_config, run_stage, stage_main, StageArgs};
use metamorph_parse::stage::{ParseConfig, ParseStage};
use metamorph_validate::{ValidateConfig, ValidateStage, Validator};

/// Score every follow-up (meaning, structure, fluency, spans) and set the failing ones aside
/// (reads `case`, writes `case` and `rejected`).
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    stage: StageArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let args = &cli.stage;
    stage_main(args, || {
        let file = load_config(args)?;
        let config: ValidateConfig = file.section("validate")?;
        let parse: ParseConfig = file.section("parse")?;
        config.check()?;
        run_stage(
            args,
            "validate",
            &[],
            file.fingerprint(&["validate", "parse"]),
            || {
                let parser = Arc::new(ParseStage::try_new(&parse)?.into_pipeline());
                let validator = Validator::load(&config, parser)?;
                tracing::info!(encoder = %config.encoder, mode = ?config.mode, "validate");
                Ok(Arc::new(ValidateStage::new(Arc::new(validator))))
            },
        )
    })
}
