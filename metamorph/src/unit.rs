//! One unit of a run: a dataset's shard streamed `read → parse → perturb → generate → validate
//! → execute → judge` over bounded channels, each record kind written under
//! `<output>/<dataset>/<kind>/` by the last stage that changes it.

use std::path::Path;
use std::sync::Arc;

use metamorph_data::usage::{ModelUsage, Spent};
use metamorph_data::{
    keep_shard_rows, CancelToken, DatasetReader, Pipeline, ReadOptions, RecordKind, Result,
    ShardClaim, Stage, StageOptions,
};
use metamorph_execute::{ExecuteStage, Model, ResponseCache};
use metamorph_generate::GenerateStage;
use metamorph_judge::JudgeStage;
use metamorph_parse::stage::ParseStage;
use metamorph_perturb::PerturbStage;
use metamorph_validate::{ValidateStage, Validator};

use crate::config::{DatasetEntry, PipelineConfig};

/// The stages a unit runs, started once by the plan and shared by every unit.
pub(crate) struct UnitStages {
    /// The parser, when `[pipeline] parse` is on.
    pub parse: Option<Arc<ParseStage>>,
    /// The relations, with the dataset's resources.
    pub perturb: Arc<PerturbStage>,
    /// The follow-up generator, when `[generate]` configures one.
    pub generate: Option<Arc<GenerateStage>>,
    /// The validity step, unless `[validate] enabled = false`.
    pub validator: Option<Arc<Validator>>,
    /// The models under test (none: the run stops after perturb).
    pub models: Vec<Arc<dyn Model>>,
    /// The response cache, unless turned off.
    pub cache: Option<Arc<ResponseCache>>,
}

/// Streams one claimed unit: the dataset's rows of the claim's shard through every stage,
/// writing each record kind as the last stage that changes it leaves it, then commits the
/// unit's manifest.
pub(crate) fn stream_unit(
    dataset: &DatasetEntry,
    base: &Path,
    claim: ShardClaim,
    config: &PipelineConfig,
    stages: UnitStages,
    cancel: &CancelToken,
    progress: bool,
) -> Result<()> {
    let UnitStages {
        parse,
        perturb,
        generate,
        validator,
        models,
        cache,
    } = stages;
    let parse = parse.map(|s| s as Arc<dyn Stage>);
    let generate = generate.as_deref();
    let generator_spent_at_start = generate.map(GenerateStage::spent).unwrap_or_default();
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
    let execute = with_models
        .then(|| ExecuteStage::try_new(models).map(|s| Arc::new(s.with_cache(cache))))
        .transpose()?;
    if let Some(execute) = &execute {
        pipeline = pipeline
            .stage(execute.clone(), options("execute"), Some(outputs.tap()))
            .stage(
                Arc::new(JudgeStage::new()),
                options("judge"),
                Some(outputs.tap()),
            );
    } else {
        tracing::warn!("no [[execute.models]] configured: stopping after perturb");
    }
    pipeline.run().map_err(|e| e.context(&unit))?;
    if let Some(execute) = &execute {
        outputs.record_usage(execute.usage());
    }
    if let Some(generate) = generate {
        outputs.record_usage(generator_usage(&generator_spent_at_start, generate.spent()));
    }
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

/// What each metered generator spent during the unit: `now` less what it had spent at the
/// unit's start.
fn generator_usage(at_start: &[(String, Spent)], now: Vec<(String, Spent)>) -> Vec<ModelUsage> {
    now.into_iter()
        .map(|(name, spent)| {
            let before = at_start
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| *s)
                .unwrap_or_default();
            let mut usage = ModelUsage::new(name, "generator");
            usage.add_spent(spent.since(before));
            usage
        })
        .collect()
}
