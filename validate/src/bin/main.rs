//! `metamorph-validate`: score the follow-ups of `case` Parquet shards; passing cases are written
//! as `case` (with their validity), failing ones as `rejected` (or every case as `case` with
//! `mode = "flag"`). `metamorph-validate calibrate` measures the checks on labelled follow-ups.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use metamorph_data::{init_logging, load_config, report_error, run_stage, stage_main, StageArgs};
use metamorph_models::LmOptions;
use metamorph_parse::stage::ParseConfig;
use metamorph_validate::calibration::{distinct, read_labelled, report, score_with_lm, CHECKS};
use metamorph_validate::language_model::LmScorer;
use metamorph_validate::{ValidateConfig, ValidateStage, Validator};

/// Score every follow-up (language model, meaning, sense, structure, fluency, spans) and set
/// the failing ones aside (reads `case`, writes `case` and `rejected`).
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
    ///
    /// With `--lm`, the `lm`, `lm_sentence` and `lm_ending` checks are scored from each row's
    /// `source` and `follow_up` text by that causal LM first, so any judged rows of
    /// `docs/validity/` serve (rows judged in several rounds count once).
    Calibrate {
        /// Labelled TSV files.
        #[arg(required = true)]
        labelled: Vec<PathBuf>,
        /// Score the `lm` checks with this causal LM (`smollm2-135m`, `gemma3-270m`, a
        /// `.gguf` path).
        #[arg(long)]
        lm: Option<String>,
        /// Also write every item with its scores as TSV here (a file `calibrate` reads back
        /// without scoring again).
        #[arg(long)]
        scores: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match (cli.command, cli.stage) {
        (
            Some(Command::Calibrate {
                labelled,
                lm,
                scores,
            }),
            _,
        ) => {
            init_logging(false);
            match calibrate(&labelled, lm.as_deref(), scores.as_deref()) {
                Ok(text) => {
                    print!("{text}");
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

fn calibrate(
    labelled: &[PathBuf],
    lm: Option<&str>,
    scores: Option<&std::path::Path>,
) -> metamorph_data::Result<String> {
    let items = labelled
        .iter()
        .map(|p| read_labelled(p))
        .collect::<metamorph_data::Result<Vec<_>>>()?;
    let mut items = distinct(items.concat());
    if let Some(spec) = lm {
        let started = std::time::Instant::now();
        let scorer = LmScorer::load(spec, LmOptions::default())?;
        score_with_lm(&mut items, &scorer)?;
        tracing::info!(
            items = items.len(),
            seconds = started.elapsed().as_secs_f32(),
            lm = spec,
            "scored"
        );
    }
    if let Some(path) = scores {
        let mut out = String::from("case_id\trelation\thalf\tnatural\tvalid");
        for c in CHECKS {
            out.push('\t');
            out.push_str(c);
        }
        out.push('\n');
        for i in &items {
            let half = if i.tuning() { "tuning" } else { "held-out" };
            let yes_no = |b: bool| if b { "yes" } else { "no" };
            out.push_str(&format!(
                "{}\t{}\t{half}\t{}\t{}",
                i.case_id,
                i.relation,
                yes_no(i.natural),
                yes_no(i.valid)
            ));
            for s in i.scores {
                out.push('\t');
                if let Some(s) = s {
                    out.push_str(&format!("{s:.4}"));
                }
            }
            out.push('\n');
        }
        metamorph_data::AtomicFile::write_all(path, out.as_bytes())?;
    }
    Ok(report(&items))
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
