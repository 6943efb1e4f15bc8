//! `metamorph-judge`: judge `case` shards against `prediction` files and update `summary.json`.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use metamorph_data::{init_logging, report_error, run_stage, RecordKind, StageArgs};
use metamorph_judge::{JudgeStage, Summary};

/// Judge metamorphic cases (reads `case` and `prediction`, writes `verdict` and
/// `<output>/summary.json`). Pass both kinds to `--input`, e.g.
/// `--input 'out/case/*.parquet' --input 'out/prediction/*.parquet'`; predictions are read in
/// full, cases only for the chosen shard.
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
        run_stage(
            &cli.stage,
            Arc::new(JudgeStage::new()),
            &[RecordKind::Prediction],
        )?;
        let pattern = cli.stage.output.join("verdict").join("*.parquet");
        let summary = Summary::from_files(&pattern.to_string_lossy())?;
        let path = cli.stage.output.join("summary.json");
        summary.write(&path)?;
        eprint!("{}", summary.table());
        tracing::info!(path = %path.display(), verdict_files = summary.verdict_files, "summary written");
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_error(&e),
    }
}
