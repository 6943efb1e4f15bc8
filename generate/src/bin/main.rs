//! `metamorph-generate`: complete the generation requests of `case` Parquet shards.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{load_config, run_stage, stage_main, Error, StageArgs};
use metamorph_generate::{GenerateConfig, GenerateStage};

/// Complete the follow-ups of cases that request generation (questions from QDMR steps, QDMR
/// steps from questions), reading and writing `case` shards; with `example_steps = true` also
/// fill the QDMR steps of `example` rows. Models are configured in the `[generate]` table of
/// `--config`.
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
        let config: GenerateConfig = file.section("generate")?;
        if config.is_empty() {
            return Err(Error::Config(
                "no generation model: add [generate.question] and/or [generate.decomposition] \
                 to the --config file"
                    .into(),
            ));
        }
        let base = args
            .config
            .as_deref()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."));
        let started = std::sync::OnceLock::new();
        run_stage(
            args,
            "generate",
            &[],
            file.fingerprint(&["generate"]),
            || {
                let stage = Arc::new(GenerateStage::from_config(&config, base)?);
                let _ = started.set(stage.clone());
                Ok(stage)
            },
        )?;
        if let Some(stage) = started.get() {
            let c = stage.counts();
            tracing::info!(
                completed = c.completed,
                dropped_empty_question = c.empty_question,
                dropped_malformed_decomposition = c.malformed_decomposition,
                examples_parsed = c.examples_parsed,
                examples_malformed = c.examples_malformed,
                model_inputs = c.model_inputs,
                "generate: totals"
            );
        }
        Ok(())
    })
}
