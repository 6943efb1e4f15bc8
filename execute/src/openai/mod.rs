//! The OpenAI-compatible HTTP adapter: a model under test behind `POST {base_url}/chat/completions`
//! (vLLM, llama.cpp's server, Ollama, OpenAI and the many services that copy its API).
//!
//! Each example becomes one chat request: an optional system message and one user message, the
//! task's prompt template filled from the example ([`prompt`]). The reply's text is read as the
//! task's output ([`reply`]): yes/no for BoolQ and paraphrase (`1`/`0`, the records' labels), one
//! of the configured labels for sentiment and relation, an answer span with character offsets
//! for SQuAD and DROP. The raw reply is kept in the prediction's `generated` field, so a
//! surprising label can be read back.
//!
//! # Design decisions
//! * **One transport** with the generate stage: the HTTP exchange, retries, backoff and bounded
//!   concurrency are [`metamorph_data::http::HttpEndpoint`], under
//!   [`metamorph_data::http::chat::ChatClient`] (blocking `ureq` calls run by `concurrency`
//!   scoped worker threads; no async runtime); this module owns the prompts and reads the
//!   replies as task outputs.
//! * **Prompts fail at start-up**: templates are parsed when the model starts, so an unknown
//!   placeholder is an [`Error::Config`] naming the template; a missing field is an
//!   [`Error::Model`] naming the example, raised before any request of the batch is sent.
//! * **Retries** (`retries`, default 2) on connection errors, timeouts, 408, 429 and 5xx with
//!   jittered exponential backoff or the server's `Retry-After`, as the transport documents;
//!   other statuses and malformed replies fail at once: repeating them cannot help.
//! * **An unreadable reply is an error** by default, naming the example and quoting the reply:
//!   a missing label makes the judge fail anyway, and a silently invented one would corrupt the
//!   verdicts. For long runs where a few evasive replies should not stop everything, `fallback`
//!   names, per label task, the label such a reply is recorded as (e.g. `unreadable`: a source
//!   answered and a follow-up left unreadable then count as a violation, which they are); each
//!   use is logged as a warning and the reply stays in `generated`.
//! * **The API key comes from the environment** (`api_key_env`, default `OPENAI_API_KEY`), never
//!   from the config file; the `Authorization: Bearer` header is sent only when the variable is
//!   set and not empty, so local servers need nothing.
//! * **No probabilities**: chat replies carry none that are comparable across servers
//!   (`logprobs` is optional and differs between them), so `probabilities` stays empty.
//! * **The request is the common subset** every server accepts: `model`, `messages`,
//!   `temperature`, and `max_tokens` only when configured. (OpenAI's reasoning models refuse
//!   `max_tokens` and a temperature other than 1: leave `max_tokens` out and set
//!   `temperature = 1` for them.) Proxies from the environment are not used.
//! * **Latency** is the example's own request time, retries and their waits included (requests
//!   run concurrently, so a batch share would say little).
//! * **Deterministic by default**: `temperature` is 0, so a follow-up that differs from its
//!   source differs because of the input, not the sampler (servers batching requests may still
//!   be slightly non-deterministic; this is the model's behaviour under test).

pub mod prompt;
pub mod reply;

use std::collections::BTreeMap;
use std::time::Instant;

use metamorph_data::http::chat::{ChatClient, ChatMessage, ChatSettings};
use metamorph_data::http::HttpSettings;
use metamorph_data::usage::{Budget, Spent};
use metamorph_data::{Error, Example, Prediction, Result, Task};

use crate::Model;
use prompt::Template;

/// Sentiment labels when the config gives none (the sentiment readers' labels, without the
/// rare `mixed`).
pub const DEFAULT_SENTIMENT_LABELS: [&str; 3] = ["positive", "negative", "neutral"];

/// How to reach and prompt an OpenAI-compatible model. Its `Debug` output hides the API key.
#[derive(Clone)]
pub struct OpenAiConfig {
    /// The API root, e.g. `http://127.0.0.1:8000/v1`; requests go to `{base_url}/chat/completions`.
    pub base_url: String,
    /// The model id the server knows (the request's `model` field).
    pub model: String,
    /// System message sent before every prompt.
    pub system: Option<String>,
    /// Sampling temperature (default 0).
    pub temperature: f32,
    /// Upper bound on the reply's tokens (`max_tokens`; default: the server's).
    pub max_tokens: Option<u32>,
    /// The API key, time-outs, retries and concurrency (defaults: [`HttpSettings::default`]).
    pub transport: HttpSettings,
    /// Requests and tokens the model may spend in this run (default: unbounded).
    pub budget: Budget,
    /// Examples handed over at once ([`Model::max_batch`]; default 32).
    pub batch_size: usize,
    /// Prompt templates replacing the built-in ones, per task.
    pub prompts: BTreeMap<Task, String>,
    /// The label set of the label tasks (sentiment, relation), replacing the defaults.
    pub labels: BTreeMap<Task, Vec<String>>,
    /// The label recorded when a reply gives no readable label (boolq, paraphrase, sentiment,
    /// relation); a task without one fails on such a reply.
    pub fallback: BTreeMap<Task, String>,
}

impl OpenAiConfig {
    /// The defaults for `model` served at `base_url`.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAiConfig {
            base_url: base_url.into(),
            model: model.into(),
            system: None,
            temperature: 0.0,
            max_tokens: None,
            transport: HttpSettings::default(),
            budget: Budget::default(),
            batch_size: 32,
            prompts: BTreeMap::new(),
            labels: BTreeMap::new(),
            fallback: BTreeMap::new(),
        }
    }
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("system", &self.system)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("transport", &self.transport)
            .field("budget", &self.budget)
            .field("batch_size", &self.batch_size)
            .field("prompts", &self.prompts)
            .field("labels", &self.labels)
            .field("fallback", &self.fallback)
            .finish()
    }
}

/// What a task's reply is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReplyKind {
    /// yes/no, recorded as `yes`/`no`.
    YesNo,
    /// yes/no, recorded as `1`/`0` (paraphrase).
    OneZero,
    /// One of the task's labels.
    Label,
    /// An answer span of the context.
    Span,
}

fn reply_kind(task: Task) -> Option<ReplyKind> {
    match task {
        Task::BoolQ => Some(ReplyKind::YesNo),
        Task::Paraphrase => Some(ReplyKind::OneZero),
        Task::Sentiment | Task::Relation => Some(ReplyKind::Label),
        Task::Squad | Task::Drop => Some(ReplyKind::Span),
        Task::Qdmr | Task::Coref => None,
    }
}

/// One task the model answers: its template and, for label tasks, its labels.
struct TaskSetup {
    template: Template,
    kind: ReplyKind,
    labels: Vec<String>,
}

/// A model under test served by an OpenAI-compatible chat/completions endpoint.
pub struct OpenAiModel {
    name: String,
    config: OpenAiConfig,
    client: ChatClient,
    tasks: BTreeMap<Task, TaskSetup>,
}

impl OpenAiModel {
    /// Checks `config` and compiles its prompt templates. Sends nothing: an unreachable server
    /// shows at the first batch.
    ///
    /// # Errors
    /// [`Error::Config`] naming the setting: a base URL that is not http(s), an empty model id,
    /// zero concurrency or batch size, a negative or non-finite temperature, a template with an
    /// unknown placeholder or for a task without a reply parser, labels or a fallback for a
    /// task that has no label set, or an empty label list, label or fallback, or a repeated
    /// label.
    pub fn try_new(name: impl Into<String>, config: OpenAiConfig) -> Result<Self> {
        let name = name.into();
        let bad = |message: String| Error::Config(format!("model `{name}`: {message}"));
        let mut settings = ChatSettings::new(&config.base_url, &config.model);
        settings.temperature = config.temperature;
        settings.max_tokens = config.max_tokens;
        settings.transport = config.transport.clone();
        settings.budget = config.budget;
        let client = ChatClient::try_new(&name, settings)?;
        if config.batch_size == 0 {
            return Err(bad("`batch_size` must be positive".into()));
        }
        for task in config.prompts.keys() {
            if reply_kind(*task).is_none() {
                return Err(bad(format!(
                    "template `prompts.{task}`: the openai adapter has no reply parser for \
                     `{task}` (it answers boolq, squad, drop, sentiment, paraphrase, relation)"
                )));
            }
        }
        for (task, labels) in &config.labels {
            if reply_kind(*task) != Some(ReplyKind::Label) {
                return Err(bad(format!(
                    "`labels.{task}`: labels are read only for sentiment and relation"
                )));
            }
            if labels.is_empty() {
                return Err(bad(format!("`labels.{task}` is empty")));
            }
            if let Some(l) = labels.iter().find(|l| l.trim().is_empty()) {
                return Err(bad(format!("`labels.{task}` has an empty label {l:?}")));
            }
            let mut seen = std::collections::HashSet::new();
            if let Some(l) = labels.iter().find(|l| !seen.insert(l.to_lowercase())) {
                return Err(bad(format!(
                    "`labels.{task}` lists {l:?} twice (labels are matched ignoring case)"
                )));
            }
        }
        for (task, label) in &config.fallback {
            if matches!(reply_kind(*task), None | Some(ReplyKind::Span)) {
                return Err(bad(format!(
                    "`fallback.{task}`: a fallback label applies to boolq, paraphrase, \
                     sentiment and relation only"
                )));
            }
            if label.trim().is_empty() {
                return Err(bad(format!("`fallback.{task}` is empty")));
            }
        }
        let mut tasks = BTreeMap::new();
        for task in Task::ALL {
            let Some(kind) = reply_kind(task) else {
                continue;
            };
            let labels: Vec<String> = match (kind, config.labels.get(&task), task) {
                (ReplyKind::Label, Some(labels), _) => labels.clone(),
                (ReplyKind::Label, None, Task::Sentiment) => {
                    DEFAULT_SENTIMENT_LABELS.map(String::from).to_vec()
                }
                _ => Vec::new(),
            };
            if kind == ReplyKind::Label && labels.is_empty() {
                // No label set (relation has no default): the model does not answer the task.
                continue;
            }
            let template = match config.prompts.get(&task) {
                Some(text) => Template::parse(task, text)
                    .map_err(|e| bad(format!("template `prompts.{task}`: {e}")))?,
                None => Template::builtin(task).ok_or_else(|| {
                    bad(format!(
                        "no built-in prompt for `{task}`; set `prompts.{task}`"
                    ))
                })?,
            };
            tasks.insert(
                task,
                TaskSetup {
                    template,
                    kind,
                    labels,
                },
            );
        }
        Ok(OpenAiModel {
            name,
            config,
            client,
            tasks,
        })
    }

    /// The API key it sends, if any.
    #[cfg(test)]
    pub(crate) fn api_key(&self) -> Option<&str> {
        self.config.transport.api_key.as_deref()
    }

    /// Why the model cannot answer `task`, if it cannot.
    pub fn unsupported(&self, task: Task) -> Option<String> {
        if self.tasks.contains_key(&task) {
            return None;
        }
        Some(match reply_kind(task) {
            None => format!(
                "the openai adapter has no reply parser for `{task}` (it answers boolq, squad, \
                 drop, sentiment, paraphrase, relation)"
            ),
            Some(_) => format!("`{task}` needs its label set: `labels.{task} = [\"…\", …]`"),
        })
    }

    fn error(&self, example: &Example, message: impl std::fmt::Display) -> Error {
        Error::Model {
            model: self.name.clone(),
            message: format!("example `{}`: {message}", example.id),
        }
    }

    /// The user message for `example`.
    fn prompt(&self, example: &Example) -> Result<String> {
        let setup = self.tasks.get(&example.task).ok_or_else(|| {
            self.error(example, self.unsupported(example.task).unwrap_or_default())
        })?;
        setup
            .template
            .render(example, &setup.labels)
            .map_err(|message| Error::Model {
                model: self.name.clone(),
                message,
            })
    }

    /// Sends one prompt and reads the reply into a prediction.
    fn predict_one(&self, example: &Example, prompt: &str) -> Result<Prediction> {
        let started = Instant::now();
        let reply = self.complete(example, prompt)?;
        let setup = &self.tasks[&example.task];
        let mut prediction = Prediction::new(&example.id, &self.name, example.task);
        let label = match setup.kind {
            ReplyKind::YesNo | ReplyKind::OneZero => Some(reply::parse_yes_no(&reply).map(|yes| {
                match (setup.kind, yes) {
                    (ReplyKind::YesNo, true) => "yes",
                    (ReplyKind::YesNo, false) => "no",
                    (_, true) => "1",
                    (_, false) => "0",
                }
                .to_string()
            })),
            ReplyKind::Label => Some(reply::parse_label(&reply, &setup.labels)),
            ReplyKind::Span => {
                let context = example.context.as_deref().unwrap_or("");
                prediction.answer = Some(reply::parse_span(&reply, context));
                None
            }
        };
        prediction.label = match label {
            None => None,
            Some(Ok(label)) => Some(label),
            Some(Err(message)) => match self.config.fallback.get(&example.task) {
                Some(fallback) => {
                    tracing::warn!(
                        "model `{}`: example `{}`: {message}; recorded as `{fallback}`",
                        self.name,
                        example.id
                    );
                    Some(fallback.clone())
                }
                None => return Err(self.error(example, message)),
            },
        };
        prediction.generated = Some(reply);
        prediction.latency_ms = started.elapsed().as_secs_f32() * 1000.0;
        Ok(prediction)
    }

    /// The reply's text for one prompt, retrying transient failures.
    fn complete(&self, example: &Example, prompt: &str) -> Result<String> {
        let mut messages = Vec::with_capacity(2);
        if let Some(system) = &self.config.system {
            messages.push(ChatMessage::new("system", system.clone()));
        }
        messages.push(ChatMessage::new("user", prompt));
        self.client
            .complete(&format!("example `{}`", example.id), &messages)
    }
}

impl Model for OpenAiModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        // Every prompt first: a bad example fails the batch before any request is sent.
        let prompts = batch
            .iter()
            .map(|e| self.prompt(e))
            .collect::<Result<Vec<_>>>()?;
        let items: Vec<(&Example, &String)> = batch.iter().copied().zip(&prompts).collect();
        self.client
            .http()
            .map_concurrent(&items, |(example, prompt)| {
                self.predict_one(example, prompt)
            })
    }

    fn handles(&self, task: Task) -> bool {
        self.tasks.contains_key(&task)
    }

    fn max_batch(&self) -> usize {
        // With a budget, batches as small as the requests in flight: the answers of a batch
        // reach the response cache when the batch ends, so a budget that runs out mid-batch
        // loses at most the answers in flight.
        if self.config.budget.is_bounded() {
            self.config
                .batch_size
                .min(self.config.transport.concurrency.max(1))
        } else {
            self.config.batch_size
        }
    }

    fn spent(&self) -> Option<Spent> {
        Some(self.client.spent())
    }

    fn requests_left(&self) -> Option<u64> {
        self.client.requests_left()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(config: OpenAiConfig) -> Result<OpenAiModel> {
        OpenAiModel::try_new("llm", config)
    }

    #[test]
    fn bad_settings_are_config_errors_naming_them() {
        let base = || OpenAiConfig::new("http://127.0.0.1:1/v1", "m");
        let message = |c| model(c).err().unwrap().to_string();
        let mut c = base();
        c.base_url = "127.0.0.1:8000".into();
        assert!(message(c).contains("`base_url`"));
        let mut c = base();
        c.prompts.insert(Task::BoolQ, "Q: {questio}".into());
        let m = message(c);
        assert!(
            m.starts_with("config: model `llm`: template `prompts.boolq`")
                && m.contains("`{questio}`"),
            "{m}"
        );
        let mut c = base();
        c.prompts.insert(Task::Qdmr, "{question}".into());
        assert!(message(c).contains("no reply parser for `qdmr`"));
        let mut c = base();
        c.labels.insert(Task::BoolQ, vec!["yes".into()]);
        assert!(message(c).contains("`labels.boolq`"));
        let mut c = base();
        c.labels
            .insert(Task::Sentiment, vec!["pos".into(), "POS".into()]);
        assert!(message(c).contains("twice"));
        let mut c = base();
        c.labels.insert(Task::Relation, vec![]);
        assert!(message(c).contains("`labels.relation` is empty"));
        let mut c = base();
        c.transport.concurrency = 0;
        assert!(message(c).contains("`concurrency`"));
        let mut c = base();
        c.model = " ".into();
        assert!(message(c).contains("needs `model`"));
    }

    #[test]
    fn debug_output_hides_the_key() {
        let mut c = OpenAiConfig::new("http://127.0.0.1:1/v1", "m");
        c.transport.api_key = Some("sk-secret".into());
        let shown = format!("{c:?}");
        assert!(
            !shown.contains("sk-secret") && shown.contains("<hidden>"),
            "{shown}"
        );
    }

    #[test]
    fn fallback_labels_only_for_label_tasks() {
        let mut c = OpenAiConfig::new("http://127.0.0.1:1/v1", "m");
        c.fallback.insert(Task::Squad, "x".into());
        assert!(model(c)
            .err()
            .unwrap()
            .to_string()
            .contains("`fallback.squad`"));
        let mut c = OpenAiConfig::new("http://127.0.0.1:1/v1", "m");
        c.fallback.insert(Task::BoolQ, " ".into());
        assert!(model(c).err().unwrap().to_string().contains("is empty"));
        let mut c = OpenAiConfig::new("http://127.0.0.1:1/v1", "m");
        c.fallback.insert(Task::Sentiment, "unreadable".into());
        assert!(model(c).is_ok());
    }

    #[test]
    fn tasks_answered_follow_parsers_and_label_sets() {
        let m = model(OpenAiConfig::new("http://127.0.0.1:1/v1/", "m")).unwrap();
        assert_eq!(m.client.url(), "http://127.0.0.1:1/v1/chat/completions");
        for task in [
            Task::BoolQ,
            Task::Squad,
            Task::Drop,
            Task::Sentiment,
            Task::Paraphrase,
        ] {
            assert!(m.handles(task), "{task}");
        }
        assert!(!m.handles(Task::Qdmr) && !m.handles(Task::Coref));
        // Relation has no default label set.
        assert!(!m.handles(Task::Relation));
        assert!(m
            .unsupported(Task::Relation)
            .unwrap()
            .contains("labels.relation"));
        let mut c = OpenAiConfig::new("https://example.invalid/v1", "m");
        c.labels.insert(
            Task::Relation,
            vec!["per:title".into(), "no_relation".into()],
        );
        assert!(model(c).unwrap().handles(Task::Relation));
    }
}
