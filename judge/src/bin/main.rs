//! `metamorph-judge`: judge `case` shards against `prediction` files and update `summary.json`
//! and `report.html`; `report` re-renders a run's report; `diff` compares two runs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use metamorph_data::{
    expand_inputs, file_kind, init_logging, report_error, run_stage, stage_main, RecordKind,
    StageArgs,
};
use metamorph_judge::{
    read_verdicts, JudgeStage, Report, RunDiff, Summary, DEFAULT_MAX_REGRESSION,
};

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
    /// Rebuild `summary.json` and `report.html` of a run directory from its verdicts (and cases,
    /// for the examples): `<RUN_DIR>/verdict/` or `<RUN_DIR>/<dataset>/verdict/`.
    Report {
        /// The run directory (a judge `--output` or a pipeline output).
        run_dir: PathBuf,
        /// More `case` files for the examples (a glob, quoted; repeatable), when the run's
        /// cases are not under RUN_DIR (e.g. the judge's `--input`).
        #[arg(long, value_name = "GLOB")]
        cases: Vec<String>,
        /// Only print warnings and errors.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Compare two runs' violation rates. Exit status: 0 no regression above the threshold,
    /// 1 at least one, 2 an error (e.g. a missing summary).
    Diff {
        /// Run A (the baseline): a run directory holding `summary.json`, or the file itself.
        run_a: PathBuf,
        /// Run B (the candidate).
        run_b: PathBuf,
        /// A rise of a violation rate (absolute, 0.05 = 5 points) beyond its 95% interval that
        /// fails the check.
        #[arg(long, default_value_t = DEFAULT_MAX_REGRESSION, value_name = "RATE")]
        max_regression: f64,
        /// Print the rows as JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match (cli.command, cli.stage) {
        (
            Some(Command::Report {
                run_dir,
                cases,
                quiet,
            }),
            _,
        ) => {
            init_logging(quiet);
            match report(&run_dir, &cases) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => report_error(&e),
            }
        }
        (
            Some(Command::Diff {
                run_a,
                run_b,
                max_regression,
                json,
            }),
            _,
        ) => diff(&run_a, &run_b, max_regression, json),
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

fn report(run_dir: &Path, cases: &[String]) -> metamorph_data::Result<()> {
    if !run_dir.is_dir() {
        return Err(metamorph_data::Error::Config(format!(
            "{}: not a directory",
            run_dir.display()
        )));
    }
    let more = if cases.is_empty() {
        Vec::new()
    } else {
        expand_inputs(cases)?
    };
    let report = Report::from_run_dir_with_cases(run_dir, &more)?;
    let (summary, html) = report.write_all(run_dir)?;
    print!("{}", report.summary.table());
    println!(
        "summary: {}\nreport:  {}",
        summary.display(),
        html.display()
    );
    Ok(())
}

fn summary_path(run: &Path) -> PathBuf {
    if run.is_dir() {
        run.join("summary.json")
    } else {
        run.to_path_buf()
    }
}

fn diff(a: &Path, b: &Path, max_regression: f64, json: bool) -> ExitCode {
    if !(0.0..=1.0).contains(&max_regression) {
        eprintln!("error: --max-regression must be between 0 and 1 (a rate), got {max_regression}");
        return ExitCode::from(2);
    }
    let read = |p: &Path| Summary::read(&summary_path(p));
    let (sa, sb) = match (read(a), read(b)) {
        (Ok(sa), Ok(sb)) => (sa, sb),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let d = RunDiff::new(&sa, &sb);
    if json {
        match serde_json::to_string_pretty(&d) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        println!(
            "A: {}\nB: {}",
            summary_path(a).display(),
            summary_path(b).display()
        );
        print!("{}", d.table(max_regression));
    }
    if d.regressions(max_regression).is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
