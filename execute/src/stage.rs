//! The `execute` stage: `case` batches in; `prediction` batches out, then the case batch itself
//! (passed through for the judge).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

use arrow::array::RecordBatch;
use metamorph_data::{
    from_batch, Case, Emitter, Error, Example, Prediction, RecordBuilder, RecordKind, Result,
    Stage, Task,
};
use serde::Deserialize;

use crate::protocol::Request;
use crate::{Model, ModelConfig};

/// The `[execute]` table of the config file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExecuteConfig {
    /// The models under test (`[[execute.models]]`).
    pub models: Vec<ModelConfig>,
}

impl ExecuteConfig {
    /// Checks the models' names before any model starts: plain and unique.
    ///
    /// # Errors
    /// [`Error::Config`] naming the offending name.
    pub fn check_names(&self) -> Result<()> {
        metamorph_data::check_names("model", self.models.iter().map(|m| m.name.as_str()))
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
}

/// Runs every model on the sources and follow-ups of each case batch.
///
/// Each source is predicted once, however many cases share it (also across batches), and
/// identical inputs within a batch (same task and text fields) are run once and the prediction
/// copied to every id.
pub struct ExecuteStage {
    models: Vec<Arc<dyn Model>>,
    predicted_sources: Mutex<HashSet<String>>,
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
        Ok(ExecuteStage {
            models,
            predicted_sources: Mutex::new(HashSet::new()),
        })
    }

    /// Starts the models `config` lists.
    ///
    /// # Errors
    /// As [`ModelConfig::start`]; [`Error::Config`] when no model is configured.
    pub fn from_config(config: &ExecuteConfig, base_dir: &Path) -> Result<Self> {
        config.check_names()?;
        let models = config
            .models
            .iter()
            .map(|m| m.start(base_dir))
            .collect::<Result<Vec<_>>>()?;
        Self::try_new(models)
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

    fn predict_all(&self, model: &dyn Model, inputs: &[&Example]) -> Result<Vec<Prediction>> {
        // Identical inputs under different ids run once.
        let mut unique: Vec<&Example> = Vec::new();
        let mut slot_of_input = Vec::with_capacity(inputs.len());
        let mut slot_by_key: HashMap<String, usize> = HashMap::new();
        for example in inputs {
            let mut request = Request::from_example(example);
            request.id = "";
            let key = serde_json::to_string(&request).map_err(|e| Error::Model {
                model: model.name().to_string(),
                message: format!("cannot encode `{}`: {e}", example.id),
            })?;
            let slot = *slot_by_key.entry(key).or_insert_with(|| {
                unique.push(example);
                unique.len() - 1
            });
            slot_of_input.push(slot);
        }
        let predictions = model.predict(&unique)?;
        if predictions.len() != unique.len() {
            return Err(Error::Model {
                model: model.name().to_string(),
                message: format!(
                    "returned {} predictions for {} inputs",
                    predictions.len(),
                    unique.len()
                ),
            });
        }
        Ok(inputs
            .iter()
            .zip(slot_of_input)
            .map(|(example, slot)| {
                let mut p = predictions[slot].clone();
                p.example_id = example.id.clone();
                p
            })
            .collect())
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

    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        let cases: Vec<Case> = from_batch(&batch, "execute input")?;
        for case in &cases {
            case.validate()?;
            refuse_open_request(case)?;
        }
        let inputs = self.pending_inputs(&cases);
        let mut out = RecordBuilder::new();
        for model in &self.models {
            let mine = routed(model.as_ref(), &inputs);
            if mine.is_empty() {
                continue;
            }
            for p in self.predict_all(model.as_ref(), &mine)? {
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
        for model in &stage.models {
            let mine = routed(model.as_ref(), &inputs);
            stage.predict_all(model.as_ref(), &mine).unwrap();
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
