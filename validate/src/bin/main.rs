//! `metamorph-validate`: score the follow-ups of `case` Parquet shards; passing cases are written
//! as `case` (with their validity), failing ones as `rejected` (or every case as `case` with
//! `mode = "flag"`). `metamorph-validate calibrate` measures the checks on labelled follow-ups.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use metamorph_data::{init_logging, load_config, report_error, run_stage, stage_main, StageArgs};
use metamorph_parse::stage::ParseConfig;
use metamorph_validate::calibration::{read_labelled, report};
use metamorph_validate::{ValidateConfig, ValidateStage, Validator};

/// Score every follow-up (meaning, structure, fluency, spans) and set the failing ones aside
/// (reads `case`, writes `case` and `rejected`).
#[derive(Parser)]
#[command(version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    stage: Option<StageArgs>,
}

#[derive(Subcommand)]
enum Command {
    /// Choose thresholds on half of a labelled set of follow-ups (TSVs of `metamorph-perturb
    /// preview --validate --tsv` with a reader's `natural` and `valid` columns) and print how
    /// the checks do on the other half, as markdown.
    Calibrate {
        /// Labelled TSV files.
        #[arg(required = true)]
        labelled: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match (cli.command, cli.stage) {
        (Some(Command::Calibrate { labelled }), _) => {
            init_logging(false);
            let items = labelled
                .iter()
                .map(|p| read_labelled(p))
                .collect::<metamorph_data::Result<Vec<_>>>();
            match items {
                Ok(items) => {
                    print!("{}", report(&items.concat()));
                    ExitCode::SUCCESS
                }
                Err(e) => report_error(&e),
            }
        }
        (None, Some(args)) => run(&args),
        (None, None) => {
            eprintln!("error: give --input and --output (or a subcommand); see --help");
            ExitCode::from(2)
        }
    }
}

fn run(args: &StageArgs) -> ExitCode {
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
                let validator = Validator::load_lazy(&config, &parse)?;
                tracing::info!(encoder = %config.encoder, mode = ?config.mode, "validate");
                Ok(Arc::new(ValidateStage::new(Arc::new(validator))))
            },
        )
    })
}
