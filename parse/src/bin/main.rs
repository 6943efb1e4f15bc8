//! `metamorph-parse`: annotate `example` Parquet shards with a spaCy pipeline (pure Rust).

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{load_config, run_stage, stage_main, StageArgs};
use metamorph_parse::stage::{ParseConfig, ParseStage};

/// Tokenise, tag, parse and recognise entities in examples (reads `example`, writes `parsed`).
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    stage: StageArgs,
    /// The spaCy pipeline (overrides `[parse] model`): `asset:en_core_web_sm`, a directory, or a
    /// hub repo such as `spacy/en_core_web_sm`.
    #[arg(long, value_name = "SOURCE")]
    model: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let args = &cli.stage;
    stage_main(args, || {
        let file = load_config(args)?;
        let mut config: ParseConfig = file.section("parse")?;
        if let Some(model) = &cli.model {
            config.model.clone_from(model);
        }
        let settings = file
            .fingerprint(&["parse"])
            .with_setting("--model", cli.model.as_deref().unwrap_or_default());
        run_stage(args, "parse", &[], settings, || {
            let stage = ParseStage::try_new(&config)?;
            tracing::info!(pipeline = stage.pipeline().name(), components = ?stage.pipeline().component_names(), "parse");
            Ok(Arc::new(stage))
        })
    })
}
