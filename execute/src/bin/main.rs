//! `metamorph-execute`: run the configured models on `case` Parquet shards.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{load_config, run_stage, stage_main, StageArgs, Task};
use metamorph_execute::{ExecuteConfig, ExecuteStage, ModelConfig};

/// Run the models under test on every source and follow-up input (reads `case`, writes
/// `prediction`). Models are configured in the `[[execute.models]]` tables of `--config`, or
/// `--model` names one checkpoint to run instead.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    stage: StageArgs,
    /// Run this checkpoint instead of the configured models: a directory, `asset:NAME` or
    /// `hf:ORG/NAME[@REVISION]`.
    #[arg(long, value_name = "DIR|asset:NAME|hf:ORG/NAME")]
    model: Option<String>,
    /// The kind of the `--model`: `candle` (the head its config.json names), `extractive-qa`,
    /// `sequence-classification` or `sentence-similarity`.
    #[arg(long, default_value = "candle", requires = "model")]
    kind: String,
    /// Device of the `--model`: `cpu`, `cuda:N` or `metal`.
    #[arg(long, requires = "model")]
    device: Option<String>,
    /// dtype of the `--model`: `f32`, `f16` or `bf16`.
    #[arg(long, requires = "model")]
    dtype: Option<String>,
    /// Tasks the `--model` answers (repeatable; default: all it can).
    #[arg(long = "task", value_name = "TASK", requires = "model")]
    tasks: Vec<Task>,
    /// Ask the models everything anew: neither read nor write the response cache.
    #[arg(long)]
    no_cache: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let args = &cli.stage;
    stage_main(args, || {
        let file = load_config(args)?;
        let mut config: ExecuteConfig = file.section("execute")?;
        let overrides = format!(
            "{:?} {} {:?} {:?} {:?}",
            cli.model, cli.kind, cli.device, cli.dtype, cli.tasks
        );
        let settings = file
            .fingerprint(&["execute"])
            .with_setting("--model", &overrides);
        let base = match &cli.model {
            Some(spec) => {
                // The one checkpoint replaces the configured models; its paths are the
                // working directory's.
                let mut model = ModelConfig::for_checkpoint(spec, &cli.kind)?;
                model.tasks = cli.tasks.clone();
                if let Some(checkpoint) = model.kind.checkpoint_mut() {
                    checkpoint.device = cli.device.clone();
                    checkpoint.dtype = cli.dtype.clone();
                }
                config.models = vec![model];
                Path::new(".")
            }
            None => args
                .config
                .as_deref()
                .and_then(Path::parent)
                .unwrap_or(Path::new(".")),
        };
        run_stage(args, "execute", &[], settings, || {
            Ok(Arc::new(ExecuteStage::from_config(
                &config,
                base,
                cli.no_cache,
            )?))
        })
    })
}
