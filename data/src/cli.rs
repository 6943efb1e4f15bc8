//! What every stage binary shares: the flags (`--input <parquet glob> --output <dir>
//! --shard i/n --config <toml>`), logging set-up, input routing, resume, and exit codes.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use arrow::array::RecordBatch;

use crate::config::ConfigFile;
use crate::fingerprint::Fingerprint;
use crate::output::{claim_shard, Claim};
use crate::parquet_io::{expand_inputs, file_kind, read_shard};
use crate::record::RecordKind;
use crate::runner::{CancelToken, Pipeline, Stage, StageOptions};
use crate::shard::ShardSpec;
use crate::{Error, Result};

/// The flags every stage binary takes.
#[derive(Clone, Debug, clap::Args)]
pub struct StageArgs {
    /// Parquet input files: a glob pattern, quoted; repeat the flag for several patterns.
    #[arg(long, required = true, value_name = "GLOB")]
    pub input: Vec<String>,
    /// Output directory; records go to `<dir>/<kind>/part-<i>-of-<n>.parquet`.
    #[arg(long, value_name = "DIR")]
    pub output: PathBuf,
    /// The shard to process, `i/n` (1-based): rows are assigned by a stable hash of their key.
    #[arg(long, default_value = "1/1", value_name = "I/N")]
    pub shard: ShardSpec,
    /// TOML configuration file (see README); the stage reads its own `[section]`.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Rows per record batch read from the input.
    #[arg(long, default_value_t = 512)]
    pub batch_size: usize,
    /// Worker threads for the stage.
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    /// Batches buffered between reader and stage.
    #[arg(long, default_value_t = 4)]
    pub channel_capacity: usize,
    /// Redo the shard even if a previous run completed it.
    #[arg(long)]
    pub force: bool,
    /// Only print warnings and errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Installs the `tracing` subscriber: human-readable lines on stderr, level from `METAMORPH_LOG`
/// (or `RUST_LOG`), default `info` (`warn` when `quiet`). Colour only when stderr is a terminal
/// and `NO_COLOR` is unset, so logs sent to a file or a pipe carry no ANSI escape codes.
pub fn init_logging(quiet: bool) {
    let default = if quiet { "warn" } else { "info" };
    let filter = std::env::var("METAMORPH_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_else(|_| default.to_string());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .with_ansi(log_colour())
        .with_target(false)
        .try_init();
}

/// Whether log lines may carry colour codes: stderr is a terminal and `NO_COLOR` is unset
/// (<https://no-color.org>).
fn log_colour() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Exit status of a run stopped by a spent budget ([`Error::Budget`]).
pub const EXIT_BUDGET: u8 = 3;

/// Prints an error and returns the exit code: 130 when interrupted, [`EXIT_BUDGET`] (3) when a
/// budget is spent, 1 otherwise. Every error's message already includes the errors it wraps,
/// so one line says it all.
pub fn report_error(error: &Error) -> ExitCode {
    if error.is_interrupted() {
        eprintln!("error: interrupted; completed shards are kept, the current one will be redone");
        return ExitCode::from(130);
    }
    if error.is_budget() {
        eprintln!("error: {error}");
        eprintln!(
            "the run stopped at its budget: completed shards are kept and every answer received \
             is in the response cache; raise the budget and run again to go on from here"
        );
        return ExitCode::from(EXIT_BUDGET);
    }
    eprintln!("error: {error}");
    ExitCode::from(1)
}

/// The body of every stage binary's `main`: sets the allocator up for model inference
/// ([`crate::memory::keep_freed_buffers`]) and logging per `--quiet`, runs `body`, prints
/// any error with its causes and turns it into the exit code.
pub fn stage_main(args: &StageArgs, body: impl FnOnce() -> Result<()>) -> ExitCode {
    crate::memory::keep_freed_buffers();
    init_logging(args.quiet);
    match body() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_error(&e),
    }
}

/// Runs `stage` over the input files of one shard and writes its outputs; the body of every
/// stage binary's `main`.
///
/// `name` is the stage's name (for the resume manifest and the shard's lock); `settings` holds
/// what besides the inputs shapes the output (the stage's config table, flag overrides; see
/// [`ConfigFile::section_text`]); `build` makes the stage and is called only when the shard is
/// not already complete. Inputs of the kinds in `unsharded` are fed first and in full; the rest
/// only for rows of this shard. A shard that a previous run completed from the same inputs and
/// settings is skipped unless `--force`; another process writing the same shard is waited for.
///
/// # Errors
/// Bad flags or config, unreadable inputs, an input file of a kind the stage does not read, and
/// any error the stage returns, with the shard it happened in.
pub fn run_stage(
    args: &StageArgs,
    name: &str,
    unsharded: &[RecordKind],
    settings: Fingerprint,
    build: impl FnOnce() -> Result<Arc<dyn Stage>>,
) -> Result<()> {
    run_stage_inner(args, name, unsharded, settings, build)
        .map_err(|e| e.context(format!("`{name}` shard {}", args.shard)))
}

fn run_stage_inner(
    args: &StageArgs,
    name: &str,
    unsharded: &[RecordKind],
    settings: Fingerprint,
    build: impl FnOnce() -> Result<Arc<dyn Stage>>,
) -> Result<()> {
    let files = expand_inputs(&args.input)?;
    let fingerprint = files
        .iter()
        .try_fold(settings, |fingerprint, path| fingerprint.with_input(path))?;
    let claim = match claim_shard(&args.output, name, args.shard, fingerprint, args.force)? {
        Claim::Complete(manifest) => {
            tracing::info!(stage = %name, shard = %args.shard, files = manifest.files.len(), "shard already complete from the same inputs and settings; skipping (use --force to redo)");
            return Ok(());
        }
        Claim::Write(claim) => claim,
    };
    // Built only now, so a resumed shard or a bad input pattern does not start models.
    let stage = build()?;
    let mut whole = Vec::new();
    let mut sharded = Vec::new();
    for path in files {
        let kind = file_kind(&path)?;
        if !stage.consumes().contains(&kind) {
            let reads: Vec<&str> = stage.consumes().iter().map(|k| k.as_str()).collect();
            return Err(Error::Config(format!(
                "{}: holds {kind} records, but stage `{name}` reads {}",
                path.display(),
                reads.join(", ")
            )));
        }
        if unsharded.contains(&kind) {
            whole.push(path);
        } else {
            sharded.push(path);
        }
    }
    let batch_size = args.batch_size.max(1);
    let shard = args.shard;
    let inputs = whole
        .into_iter()
        .map(|p| (p, ShardSpec::WHOLE))
        .chain(sharded.into_iter().map(move |p| (p, shard)));
    let source = inputs.flat_map(
        move |(path, spec)| -> Box<dyn Iterator<Item = Result<RecordBatch>> + Send> {
            match read_shard(&path, spec, batch_size) {
                Ok(it) => Box::new(it),
                Err(e) => Box::new(std::iter::once(Err(e))),
            }
        },
    );
    let outputs = claim.outputs(stage.produces())?;
    let options = StageOptions {
        workers: args.workers,
        capacity: args.channel_capacity,
    };
    let report = Pipeline::new(source)
        .stage(stage.clone(), options, Some(outputs.tap()))
        .cancel_token(CancelToken::install_ctrl_c())
        .label(format!("shard {}", args.shard))
        .run()?;
    outputs.record_usage(stage.usage());
    let manifest = outputs.commit()?;
    for file in &manifest.files {
        tracing::info!(path = %args.output.join(&file.path).display(), rows = file.rows, "wrote");
    }
    tracing::info!(stage = %name, shard = %args.shard, rows_in = report.source_rows, secs = report.elapsed.as_secs_f32(), "shard complete");
    Ok(())
}

/// Loads the config named by `--config` (or an empty one).
///
/// # Errors
/// As [`ConfigFile::load`].
pub fn load_config(args: &StageArgs) -> Result<ConfigFile> {
    ConfigFile::load_optional(args.config.as_deref())
}
