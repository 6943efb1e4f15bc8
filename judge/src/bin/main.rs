//! `metamorph-judge`: judge `case` shards against `prediction` files and update `summary.json`.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{run_stage, stage_main, RecordKind, StageArgs};
use metamorph_judge::{JudgeStage, Summary};

/// Judge metamorphic cases (reads `case` and `prediction`, writes `verdict` and
/// `<output>/summary.json`). Pass both kinds to `--input`, e.g.
/// `--input 'out/case/*.parquet' --input 'out/prediction/*.parquet'`; predictions are read in
/// full, cases only for the chosen shard.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    stage: StageArgs,
}

fn main() -> ExitCode {
    let args = &Cli::parse().stage;
    stage_main(args, || {
        run_stage(args, "judge", &[RecordKind::Prediction], || {
            Ok(Arc::new(JudgeStage::new()))
        })?;
        let pattern = args.output.join("verdict").join("*.parquet");
        let summary = Summary::from_files(&pattern.to_string_lossy())?;
        let path = args.output.join("summary.json");
        summary.write(&path)?;
        eprint!("{}", summary.table());
        tracing::info!(path = %path.display(), verdict_files = summary.verdict_files, "summary written");
        Ok(())
    })
}
