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
//! * **Blocking client, bounded threads**: requests are blocking `ureq` calls (the copy
//!   `hf-hub` already links, with rustls for https) run by `concurrency` scoped worker threads
//!   that take the next example from a shared counter; at most `concurrency` requests are in
//!   flight, and a batch never spawns more threads than it has examples. No async runtime.
//! * **Prompts fail at start-up**: templates are parsed when the model starts, so an unknown
//!   placeholder is an [`Error::Config`] naming the template; a missing field is an
//!   [`Error::Model`] naming the example, raised before any request of the batch is sent.
//! * **Retries** (`retries`, default 2) on connection errors, timeouts, 408, 429 and 5xx, after
//!   `backoff_secs · 2^attempt` (capped at 30 s) scaled by a random factor in [0.5, 1) so that
//!   workers that failed together do not retry together; a `Retry-After: <seconds>` header
//!   replaces the computed delay (capped at 120 s; the HTTP-date form is not read). Other
//!   statuses (400, 401, 404, …) and malformed replies fail at once: repeating them cannot help.
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
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use metamorph_data::{Error, Example, Prediction, Result, Task};
use serde::{Deserialize, Serialize};

use crate::Model;
use prompt::Template;

/// Sentiment labels when the config gives none (the sentiment readers' labels, without the
/// rare `mixed`).
pub const DEFAULT_SENTIMENT_LABELS: [&str; 3] = ["positive", "negative", "neutral"];

const MAX_BACKOFF: Duration = Duration::from_secs(30);
const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);

/// How to reach and prompt an OpenAI-compatible model. Its `Debug` output hides the API key.
#[derive(Clone)]
pub struct OpenAiConfig {
    /// The API root, e.g. `http://127.0.0.1:8000/v1`; requests go to `{base_url}/chat/completions`.
    pub base_url: String,
    /// The model id the server knows (the request's `model` field).
    pub model: String,
    /// Sent as `Authorization: Bearer …` when present.
    pub api_key: Option<String>,
    /// System message sent before every prompt.
    pub system: Option<String>,
    /// Sampling temperature (default 0).
    pub temperature: f32,
    /// Upper bound on the reply's tokens (`max_tokens`; default: the server's).
    pub max_tokens: Option<u32>,
    /// Wall-clock limit of one request, connecting included (default 60 s).
    pub timeout: Duration,
    /// Further attempts after a retryable failure (default 2).
    pub retries: u32,
    /// Delay before the first retry, doubled for each further one (default 0.5 s).
    pub backoff: Duration,
    /// Requests in flight at most (default 4).
    pub concurrency: usize,
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
            api_key: None,
            system: None,
            temperature: 0.0,
            max_tokens: None,
            timeout: Duration::from_secs(60),
            retries: 2,
            backoff: Duration::from_millis(500),
            concurrency: 4,
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
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("system", &self.system)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .field("concurrency", &self.concurrency)
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
    url: String,
    agent: ureq::Agent,
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
        let base = config.base_url.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(bad(format!(
                "`base_url` must start with http:// or https://, found {:?}",
                config.base_url
            )));
        }
        if config.model.trim().is_empty() {
            return Err(bad(
                "kind `openai` needs `model`: the model id the server knows".into(),
            ));
        }
        if config.concurrency == 0 || config.batch_size == 0 {
            return Err(bad("`concurrency` and `batch_size` must be positive".into()));
        }
        if !config.temperature.is_finite() || config.temperature < 0.0 {
            return Err(bad(format!(
                "`temperature` must be a number ≥ 0, found {}",
                config.temperature
            )));
        }
        if config.timeout.is_zero() {
            return Err(bad("`timeout_secs` must be positive".into()));
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
        let agent = ureq::AgentBuilder::new()
            .timeout(config.timeout)
            // Keep a connection per worker alive (ureq keeps one per host by default), so that
            // https endpoints do not pay a TLS handshake per request.
            .max_idle_connections_per_host(config.concurrency)
            .user_agent(concat!("metamorph/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(OpenAiModel {
            url: format!("{base}/chat/completions"),
            name,
            config,
            agent,
            tasks,
        })
    }

    /// The API key it sends, if any.
    #[cfg(test)]
    pub(crate) fn api_key(&self) -> Option<&str> {
        self.config.api_key.as_deref()
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
            messages.push(ChatMessage {
                role: "system",
                content: system,
            });
        }
        messages.push(ChatMessage {
            role: "user",
            content: prompt,
        });
        let body = serde_json::to_string(&ChatRequest {
            model: &self.config.model,
            messages,
            temperature: self.config.temperature,
            max_tokens: self.config.max_tokens,
        })
        .map_err(|e| self.error(example, format!("cannot encode the request: {e}")))?;
        let mut attempt = 0;
        loop {
            match self.send(&body) {
                Ok(text) => return self.read_completion(example, &text),
                Err(failure) => {
                    let attempts = attempt + 1;
                    if !failure.retryable || attempt >= self.config.retries {
                        let tries = if attempts > 1 {
                            format!(" (after {attempts} attempts)")
                        } else {
                            String::new()
                        };
                        return Err(self.error(
                            example,
                            format!(
                                "POST {} (model `{}`): {}{tries}",
                                self.url, self.config.model, failure.message
                            ),
                        ));
                    }
                    let delay = failure
                        .retry_after
                        .map(|d| d.min(MAX_RETRY_AFTER))
                        .unwrap_or_else(|| self.backoff(attempt));
                    tracing::warn!(
                        "model `{}`: example `{}`: {}; retry {}/{} in {:.2}s",
                        self.name,
                        example.id,
                        failure.message,
                        attempts,
                        self.config.retries,
                        delay.as_secs_f64()
                    );
                    std::thread::sleep(delay);
                    attempt += 1;
                }
            }
        }
    }

    /// `backoff · 2^attempt`, capped, times a random factor in [0.5, 1).
    fn backoff(&self, attempt: u32) -> Duration {
        let full = self
            .config
            .backoff
            .saturating_mul(1u32 << attempt.min(16))
            .min(MAX_BACKOFF);
        full.mul_f64(0.5 + 0.5 * fastrand::f64())
    }

    /// One HTTP exchange: the body of a 2xx reply, or what went wrong.
    fn send(&self, body: &str) -> std::result::Result<String, Failure> {
        let mut request = self
            .agent
            .post(&self.url)
            .set("Content-Type", "application/json");
        if let Some(key) = &self.config.api_key {
            request = request.set("Authorization", &format!("Bearer {key}"));
        }
        match request.send_string(body) {
            Ok(response) => response.into_string().map_err(|e| Failure {
                retryable: true,
                message: format!("reading the reply failed: {e}"),
                retry_after: None,
            }),
            Err(ureq::Error::Status(status, response)) => {
                let retry_after = response
                    .header("Retry-After")
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(Duration::from_secs);
                let text = response.into_string().unwrap_or_default();
                Err(Failure {
                    retryable: status == 408 || status == 429 || status >= 500,
                    message: format!("HTTP {status}: {}", error_message(&text)),
                    retry_after,
                })
            }
            Err(ureq::Error::Transport(transport)) => {
                use ureq::ErrorKind::*;
                let retryable = matches!(transport.kind(), ConnectionFailed | Io | BadStatus);
                let message = if is_timeout(&transport) {
                    format!(
                        "timed out after {:.1}s without a reply",
                        self.config.timeout.as_secs_f64()
                    )
                } else {
                    transport_message(&transport)
                };
                Err(Failure {
                    retryable,
                    message,
                    retry_after: None,
                })
            }
        }
    }

    /// The first choice's text of a chat/completions reply.
    fn read_completion(&self, example: &Example, text: &str) -> Result<String> {
        let reply: ChatResponse = serde_json::from_str(text).map_err(|e| {
            self.error(
                example,
                format!(
                    "the reply of {} is not a chat completion ({e}): {}",
                    self.url,
                    reply::quoted(text)
                ),
            )
        })?;
        let Some(choice) = reply.choices.into_iter().next() else {
            return Err(self.error(example, "the reply has no `choices`"));
        };
        match choice.message.content {
            Some(content) if !content.trim().is_empty() => Ok(content),
            _ => {
                let why = match (choice.message.refusal, choice.finish_reason.as_deref()) {
                    (Some(refusal), _) => format!("the model refused: {}", reply::quoted(&refusal)),
                    (None, Some("length")) => {
                        "the reply was cut at `max_tokens` before any text (raise `max_tokens`)"
                            .into()
                    }
                    (None, reason) => format!(
                        "the reply has no text (finish_reason {})",
                        reason.unwrap_or("missing")
                    ),
                };
                Err(self.error(example, why))
            }
        }
    }
}

/// A transport error without the URL (the caller names it once): kind, message and causes.
fn transport_message(transport: &ureq::Transport) -> String {
    use std::error::Error as _;
    let mut message = transport.kind().to_string();
    if let Some(m) = transport.message() {
        message.push_str(": ");
        message.push_str(m);
    }
    let mut source = transport.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = e.source();
    }
    message
}

/// Whether a transport error is a timeout (connect or read).
fn is_timeout(transport: &ureq::Transport) -> bool {
    use std::error::Error as _;
    let mut source = transport.source();
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) {
                return true;
            }
        }
        source = e.source();
    }
    false
}

/// The message of an error body (`{"error": {"message": …}}`, `{"error": "…"}`,
/// `{"message": …}` or `{"detail": …}`), else the body itself, cut short.
fn error_message(body: &str) -> String {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(body) else {
        return if body.trim().is_empty() {
            "(empty body)".into()
        } else {
            reply::quoted(body.trim())
        };
    };
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Null => None,
        other => Some(other.to_string()),
    };
    value
        .pointer("/error/message")
        .and_then(text)
        .or_else(|| value.get("error").and_then(text))
        .or_else(|| value.get("message").and_then(text))
        .or_else(|| value.get("detail").and_then(text))
        .unwrap_or_else(|| reply::quoted(body.trim()))
}

/// A failed exchange.
struct Failure {
    retryable: bool,
    message: String,
    retry_after: Option<Duration>,
}

#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: Vec<ChatMessage<'a>>,
    temperature: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
}

#[derive(Serialize)]
struct ChatMessage<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Deserialize)]
struct ChatResponse {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: ReplyMessage,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ReplyMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    refusal: Option<String>,
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
        let results: Vec<OnceLock<Result<Prediction>>> =
            batch.iter().map(|_| OnceLock::new()).collect();
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let workers = self.config.concurrency.min(batch.len());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    // After a failure the batch fails: start no further requests.
                    if failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let (Some(example), Some(prompt)) = (batch.get(i), prompts.get(i)) else {
                        break;
                    };
                    let result = self.predict_one(example, prompt);
                    if result.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    // Each index is taken by one worker only, so the cell is empty.
                    let _ = results[i].set(result);
                });
            }
        });
        let mut predictions = Vec::with_capacity(batch.len());
        let mut not_sent = None;
        for (example, cell) in batch.iter().zip(results) {
            match cell.into_inner() {
                Some(Ok(p)) => predictions.push(p),
                // The first failure in example order.
                Some(Err(e)) => return Err(e),
                None => {
                    not_sent.get_or_insert(*example);
                }
            }
        }
        match not_sent {
            Some(example) => Err(self.error(example, "was not sent (no worker took it)")),
            None => Ok(predictions),
        }
    }

    fn handles(&self, task: Task) -> bool {
        self.tasks.contains_key(&task)
    }

    fn max_batch(&self) -> usize {
        self.config.batch_size
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
        c.concurrency = 0;
        assert!(message(c).contains("`concurrency`"));
        let mut c = base();
        c.model = " ".into();
        assert!(message(c).contains("needs `model`"));
    }

    #[test]
    fn debug_output_hides_the_key() {
        let mut c = OpenAiConfig::new("http://127.0.0.1:1/v1", "m");
        c.api_key = Some("sk-secret".into());
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
        assert_eq!(m.url, "http://127.0.0.1:1/v1/chat/completions");
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

    #[test]
    fn backoff_doubles_with_jitter_and_a_cap() {
        let mut c = OpenAiConfig::new("http://127.0.0.1:1/v1", "m");
        c.backoff = Duration::from_secs(1);
        let m = model(c).unwrap();
        for attempt in 0..4 {
            let full = Duration::from_secs(1 << attempt);
            let d = m.backoff(attempt);
            assert!(d >= full / 2 && d < full, "{attempt}: {d:?}");
        }
        assert!(m.backoff(20) <= MAX_BACKOFF);
    }

    #[test]
    fn error_bodies_give_their_message() {
        assert_eq!(
            error_message(r#"{"error": {"message": "model not found", "type": "x"}}"#),
            "model not found"
        );
        assert_eq!(error_message(r#"{"error": "overloaded"}"#), "overloaded");
        assert_eq!(
            error_message(r#"{"object": "error", "message": "bad"}"#),
            "bad"
        );
        assert_eq!(error_message("Bad Gateway"), "\"Bad Gateway\"");
        assert_eq!(error_message(""), "(empty body)");
    }
}
