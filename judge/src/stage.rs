//! The `judge` stage: `prediction` and `case` batches in (any order), `verdict` batches out.

use std::collections::HashMap;
use std::sync::Mutex;

use arrow::array::RecordBatch;
use metamorph_data::{
    from_batch, Case, Emitter, Error, Prediction, RecordBuilder, RecordKind, Result, Stage, Task,
    Verdict,
};

use crate::oracle::judge_case;

#[derive(Default)]
struct State {
    /// Predictions by example id, one per model.
    predictions: HashMap<String, Vec<Prediction>>,
    /// Models seen, in order of appearance, with the tasks they have predicted (a model
    /// configured for some tasks only is not expected to answer the others).
    models: Vec<(String, Vec<Task>)>,
    /// Cases still waiting for a prediction.
    pending: Vec<Case>,
}

impl State {
    fn add(&mut self, p: Prediction) {
        match self.models.iter_mut().find(|(m, _)| *m == p.model) {
            Some((_, tasks)) if !tasks.contains(&p.task) => tasks.push(p.task),
            Some(_) => {}
            None => self.models.push((p.model.clone(), vec![p.task])),
        }
        let slot = self.predictions.entry(p.example_id.clone()).or_default();
        match slot.iter_mut().find(|q| q.model == p.model) {
            Some(existing) => *existing = p,
            None => slot.push(p),
        }
    }

    fn prediction(&self, id: &str, model: &str) -> Option<&Prediction> {
        self.predictions.get(id)?.iter().find(|p| p.model == model)
    }

    /// The models that answer examples of `case`'s task.
    fn models_for<'a>(&'a self, case: &Case) -> impl Iterator<Item = &'a String> {
        let task = case.followup.task;
        self.models
            .iter()
            .filter(move |(_, tasks)| tasks.contains(&task))
            .map(|(m, _)| m)
    }

    /// Verdicts for every model of `case`'s task, or `None` if a prediction is still missing.
    fn try_judge(&self, case: &Case) -> Option<Result<Vec<Verdict>>> {
        let mut verdicts = Vec::new();
        for model in self.models_for(case) {
            let followup = self.prediction(&case.followup.id, model)?;
            let sources: Option<Vec<&Prediction>> = case
                .source_ids
                .iter()
                .map(|id| self.prediction(id, model))
                .collect();
            verdicts.push(judge_case(case, &sources?, followup));
        }
        if verdicts.is_empty() {
            return None;
        }
        Some(verdicts.into_iter().collect())
    }

    fn first_missing(&self, case: &Case) -> String {
        let model = self
            .models_for(case)
            .next()
            .map(String::as_str)
            .unwrap_or("any model");
        let id = case
            .source_ids
            .iter()
            .chain(std::iter::once(&case.followup.id))
            .find(|id| self.prediction(id, model).is_none())
            .cloned()
            .unwrap_or_default();
        format!(
            "case `{}`: no prediction by {model} for input `{id}`",
            case.case_id
        )
    }
}

/// Judges cases as soon as the predictions they need are known.
#[derive(Default)]
pub struct JudgeStage {
    state: Mutex<State>,
}

impl JudgeStage {
    /// A judge with no prediction yet.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Stage for JudgeStage {
    fn name(&self) -> &str {
        "judge"
    }

    fn consumes(&self) -> &[RecordKind] {
        &[RecordKind::Prediction, RecordKind::Case]
    }

    fn produces(&self) -> &[RecordKind] {
        &[RecordKind::Verdict]
    }

    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        let kind = RecordKind::of_batch(&batch)?;
        let mut out = RecordBuilder::new();
        {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            // New predictions may complete waiting cases; new cases are judged right away.
            let candidates = if kind == RecordKind::Prediction {
                for p in from_batch::<Prediction>(&batch, "judge input")? {
                    state.add(p);
                }
                std::mem::take(&mut state.pending)
            } else {
                from_batch::<Case>(&batch, "judge input")?
            };
            for case in candidates {
                match state.try_judge(&case) {
                    Some(verdicts) => verdicts?.into_iter().for_each(|v| out.append(v)),
                    None => state.pending.push(case),
                }
            }
        }
        if !out.is_empty() {
            emit.emit(out.finish()?)?;
        }
        Ok(())
    }

    fn finish(&self, _emit: &mut Emitter<'_>) -> Result<()> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match state.pending.first() {
            None => Ok(()),
            Some(case) => Err(Error::Schema {
                context: "judge".into(),
                message: format!(
                    "{} of the cases have no complete predictions; first: {} (was `execute` run on these cases, with a model for their task?)",
                    state.pending.len(),
                    state.first_missing(case)
                ),
            }),
        }
    }
}
