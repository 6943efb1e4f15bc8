//! `metamorph-read`: turn a dataset file into `example` Parquet shards, the input of
//! `metamorph-perturb` on a cluster.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use clap::Parser;
use metamorph_data::{
    claim_shard, init_logging, keep_shard_rows, report_error, CancelToken, Claim, DatasetFormat,
    DatasetReader, Error, Fingerprint, ReadOptions, RecordKind, ShardSpec,
};

/// Read a dataset file (BoolQ, SQuAD, DROP, BREAK, TACRED, FewRel, DynaSent/SST, PAWS/QQP, GAP,
/// CoNLL-2012) and write the examples of one shard as `<output>/example/part-<i>-of-<n>.parquet`.
#[derive(Parser)]
#[command(version)]
struct Cli {
    /// The dataset file.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    /// Its format: boolq, squad, drop, break, tacred, fewrel, sentiment-jsonl, sentiment-tsv,
    /// paraphrase-tsv, gap, conll2012.
    #[arg(long)]
    format: DatasetFormat,
    /// Output directory.
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
    /// The shard to write, `i/n` (rows are assigned by a stable hash of their id).
    #[arg(long, default_value = "1/1", value_name = "I/N")]
    shard: ShardSpec,
    /// Rows per record batch.
    #[arg(long, default_value_t = 1024)]
    batch_size: usize,
    /// Skip and count malformed records instead of failing.
    #[arg(long)]
    skip_bad: bool,
    /// Read at most this many examples.
    #[arg(long)]
    limit: Option<usize>,
    /// Redo the shard even if a previous run completed it.
    #[arg(long)]
    force: bool,
    /// Only print warnings and errors.
    #[arg(long, short)]
    quiet: bool,
}

fn run(cli: &Cli) -> metamorph_data::Result<()> {
    let settings = format!("{} {:?} {}", cli.format, cli.limit, cli.skip_bad);
    let fingerprint = Fingerprint::new(cli.shard.count())
        .with_input(&cli.input)?
        .with_setting("--format --limit --skip-bad", &settings);
    let claim = match claim_shard(&cli.output, "read", cli.shard, fingerprint, cli.force)? {
        Claim::Complete(_) => {
            tracing::info!(shard = %cli.shard, "shard already complete from the same input; skipping (use --force to redo)");
            return Ok(());
        }
        Claim::Write(claim) => claim,
    };
    let options = ReadOptions::default()
        .with_batch_size(cli.batch_size)
        .with_skip_bad(cli.skip_bad)
        .with_limit(cli.limit);
    let reader = DatasetReader::open(&cli.input, cli.format, options)?;
    let skipped = reader.skipped_counter();
    let outputs = claim.outputs(&[RecordKind::Example])?;
    let context = cli.input.display().to_string();
    let cancel = CancelToken::install_ctrl_c();
    for batch in reader.batches() {
        if cancel.is_cancelled() {
            return Err(Error::Interrupted);
        }
        let batch = keep_shard_rows(&batch?, RecordKind::Example, cli.shard, &context)?;
        outputs.write(RecordKind::Example, &batch)?;
    }
    let manifest = outputs.commit()?;
    let rows = manifest.files.first().map_or(0, |f| f.rows);
    tracing::info!(rows, skipped = skipped.load(Ordering::Relaxed), shard = %cli.shard, "wrote examples");
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.quiet);
    match run(&cli).map_err(|e| e.context(format!("`read` shard {}", cli.shard))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_error(&e),
    }
}
