//! `cargo xtask pipeline`: datasets → perturb → generate (when `[generate]` is configured) →
//! execute → judge → summary and report, in one process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use metamorph_data::{
    claim_shard, is_current, keep_shard_rows, CancelToken, Claim, ConfigFile, DatasetFormat,
    DatasetReader, Error, Example, Fingerprint, Pipeline, ReadOptions, RecordKind, Result,
    ShardClaim, ShardSpec, Stage, StageOptions, Task,
};
use metamorph_execute::{ExecuteConfig, ExecuteStage, Model};
use metamorph_generate::{GenerateConfig, GenerateStage};
use metamorph_judge::{JudgeStage, Report, Summary};
use metamorph_parse::stage::{ParseConfig, ParseStage};
use metamorph_perturb::break_perturb_build::evaluator::ContextQa;
use metamorph_perturb::{PerturbConfig, PerturbStage, RelationCounts, Resources};
use metamorph_validate::{ValidateConfig, ValidateStage, Validator};
use serde::Deserialize;

/// The stages the pipeline runs, in order.
const STAGES: [&str; 6] = [
    "parse", "perturb", "generate", "validate", "execute", "judge",
];

/// The `[pipeline]` table.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineConfig {
    /// Output directory (relative to the config file's folder).
    pub output: PathBuf,
    /// Shards per dataset.
    pub shards: usize,
    /// Rows per batch.
    pub batch_size: usize,
    /// Batches buffered between stages.
    pub channel_capacity: usize,
    /// Worker threads per stage (`parse`, `perturb`, `generate`, `execute`, `judge`); 1 when
    /// not listed.
    pub workers: BTreeMap<String, usize>,
    /// Skip and count malformed dataset records instead of failing.
    pub skip_bad: bool,
    /// Run the `parse` stage (the spaCy port, configured in `[parse]`) and write `parsed` shards.
    pub parse: bool,
    /// The datasets to test on.
    pub datasets: Vec<DatasetEntry>,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            output: PathBuf::from("out/pipeline"),
            shards: 1,
            batch_size: 256,
            channel_capacity: 4,
            workers: BTreeMap::new(),
            skip_bad: false,
            parse: true,
            datasets: Vec::new(),
        }
    }
}

/// One dataset of the run.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetEntry {
    /// Name; also the folder of its outputs.
    pub name: String,
    /// The file (relative to the config file's folder).
    pub path: PathBuf,
    /// Its format.
    pub format: DatasetFormat,
    /// Read at most this many examples.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Command-line overrides.
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    /// Replace `[pipeline] output`.
    pub output: Option<PathBuf>,
    /// Redo units that are already complete.
    pub force: bool,
    /// Show progress.
    pub progress: bool,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct PipelineReport {
    /// The output directory.
    pub output: PathBuf,
    /// Units (dataset × shard) run now.
    pub units_run: usize,
    /// Units skipped because a previous run completed them from the same inputs and settings.
    pub units_skipped: usize,
    /// Datasets not run because no configured model answers their task.
    pub datasets_unanswered: Vec<String>,
    /// The summary over every verdict file.
    pub summary: Summary,
    /// Where it was written.
    pub summary_path: PathBuf,
    /// The self-contained HTML report (`<output>/report.html`).
    pub report_path: PathBuf,
    /// What each relation did over the units run now (resumed units are not counted).
    pub perturb_counts: Vec<RelationCounts>,
}

/// Break-Perturb-Build's single-step QA model: the started `[[execute.models]]` entry `name`,
/// asked each step question as a SQuAD (else DROP) question about the source's context.
fn step_qa(
    name: &str,
    execute_config: &ExecuteConfig,
    started: &[Arc<dyn Model>],
) -> Result<Arc<dyn ContextQa>> {
    let index = execute_config
        .models
        .iter()
        .position(|m| m.name == name)
        .ok_or_else(|| {
            Error::Config(format!(
                "[perturb.bpb] step_qa_model = {name:?} names no [[execute.models]] entry"
            ))
        })?;
    let model = started[index].clone();
    let task = [Task::Squad, Task::Drop]
        .into_iter()
        .find(|t| model.handles(*t))
        .ok_or_else(|| {
            Error::Config(format!(
                "[perturb.bpb] step_qa_model: model `{name}` answers neither squad nor drop \
                 questions"
            ))
        })?;
    Ok(Arc::new(ModelStepQa { model, task }))
}

/// An execute model answering the evaluator's step questions.
struct ModelStepQa {
    model: Arc<dyn Model>,
    task: Task,
}

impl ContextQa for ModelStepQa {
    fn answer(&self, context: &str, question: &str) -> Result<Option<String>> {
        let mut example = Example::new("bpb-step", self.task);
        example.context = Some(context.to_string());
        example.question = Some(question.to_string());
        let prediction = self.model.predict(&[&example])?.pop();
        Ok(prediction
            .and_then(|p| p.answer.map(|a| a.text).or(p.label))
            .filter(|t| !t.trim().is_empty()))
    }
}

/// The top-level tables of a pipeline config file.
pub const CONFIG_SECTIONS: [&str; 6] = [
    "pipeline", "parse", "perturb", "generate", "validate", "execute",
];

/// Checks a pipeline config as far as it can be without running anything: every top-level
/// table is one the pipeline reads, every table's keys and values are the ones its stage
/// accepts (each stage's config refuses unknown keys), and dataset and model names are plain
/// and unique (they name output folders and records). Run before any stage, and by the docs'
/// example check.
///
/// # Errors
/// [`Error::Config`] naming the section (and the key) at fault.
pub fn check_config(file: &ConfigFile) -> Result<()> {
    if let Some(name) = file
        .section_names()
        .find(|name| !CONFIG_SECTIONS.contains(name))
    {
        return Err(Error::Config(format!(
            "{}: unknown section [{name}] (expected one of {})",
            file.origin(),
            CONFIG_SECTIONS.join(", ")
        )));
    }
    let pipeline = file.section::<PipelineConfig>("pipeline")?;
    file.section::<ParseConfig>("parse")?;
    file.section::<PerturbConfig>("perturb")?;
    file.section::<GenerateConfig>("generate")?;
    file.section::<ValidateConfig>("validate")?.check()?;
    let execute = file.section::<ExecuteConfig>("execute")?;
    let named = |e: Error| match e {
        Error::Config(message) => Error::Config(format!("{}: {message}", file.origin())),
        other => other,
    };
    metamorph_data::check_names("dataset", pipeline.datasets.iter().map(|d| d.name.as_str()))
        .map_err(named)?;
    execute.check_names().map_err(named)?;
    Ok(())
}

/// Runs the pipeline described by the config file at `config_path`.
///
/// # Errors
/// Config errors, dataset errors naming file and place, model failures, IO errors; the unit that
/// failed leaves no output file behind and is redone on the next run.
pub fn run_pipeline(config_path: &Path, options: &PipelineOptions) -> Result<PipelineReport> {
    let file = ConfigFile::load(config_path)?;
    check_config(&file)?;
    let base = config_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let config: PipelineConfig = file.section("pipeline")?;
    let mut perturb_config: PerturbConfig = file.section("perturb")?;
    // Files named in [perturb.*] tables are relative to the config file's folder.
    if let Some(path) = perturb_config.bpb.decompositions.as_mut() {
        if path.is_relative() {
            *path = base.join(&*path);
        }
    }
    let parse_config: ParseConfig = file.section("parse")?;
    let execute_config: ExecuteConfig = file.section("execute")?;
    let generate_config: GenerateConfig = file.section("generate")?;
    let validate_config: ValidateConfig = file.section("validate")?;
    if config.datasets.is_empty() {
        return Err(Error::Config(format!(
            "{}: [pipeline] lists no datasets",
            config_path.display()
        )));
    }
    if let Some((stage, _)) = config
        .workers
        .iter()
        .find(|(stage, n)| !STAGES.contains(&stage.as_str()) || **n == 0)
    {
        return Err(Error::Config(format!(
            "[pipeline.workers] `{stage}`: expected one of {} with at least 1 worker",
            STAGES.join(", ")
        )));
    }
    if config.shards == 0 {
        return Err(Error::Config("[pipeline] shards must be at least 1".into()));
    }
    let output = options
        .output
        .clone()
        .unwrap_or_else(|| base.join(&config.output));
    let resources = Resources::from_config(&perturb_config);
    // Validates relation names and loads their lexicons before any work.
    PerturbStage::with_resources(&perturb_config, &resources, config.parse)?;
    // The validity step's encoder and parser load now, so a missing asset is named before any
    // stage runs.
    let validator = if validate_config.enabled {
        let validator = Validator::load_lazy(&validate_config, &parse_config)?;
        tracing::info!(encoder = %validate_config.encoder, mode = ?validate_config.mode, "validate");
        Some(Arc::new(validator))
    } else {
        tracing::warn!("[validate] enabled = false: follow-ups are not checked for validity");
        None
    };
    let mut perturb_counts: Vec<RelationCounts> = Vec::new();

    let cancel = CancelToken::install_ctrl_c();
    let mut models: Option<Vec<Arc<dyn Model>>> = None;
    // Started with the models, only when [generate] configures one.
    let mut generate: Option<Arc<GenerateStage>> = None;
    // Loaded once, when the first unit runs, and shared by every unit.
    let mut parse_stage: Option<Arc<ParseStage>> = None;
    let (mut units_run, mut units_skipped) = (0, 0);
    let mut datasets_unanswered = Vec::new();
    'datasets: for dataset in &config.datasets {
        let unit_dir = output.join(&dataset.name);
        let fingerprint = unit_fingerprint(&file, dataset, &config, &perturb_config, base)
            .map_err(|e| e.context(format!("dataset `{}`", dataset.name)))?;
        // The dataset's own entity pool, unless [perturb] entity_pool names one.
        let mut dataset_resources: Option<Resources> = None;
        for index in 0..config.shards {
            let shard = ShardSpec::new(index, config.shards).expect("index < shards");
            let unit = || format!("dataset `{}` shard {shard}", dataset.name);
            // A look without the lock first, so a finished run starts no model.
            if !options.force && is_current(&unit_dir, "pipeline", shard, &fingerprint) {
                tracing::info!(dataset = %dataset.name, %shard, "already complete; skipping");
                units_skipped += 1;
                continue;
            }
            if models.is_none() {
                models = Some(
                    execute_config
                        .models
                        .iter()
                        .map(|m| m.start(base))
                        .collect::<Result<Vec<_>>>()?,
                );
                if !generate_config.is_empty() {
                    generate = Some(Arc::new(GenerateStage::from_config(
                        &generate_config,
                        base,
                    )?));
                }
            }
            // Before the claim, which would clear the unit's old outputs.
            let started = models.as_deref().unwrap_or_default();
            let task = dataset.format.task();
            if !started.is_empty() && !started.iter().any(|m| m.handles(task)) {
                tracing::warn!(
                    "dataset `{}` skipped: no [[execute.models]] entry answers {task} \
                     examples, so none of its relations can be judged",
                    dataset.name
                );
                datasets_unanswered.push(dataset.name.clone());
                continue 'datasets;
            }
            let claim = claim_shard(
                &unit_dir,
                "pipeline",
                shard,
                fingerprint.clone(),
                options.force,
            )
            .map_err(|e| e.context(unit()))?;
            let claim = match claim {
                // Another run finished it meanwhile.
                Claim::Complete(_) => {
                    tracing::info!(dataset = %dataset.name, %shard, "already complete; skipping");
                    units_skipped += 1;
                    continue;
                }
                Claim::Write(claim) => claim,
            };
            if config.parse && parse_stage.is_none() {
                let stage = ParseStage::try_new(&parse_config)?;
                tracing::info!(pipeline = stage.pipeline().name(), "parse");
                parse_stage = Some(Arc::new(stage));
            }
            if dataset_resources.is_none() {
                let pool = if perturb_config.entity_pool.is_none() && is_relation(dataset.format) {
                    let path = unit_dir.join("entity_pool.json");
                    let pipeline = parse_stage.as_ref().map(|s| s.pipeline());
                    // Built anew by every run that writes a unit: the pool must come from
                    // the dataset as it is now (a changed dataset redoes every unit).
                    dataset_entity_pool(dataset, base, &path, pipeline, config.skip_bad)?;
                    Some(path)
                } else {
                    resources.entity_pool_path().map(Path::to_path_buf)
                };
                let with_pool = resources.with_entity_pool(pool);
                dataset_resources = Some(match &perturb_config.bpb.step_qa_model {
                    Some(name) => {
                        let started = models.as_deref().unwrap_or_default();
                        with_pool.with_step_qa(step_qa(name, &execute_config, started)?)
                    }
                    None => with_pool,
                });
            }
            let models = models.clone().unwrap_or_default();
            let perturb = Arc::new(PerturbStage::with_resources(
                &perturb_config,
                dataset_resources.as_ref().expect("set above"),
                parse_stage.is_some(),
            )?);
            run_unit(
                dataset,
                base,
                claim,
                &config,
                perturb.clone(),
                parse_stage.clone().map(|s| s as Arc<dyn Stage>),
                generate.as_deref(),
                validator.clone(),
                models,
                &cancel,
                options.progress,
            )?;
            add_counts(&mut perturb_counts, perturb.counts());
            units_run += 1;
        }
    }
    // Over the configured datasets that ran (resumed units included): folders an earlier
    // config left in the output, and datasets skipped now, are not reported.
    let units: Vec<PathBuf> = config
        .datasets
        .iter()
        .filter(|d| !datasets_unanswered.contains(&d.name))
        .map(|d| output.join(&d.name))
        .collect();
    let report = Report::from_units(&output, &units)?;
    let (summary_path, report_path) = report.write_all(&output)?;
    Ok(PipelineReport {
        output,
        units_run,
        units_skipped,
        datasets_unanswered,
        summary: report.summary,
        summary_path,
        report_path,
        perturb_counts,
    })
}

/// What one unit (a shard of `dataset`) is made from: the dataset file and the files the
/// `[perturb]` table names, the dataset entry's settings and every stage's table. `[pipeline]`'s
/// other keys (output, batch sizes, workers) do not change results and are left out.
fn unit_fingerprint(
    file: &ConfigFile,
    dataset: &DatasetEntry,
    config: &PipelineConfig,
    perturb: &PerturbConfig,
    base: &Path,
) -> Result<Fingerprint> {
    let entry = format!(
        "format {} limit {:?} skip_bad {} parse {}",
        dataset.format, dataset.limit, config.skip_bad, config.parse
    );
    let mut fingerprint = file
        .fingerprint(&["parse", "perturb", "generate", "validate", "execute"])
        .with_setting(&format!("dataset `{}`", dataset.name), &entry)
        .with_input(&base.join(&dataset.path))?;
    let named = [
        perturb.bpb.decompositions.clone(),
        perturb.entity_pool.clone(),
    ];
    for path in named.into_iter().flatten() {
        let path = if path.is_relative() {
            base.join(path)
        } else {
            path
        };
        if path.is_file() {
            fingerprint = fingerprint.with_input(&path)?;
        }
    }
    Ok(fingerprint)
}

/// Whether examples of `format` are relation-extraction examples (SIT4RE's entity pools).
fn is_relation(format: DatasetFormat) -> bool {
    matches!(format, DatasetFormat::Tacred | DatasetFormat::Fewrel)
}

/// Builds `dataset`'s entity pool at `path` from its own examples (gold typed spans; the NER of
/// `pipeline` for untyped ones). The file is written to a temporary name and renamed, so an
/// interrupted build leaves no partial pool.
fn dataset_entity_pool(
    dataset: &DatasetEntry,
    base: &Path,
    path: &Path,
    pipeline: Option<&metamorph_parse::spacy::pipeline::Pipeline>,
    skip_bad: bool,
) -> Result<()> {
    let reader = DatasetReader::open(
        base.join(&dataset.path),
        dataset.format,
        ReadOptions::default()
            .with_skip_bad(skip_bad)
            .with_limit(dataset.limit),
    )?;
    let examples = reader.examples().collect::<Result<Vec<_>>>()?;
    let pool =
        metamorph_perturb::lexicon::entity_pool::EntityPool::from_examples(&examples, pipeline)?;
    pool.save_json(path)?;
    tracing::info!(dataset = %dataset.name, entries = pool.len(), source = pool.source(), path = %path.display(), "entity pool");
    Ok(())
}

/// Adds one unit's per-relation counts to the run's totals.
fn add_counts(total: &mut Vec<RelationCounts>, unit: Vec<RelationCounts>) {
    for c in unit {
        match total.iter_mut().find(|t| t.mr == c.mr) {
            Some(t) => {
                t.sources += c.sources;
                t.eligible += c.eligible;
                t.cases += c.cases;
                t.unparsed += c.unparsed;
            }
            None => total.push(c),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run_unit(
    dataset: &DatasetEntry,
    base: &Path,
    claim: ShardClaim,
    config: &PipelineConfig,
    perturb: Arc<PerturbStage>,
    parse: Option<Arc<dyn Stage>>,
    generate: Option<&GenerateStage>,
    validator: Option<Arc<Validator>>,
    models: Vec<Arc<dyn Model>>,
    cancel: &CancelToken,
    progress: bool,
) -> Result<()> {
    let shard = claim.shard();
    let unit = format!("dataset `{}` shard {shard}", dataset.name);
    let path = base.join(&dataset.path);
    let read_options = ReadOptions::default()
        .with_batch_size(config.batch_size)
        .with_skip_bad(config.skip_bad)
        .with_limit(dataset.limit);
    let reader = DatasetReader::open(&path, dataset.format, read_options)?;
    let skipped = reader.skipped_counter();
    let with_models = !models.is_empty();
    let mut kinds = vec![RecordKind::Example, RecordKind::Case];
    if validator.is_some() {
        kinds.push(RecordKind::Rejected);
    }
    if parse.is_some() {
        kinds.push(RecordKind::Parsed);
    }
    if with_models {
        kinds.extend([RecordKind::Prediction, RecordKind::Verdict]);
    }
    let outputs = claim.outputs(&kinds).map_err(|e| e.context(&unit))?;
    let example_writer = outputs.clone();
    let context = path.display().to_string();
    let source = reader.batches().filter_map(move |batch| {
        let written = batch
            .and_then(|b| keep_shard_rows(&b, RecordKind::Example, shard, &context))
            .and_then(|b| example_writer.write(RecordKind::Example, &b).map(|()| b));
        match written {
            Ok(b) if b.num_rows() == 0 => None,
            other => Some(other),
        }
    });
    let options = |stage: &str| StageOptions {
        workers: config.workers.get(stage).copied().unwrap_or(1),
        capacity: config.channel_capacity,
    };
    let mut pipeline = Pipeline::new(source)
        .cancel_token(cancel.clone())
        .progress(progress)
        .label(format!("{} {shard}", dataset.name));
    if let Some(parse) = parse {
        pipeline = pipeline.stage(parse, options("parse"), Some(outputs.tap()));
    }
    // With [generate], cases are written once completed (after generate), not as perturb
    // leaves them; examples that need steps pass through generate before perturb (they are
    // written as read, before either).
    if let Some(examples) = generate.and_then(GenerateStage::for_examples) {
        pipeline = pipeline.stage(Arc::new(examples), options("generate"), None);
    }
    // Cases are written by the last stage that changes them: validate, else generate, else
    // perturb.
    let perturb_tap = (generate.is_none() && validator.is_none()).then(|| outputs.tap());
    pipeline = pipeline.stage(perturb, options("perturb"), perturb_tap);
    if let Some(generate) = generate {
        let generate_tap = validator.is_none().then(|| outputs.tap());
        pipeline = pipeline.stage(
            Arc::new(generate.for_cases()),
            options("generate"),
            generate_tap,
        );
    }
    if let Some(validator) = validator {
        pipeline = pipeline.stage(
            Arc::new(ValidateStage::new(validator)),
            options("validate"),
            Some(outputs.tap()),
        );
    }
    if with_models {
        pipeline = pipeline
            .stage(
                Arc::new(ExecuteStage::try_new(models)?),
                options("execute"),
                Some(outputs.tap()),
            )
            .stage(
                Arc::new(JudgeStage::new()),
                options("judge"),
                Some(outputs.tap()),
            );
    } else {
        tracing::warn!("no [[execute.models]] configured: stopping after perturb");
    }
    pipeline.run().map_err(|e| e.context(&unit))?;
    let manifest = outputs.commit().map_err(|e| e.context(&unit))?;
    let rows: Vec<String> = manifest
        .files
        .iter()
        .map(|f| format!("{} {}", f.rows, f.kind))
        .collect();
    let skipped = skipped.load(std::sync::atomic::Ordering::Relaxed);
    tracing::info!(dataset = %dataset.name, %shard, skipped_bad = skipped, "done: {}", rows.join(", "));
    Ok(())
}
