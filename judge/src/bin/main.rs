//! `metamorph-judge`: judge `case` shards against `prediction` files and update `summary.json`
//! and `report.html`; `report` re-renders a run's report; `diff` compares two runs.

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use metamorph_data::{
    expand_inputs, file_kind, init_logging, report_error, run_stage, stage_main, RecordKind,
    StageArgs,
};
use metamorph_judge::commands::{self, DiffArgs, ReportArgs};
use metamorph_judge::{read_verdicts, JudgeStage, Report};

/// Judge metamorphic cases (reads `case` and `prediction`, writes `verdict`,
/// `<output>/summary.json` and `<output>/report.html`). Pass both kinds to `--input`, e.g.
/// `--input 'out/case/*.parquet' --input 'out/prediction/*.parquet'`; predictions are read in
/// full, cases only for the chosen shard.
#[derive(Parser)]
#[command(
    version,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    stage: Option<StageArgs>,
}

#[derive(Subcommand)]
enum Command {
    /// Rebuild `summary.json` and `report.html` of a run directory from its verdicts.
    Report(ReportArgs),
    /// Compare two runs' violation rates (exit status 1 on a regression, 2 on an error).
    Diff(DiffArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match (cli.command, cli.stage) {
        (Some(Command::Report(args)), _) => {
            init_logging(args.quiet);
            match commands::report(&args) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => report_error(&e),
            }
        }
        (Some(Command::Diff(args)), _) => commands::diff(&args),
        (None, Some(args)) => judge(&args),
        (None, None) => {
            eprintln!("error: --input and --output are required (or a subcommand; see --help)");
            ExitCode::from(2)
        }
    }
}

fn judge(args: &StageArgs) -> ExitCode {
    stage_main(args, || {
        // The judge has no settings: its verdicts depend on its inputs alone.
        let settings = metamorph_data::Fingerprint::new(1);
        run_stage(args, "judge", &[RecordKind::Prediction], settings, || {
            Ok(Arc::new(JudgeStage::new()))
        })?;
        let pattern = args.output.join("verdict").join("*.parquet");
        let (verdicts, files) = read_verdicts(&pattern.to_string_lossy())?;
        // The examples come from the case files among the inputs (every shard's, so that the
        // report is whole whichever shard finishes last).
        let mut case_files = Vec::new();
        for path in expand_inputs(&args.input)? {
            if file_kind(&path)? == RecordKind::Case {
                case_files.push(path);
            }
        }
        let report = Report::from_verdicts(
            &verdicts,
            files,
            &case_files,
            args.output.display().to_string(),
        )?;
        let (summary, html) = report.write_all(&args.output)?;
        if !args.quiet {
            eprint!("{}", report.summary.table());
        }
        tracing::info!(summary = %summary.display(), report = %html.display(), verdict_files = files, "summary and report written");
        Ok(())
    })
}
