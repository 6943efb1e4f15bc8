//! The `execute` stage: `case` batches in; `prediction` batches out, then the case batch itself
//! (passed through for the judge).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arrow::array::RecordBatch;
use metamorph_data::usage::{ModelUsage, Spent};
use metamorph_data::{
    from_batch, Case, Emitter, Error, Example, Prediction, RecordBuilder, RecordKind, Result,
    Stage, Task,
};
use serde::Deserialize;

use crate::protocol::Request;
use crate::response_cache::{request_key, ResponseCache, DEFAULT_MAX_MB};
use crate::{Model, ModelConfig};

/// The `[execute]` table of the config file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExecuteConfig {
    /// The models under test (`[[execute.models]]`).
    pub models: Vec<ModelConfig>,
    /// Answer from the response cache what a model was asked before (default true; see
    /// [`crate::response_cache`]).
    pub cache: Option<bool>,
    /// The cache's folder (default [`ResponseCache::default_dir`]), relative to the config
    /// file's folder.
    pub cache_dir: Option<PathBuf>,
    /// The cache's size cap in MiB (default 2048), enforced when a run opens it.
    pub cache_max_mb: Option<u64>,
}

impl ExecuteConfig {
    /// Checks the models' names before any model starts: plain and unique.
    ///
    /// # Errors
    /// [`Error::Config`] naming the offending name.
    pub fn check_names(&self) -> Result<()> {
        metamorph_data::check_names("model", self.models.iter().map(|m| m.name.as_str()))
    }

    /// Opens the response cache these settings ask for: `None` when `cache = false`,
    /// `no_cache` (`--no-cache`) or `METAMORPH_NO_CACHE` turns it off.
    ///
    /// # Errors
    /// [`Error::Io`] naming the folder when it cannot be created.
    pub fn open_cache(
        &self,
        base_dir: &Path,
        no_cache: bool,
    ) -> Result<Option<Arc<ResponseCache>>> {
        if no_cache || self.cache == Some(false) || ResponseCache::disabled_by_env() {
            return Ok(None);
        }
        let root = match &self.cache_dir {
            Some(dir) => base_dir.join(dir),
            None => ResponseCache::default_dir(),
        };
        let max_bytes = self
            .cache_max_mb
            .unwrap_or(DEFAULT_MAX_MB)
            .saturating_mul(1 << 20);
        let cache = ResponseCache::open(&root, max_bytes)?;
        tracing::debug!(cache = %root.display(), "response cache");
        Ok(Some(Arc::new(cache)))
    }
}

/// The inputs `model` answers (those of its tasks).
fn routed<'a>(model: &dyn Model, inputs: &[&'a Example]) -> Vec<&'a Example> {
    inputs
        .iter()
        .copied()
        .filter(|e| model.handles(e.task))
        .collect()
}

/// A model restricted to some tasks (`tasks = [...]` in its config).
pub struct ForTasks {
    inner: Arc<dyn Model>,
    tasks: Vec<Task>,
}

impl ForTasks {
    /// `inner`, answering only examples of `tasks`.
    pub fn new(inner: Arc<dyn Model>, tasks: Vec<Task>) -> Self {
        ForTasks { inner, tasks }
    }
}

impl Model for ForTasks {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        self.inner.predict(batch)
    }

    fn max_batch(&self) -> usize {
        self.inner.max_batch()
    }

    fn handles(&self, task: Task) -> bool {
        self.tasks.contains(&task)
    }

    fn spent(&self) -> Option<Spent> {
        self.inner.spent()
    }

    fn fingerprint(&self) -> Result<Option<String>> {
        self.inner.fingerprint()
    }

    fn requests_left(&self) -> Option<u64> {
        self.inner.requests_left()
    }
}

/// Runs every model on the sources and follow-ups of each case batch.
///
/// Each source is predicted once, however many cases share it (also across batches), and
/// identical inputs within a batch (same task and text fields) are run once and the prediction
/// copied to every id. With a [`ResponseCache`], what a model (with the same fingerprint) was
/// asked before is answered from it and every new answer is stored; a model that spends
/// (a paid endpoint) is called `max_batch` inputs at a time, so its answers reach the cache as
/// they come.
pub struct ExecuteStage {
    models: Vec<Arc<dyn Model>>,
    predicted_sources: Mutex<HashSet<String>>,
    cache: Option<Arc<ResponseCache>>,
    /// Per model (by index): predictions, cache hits, inputs executed.
    usage: Mutex<Vec<ModelUsage>>,
    /// What each model had spent when the stage was made.
    spent_at_start: Vec<Option<Spent>>,
}

impl ExecuteStage {
    /// A stage over already started models.
    ///
    /// # Errors
    /// [`Error::Config`] when `models` is empty, or two models share a name or one has a name
    /// that is not plain ([`metamorph_data::check_names`]).
    pub fn try_new(models: Vec<Arc<dyn Model>>) -> Result<Self> {
        if models.is_empty() {
            return Err(Error::Config(
                "no model to execute: add an [[execute.models]] table to the config, or pass \
                 --model (metamorph-execute)"
                    .into(),
            ));
        }
        metamorph_data::check_names("model", models.iter().map(|m| m.name()))?;
        let usage = models
            .iter()
            .map(|m| ModelUsage::new(m.name(), "model"))
            .collect();
        let spent_at_start = models.iter().map(|m| m.spent()).collect();
        Ok(ExecuteStage {
            models,
            predicted_sources: Mutex::new(HashSet::new()),
            cache: None,
            usage: Mutex::new(usage),
            spent_at_start,
        })
    }

    /// Answers from `cache` what was asked before, and stores every new answer in it (`None`:
    /// no cache).
    pub fn with_cache(mut self, cache: Option<Arc<ResponseCache>>) -> Self {
        self.cache = cache;
        self
    }

    /// What each model did in this stage so far: predictions, those from the cache, inputs
    /// executed, and what a metered endpoint spent since the stage was made.
    pub fn usage(&self) -> Vec<ModelUsage> {
        let usage = self.usage.lock().unwrap_or_else(|e| e.into_inner());
        usage
            .iter()
            .zip(&self.models)
            .zip(&self.spent_at_start)
            .map(|((record, model), start)| {
                let mut record = record.clone();
                if let (Some(now), Some(start)) = (model.spent(), start) {
                    record.add_spent(now.since(*start));
                }
                record
            })
            .collect()
    }

    /// Starts the models `config` lists.
    ///
    /// # Errors
    /// As [`ModelConfig::start`]; [`Error::Config`] when no model is configured.
    pub fn from_config(config: &ExecuteConfig, base_dir: &Path, no_cache: bool) -> Result<Self> {
        config.check_names()?;
        let cache = config.open_cache(base_dir, no_cache)?;
        let models = config
            .models
            .iter()
            .map(|m| m.start(base_dir))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self::try_new(models)?.with_cache(cache))
    }

    /// The inputs of a batch of cases that still need a prediction, without repeats.
    fn pending_inputs<'a>(&self, cases: &'a [Case]) -> Vec<&'a Example> {
        let mut done = self
            .predicted_sources
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut seen = HashSet::new();
        let mut inputs = Vec::new();
        for case in cases {
            for source in &case.sources {
                if done.insert(source.id.clone()) && seen.insert(source.id.as_str()) {
                    inputs.push(source);
                }
            }
            if seen.insert(case.followup.id.as_str()) {
                inputs.push(&case.followup);
            }
        }
        inputs
    }

    fn predict_all(
        &self,
        index: usize,
        model: &dyn Model,
        inputs: &[&Example],
    ) -> Result<Vec<Prediction>> {
        // Identical inputs under different ids run once.
        let mut unique: Vec<&Example> = Vec::new();
        let mut keys: Vec<String> = Vec::new();
        let mut slot_of_input = Vec::with_capacity(inputs.len());
        let mut slot_by_key: HashMap<String, usize> = HashMap::new();
        for example in inputs {
            let mut request = Request::from_example(example);
            request.id = "";
            let key = serde_json::to_string(&request).map_err(|e| Error::Model {
                model: model.name().to_string(),
                message: format!("cannot encode `{}`: {e}", example.id),
            })?;
            let slot = match slot_by_key.get(&key) {
                Some(slot) => *slot,
                None => {
                    unique.push(example);
                    keys.push(request_key(&key));
                    slot_by_key.insert(key, unique.len() - 1);
                    unique.len() - 1
                }
            };
            slot_of_input.push(slot);
        }
        let fingerprint = match &self.cache {
            Some(_) => model.fingerprint()?,
            None => None,
        };
        let cache = self.cache.as_deref().zip(fingerprint.as_deref());
        let mut answered: Vec<Option<Prediction>> = match cache {
            Some((cache, fingerprint)) => {
                let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                cache.get_many(fingerprint, &keys)?
            }
            None => vec![None; unique.len()],
        };
        let from_cache: Vec<bool> = answered.iter().map(Option::is_some).collect();
        let missing: Vec<usize> = (0..unique.len())
            .filter(|&i| answered[i].is_none())
            .collect();
        // A model that spends is called a batch at a time so its answers are stored as they
        // come; others get every missing input at once (their own batching packs them best).
        // Within a request budget, never more inputs than it allows: the call past it fails
        // before sending anything, so no answer paid for is lost.
        let metered = model.spent().is_some();
        let mut rest: &[usize] = &missing;
        while !rest.is_empty() {
            let mut size = if metered {
                model.max_batch().max(1)
            } else {
                rest.len()
            };
            if let Some(left) = model.requests_left() {
                size = size.min(left.max(1) as usize);
            }
            let (part, later) = rest.split_at(size.min(rest.len()));
            rest = later;
            let batch: Vec<&Example> = part.iter().map(|&i| unique[i]).collect();
            let predictions = model.predict(&batch)?;
            if predictions.len() != batch.len() {
                return Err(Error::Model {
                    model: model.name().to_string(),
                    message: format!(
                        "returned {} predictions for {} inputs",
                        predictions.len(),
                        batch.len()
                    ),
                });
            }
            if let Some((cache, fingerprint)) = cache {
                let entries: Vec<(&str, &Prediction)> = part
                    .iter()
                    .map(|&i| keys[i].as_str())
                    .zip(&predictions)
                    .collect();
                cache.put_many(fingerprint, &entries)?;
            }
            for (&i, prediction) in part.iter().zip(predictions) {
                answered[i] = Some(prediction);
            }
            self.count(index, |u| u.executed += part.len() as u64);
        }
        let hits = slot_of_input
            .iter()
            .filter(|&&slot| from_cache[slot])
            .count() as u64;
        self.count(index, |u| {
            u.predictions += inputs.len() as u64;
            u.from_cache += hits;
        });
        inputs
            .iter()
            .zip(slot_of_input)
            .map(|(example, slot)| {
                let mut p = answered[slot].clone().ok_or_else(|| Error::Model {
                    model: model.name().to_string(),
                    message: format!("no prediction for `{}`", example.id),
                })?;
                p.example_id = example.id.clone();
                p.model = model.name().to_string();
                Ok(p)
            })
            .collect()
    }

    fn count(&self, index: usize, update: impl FnOnce(&mut ModelUsage)) {
        let mut usage = self.usage.lock().unwrap_or_else(|e| e.into_inner());
        update(&mut usage[index]);
    }
}

/// A follow-up whose generation request is still open was never completed by the `generate`
/// stage: running a model under test on it would record a verdict about an unfinished input.
fn refuse_open_request(case: &Case) -> Result<()> {
    match case.generation()? {
        None => Ok(()),
        Some(request) => Err(Error::Schema {
            context: format!("case `{}`", case.case_id),
            message: format!(
                "its `{}` generation request is still open: run the generate stage \
                 (metamorph-generate, or [generate] in the pipeline config) before execute",
                request.kind()
            ),
        }),
    }
}

impl Stage for ExecuteStage {
    fn name(&self) -> &str {
        "execute"
    }

    fn consumes(&self) -> &[RecordKind] {
        &[RecordKind::Case]
    }

    fn produces(&self) -> &[RecordKind] {
        &[RecordKind::Prediction]
    }

    fn usage(&self) -> Vec<ModelUsage> {
        ExecuteStage::usage(self)
    }

    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        let cases: Vec<Case> = from_batch(&batch, "execute input")?;
        for case in &cases {
            case.validate()?;
            refuse_open_request(case)?;
        }
        let inputs = self.pending_inputs(&cases);
        let mut out = RecordBuilder::new();
        for (index, model) in self.models.iter().enumerate() {
            let mine = routed(model.as_ref(), &inputs);
            if mine.is_empty() {
                continue;
            }
            for p in self.predict_all(index, model.as_ref(), &mine)? {
                out.append(p);
            }
        }
        if !out.is_empty() {
            emit.emit(out.finish()?)?;
        }
        emit.emit(batch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers every example with its task name and records what it was asked.
    struct Recorder {
        name: &'static str,
        seen: Mutex<Vec<String>>,
    }

    impl Model for Recorder {
        fn name(&self) -> &str {
            self.name
        }

        fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
            let mut seen = self.seen.lock().unwrap();
            Ok(batch
                .iter()
                .map(|e| {
                    seen.push(e.id.clone());
                    Prediction {
                        label: Some(e.task.to_string()),
                        ..Prediction::new(&e.id, self.name, e.task)
                    }
                })
                .collect())
        }
    }

    fn case(id: &str, task: Task) -> Case {
        let source = Example::new(id, task);
        let mut followup = source.clone();
        followup.id = format!("{id}:MR:0");
        followup.question = Some("an edited input".into());
        Case::new(
            "f",
            "MR",
            vec![source],
            followup,
            &metamorph_data::Expectation::Equal,
        )
    }

    #[test]
    fn models_only_see_the_tasks_they_are_configured_for() {
        let boolq = Arc::new(Recorder {
            name: "boolq-only",
            seen: Mutex::new(Vec::new()),
        });
        let any = Arc::new(Recorder {
            name: "any",
            seen: Mutex::new(Vec::new()),
        });
        let stage = ExecuteStage::try_new(vec![
            Arc::new(ForTasks::new(boolq.clone(), vec![Task::BoolQ])),
            any.clone(),
        ])
        .unwrap();
        let cases = [case("b", Task::BoolQ), case("r", Task::Relation)];
        let inputs = stage.pending_inputs(&cases);
        for (index, model) in stage.models.iter().enumerate() {
            let mine = routed(model.as_ref(), &inputs);
            stage.predict_all(index, model.as_ref(), &mine).unwrap();
        }
        assert_eq!(*boolq.seen.lock().unwrap(), ["b", "b:MR:0"]);
        assert_eq!(*any.seen.lock().unwrap(), ["b", "b:MR:0", "r", "r:MR:0"]);
    }

    #[test]
    fn cases_with_an_open_generation_request_are_refused() {
        let open = case("q", Task::Drop).with_generation(
            &metamorph_data::GenerationRequest::Decomposition {
                field: "question".into(),
            },
        );
        let e = refuse_open_request(&open).unwrap_err().to_string();
        assert!(
            e.contains("case `q:MR:0`") && e.contains("`decomposition`"),
            "{e}"
        );
        assert!(refuse_open_request(&case("b", Task::BoolQ)).is_ok());
    }
}
