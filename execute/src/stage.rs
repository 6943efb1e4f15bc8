//! The `execute` stage: `case` batches in; `prediction` batches out, then the case batch itself
//! (passed through for the judge).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arrow::array::RecordBatch;
use metamorph_data::{
    from_batch, Case, Emitter, Error, Example, Prediction, RecordBuilder, RecordKind, Result, Stage,
};
use serde::Deserialize;

use crate::protocol::Request;
use crate::{Model, SubprocessConfig, SubprocessModel};

/// The `[execute]` table of the config file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ExecuteConfig {
    /// The models under test (`[[execute.models]]`).
    pub models: Vec<ModelConfig>,
}

/// One model under test.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// Name recorded in predictions and verdicts.
    pub name: String,
    /// How the model is run; only `subprocess` (the JSONL protocol) so far.
    #[serde(default = "default_kind")]
    pub kind: String,
    /// Program and arguments.
    pub command: Vec<String>,
    /// Seconds to wait for one batch (default 120).
    #[serde(default)]
    pub timeout_secs: Option<f64>,
    /// Requests per batch (default 32).
    #[serde(default)]
    pub batch_size: Option<usize>,
    /// Working directory, relative to the config file's folder (default: that folder).
    #[serde(default)]
    pub workdir: Option<PathBuf>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
}

fn default_kind() -> String {
    "subprocess".into()
}

impl ModelConfig {
    /// Starts the model; relative paths are taken from `base_dir` (the config file's folder).
    ///
    /// # Errors
    /// [`Error::Config`] for an unknown kind; [`Error::Model`] if it cannot start.
    pub fn start(&self, base_dir: &Path) -> Result<Arc<dyn Model>> {
        match self.kind.as_str() {
            "subprocess" => {
                let config = SubprocessConfig {
                    command: self.command.clone(),
                    timeout_secs: self.timeout_secs.unwrap_or(120.0),
                    batch_size: self.batch_size.unwrap_or(32),
                    workdir: Some(base_dir.join(self.workdir.as_deref().unwrap_or(Path::new(".")))),
                    env: self.env.clone(),
                };
                Ok(Arc::new(SubprocessModel::spawn(&self.name, config)?))
            }
            other => Err(Error::Config(format!(
                "model `{}`: unknown kind `{other}` (this build supports: subprocess)",
                self.name
            ))),
        }
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
    /// [`Error::Config`] when `models` is empty.
    pub fn try_new(models: Vec<Arc<dyn Model>>) -> Result<Self> {
        if models.is_empty() {
            return Err(Error::Config(
                "no model to execute: add an [[execute.models]] table to the config".into(),
            ));
        }
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
        }
        let inputs = self.pending_inputs(&cases);
        let mut out = RecordBuilder::new();
        for model in &self.models {
            for p in self.predict_all(model.as_ref(), &inputs)? {
                out.append(p);
            }
        }
        if !out.is_empty() {
            emit.emit(out.finish()?)?;
        }
        emit.emit(batch)
    }
}
