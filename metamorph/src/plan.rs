//! A run as a plan and its units: [`Plan::load`] reads and checks the config, fingerprints every
//! dataset and loads what all units share (lexicons, the validity step); [`Plan::run`] runs one
//! unit (a dataset's shard) unless a previous run completed it; [`Plan::finish`] writes the
//! summary and the report over every unit of this config.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use metamorph_data::{
    claim_shard, completed_shard, is_current, refuse_symlinked_dir, CancelToken, Claim, ConfigFile,
    DatasetFormat, Error, Fingerprint, Result, ShardSpec,
};
use metamorph_execute::{ExecuteConfig, Model, ResponseCache};
use metamorph_generate::{GenerateConfig, GenerateStage};
use metamorph_judge::{Report, Summary};
use metamorph_parse::stage::{ParseConfig, ParseStage};
use metamorph_perturb::{PerturbConfig, PerturbStage, RelationCounts, Resources};
use metamorph_validate::{ValidateConfig, Validator};

use crate::config::{check_config, DatasetEntry, PipelineConfig, STAGES};
use crate::entity_pool::{build_entity_pool, read_examples};
use crate::step_qa::step_qa;
use crate::unit::{stream_unit, UnitStages};

/// Command-line overrides.
#[derive(Clone, Debug, Default)]
pub struct PipelineOptions {
    /// Replace `[pipeline] output`.
    pub output: Option<PathBuf>,
    /// Redo units that are already complete.
    pub force: bool,
    /// Show progress.
    pub progress: bool,
    /// Neither read nor write the response cache (`--no-cache`).
    pub no_cache: bool,
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
    /// Per perturbation: BPB questions the edit builder wrote in the units run now.
    pub questions_written: BTreeMap<String, usize>,
    /// Per (perturbation, reason): BPB questions its rules could not write (those cases were
    /// dropped), in the units run now.
    pub questions_unwritten: BTreeMap<(String, String), usize>,
}

/// One unit of work: a shard of a dataset, with the fingerprint of everything its outputs are
/// made from.
#[derive(Clone, Debug)]
pub struct Unit {
    /// Index of the dataset in `[pipeline] datasets`.
    dataset: usize,
    /// The dataset's name (its output folder).
    pub dataset_name: String,
    /// The shard.
    pub shard: ShardSpec,
    fingerprint: Fingerprint,
}

/// What [`Plan::run`] did with a unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitOutcome {
    /// Ran now.
    Ran,
    /// A previous (or concurrent) run completed it from the same inputs and settings.
    AlreadyComplete,
    /// No configured model answers the dataset's task, so none of its relations can be judged.
    Unanswered,
}

/// What is started only when the first unit runs (a finished run starts no model), then shared
/// by every unit.
#[derive(Default)]
struct Started {
    models: Option<Vec<Arc<dyn Model>>>,
    cache: Option<Arc<ResponseCache>>,
    generate: Option<Arc<GenerateStage>>,
    parse: Option<Arc<ParseStage>>,
    /// Each dataset's resources: its own entity pool (unless `[perturb] entity_pool` names
    /// one) and the step-QA model.
    resources: BTreeMap<usize, Resources>,
}

/// A checked run: the config, the units and the resources they share.
pub struct Plan {
    base: PathBuf,
    config: PipelineConfig,
    parse_config: ParseConfig,
    perturb_config: PerturbConfig,
    generate_config: GenerateConfig,
    execute_config: ExecuteConfig,
    output: PathBuf,
    options: PipelineOptions,
    resources: Resources,
    validator: Option<Arc<Validator>>,
    units: Vec<Unit>,
    cancel: CancelToken,
    started: Started,
    units_run: usize,
    units_skipped: usize,
    datasets_unanswered: Vec<String>,
    perturb_counts: Vec<RelationCounts>,
}

impl Plan {
    /// Reads the config file at `config_path`, checks every table, fingerprints every dataset,
    /// validates the relations and loads their lexicons and the validity step, so that a
    /// mistake or a missing asset is named before any unit runs.
    ///
    /// # Errors
    /// Config errors naming the file and the table, dataset errors naming the dataset, missing
    /// assets.
    pub fn load(config_path: &Path, options: &PipelineOptions) -> Result<Plan> {
        // First, so that Ctrl-C also stops the hashing of large inputs below.
        let cancel = CancelToken::install_ctrl_c();
        let file = ConfigFile::load(config_path)?;
        check_config(&file)?;
        let base = config_path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
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
        for (key, value) in [
            ("shards", config.shards),
            ("batch_size", config.batch_size),
            ("channel_capacity", config.channel_capacity),
        ] {
            if value == 0 {
                return Err(Error::Config(format!(
                    "{}: [pipeline] {key} must be at least 1",
                    config_path.display()
                )));
            }
        }
        let output = options
            .output
            .clone()
            .unwrap_or_else(|| base.join(&config.output));
        let mut units = Vec::new();
        let mut seen_data: Vec<(&str, Option<PathBuf>, Option<String>)> = Vec::new();
        for (index, dataset) in config.datasets.iter().enumerate() {
            let fingerprint = unit_fingerprint(&file, dataset, &config, &perturb_config, &base)
                .map_err(|e| e.context(format!("dataset `{}`", dataset.name)))?;
            let path = base.join(&dataset.path);
            let canonical = std::fs::canonicalize(&path).ok();
            let hash = fingerprint.inputs.get(&path.display().to_string()).cloned();
            if let Some((other, ..)) = seen_data.iter().find(|(_, c, h)| {
                (canonical.is_some() && *c == canonical) || (hash.is_some() && *h == hash)
            }) {
                return Err(Error::Config(format!(
                    "{}: datasets `{other}` and `{}` read the same data ({}): every example \
                     would be tested and counted twice; keep one of them",
                    config_path.display(),
                    dataset.name,
                    path.display()
                )));
            }
            seen_data.push((&dataset.name, canonical, hash));
            for shard in 0..config.shards {
                units.push(Unit {
                    dataset: index,
                    dataset_name: dataset.name.clone(),
                    shard: ShardSpec::new(shard, config.shards).expect("shard < shards"),
                    fingerprint: fingerprint.clone(),
                });
            }
        }
        let resources = Resources::from_config(&perturb_config);
        // Validates relation names and loads their lexicons before any work.
        PerturbStage::with_resources(&perturb_config, &resources, config.parse)?;
        // The validity step's encoder and parser load now, so a missing asset is named before
        // any stage runs.
        let validator = if validate_config.enabled {
            let validator = Validator::load_lazy(&validate_config, &parse_config)?;
            tracing::info!(encoder = %validate_config.encoder, mode = ?validate_config.mode, "validate");
            Some(Arc::new(validator))
        } else {
            tracing::warn!("[validate] enabled = false: follow-ups are not checked for validity");
            None
        };
        Ok(Plan {
            base,
            config,
            parse_config,
            perturb_config,
            generate_config,
            execute_config,
            output,
            options: options.clone(),
            resources,
            validator,
            units,
            cancel,
            started: Started::default(),
            units_run: 0,
            units_skipped: 0,
            datasets_unanswered: Vec::new(),
            perturb_counts: Vec::new(),
        })
    }

    /// Every unit of the run: each dataset's shards, in config order.
    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    /// The output directory.
    pub fn output(&self) -> &Path {
        &self.output
    }

    /// Runs `unit` unless a previous run completed it (or `--force`), starting the models,
    /// the generator and the parser when the first unit needs them.
    ///
    /// # Errors
    /// Dataset errors naming file and place, model failures, IO errors; a unit that fails
    /// leaves no output file behind and is redone on the next run.
    pub fn run(&mut self, unit: &Unit) -> Result<UnitOutcome> {
        let dataset = self.config.datasets[unit.dataset].clone();
        let shard = unit.shard;
        if self.datasets_unanswered.contains(&dataset.name) {
            return Ok(UnitOutcome::Unanswered);
        }
        let unit_dir = self.output.join(&dataset.name);
        // A link planted where the dataset's folder goes would take the writes elsewhere.
        refuse_symlinked_dir(&unit_dir)?;
        let describe = || format!("dataset `{}` shard {shard}", dataset.name);
        // A look without the lock first, so a finished run starts no model.
        if !self.options.force && is_current(&unit_dir, "pipeline", shard, &unit.fingerprint) {
            tracing::info!(dataset = %dataset.name, %shard, "already complete; skipping");
            self.units_skipped += 1;
            return Ok(UnitOutcome::AlreadyComplete);
        }
        self.start_models()?;
        // Before the claim, which would clear the unit's old outputs.
        let models = self.started.models.clone().unwrap_or_default();
        let task = dataset.format.task();
        if !models.is_empty() && !models.iter().any(|m| m.handles(task)) {
            tracing::warn!(
                "dataset `{}` skipped: no [[execute.models]] entry answers {task} examples, so \
                 none of its relations can be judged",
                dataset.name
            );
            self.datasets_unanswered.push(dataset.name.clone());
            return Ok(UnitOutcome::Unanswered);
        }
        let claim = claim_shard(
            &unit_dir,
            "pipeline",
            shard,
            unit.fingerprint.clone(),
            self.options.force,
        )
        .map_err(|e| e.context(describe()))?;
        let claim = match claim {
            // Another run finished it meanwhile.
            Claim::Complete(_) => {
                tracing::info!(dataset = %dataset.name, %shard, "already complete; skipping");
                self.units_skipped += 1;
                return Ok(UnitOutcome::AlreadyComplete);
            }
            Claim::Write(claim) => claim,
        };
        if self.config.parse && self.started.parse.is_none() {
            let stage = ParseStage::try_new(&self.parse_config)?;
            tracing::info!(pipeline = stage.pipeline().name(), "parse");
            self.started.parse = Some(Arc::new(stage));
        }
        let resources = self.dataset_resources(unit.dataset)?;
        let perturb = Arc::new(PerturbStage::with_resources(
            &self.perturb_config,
            &resources,
            self.started.parse.is_some(),
        )?);
        stream_unit(
            &dataset,
            &self.base,
            claim,
            &self.config,
            UnitStages {
                parse: self.started.parse.clone(),
                perturb: perturb.clone(),
                generate: self.started.generate.clone(),
                validator: self.validator.clone(),
                models,
                cache: self.started.cache.clone(),
            },
            &self.cancel,
            self.options.progress,
        )?;
        add_counts(&mut self.perturb_counts, perturb.counts());
        self.units_run += 1;
        Ok(UnitOutcome::Ran)
    }

    /// Starts the models under test and the generator, once.
    fn start_models(&mut self) -> Result<()> {
        if self.started.models.is_some() {
            return Ok(());
        }
        let models = self
            .execute_config
            .models
            .iter()
            .map(|m| m.start(&self.base))
            .collect::<Result<Vec<_>>>()?;
        self.started.models = Some(models);
        self.started.cache = self
            .execute_config
            .open_cache(&self.base, self.options.no_cache)?;
        if let Some(cache) = &self.started.cache {
            tracing::info!(cache = %cache.root().display(), "response cache");
        }
        if !self.generate_config.is_empty() {
            self.started.generate = Some(Arc::new(GenerateStage::from_config(
                &self.generate_config,
                &self.base,
            )?));
        }
        Ok(())
    }

    /// The resources of the dataset at `index`: its own entity pool, built from its examples
    /// when it is a relation dataset and `[perturb] entity_pool` names none (anew by every run
    /// that writes a unit: the pool must come from the dataset as it is now), and the step-QA
    /// model of `[perturb.bpb]`.
    fn dataset_resources(&mut self, index: usize) -> Result<Resources> {
        if let Some(resources) = self.started.resources.get(&index) {
            return Ok(resources.clone());
        }
        let dataset = &self.config.datasets[index];
        let pool = if self.perturb_config.entity_pool.is_none() && is_relation(dataset.format) {
            let path = self.output.join(&dataset.name).join("entity_pool.json");
            let examples = read_examples(
                &self.base.join(&dataset.path),
                dataset.format,
                dataset.limit,
                self.config.skip_bad,
            )?;
            let parser = self.started.parse.as_ref().map(|s| s.pipeline());
            build_entity_pool(&dataset.name, &examples, parser, &path)?;
            Some(path)
        } else {
            self.resources.entity_pool_path().map(Path::to_path_buf)
        };
        let with_pool = self.resources.with_entity_pool(pool);
        let resources = match &self.perturb_config.bpb.step_qa_model {
            Some(name) => {
                let started = self.started.models.as_deref().unwrap_or_default();
                with_pool.with_step_qa(step_qa(name, &self.execute_config, started)?)
            }
            None => with_pool,
        };
        self.started.resources.insert(index, resources.clone());
        Ok(resources)
    }

    /// Writes `summary.json` and `report.html` over the configured datasets that ran (resumed
    /// units included): folders an earlier config left in the output, and datasets skipped
    /// now, are not reported.
    ///
    /// # Errors
    /// Unreadable verdict files, IO errors.
    pub fn finish(self) -> Result<PipelineReport> {
        self.check_units_are_this_runs()?;
        let units: Vec<PathBuf> = self
            .config
            .datasets
            .iter()
            .filter(|d| !self.datasets_unanswered.contains(&d.name))
            .map(|d| self.output.join(&d.name))
            .collect();
        let report = Report::from_units(&self.output, &units)?;
        let (summary_path, report_path) = report.write_all(&self.output)?;
        let (questions_written, questions_unwritten) = match &self.started.generate {
            Some(g) => (g.rendered(), g.unrendered()),
            None => Default::default(),
        };
        for ((kind, reason), n) in &questions_unwritten {
            tracing::info!("edit builder: {kind}: {n} not written: {reason}");
        }
        Ok(PipelineReport {
            output: self.output,
            units_run: self.units_run,
            units_skipped: self.units_skipped,
            datasets_unanswered: self.datasets_unanswered,
            summary: report.summary,
            summary_path,
            report_path,
            perturb_counts: self.perturb_counts,
            questions_written,
            questions_unwritten,
        })
    }
}

impl Plan {
    /// Fails unless every unit of this run (of the datasets that ran) is complete and made from
    /// this run's inputs and settings: another run writing the same output with another config
    /// may have replaced a shard meanwhile, and a summary over the parts on disk would then mix
    /// the two configs' results.
    ///
    /// # Errors
    /// [`Error::Config`] naming the dataset, the shard and what differs.
    fn check_units_are_this_runs(&self) -> Result<()> {
        for unit in &self.units {
            if self.datasets_unanswered.contains(&unit.dataset_name) {
                continue;
            }
            let dir = self.output.join(&unit.dataset_name);
            let mut expected = unit.fingerprint.clone();
            expected.shards = unit.shard.count();
            let problem = match completed_shard(&dir, "pipeline", unit.shard) {
                None => Some("its outputs are gone or incomplete".to_string()),
                Some(manifest) => match &manifest.fingerprint {
                    Some(found) if *found == expected => None,
                    Some(found) => Some(format!(
                        "it was rewritten from other inputs or settings ({})",
                        expected.changes_from(found).join("; ")
                    )),
                    None => Some("its manifest records no fingerprint".to_string()),
                },
            };
            if let Some(problem) = problem {
                return Err(Error::Config(format!(
                    "dataset `{}` shard {} in {}: {problem} while this run went — another run \
                     with another config is writing the same output. A summary now would mix \
                     the two configs' results, so none is written: give each config its own \
                     --output, then run again",
                    unit.dataset_name,
                    unit.shard,
                    dir.display()
                )));
            }
        }
        Ok(())
    }
}

/// Runs the pipeline described by the config file at `config_path`: every unit of its
/// [`Plan`], then the summary and the report.
///
/// # Errors
/// As [`Plan::load`], [`Plan::run`] and [`Plan::finish`].
pub fn run_pipeline(config_path: &Path, options: &PipelineOptions) -> Result<PipelineReport> {
    let mut plan = Plan::load(config_path, options)?;
    let units = plan.units().to_vec();
    for unit in units.iter() {
        if let Err(e) = plan.run(unit) {
            if !e.is_budget() {
                return Err(e);
            }
            // How far the run got, for the user deciding on a larger budget.
            return Err(e.context(format!(
                "stopped with {} of {} units complete ({} run now, {} by earlier runs)",
                plan.units_run + plan.units_skipped,
                units.len(),
                plan.units_run,
                plan.units_skipped
            )));
        }
    }
    plan.finish()
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
