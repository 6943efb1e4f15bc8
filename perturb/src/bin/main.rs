//! `metamorph-perturb`: derive follow-up cases from `example` Parquet shards (joined with their
//! `parsed` shards when given), or preview what the relations do on a dataset file.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use metamorph_data::{
    expand_inputs, file_kind, init_logging, load_config, report_error, run_stage, stage_main,
    ConfigFile, DatasetFormat, DatasetReader, ReadOptions, RecordKind, StageArgs, Task,
};
use metamorph_perturb::lexicon::entity_pool::EntityPool;
use metamorph_perturb::{preview, relations_by_name, PerturbConfig, PerturbStage, Resources};

/// Derive metamorphic follow-up cases from examples (reads `example` and optionally `parsed`,
/// writes `case`).
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
    /// Print a seeded random sample of follow-ups per relation for a dataset file (parsing it
    /// in-process), with counts of sources, eligible sources and cases.
    Preview(PreviewArgs),
    /// Build an entity pool (SIT4RE MR-R1/R3) from a relation dataset: its gold typed head/tail
    /// spans, and the NER's entities (`[parse]`) for examples without types (FewRel).
    Pool(PoolArgs),
}

#[derive(clap::Args)]
struct PoolArgs {
    /// The dataset file.
    #[arg(long, value_name = "FILE")]
    dataset: PathBuf,
    /// Its format (tacred, fewrel, …).
    #[arg(long)]
    format: DatasetFormat,
    /// Where to write the pool (JSON; written to a temporary file, then renamed).
    #[arg(long, value_name = "FILE")]
    output: PathBuf,
    /// Read only the first N examples.
    #[arg(long)]
    limit: Option<usize>,
    /// TOML configuration file (`[parse]` configures the NER).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(clap::Args)]
struct PreviewArgs {
    /// The dataset file.
    #[arg(long, value_name = "FILE")]
    dataset: PathBuf,
    /// Its format (boolq, squad, tacred, fewrel, …).
    #[arg(long)]
    format: DatasetFormat,
    /// Relations or families to run (default: those of `[perturb] relations`, or all).
    #[arg(long, value_delimiter = ',')]
    relations: Vec<String>,
    /// Follow-ups shown per relation.
    #[arg(long, default_value_t = 20)]
    sample: usize,
    /// Seed of the sample.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Read only the first N examples.
    #[arg(long)]
    limit: Option<usize>,
    /// TOML configuration file (`[perturb]`, `[parse]` and `[validate]` are read).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Score the sample with the validity step (`[validate]`) and mark the follow-ups it would
    /// reject, with the reasons.
    #[arg(long)]
    validate: bool,
    /// Also write the sample as a TSV for a reader to judge (with the validity scores when
    /// `--validate` is given).
    #[arg(long, value_name = "FILE")]
    tsv: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match (cli.command, cli.stage) {
        (Some(Command::Preview(args)), _) => {
            init_logging(false);
            match run_preview(&args) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => report_error(&e),
            }
        }
        (Some(Command::Pool(args)), _) => {
            init_logging(false);
            match run_pool(&args) {
                Ok(()) => ExitCode::SUCCESS,
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
        let config: PerturbConfig = file.section("perturb")?;
        // Parsed shards, when given, are joined to their examples by id (see the stage docs).
        let expect_parses = expand_inputs(&args.input)?
            .iter()
            .map(|p| file_kind(p))
            .collect::<metamorph_data::Result<Vec<_>>>()?
            .contains(&RecordKind::Parsed);
        run_stage(args, "perturb", &[], file.fingerprint(&["perturb"]), || {
            let stage = PerturbStage::try_new(&config, expect_parses)?;
            tracing::info!(relations = ?stage.relation_names(), "perturb");
            Ok(Arc::new(stage))
        })
    })
}

fn run_preview(args: &PreviewArgs) -> metamorph_data::Result<()> {
    let file = ConfigFile::load_optional(args.config.as_deref())?;
    let mut config: PerturbConfig = file.section("perturb")?;
    if !args.relations.is_empty() {
        config.relations = args.relations.clone();
    }
    let reader = DatasetReader::open(
        &args.dataset,
        args.format,
        ReadOptions::default().with_limit(args.limit),
    )?;
    let examples = reader
        .examples()
        .collect::<metamorph_data::Result<Vec<_>>>()?;
    let parse_config: metamorph_parse::stage::ParseConfig = file.section("parse")?;
    let mut parse_stage = None;
    // Relation datasets without a configured entity pool get one from their own examples, as in
    // `cargo xtask pipeline` (written to a temporary folder for this run).
    let pool_dir = tempfile_dir()?;
    if config.entity_pool.is_none() && examples.iter().any(|e| e.task == Task::Relation) {
        let stage = metamorph_parse::stage::ParseStage::try_new(&parse_config)?;
        let pool = EntityPool::from_examples(&examples, Some(stage.pipeline()))?;
        let path = pool_dir.join("entity_pool.json");
        pool.save_json(&path)?;
        eprintln!(
            "entity pool: {} entries from the dataset's own examples ({})",
            pool.len(),
            pool.source()
        );
        config.entity_pool = Some(path);
        parse_stage = Some(stage);
    }
    let resources = Resources::from_config(&config);
    let relations = relations_by_name(&config.relations, &resources)?;
    let needs_parse = relations.iter().any(|r| !r.parsed_fields().is_empty());
    if needs_parse && parse_stage.is_none() {
        parse_stage = Some(metamorph_parse::stage::ParseStage::try_new(&parse_config)?);
    }
    let mut previews = preview::preview(
        &relations,
        &examples,
        parse_stage
            .as_ref()
            .filter(|_| needs_parse)
            .map(|s| s.pipeline()),
        args.sample,
        args.seed,
    )?;
    let _ = std::fs::remove_dir_all(&pool_dir);
    if args.validate {
        let config: metamorph_validate::ValidateConfig = file.section("validate")?;
        let parser = Arc::new(match parse_stage {
            Some(stage) => stage.into_pipeline(),
            None => metamorph_parse::stage::ParseStage::try_new(&parse_config)?.into_pipeline(),
        });
        let validator = metamorph_validate::Validator::load(&config, parser)?;
        preview::validate_sample(&mut previews, &validator)?;
    }
    if let Some(path) = &args.tsv {
        metamorph_data::AtomicFile::write_all(path, preview::render_tsv(&previews).as_bytes())?;
    }
    print!("{}", preview::render(&previews));
    Ok(())
}

/// A fresh folder under the system's temporary directory for this process.
fn tempfile_dir() -> metamorph_data::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("metamorph-preview-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| metamorph_data::Error::io(&dir, e))?;
    Ok(dir)
}

fn run_pool(args: &PoolArgs) -> metamorph_data::Result<()> {
    let file = ConfigFile::load_optional(args.config.as_deref())?;
    let reader = DatasetReader::open(
        &args.dataset,
        args.format,
        ReadOptions::default().with_limit(args.limit),
    )?;
    let examples = reader
        .examples()
        .collect::<metamorph_data::Result<Vec<_>>>()?;
    let parse_stage = if examples.iter().any(|e| !typed(e)) {
        let parse_config: metamorph_parse::stage::ParseConfig = file.section("parse")?;
        Some(metamorph_parse::stage::ParseStage::try_new(&parse_config)?)
    } else {
        None
    };
    let pool = EntityPool::from_examples(&examples, parse_stage.as_ref().map(|s| s.pipeline()))?;
    pool.save_json(&args.output)?;
    let types: Vec<String> = pool
        .types()
        .map(|t| format!("{t}: {}", pool.entries(t).len()))
        .collect();
    println!(
        "{}: {} examples, {} entries from {} ({}) -> {}",
        args.dataset.display(),
        examples.len(),
        pool.len(),
        pool.source(),
        types.join(", "),
        args.output.display()
    );
    Ok(())
}

/// Whether an example's head or tail carries a gold entity type.
fn typed(example: &metamorph_data::Example) -> bool {
    [&example.head, &example.tail]
        .into_iter()
        .flatten()
        .any(|s| s.entity_type.is_some())
}
