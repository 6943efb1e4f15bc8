//! Language models under test, in-process: any GGUF causal LM the models crate loads
//! (SmolLM2-135M-Instruct by default, Gemma 3 270M, a `.gguf` path or an `hf:` file) answers
//! the tasks through prompts (`kind = "causal-lm"`).
//!
//! Decisions recorded here:
//! * **Labels are read as probabilities, never parsed from free text.** For yes/no tasks
//!   (BoolQ, paraphrase), sentiment and relation classification, the prompt runs once and each
//!   label's words are scored as a continuation of it (the prompt's keys and values shared by
//!   all labels, [`CausalLm::score_continuations`]); the label log-probabilities (summed over a
//!   label's tokens) are normalised over the label set, so `probabilities` are real and sum to
//!   1, and the label is the most probable one. BoolQ records `yes`/`no` and paraphrase `1`/`0`
//!   from the words `yes`/`no`; sentiment uses `positive`, `negative`, `neutral` unless
//!   `[execute.models.labels]` says otherwise; relation classification needs the label set.
//! * **Extractive QA** (SQuAD, DROP) generates greedily, then locates the answer in the context
//!   as the OpenAI-compatible adapter does ([`crate::openai::reply::parse_span`]).
//! * **Prompts** are the OpenAI adapter's per-task templates (built in, or replaced per task by
//!   `[execute.models.prompts]`). A model whose GGUF carries a ChatML (`<|im_start|>`) or Gemma
//!   (`<start_of_turn>`) chat template gets the prompt as one user turn followed by the
//!   assistant's header, its special tokens inserted as ids; the template's Jinja is not
//!   executed, so a default system message inside it is not added (set `system`). Without a
//!   chat template (a base model), the prompt is followed by `\nAnswer:` and each label by a
//!   space.
//! * **Long inputs are cut, with a warning naming the example**: when a prompt passes
//!   `max_prompt_tokens` (default 1024 or the model's context, if smaller), its passage (or
//!   text) is shortened at a character boundary until it fits; the question and the
//!   instructions are kept whole.

use std::collections::BTreeMap;
use std::time::Instant;

use metamorph_data::{AnswerSpan, Error, Example, LabelProb, Prediction, Result, Task};
use metamorph_models::{CausalLm, GenerateOptions};

use crate::openai::prompt::Template;
use crate::openai::reply::parse_span;
use crate::openai::DEFAULT_SENTIMENT_LABELS;
use crate::Model;

/// How a prompt is wrapped for the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromptFormat {
    /// The prompt as it is, then `\nAnswer:` (base models).
    Plain,
    /// `<|im_start|>user\n… <|im_end|>\n<|im_start|>assistant\n` (SmolLM2, Qwen, …).
    ChatMl,
    /// `<start_of_turn>user\n… <end_of_turn>\n<start_of_turn>model\n` (Gemma).
    Gemma,
}

impl PromptFormat {
    /// The format a chat template (GGUF `tokenizer.chat_template`) describes.
    pub fn of_template(template: Option<&str>) -> Self {
        match template {
            Some(t) if t.contains("<|im_start|>") => PromptFormat::ChatMl,
            Some(t) if t.contains("<start_of_turn>") => PromptFormat::Gemma,
            _ => PromptFormat::Plain,
        }
    }
}

/// Settings of a causal LM under test.
#[derive(Clone, Debug)]
pub struct CausalLmConfig {
    /// Prompt templates replacing the built-in ones, per task.
    pub prompts: BTreeMap<Task, String>,
    /// Label sets of the label tasks (sentiment, relation), replacing the defaults.
    pub labels: BTreeMap<Task, Vec<String>>,
    /// System message before each prompt (chat formats only).
    pub system: Option<String>,
    /// Use the model's chat format (default: when its GGUF has a recognised chat template).
    pub chat: Option<bool>,
    /// Longest generated answer in tokens (QA; default 32).
    pub max_new_tokens: usize,
    /// Longest prompt in tokens; longer passages are cut (default 1024, at most the model's
    /// context).
    pub max_prompt_tokens: Option<usize>,
    /// Examples handed over at once (default 16).
    pub batch_size: usize,
}

impl Default for CausalLmConfig {
    fn default() -> Self {
        CausalLmConfig {
            prompts: BTreeMap::new(),
            labels: BTreeMap::new(),
            system: None,
            chat: None,
            max_new_tokens: 32,
            max_prompt_tokens: None,
            batch_size: 16,
        }
    }
}

/// What one task asks and how its answer is read.
struct TaskSetup {
    template: Template,
    /// The labels recorded, with the words scored for each (empty for QA).
    labels: Vec<(String, String)>,
    /// Each label's words as the ids scored after the prompt, encoded once.
    continuations: Vec<Vec<u32>>,
}

/// A causal LM answering tasks through prompts.
pub struct CausalLmModel {
    name: String,
    lm: CausalLm,
    tasks: BTreeMap<Task, TaskSetup>,
    format: PromptFormat,
    /// The ids opening and closing a turn (chat formats), looked up once.
    turn: Option<(u32, u32)>,
    system: Option<String>,
    max_new_tokens: usize,
    max_prompt_tokens: usize,
    batch_size: usize,
}

/// The tasks a causal LM answers.
pub const CAUSAL_LM_TASKS: [Task; 6] = [
    Task::BoolQ,
    Task::Paraphrase,
    Task::Sentiment,
    Task::Relation,
    Task::Squad,
    Task::Drop,
];

impl CausalLmModel {
    /// `lm` answering the tasks `tasks` (empty: every task it can) with `config`.
    ///
    /// # Errors
    /// [`Error::Config`] naming the setting: a template with an unknown placeholder, a task it
    /// cannot answer, relation classification without labels, an empty label set, a zero
    /// batch size or token limit.
    pub fn try_new(
        name: impl Into<String>,
        lm: CausalLm,
        tasks: &[Task],
        config: CausalLmConfig,
    ) -> Result<Self> {
        let name = name.into();
        let bad = |message: String| Error::Config(format!("model `{name}`: {message}"));
        if config.batch_size == 0 || config.max_new_tokens == 0 {
            return Err(bad(
                "`batch_size` and `max_new_tokens` must be at least 1".into()
            ));
        }
        if let Some(task) = tasks.iter().find(|t| !CAUSAL_LM_TASKS.contains(t)) {
            return Err(bad(format!(
                "a causal-lm model answers {}, not `{task}`",
                CAUSAL_LM_TASKS.map(|t| t.to_string()).join(", ")
            )));
        }
        if let Some(task) = config
            .prompts
            .keys()
            .chain(config.labels.keys())
            .find(|t| !CAUSAL_LM_TASKS.contains(t))
        {
            return Err(bad(format!("a causal-lm model has no prompt for `{task}`")));
        }
        let wanted: Vec<Task> = if tasks.is_empty() {
            CAUSAL_LM_TASKS
                .into_iter()
                .filter(|t| *t != Task::Relation || config.labels.contains_key(t))
                .collect()
        } else {
            tasks.to_vec()
        };
        let format = match config.chat {
            Some(false) => PromptFormat::Plain,
            _ => PromptFormat::of_template(lm.chat_template()),
        };
        if config.chat == Some(true) && format == PromptFormat::Plain {
            return Err(bad(
                "`chat = true`, but the model's GGUF has no ChatML or Gemma chat template".into(),
            ));
        }
        let special = |token: &str| {
            lm.tokenizer()
                .token_to_id(token)
                .ok_or_else(|| bad(format!("the tokenizer has no `{token}` token")))
        };
        let turn = match format {
            PromptFormat::Plain => None,
            PromptFormat::ChatMl => Some((special("<|im_start|>")?, special("<|im_end|>")?)),
            PromptFormat::Gemma => Some((special("<start_of_turn>")?, special("<end_of_turn>")?)),
        };
        // A base model's answer follows `Answer:`, so its label words start with a space.
        let lead = if format == PromptFormat::Plain {
            " "
        } else {
            ""
        };
        let mut setups = BTreeMap::new();
        for task in wanted {
            let template = match config.prompts.get(&task) {
                Some(text) => Template::parse(task, text)
                    .map_err(|e| bad(format!("template `prompts.{task}`: {e}")))?,
                None => Template::builtin(task).expect("every causal-lm task has a template"),
            };
            let labels: Vec<(String, String)> = match task {
                Task::BoolQ => vec![("yes".into(), "yes".into()), ("no".into(), "no".into())],
                Task::Paraphrase => vec![("1".into(), "yes".into()), ("0".into(), "no".into())],
                Task::Sentiment | Task::Relation => {
                    let labels: Vec<String> = match config.labels.get(&task) {
                        Some(labels) => labels.clone(),
                        None if task == Task::Sentiment => {
                            DEFAULT_SENTIMENT_LABELS.map(String::from).to_vec()
                        }
                        None => {
                            return Err(bad("relation classification needs its label set: \
                                 `[execute.models.labels] relation = [...]`"
                                .into()))
                        }
                    };
                    if labels.is_empty() || labels.iter().any(|l| l.trim().is_empty()) {
                        return Err(bad(format!(
                            "`labels.{task}` has an empty label list or label"
                        )));
                    }
                    labels.into_iter().map(|l| (l.clone(), l)).collect()
                }
                _ => Vec::new(),
            };
            let continuations = labels
                .iter()
                .map(|(_, word)| lm.encode(&format!("{lead}{word}")))
                .collect::<Result<Vec<_>>>()?;
            setups.insert(
                task,
                TaskSetup {
                    template,
                    labels,
                    continuations,
                },
            );
        }
        let limit = config.max_prompt_tokens.unwrap_or(1024);
        if limit == 0 {
            return Err(bad("`max_prompt_tokens` must be at least 1".into()));
        }
        let max_prompt_tokens = limit.min(
            lm.context_length()
                .saturating_sub(config.max_new_tokens)
                .max(1),
        );
        Ok(CausalLmModel {
            name,
            lm,
            tasks: setups,
            format,
            turn,
            system: config.system,
            max_new_tokens: config.max_new_tokens,
            max_prompt_tokens,
            batch_size: config.batch_size,
        })
    }

    /// The prompt format in use.
    pub fn format(&self) -> &PromptFormat {
        &self.format
    }

    /// The prompt ids `example` is answered from (its passage cut to fit, if needed): what
    /// the parity test compares with the reference implementation's.
    ///
    /// # Errors
    /// A task the model is not configured for; a prompt that cannot be made to fit.
    pub fn prompt_for(&self, example: &Example) -> Result<Vec<u32>> {
        let setup = self.tasks.get(&example.task).ok_or_else(|| {
            self.err(format!(
                "example `{}`: not configured for `{}`",
                example.id, example.task
            ))
        })?;
        self.prompt_ids(example, setup)
    }

    fn err(&self, message: impl Into<String>) -> Error {
        Error::Model {
            model: self.name.clone(),
            message: message.into(),
        }
    }

    /// The ids of `prompt` wrapped in the model's format, up to where the answer starts.
    fn wrap(&self, prompt: &str) -> Result<Vec<u32>> {
        let mut ids: Vec<u32> = self.lm.start_token().into_iter().collect();
        let text = |ids: &mut Vec<u32>, s: &str| -> Result<()> {
            ids.extend(self.lm.encode(s)?);
            Ok(())
        };
        match self.format {
            PromptFormat::Plain => {
                let mut full = String::new();
                if let Some(system) = &self.system {
                    full.push_str(system);
                    full.push_str("\n\n");
                }
                full.push_str(prompt);
                full.push_str("\nAnswer:");
                text(&mut ids, &full)?;
            }
            PromptFormat::ChatMl => {
                let (open, close) = self.turn.expect("chat formats resolve their turn ids");
                if let Some(system) = &self.system {
                    ids.push(open);
                    text(&mut ids, &format!("system\n{system}"))?;
                    ids.push(close);
                    text(&mut ids, "\n")?;
                }
                ids.push(open);
                text(&mut ids, &format!("user\n{prompt}"))?;
                ids.push(close);
                text(&mut ids, "\n")?;
                ids.push(open);
                text(&mut ids, "assistant\n")?;
            }
            PromptFormat::Gemma => {
                let (open, close) = self.turn.expect("chat formats resolve their turn ids");
                // Gemma has no system turn: a system message opens the user's.
                let body = match &self.system {
                    Some(system) => format!("user\n{system}\n\n{prompt}"),
                    None => format!("user\n{prompt}"),
                };
                ids.push(open);
                text(&mut ids, &body)?;
                ids.push(close);
                text(&mut ids, "\n")?;
                ids.push(open);
                text(&mut ids, "model\n")?;
            }
        }
        Ok(ids)
    }

    /// The prompt ids of `example`, its passage (or text) cut until they fit.
    fn prompt_ids(&self, example: &Example, setup: &TaskSetup) -> Result<Vec<u32>> {
        let labels: Vec<String> = setup.labels.iter().map(|(l, _)| l.clone()).collect();
        let render = |e: &Example| {
            setup
                .template
                .render(e, &labels)
                .map_err(|m| self.err(m))
                .and_then(|p| self.wrap(&p))
        };
        let ids = render(example)?;
        if ids.len() <= self.max_prompt_tokens {
            return Ok(ids);
        }
        let is_context = example.context.is_some();
        let Some(original) = (if is_context {
            example.context.clone()
        } else {
            example.text.clone()
        }) else {
            return Err(self.err(format!(
                "example `{}`: its prompt has {} tokens, more than `max_prompt_tokens` = {}, \
                 and it has no passage to shorten",
                example.id,
                ids.len(),
                self.max_prompt_tokens
            )));
        };
        let total = original.chars().count();
        let mut keep = total;
        let mut ids = ids;
        while ids.len() > self.max_prompt_tokens && keep > 0 {
            let excess = ids.len() - self.max_prompt_tokens;
            // Tokens are a few characters each: cut what the excess is worth, at least 16.
            keep = keep.saturating_sub((excess * 4).max(16));
            let shortened: String = original.chars().take(keep).collect();
            let mut cut = example.clone();
            if is_context {
                cut.context = Some(shortened);
            } else {
                cut.text = Some(shortened);
            }
            ids = render(&cut)?;
        }
        if ids.len() > self.max_prompt_tokens {
            return Err(self.err(format!(
                "example `{}`: its prompt without the passage still has {} tokens, more than \
                 `max_prompt_tokens` = {}",
                example.id,
                ids.len(),
                self.max_prompt_tokens
            )));
        }
        tracing::warn!(
            model = %self.name,
            "example `{}`: its passage was cut from {total} to {keep} characters to fit \
             `max_prompt_tokens` = {}",
            example.id,
            self.max_prompt_tokens
        );
        Ok(ids)
    }

    /// The label prediction of `example`: every label scored as a continuation of the prompt.
    fn classify(&self, example: &Example, setup: &TaskSetup) -> Result<Prediction> {
        let prompt = self.prompt_ids(example, setup)?;
        let scores = self.lm.score_continuations(&prompt, &setup.continuations)?;
        let log_probs: Vec<f64> = scores
            .iter()
            .map(|s| s.iter().map(|&v| f64::from(v)).sum())
            .collect();
        let max = log_probs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = log_probs.iter().map(|v| (v - max).exp()).sum();
        let probabilities: Vec<LabelProb> = setup
            .labels
            .iter()
            .zip(&log_probs)
            .map(|((label, _), lp)| LabelProb {
                label: label.clone(),
                prob: ((lp - max).exp() / total) as f32,
            })
            .collect();
        let best = probabilities
            .iter()
            .max_by(|a, b| a.prob.total_cmp(&b.prob))
            .map(|p| p.label.clone());
        Ok(Prediction {
            label: best,
            probabilities: Some(probabilities),
            ..Prediction::new(&example.id, &self.name, example.task)
        })
    }

    /// The answer spans of QA `examples`: greedy generation, then the reply located in the
    /// context.
    fn answer(&self, examples: &[&Example], setup: &TaskSetup) -> Result<Vec<Prediction>> {
        let prompts = examples
            .iter()
            .map(|e| self.prompt_ids(e, setup))
            .collect::<Result<Vec<_>>>()?;
        let mut stop: Vec<u32> = self.lm.eos_token().into_iter().collect();
        for token in ["<|im_end|>", "<end_of_turn>"] {
            if let Some(id) = self.lm.tokenizer().token_to_id(token) {
                stop.push(id);
            }
        }
        let options = GenerateOptions {
            max_new_tokens: self.max_new_tokens,
            stop,
            ..GenerateOptions::default()
        };
        let generated = self.lm.generate(&prompts, &options)?;
        examples
            .iter()
            .zip(generated)
            .map(|(example, ids)| {
                let reply = self.lm.decode(&ids)?;
                let context = example.context.as_deref().unwrap_or("");
                let span: AnswerSpan = parse_span(&reply, context);
                Ok(Prediction {
                    answer: Some(span),
                    generated: Some(reply),
                    ..Prediction::new(&example.id, &self.name, example.task)
                })
            })
            .collect()
    }
}

impl Model for CausalLmModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn handles(&self, task: Task) -> bool {
        self.tasks.contains_key(&task)
    }

    fn max_batch(&self) -> usize {
        self.batch_size
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        let started = Instant::now();
        let mut out: Vec<Option<Prediction>> = vec![None; batch.len()];
        // QA examples generate together, per task.
        for task in [Task::Squad, Task::Drop] {
            let (indices, examples): (Vec<usize>, Vec<&Example>) = batch
                .iter()
                .enumerate()
                .filter(|(_, e)| e.task == task)
                .map(|(i, e)| (i, *e))
                .unzip();
            if examples.is_empty() {
                continue;
            }
            let setup = self.tasks.get(&task).ok_or_else(|| {
                self.err(format!(
                    "example `{}`: not configured for `{task}`",
                    examples[0].id
                ))
            })?;
            for (i, p) in indices.into_iter().zip(self.answer(&examples, setup)?) {
                out[i] = Some(p);
            }
        }
        for (i, example) in batch.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            let setup = self.tasks.get(&example.task).ok_or_else(|| {
                self.err(format!(
                    "example `{}`: a causal-lm model configured for {} cannot answer `{}`",
                    example.id,
                    self.tasks
                        .keys()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    example.task
                ))
            })?;
            out[i] = Some(self.classify(example, setup)?);
        }
        let latency = started.elapsed().as_secs_f32() * 1000.0 / batch.len().max(1) as f32;
        Ok(out
            .into_iter()
            .map(|p| {
                let mut p = p.expect("every example predicted");
                p.latency_ms = latency;
                p
            })
            .collect())
    }
}
