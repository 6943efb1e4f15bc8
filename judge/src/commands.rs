//! The judge's two commands over finished runs, shared by `metamorph-judge` and `metamorph`:
//! [`report`] rebuilds a run's `summary.json` and `report.html`; [`diff`] compares two runs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use metamorph_data::{expand_inputs, Error, Result};

use crate::{Report, RunDiff, Summary, DEFAULT_MAX_REGRESSION};

/// Rebuild `summary.json` and `report.html` of a run directory from its verdicts (and cases,
/// for the examples): `<RUN_DIR>/verdict/` or `<RUN_DIR>/<dataset>/verdict/`.
#[derive(Clone, Debug, clap::Args)]
pub struct ReportArgs {
    /// The run directory (a judge `--output` or a pipeline output).
    pub run_dir: PathBuf,
    /// More `case` files for the examples (a glob, quoted; repeatable), when the run's cases
    /// are not under RUN_DIR (e.g. the judge's `--input`).
    #[arg(long, value_name = "GLOB")]
    pub cases: Vec<String>,
    /// Only print warnings and errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Compare two runs' violation rates. Exit status: 0 no regression above the threshold, 1 at
/// least one, 2 an error (e.g. a missing summary).
#[derive(Clone, Debug, clap::Args)]
pub struct DiffArgs {
    /// Run A (the baseline): a run directory holding `summary.json`, or the file itself.
    pub run_a: PathBuf,
    /// Run B (the candidate).
    pub run_b: PathBuf,
    /// A rise of a violation rate (absolute, 0.05 = 5 points) beyond its 95% interval that
    /// fails the check.
    #[arg(long, default_value_t = DEFAULT_MAX_REGRESSION, value_name = "RATE")]
    pub max_regression: f64,
    /// Print the rows as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Rebuilds the report of `args.run_dir` and prints its table and where it wrote.
///
/// # Errors
/// A run directory that is not one, unreadable verdicts or cases, IO errors.
pub fn report(args: &ReportArgs) -> Result<()> {
    let run_dir = &args.run_dir;
    if !run_dir.is_dir() {
        return Err(Error::Config(format!(
            "{}: not a directory",
            run_dir.display()
        )));
    }
    let more = if args.cases.is_empty() {
        Vec::new()
    } else {
        expand_inputs(&args.cases)?
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

/// A run's `summary.json`: `run` itself, or the file in the folder `run`.
fn summary_path(run: &Path) -> PathBuf {
    if run.is_dir() {
        run.join("summary.json")
    } else {
        run.to_path_buf()
    }
}

/// Prints the comparison of two runs; the exit status says whether a rate rose beyond the
/// threshold (1), nothing did (0), or the comparison failed (2).
pub fn diff(args: &DiffArgs) -> ExitCode {
    let (a, b, max_regression) = (&args.run_a, &args.run_b, args.max_regression);
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
    if args.json {
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
