//! The `generate` stage: completes the follow-ups of `case` rows that carry a
//! [`GenerationRequest`] (Break-Perturb-Build's *Build* and *Break*), and optionally fills the
//! QDMR `steps` of `example` rows that lack them.
//!
//! # Design decisions
//! * **One model per request kind** (`[generate.question]`, `[generate.decomposition]`), each
//!   with its own decoding options: BPB's question generator and QDMR parser are separate
//!   fine-tuned BARTs with different settings. `[generate.masked_lm]` names the masked LM of
//!   substitution requests ([`CandleMaskedLm`]; `parser` adds the spaCy pipeline its same-POS
//!   filter tags with).
//! * **Substitutions take the best surviving candidate**: the masked word's top-k predictions
//!   are filtered as the request says (whole words, probability floor, same part of speech) and
//!   the most probable one replaces the word; a case with no candidate left is dropped and
//!   counted. Each request is one forward pass (its own masked text), not batched across cases.
//! * **Only cases with a request cost anything**: a case batch whose `generation` column is all
//!   null is passed on as it came, without being decoded into rows.
//! * **Identical model inputs run once per batch** (perturbations of one source often ask the
//!   same thing), then in chunks of the generator's `batch_size`.
//! * **A bad model output drops its case, not the run**: an empty question or a decomposition
//!   with an empty step or a reference to a later step is counted under its reason
//!   ([`GenerateCounts`]) and logged; a bad *request* (unknown field, no model for its kind) is
//!   an error, since it is a configuration or upstream bug that would recur on every case.
//! * **Edits follow the text**: a generated question replaces the case's edits of its field by
//!   the one edit from the source's text to the new one (common prefix and suffix left out), so
//!   reports show what really changed. A parsed decomposition changes no text; the follow-up's
//!   `operators` are cleared because they described the old steps.
//! * **Examples** (`example_steps = true`): the stage also reads `example` rows and fills
//!   `steps` of QDMR, DROP and SQuAD examples that have a question but no steps, with the
//!   decomposition model; BREAK's own QDMR is kept where present. An example whose parse is
//!   malformed keeps `steps` empty (perturb then skips it) and is counted. In a pipeline this
//!   stage must then also run *before* perturb (see [`GenerateStage::for_examples`]).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arrow::array::{Array, RecordBatch};
use metamorph_data::{
    from_batch, to_batch, Case, Edit, Emitter, Error, Example, GenerationRequest, RecordKind,
    Result, Stage, Task,
};
use metamorph_models::masked_lm::{CandleMaskedLm, FillOptions};
use metamorph_parse::spacy::pipeline::Pipeline;

use crate::edit::EditBuilder;
use crate::generator::Generator;
use crate::generator_config::{GenerateConfig, Purpose};
use crate::qdmr;

/// What the stage did so far (all batches, all workers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GenerateCounts {
    /// Cases whose request was completed.
    pub completed: usize,
    /// Cases dropped because the generated question was empty.
    pub empty_question: usize,
    /// Cases dropped because the parsed decomposition was malformed.
    pub malformed_decomposition: usize,
    /// Cases dropped because no masked-LM candidate passed the substitution's filters.
    pub no_substitute: usize,
    /// Cases dropped because the edit builder's rules could not write their question
    /// (per perturbation and reason: [`GenerateStage::unrendered`]).
    pub unrendered: usize,
    /// Examples given steps.
    pub examples_parsed: usize,
    /// Examples left without steps because their parse was malformed.
    pub examples_malformed: usize,
    /// Distinct model inputs run.
    pub model_inputs: usize,
}

#[derive(Default)]
struct Counters {
    completed: AtomicUsize,
    unrendered: AtomicUsize,
    empty_question: AtomicUsize,
    malformed_decomposition: AtomicUsize,
    no_substitute: AtomicUsize,
    examples_parsed: AtomicUsize,
    examples_malformed: AtomicUsize,
    model_inputs: AtomicUsize,
}

/// The generate stage (see the module documentation).
pub struct GenerateStage {
    question: Option<Arc<Generator>>,
    /// The rule-based question builder (`[generate.question] kind = "edit"`), in place of a
    /// question generator.
    edit: Option<Arc<EditBuilder>>,
    decomposition: Option<Arc<Generator>>,
    masked_lm: Option<Arc<CandleMaskedLm>>,
    parser: Option<Arc<Pipeline>>,
    consumes: Vec<RecordKind>,
    counters: Arc<Counters>,
}

impl GenerateStage {
    /// What each metered generator (an `openai` one) has spent so far, by name.
    pub fn spent(&self) -> Vec<(String, metamorph_data::usage::Spent)> {
        [&self.question, &self.decomposition]
            .into_iter()
            .flatten()
            .filter_map(|g| Some((g.name().to_string(), g.spent()?)))
            .collect()
    }

    /// A stage over started generators; `example_steps` makes it read `example` rows too.
    ///
    /// # Errors
    /// [`Error::Config`] when `example_steps` is set without a decomposition model.
    pub fn try_new(
        question: Option<Generator>,
        decomposition: Option<Generator>,
        example_steps: bool,
    ) -> Result<Self> {
        if example_steps && decomposition.is_none() {
            return Err(Error::Config(
                "[generate] example_steps = true needs a [generate.decomposition] model".into(),
            ));
        }
        let mut consumes = vec![RecordKind::Case];
        if example_steps {
            consumes.push(RecordKind::Example);
        }
        Ok(GenerateStage {
            question: question.map(Arc::new),
            decomposition: decomposition.map(Arc::new),
            edit: None,
            masked_lm: None,
            parser: None,
            consumes,
            counters: Arc::default(),
        })
    }

    /// Starts the models `config` names; relative paths are taken from `base_dir` (the config
    /// file's folder).
    ///
    /// # Errors
    /// [`Error::Config`] for bad settings; [`Error::Asset`] when a checkpoint cannot be loaded.
    pub fn from_config(config: &GenerateConfig, base_dir: &Path) -> Result<Self> {
        let edit = match &config.question {
            Some(c) => c.start_edit(base_dir)?,
            None => None,
        };
        let question = config
            .question
            .as_ref()
            .filter(|_| edit.is_none())
            .map(|c| c.start(Purpose::Question, base_dir))
            .transpose()?;
        let decomposition = config
            .decomposition
            .as_ref()
            .map(|c| c.start(Purpose::Decomposition, base_dir))
            .transpose()?;
        let mut stage = Self::try_new(question, decomposition, config.example_steps)?;
        stage.edit = edit.map(Arc::new);
        Ok(match &config.masked_lm {
            Some(c) => {
                let (model, parser) = c.start(base_dir)?;
                stage.with_masked_lm(model, parser)
            }
            None => stage,
        })
    }

    /// The same stage completing substitution requests with `model`, tagging with `parser` for
    /// requests that keep the part of speech.
    pub fn with_masked_lm(
        mut self,
        model: Arc<CandleMaskedLm>,
        parser: Option<Arc<Pipeline>>,
    ) -> Self {
        self.masked_lm = Some(model);
        self.parser = parser;
        self
    }

    /// The same models, reading only `example` rows: the instance a pipeline places before
    /// perturb when examples need steps (the one after perturb then reads only cases).
    pub fn for_examples(&self) -> Option<GenerateStage> {
        self.consumes
            .contains(&RecordKind::Example)
            .then(|| GenerateStage {
                question: self.question.clone(),
                edit: self.edit.clone(),
                decomposition: self.decomposition.clone(),
                masked_lm: self.masked_lm.clone(),
                parser: self.parser.clone(),
                consumes: vec![RecordKind::Example],
                counters: self.counters.clone(),
            })
    }

    /// The same models, reading only `case` rows.
    pub fn for_cases(&self) -> GenerateStage {
        GenerateStage {
            question: self.question.clone(),
            edit: self.edit.clone(),
            decomposition: self.decomposition.clone(),
            masked_lm: self.masked_lm.clone(),
            parser: self.parser.clone(),
            consumes: vec![RecordKind::Case],
            counters: self.counters.clone(),
        }
    }

    /// Per (perturbation, reason): questions the edit builder did not write (empty without one).
    pub fn unrendered(&self) -> std::collections::BTreeMap<(String, String), usize> {
        self.edit
            .as_ref()
            .map(|e| e.unrendered())
            .unwrap_or_default()
    }

    /// Per perturbation: questions the edit builder wrote (empty without one).
    pub fn rendered(&self) -> std::collections::BTreeMap<String, usize> {
        self.edit.as_ref().map(|e| e.rendered()).unwrap_or_default()
    }

    /// What the stage (and its siblings from [`GenerateStage::for_examples`]) did so far.
    pub fn counts(&self) -> GenerateCounts {
        let c = &self.counters;
        let get = |a: &AtomicUsize| a.load(Ordering::Relaxed);
        GenerateCounts {
            completed: get(&c.completed),
            empty_question: get(&c.empty_question),
            malformed_decomposition: get(&c.malformed_decomposition),
            no_substitute: get(&c.no_substitute),
            unrendered: get(&c.unrendered),
            examples_parsed: get(&c.examples_parsed),
            examples_malformed: get(&c.examples_malformed),
            model_inputs: get(&c.model_inputs),
        }
    }

    /// The model configured for `request`'s kind.
    fn generator<'a>(
        &self,
        case: &Case,
        request: &GenerationRequest,
        model: &'a Option<Arc<Generator>>,
        table: &str,
    ) -> Result<&'a Generator> {
        model.as_deref().ok_or_else(|| {
            Error::Config(format!(
                "case `{}`: a `{}` request, but no {table} model is configured",
                case.case_id,
                request.kind()
            ))
        })
    }

    /// Completes the requests of a case batch; returns the cases to keep.
    fn complete_cases(&self, mut cases: Vec<Case>) -> Result<Vec<Case>> {
        // (case index, request, model input) per open request, grouped by kind.
        let mut questions: Vec<(usize, String, String)> = Vec::new();
        // (case index, field) per question request the edit builder writes.
        let mut edits: Vec<(usize, String)> = Vec::new();
        let mut decompositions: Vec<(usize, String, String)> = Vec::new();
        // (case index, field, new text or None when no candidate survived).
        let mut substitutions: Vec<(usize, String, Option<String>)> = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            let Some(request) = case.generation()? else {
                continue;
            };
            match &request {
                GenerationRequest::Question { field, .. } if self.edit.is_some() => {
                    check_field(case, field)?;
                    edits.push((i, field.clone()));
                }
                GenerationRequest::Question { steps, field, .. } => {
                    let generator =
                        self.generator(case, &request, &self.question, "[generate.question]")?;
                    check_field(case, field)?;
                    let input = generator.input("steps", &qdmr::join_steps(steps));
                    questions.push((i, field.clone(), input));
                }
                GenerationRequest::Decomposition { field } => {
                    let generator = self.generator(
                        case,
                        &request,
                        &self.decomposition,
                        "[generate.decomposition]",
                    )?;
                    check_field(case, field)?;
                    let question = case.followup.field(field).ok_or_else(|| Error::Schema {
                        context: format!("case `{}`", case.case_id),
                        message: format!(
                            "a decomposition request of follow-up field `{field}`, which is empty"
                        ),
                    })?;
                    let input = generator.input("question", question);
                    decompositions.push((i, field.clone(), input));
                }
                GenerationRequest::Substitution {
                    field,
                    start,
                    end,
                    top_k,
                    min_prob,
                    same_pos,
                } => {
                    let model = self.masked_lm.as_deref().ok_or_else(|| {
                        Error::Config(format!(
                            "case `{}`: a `substitution` request, but no [generate.masked_lm] \
                             model is configured",
                            case.case_id
                        ))
                    })?;
                    check_field(case, field)?;
                    let text = case.followup.field(field).ok_or_else(|| Error::Schema {
                        context: format!("case `{}`", case.case_id),
                        message: format!(
                            "a substitution in follow-up field `{field}`, which is empty"
                        ),
                    })?;
                    let options = FillOptions {
                        top_k: *top_k,
                        min_prob: *min_prob,
                        same_pos: *same_pos,
                    };
                    let candidates = model
                        .substitutes(text, (*start, *end), &options, self.parser.as_deref())
                        .map_err(|e| match e {
                            Error::Config(m) => {
                                Error::Config(format!("case `{}`: {m}", case.case_id))
                            }
                            Error::Model { model, message } => Error::Model {
                                model,
                                message: format!("case `{}`: {message}", case.case_id),
                            },
                            other => other,
                        })?;
                    self.counters.model_inputs.fetch_add(1, Ordering::Relaxed);
                    let replaced = candidates.first().map(|best| {
                        let chars: Vec<char> = text.chars().collect();
                        let mut out: String = chars[..*start].iter().collect();
                        out.push_str(&best.word);
                        out.extend(&chars[*end..]);
                        out
                    });
                    substitutions.push((i, field.clone(), replaced));
                }
            }
        }
        let mut keep = vec![true; cases.len()];
        let (mut completed, mut empty, mut malformed, mut unsubstituted) = (0, 0, 0, 0);
        let mut unrendered = 0;
        for (i, field, replaced) in substitutions {
            let case = &mut cases[i];
            match replaced {
                Some(text) => {
                    set_field(case, &field, text);
                    case.set_generation(None);
                    completed += 1;
                }
                None => {
                    tracing::debug!(case = %case.case_id, "dropped: no masked-LM substitute");
                    keep[i] = false;
                    unsubstituted += 1;
                }
            }
        }
        if let (Some(builder), false) = (&self.edit, edits.is_empty()) {
            let refs: Vec<&Case> = edits.iter().map(|(i, _)| &cases[*i]).collect();
            let built = builder.build(&refs)?;
            for ((i, field), question) in edits.into_iter().zip(built) {
                let case = &mut cases[i];
                match question {
                    Some(text) => {
                        set_field(case, &field, text);
                        case.set_generation(None);
                        completed += 1;
                    }
                    None => {
                        keep[i] = false;
                        unrendered += 1;
                    }
                }
            }
        }
        if let Some(generator) = &self.question {
            let inputs: Vec<String> = questions.iter().map(|q| q.2.clone()).collect();
            let outputs = self.run(generator, &inputs)?;
            for ((i, field, _), output) in questions.into_iter().zip(outputs) {
                let case = &mut cases[i];
                let text = qdmr::clean_question(&output);
                if text.is_empty() {
                    tracing::debug!(case = %case.case_id, "dropped: empty generated question");
                    keep[i] = false;
                    empty += 1;
                    continue;
                }
                set_field(case, &field, text);
                case.set_generation(None);
                completed += 1;
            }
        }
        if let Some(generator) = &self.decomposition {
            let inputs: Vec<String> = decompositions.iter().map(|d| d.2.clone()).collect();
            let outputs = self.run(generator, &inputs)?;
            for ((i, _, _), output) in decompositions.into_iter().zip(outputs) {
                let case = &mut cases[i];
                match qdmr::parse_decomposition(&output) {
                    Ok(steps) => {
                        case.followup.steps = Some(steps);
                        case.followup.operators = None;
                        case.set_generation(None);
                        completed += 1;
                    }
                    Err(why) => {
                        tracing::debug!(case = %case.case_id, output = %output, "dropped: malformed decomposition: {why}");
                        keep[i] = false;
                        malformed += 1;
                    }
                }
            }
        }
        let c = &self.counters;
        c.completed.fetch_add(completed, Ordering::Relaxed);
        c.empty_question.fetch_add(empty, Ordering::Relaxed);
        c.malformed_decomposition
            .fetch_add(malformed, Ordering::Relaxed);
        c.no_substitute.fetch_add(unsubstituted, Ordering::Relaxed);
        c.unrendered.fetch_add(unrendered, Ordering::Relaxed);
        tracing::debug!(
            cases = cases.len(),
            completed,
            dropped_empty_question = empty,
            dropped_malformed_decomposition = malformed,
            dropped_no_substitute = unsubstituted,
            dropped_unrendered = unrendered,
            "generate: case batch"
        );
        Ok(cases
            .into_iter()
            .zip(keep)
            .filter_map(|(c, k)| k.then_some(c))
            .collect())
    }

    fn run(&self, generator: &Generator, inputs: &[String]) -> Result<Vec<String>> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let distinct = inputs
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len();
        self.counters
            .model_inputs
            .fetch_add(distinct, Ordering::Relaxed);
        generator.run(inputs)
    }

    /// Fills `steps` of the examples that need them.
    fn fill_example_steps(&self, examples: &mut [Example]) -> Result<()> {
        let Some(generator) = &self.decomposition else {
            return Ok(());
        };
        let needy: Vec<usize> = examples
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.steps.is_none()
                    && matches!(e.task, Task::Qdmr | Task::Drop | Task::Squad)
                    && e.question.as_deref().is_some_and(|q| !q.trim().is_empty())
            })
            .map(|(i, _)| i)
            .collect();
        let inputs: Vec<String> = needy
            .iter()
            .map(|&i| generator.input("question", examples[i].question.as_deref().unwrap_or("")))
            .collect();
        let outputs = self.run(generator, &inputs)?;
        let (mut parsed, mut malformed) = (0, 0);
        for (i, output) in needy.into_iter().zip(outputs) {
            match qdmr::parse_decomposition(&output) {
                Ok(steps) => {
                    examples[i].steps = Some(steps);
                    examples[i].operators = None;
                    parsed += 1;
                }
                Err(why) => {
                    tracing::debug!(example = %examples[i].id, output = %output, "no steps: malformed decomposition: {why}");
                    malformed += 1;
                }
            }
        }
        let c = &self.counters;
        c.examples_parsed.fetch_add(parsed, Ordering::Relaxed);
        c.examples_malformed.fetch_add(malformed, Ordering::Relaxed);
        if parsed + malformed > 0 {
            tracing::debug!(
                examples = examples.len(),
                parsed,
                malformed,
                "generate: example steps"
            );
        }
        Ok(())
    }
}

/// Fails unless `field` is a text field of the follow-up.
fn check_field(case: &Case, field: &str) -> Result<()> {
    let mut probe = case.followup.clone();
    if probe.field_mut(field).is_none() {
        return Err(Error::Schema {
            context: format!("case `{}`", case.case_id),
            message: format!(
                "generation request names field `{field}`, which is not a text field \
                 (context, question, text, text_b, title)"
            ),
        });
    }
    Ok(())
}

/// Writes `text` into the follow-up's `field` and replaces the case's edits of that field by
/// the one edit from the first source's text to it (whole words).
fn set_field(case: &mut Case, field: &str, text: String) {
    let before: Vec<char> = case
        .sources
        .first()
        .and_then(|s| s.field(field))
        .unwrap_or("")
        .chars()
        .collect();
    let after: Vec<char> = text.chars().collect();
    // Common prefix and suffix, cut back to whole words so the edit reads as one.
    let mut prefix = before
        .iter()
        .zip(&after)
        .take_while(|(a, b)| a == b)
        .count();
    while prefix > 0 && !before[prefix - 1].is_whitespace() {
        prefix -= 1;
    }
    let mut suffix = before[prefix..]
        .iter()
        .rev()
        .zip(after[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while suffix > 0 && !before[before.len() - suffix].is_whitespace() {
        suffix -= 1;
    }
    case.edits.retain(|e| e.field != field);
    if before != after {
        case.edits.push(Edit {
            field: field.to_string(),
            start: prefix as u32,
            end: (before.len() - suffix) as u32,
            before: before[prefix..before.len() - suffix].iter().collect(),
            after: after[prefix..after.len() - suffix].iter().collect(),
        });
    }
    if let Some(slot) = case.followup.field_mut(field) {
        *slot = Some(text);
    }
}

impl Stage for GenerateStage {
    fn name(&self) -> &str {
        "generate"
    }

    fn consumes(&self) -> &[RecordKind] {
        &self.consumes
    }

    fn produces(&self) -> &[RecordKind] {
        &self.consumes
    }

    /// What each metered generator spent since it started (a stage binary's process: this
    /// shard).
    fn usage(&self) -> Vec<metamorph_data::usage::ModelUsage> {
        self.spent()
            .into_iter()
            .map(|(name, spent)| {
                let mut usage = metamorph_data::usage::ModelUsage::new(name, "generator");
                usage.add_spent(spent);
                usage
            })
            .collect()
    }

    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        match RecordKind::of_batch(&batch)? {
            RecordKind::Case => {
                let open = batch
                    .column_by_name("generation")
                    .is_some_and(|c| c.null_count() < c.len());
                if !open {
                    return emit.emit(batch);
                }
                let cases: Vec<Case> = from_batch(&batch, "generate input")?;
                let kept = self.complete_cases(cases)?;
                emit.emit(to_batch(&kept)?)
            }
            RecordKind::Example if self.consumes.contains(&RecordKind::Example) => {
                let mut examples: Vec<Example> = from_batch(&batch, "generate input")?;
                self.fill_example_steps(&mut examples)?;
                emit.emit(to_batch(&examples)?)
            }
            _ => emit.emit(batch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdmr::Template;
    use crate::{DecodingOptions, Seq2Seq};
    use metamorph_data::Expectation;
    use metamorph_models::ModelOptions;
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// Answers each input from a script, recording what it was asked.
    struct Scripted {
        replies: HashMap<String, String>,
        asked: Mutex<Vec<String>>,
    }

    impl Seq2Seq for Scripted {
        fn name(&self) -> &str {
            "scripted"
        }

        fn generate(&self, inputs: &[&str], _: &DecodingOptions) -> Result<Vec<String>> {
            let mut asked = self.asked.lock().unwrap();
            Ok(inputs
                .iter()
                .map(|i| {
                    asked.push(i.to_string());
                    self.replies.get(*i).cloned().unwrap_or_default()
                })
                .collect())
        }
    }

    fn scripted(pairs: &[(&str, &str)]) -> Arc<Scripted> {
        Arc::new(Scripted {
            replies: pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            asked: Mutex::new(Vec::new()),
        })
    }

    fn generator(model: Arc<Scripted>, placeholder: &str) -> Generator {
        let template = Template::parse(&format!("{{{placeholder}}}"), &[placeholder]).unwrap();
        Generator::new(model, DecodingOptions::default(), 2, template, true)
    }

    fn case(id: &str, request: Option<GenerationRequest>) -> Case {
        let mut source = Example::new(id, Task::Drop);
        source.question = Some("How many touchdowns did Rice score?".into());
        let mut followup = source.clone();
        followup.id = format!("{id}:bpb:0");
        let case = Case::new(
            "bpb",
            "AppendBool",
            vec![source],
            followup,
            &Expectation::Equal,
        );
        match request {
            Some(r) => case.with_generation(&r),
            None => case,
        }
    }

    fn question_request(steps: &[&str]) -> GenerationRequest {
        GenerationRequest::Question {
            steps: steps.iter().map(|s| s.to_string()).collect(),
            field: "question".into(),
            original: None,
            detail: None,
        }
    }

    #[test]
    fn questions_and_decompositions_complete_or_drop_with_a_reason() {
        let qg = scripted(&[
            (
                "return touchdowns ;return @@1@@ by Rice ;return number of @@2@@",
                "  How many touchdowns did  Rice score? ",
            ),
            ("return yards", ""),
        ]);
        let parser = scripted(&[
            (
                "How many touchdowns did Rice score?",
                "return touchdowns ;return @@1@@ by Rice ;return number of @@2@@",
            ),
            ("Who won?", "return @@2@@ ;return winner"),
        ]);
        let stage = GenerateStage::try_new(
            Some(generator(qg.clone(), "steps")),
            Some(generator(parser.clone(), "question")),
            false,
        )
        .unwrap();
        let steps = ["touchdowns", "#1 by Rice", "number of #2"];
        let mut who = case(
            "d",
            Some(GenerationRequest::Decomposition {
                field: "question".into(),
            }),
        );
        who.followup.question = Some("Who won?".into());
        let cases = vec![
            case("a", Some(question_request(&steps))),
            // The same input as `a`: asked once.
            case("b", Some(question_request(&steps))),
            case("c", Some(question_request(&["yards"]))),
            case(
                "p",
                Some(GenerationRequest::Decomposition {
                    field: "question".into(),
                }),
            ),
            who,
            case("n", None),
        ];
        let untouched = cases[5].clone();
        let kept = stage.complete_cases(cases).unwrap();
        let ids: Vec<&str> = kept.iter().map(|c| c.case_id.as_str()).collect();
        assert_eq!(ids, ["a:bpb:0", "b:bpb:0", "p:bpb:0", "n:bpb:0"]);
        assert_eq!(qg.asked.lock().unwrap().len(), 2);
        let a = &kept[0];
        assert_eq!(
            a.followup.question.as_deref(),
            Some("How many touchdowns did Rice score?")
        );
        assert_eq!(a.generation_json, None);
        // Same text as the source: no edit left for the field.
        assert!(a.edits.is_empty());
        assert_eq!(
            kept[2].followup.steps.as_deref().unwrap(),
            steps.map(String::from)
        );
        assert_eq!(kept[2].generation_json, None);
        assert_eq!(kept[3], untouched);
        let counts = stage.counts();
        assert_eq!(
            (
                counts.completed,
                counts.empty_question,
                counts.malformed_decomposition
            ),
            (3, 1, 1)
        );
        assert_eq!(counts.model_inputs, 4);
    }

    #[test]
    fn a_generated_question_leaves_one_minimal_edit() {
        let mut c = case("a", None);
        c.edits.push(Edit {
            field: "question".into(),
            start: 0,
            end: 3,
            before: "How".into(),
            after: "Who".into(),
        });
        set_field(&mut c, "question", "How many yards did Rice score?".into());
        assert_eq!(
            c.edits,
            [Edit {
                field: "question".into(),
                start: 9,
                end: 19,
                before: "touchdowns".into(),
                after: "yards".into(),
            }]
        );
    }

    #[test]
    fn requests_without_a_model_are_config_errors_naming_the_case() {
        let stage = GenerateStage::try_new(None, None, false).unwrap();
        let e = stage
            .complete_cases(vec![case("a", Some(question_request(&["x"])))])
            .unwrap_err();
        assert!(
            matches!(&e, Error::Config(m) if m.contains("case `a:bpb:0`") && m.contains("[generate.question]")),
            "{e}"
        );
        let substitution = GenerationRequest::Substitution {
            field: "question".into(),
            start: 0,
            end: 3,
            top_k: 5,
            min_prob: 0.0,
            same_pos: false,
        };
        let e = stage
            .complete_cases(vec![case("s", Some(substitution))])
            .unwrap_err();
        assert!(
            matches!(&e, Error::Config(m) if m.contains("case `s:bpb:0`") && m.contains("masked_lm")),
            "{e}"
        );
        let bad_field = GenerationRequest::Question {
            steps: vec!["x".into()],
            field: "answer".into(),
            original: None,
            detail: None,
        };
        let stage =
            GenerateStage::try_new(Some(generator(scripted(&[]), "steps")), None, false).unwrap();
        let e = stage
            .complete_cases(vec![case("f", Some(bad_field))])
            .unwrap_err();
        assert!(matches!(&e, Error::Schema { .. }), "{e}");
    }

    /// Substitution requests with the tiny BERT masked LM of the parity fixtures: the best
    /// whole-word candidate replaces the word and becomes the case's one edit; a floor no
    /// candidate reaches drops the case.
    #[test]
    fn substitutions_take_the_best_candidate_or_drop_the_case() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/tests/fixtures/mlm/bert");
        let model =
            Arc::new(CandleMaskedLm::load_dir(&dir, "bert-mlm", &ModelOptions::default()).unwrap());
        let stage = GenerateStage::try_new(None, None, false)
            .unwrap()
            .with_masked_lm(model.clone(), None);
        let request = |min_prob: f32| GenerationRequest::Substitution {
            field: "question".into(),
            // "touchdowns" in "How many touchdowns did Rice score?"
            start: 9,
            end: 19,
            top_k: 50,
            min_prob,
            same_pos: false,
        };
        let cases = vec![
            case("a", Some(request(0.0))),
            case("b", Some(request(0.99))),
        ];
        let kept = stage.complete_cases(cases).unwrap();
        assert_eq!(kept.len(), 1);
        let done = &kept[0];
        assert_eq!(done.generation().unwrap(), None);
        let best = model
            .substitutes(
                "How many touchdowns did Rice score?",
                (9, 19),
                &FillOptions {
                    top_k: 50,
                    min_prob: 0.0,
                    same_pos: false,
                },
                None,
            )
            .unwrap()
            .remove(0);
        let question = done.followup.question.as_deref().unwrap();
        assert_eq!(question, format!("How many {} did Rice score?", best.word));
        assert_eq!(done.edits.len(), 1);
        assert_eq!(done.edits[0].before, "touchdowns");
        assert_eq!(done.edits[0].after, best.word);
        let counts = stage.counts();
        assert_eq!((counts.completed, counts.no_substitute), (1, 1));
        // same_pos without a parser names the case.
        let mut same_pos = request(0.0);
        if let GenerationRequest::Substitution { same_pos: s, .. } = &mut same_pos {
            *s = true;
        }
        let err = stage
            .complete_cases(vec![case("c", Some(same_pos))])
            .unwrap_err();
        assert!(
            matches!(&err, Error::Config(m) if m.contains("case `c:bpb:0`")),
            "{err}"
        );
    }

    #[test]
    fn examples_without_steps_get_them_from_the_parser() {
        let parser = scripted(&[("What is x?", "return x")]);
        let stage = GenerateStage::try_new(None, Some(generator(parser.clone(), "question")), true)
            .unwrap();
        let mut with_gold = Example::new("g", Task::Qdmr);
        with_gold.question = Some("What is x?".into());
        with_gold.steps = Some(vec!["gold".into()]);
        let mut drop = Example::new("d", Task::Drop);
        drop.question = Some("What is x?".into());
        let mut boolq = Example::new("b", Task::BoolQ);
        boolq.question = Some("What is x?".into());
        let mut examples = vec![with_gold.clone(), drop, boolq.clone()];
        stage.fill_example_steps(&mut examples).unwrap();
        assert_eq!(examples[0], with_gold);
        assert_eq!(examples[1].steps.as_deref().unwrap(), ["x".to_string()]);
        assert_eq!(examples[2], boolq);
        assert_eq!(parser.asked.lock().unwrap().len(), 1);
        assert!(stage.for_examples().is_some());
        assert!(GenerateStage::try_new(None, None, true).is_err());
    }

    #[test]
    fn config_defaults_follow_bpb_and_bad_values_are_rejected() {
        let c = crate::DecodingConfig::default();
        let q = c.options(Purpose::Question, "q").unwrap();
        assert_eq!(
            (q.num_beams, q.max_new_tokens, q.repetition_penalty),
            (3, 99, 2.5)
        );
        let c = crate::DecodingConfig {
            early_stopping: Some(crate::EarlyStoppingSetting::Name("always".into())),
            ..Default::default()
        };
        assert!(c.options(Purpose::Question, "q").is_err());
        let config = serde_json::json!({"question": {"kind": "bart", "beams": 3}});
        let e = serde_json::from_value::<GenerateConfig>(config).unwrap_err();
        assert!(e.to_string().contains("beams"), "{e}");
    }
}
