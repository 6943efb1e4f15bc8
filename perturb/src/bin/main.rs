//! `metamorph-perturb`: derive follow-up cases from `example` Parquet shards (joined with their
//! `parsed` shards when given). Previews and entity pools are `metamorph preview` and
//! `metamorph pool`.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{
    expand_inputs, file_kind, load_config, run_stage, stage_main, RecordKind, StageArgs,
};
use metamorph_perturb::{PerturbConfig, PerturbStage};

/// Derive metamorphic follow-up cases from examples (reads `example` and optionally `parsed`,
/// writes `case`).
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    stage: StageArgs,
}

fn main() -> ExitCode {
    let args = Cli::parse().stage;
    stage_main(&args, || {
        let file = load_config(&args)?;
        let config: PerturbConfig = file.section("perturb")?;
        // Parsed shards, when given, are joined to their examples by id (see the stage docs).
        let expect_parses = expand_inputs(&args.input)?
            .iter()
            .map(|p| file_kind(p))
            .collect::<metamorph_data::Result<Vec<_>>>()?
            .contains(&RecordKind::Parsed);
        run_stage(
            &args,
            "perturb",
            &[],
            file.fingerprint(&["perturb"]),
            || {
                let stage = PerturbStage::try_new(&config, expect_parses)?;
                tracing::info!(relations = ?stage.relation_names(), "perturb");
                Ok(Arc::new(stage))
            },
        )
    })
}
