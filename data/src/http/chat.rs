//! OpenAI-compatible chat/completions client: the transport shared by the generate stage's
//! few-shot generator (`metamorph_generate::openai::OpenAiGenerator`) and
//! `metamorph-execute`'s model-under-test adapter (`kind = "openai"`).
//!
//! # Design decisions
//! * **Transport**: the `POST`, its retries (timeouts, connection errors, 408, 429, 5xx, with
//!   jittered backoff or the server's `Retry-After`) and bounded concurrency are
//!   [`HttpEndpoint`]'s; a malformed chat reply fails at once.
//! * **The request is the common subset** every server accepts: `model`, `messages`,
//!   `temperature`, and `max_tokens` only when configured.
//! * **Spending is metered**: every prompt takes one request from the client's
//!   [`Budget`] before it is sent, and the `usage` a reply reports is added to its
//!   [`UsageMeter`] (servers that report none add no tokens). See [`crate::usage`].

use crate::usage::{Budget, Spent, UsageMeter};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

use super::{quoted, HttpEndpoint, HttpSettings};

/// How to reach an OpenAI-compatible endpoint. Its `Debug` output hides the API key.
#[derive(Clone)]
pub struct ChatSettings {
    /// The API root, e.g. `http://127.0.0.1:8000/v1`; requests go to `{base_url}/chat/completions`.
    pub base_url: String,
    /// The model id the server knows (the request's `model` field).
    pub model: String,
    /// Sampling temperature (default 0).
    pub temperature: f32,
    /// Upper bound on the reply's tokens (`max_tokens`; default: the server's).
    pub max_tokens: Option<u32>,
    /// The API key, time-outs, retries and concurrency (defaults: [`HttpSettings::default`]).
    pub transport: HttpSettings,
    /// Requests and tokens this client may spend (default: unbounded).
    pub budget: Budget,
}

impl ChatSettings {
    /// The defaults for `model` served at `base_url`.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        ChatSettings {
            base_url: base_url.into(),
            model: model.into(),
            temperature: 0.0,
            max_tokens: None,
            transport: HttpSettings::default(),
            budget: Budget::default(),
        }
    }
}

impl std::fmt::Debug for ChatSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatSettings")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("transport", &self.transport)
            .field("budget", &self.budget)
            .finish()
    }
}

/// One message of a chat request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: &'static str,
    /// The text.
    pub content: String,
}

impl ChatMessage {
    /// A message of `role`.
    pub fn new(role: &'static str, content: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: content.into(),
        }
    }
}

/// A client of one chat/completions endpoint: retries, backoff and bounded concurrency.
pub struct ChatClient {
    name: String,
    settings: ChatSettings,
    http: HttpEndpoint,
    meter: UsageMeter,
}

impl ChatClient {
    /// Checks `settings`; `name` (the model's name in the config) prefixes errors. Sends
    /// nothing: an unreachable server shows at the first request.
    ///
    /// # Errors
    /// [`Error::Config`] naming the setting: a base URL that is not http(s), an empty model id,
    /// zero concurrency, a negative or non-finite temperature, a zero timeout.
    pub fn try_new(name: impl Into<String>, settings: ChatSettings) -> Result<Self> {
        let name = name.into();
        let bad = |message: String| Error::Config(format!("model `{name}`: {message}"));
        let base = settings.base_url.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(bad(format!(
                "`base_url` must start with http:// or https://, found {:?}",
                settings.base_url
            )));
        }
        if settings.model.trim().is_empty() {
            return Err(bad(
                "kind `openai` needs `model`: the model id the server knows".into(),
            ));
        }
        if !settings.temperature.is_finite() || settings.temperature < 0.0 {
            return Err(bad(format!(
                "`temperature` must be a number ≥ 0, found {}",
                settings.temperature
            )));
        }
        let transport = settings.transport.clone();
        let http =
            HttpEndpoint::try_new(name.clone(), format!("{base}/chat/completions"), transport)?
                .with_detail(format!(" (model `{}`)", settings.model));
        let meter = UsageMeter::new(settings.budget);
        Ok(ChatClient {
            name,
            settings,
            http,
            meter,
        })
    }

    /// The endpoint, `{base_url}/chat/completions`.
    pub fn url(&self) -> &str {
        self.http.url()
    }

    /// The settings it was made with.
    pub fn settings(&self) -> &ChatSettings {
        &self.settings
    }

    fn error(&self, item: &str, message: impl std::fmt::Display) -> Error {
        self.http.error(item, message)
    }

    /// Requests its budget still allows (`None`: no request bound).
    pub fn requests_left(&self) -> Option<u64> {
        self.meter.requests_left()
    }

    /// What this client has spent so far.
    pub fn spent(&self) -> Spent {
        self.meter.spent()
    }

    /// The transport: its retries, backoff and [`HttpEndpoint::map_concurrent`].
    pub fn http(&self) -> &HttpEndpoint {
        &self.http
    }

    /// The reply's text for `messages`, retrying transient failures; `item` (e.g.
    /// ``example `x` ``) names what is asked in errors and logs.
    ///
    /// # Errors
    /// [`Error::Budget`] when the budget is spent (nothing is sent); [`Error::Model`] naming
    /// `item`, the URL and the model id: the last failure (with the number of attempts), a
    /// reply that is not a chat completion, or one without text.
    pub fn complete(&self, item: &str, messages: &[ChatMessage]) -> Result<String> {
        let body = serde_json::to_string(&ChatRequest {
            model: &self.settings.model,
            messages,
            temperature: self.settings.temperature,
            max_tokens: self.settings.max_tokens,
        })
        .map_err(|e| self.error(item, format!("cannot encode the request: {e}")))?;
        self.meter.start_request(&self.name)?;
        let text = self.http.post(item, &body)?;
        self.read_completion(item, &text)
    }

    /// The first choice's text of a chat/completions reply.
    fn read_completion(&self, item: &str, text: &str) -> Result<String> {
        let reply: ChatResponse = serde_json::from_str(text).map_err(|e| {
            self.error(
                item,
                format!(
                    "the reply of {} is not a chat completion ({e}): {}",
                    self.url(),
                    quoted(text)
                ),
            )
        })?;
        if let Some(usage) = &reply.usage {
            self.meter
                .record_tokens(usage.prompt_tokens, usage.completion_tokens);
        }
        let Some(choice) = reply.choices.into_iter().next() else {
            return Err(self.error(item, "the reply has no `choices`"));
        };
        match choice.message.content {
            Some(content) if !content.trim().is_empty() => Ok(content),
            _ => {
                let why = match (choice.message.refusal, choice.finish_reason.as_deref()) {
                    (Some(refusal), _) => format!("the model refused: {}", quoted(&refusal)),
                    (None, Some("length")) => {
                        "the reply was cut at `max_tokens` before any text (raise `max_tokens`)"
                            .into()
                    }
                    (None, reason) => format!(
                        "the reply has no text (finish_reason {})",
                        reason.unwrap_or("missing")
                    ),
                };
                Err(self.error(item, why))
            }
        }
    }
}

#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: &'a [ChatMessage],
    temperature: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
}

#[derive(Deserialize)]
struct ChatResponse {
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<ReplyUsage>,
}

/// The reply's `usage` (OpenAI, vLLM, llama.cpp's server and Ollama report it).
#[derive(Deserialize)]
struct ReplyUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_settings_are_config_errors_naming_them() {
        let message = |s: ChatSettings| ChatClient::try_new("llm", s).err().unwrap().to_string();
        let mut s = ChatSettings::new("127.0.0.1:8000", "m");
        assert!(message(s.clone()).contains("`base_url`"));
        s.base_url = "http://127.0.0.1:1/v1".into();
        s.transport.concurrency = 0;
        assert!(message(s.clone()).contains("`concurrency`"));
        s.transport.concurrency = 1;
        s.temperature = -1.0;
        assert!(message(s.clone()).contains("`temperature`"));
        s.temperature = 0.0;
        s.model = " ".into();
        assert!(message(s).contains("needs `model`"));
    }

    #[test]
    fn debug_output_hides_the_key() {
        let mut s = ChatSettings::new("http://127.0.0.1:1/v1", "m");
        s.transport.api_key = Some("sk-secret".into());
        let shown = format!("{s:?}");
        assert!(!shown.contains("sk-secret") && shown.contains("<hidden>"));
    }
}
