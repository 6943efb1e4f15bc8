//! Break-Perturb-Build's evaluator asks single-step questions of a model under test: the
//! adapter from a started `[[execute.models]]` entry to [`ContextQa`].

use std::sync::Arc;

use metamorph_data::{Error, Example, Result, Task};
use metamorph_execute::{ExecuteConfig, Model};
use metamorph_perturb::bpb::evaluator::ContextQa;

/// Break-Perturb-Build's single-step QA model: the started `[[execute.models]]` entry `name`,
/// asked each step question as a SQuAD (else DROP) question about the source's context.
pub(crate) fn step_qa(
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
