//! JSON over HTTP: one blocking `POST` with retries, backoff and bounded concurrency. The
//! transport of the OpenAI-compatible chat client ([`chat::ChatClient`], used by the generate
//! stage and by `metamorph-execute`) and of `metamorph-execute`'s plain HTTP adapter
//! (`kind = "http"`), so both retry, time out and report failures alike.
//!
//! It lives in `metamorph-data`, the crate every stage depends on (which already links `ureq`
//! through `hf-hub` for asset downloads), so that neither `execute` nor `generate` depends on
//! the other for a network client.
//!
//! # Design decisions
//! * **Blocking client, bounded threads**: requests are blocking `ureq` calls (the copy
//!   `hf-hub` already links, with rustls for https) run by `concurrency` scoped worker threads
//!   that take the next item from a shared counter ([`HttpEndpoint::map_concurrent`]); at most
//!   `concurrency` requests are in flight, and a batch never spawns more threads than it has
//!   items. After a failure no further request of the batch is started. No async runtime.
//! * **Retries** (`retries`, default 2) on connection errors, timeouts, 408, 429 and 5xx, after
//!   `backoff · 2^attempt` (capped at 30 s) scaled by a random factor in [0.5, 1) so that
//!   workers that failed together do not retry together; a `Retry-After: <seconds>` header
//!   replaces the computed delay, capped at the request `timeout` and at `max_retry_after`
//!   (default 120 s, `max_retry_after_secs` in the config), so a server cannot hold a run
//!   longer than the user allows (the HTTP-date form is not read). Other
//!   statuses (400, 401, 404, …) fail at once: repeating them cannot help.
//! * Proxies from the environment are not used. The `Authorization: Bearer` header is sent only
//!   with a key.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use crate::{Error, Result};

pub mod chat;
mod transport_config;

pub use transport_config::HttpTransportConfig;

const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// How to talk to an endpoint. Its `Debug` output hides the API key.
#[derive(Clone)]
pub struct HttpSettings {
    /// Sent as `Authorization: Bearer …` when present.
    pub api_key: Option<String>,
    /// Wall-clock limit of one request, connecting included (default 60 s).
    pub timeout: Duration,
    /// Further attempts after a retryable failure (default 2).
    pub retries: u32,
    /// Delay before the first retry, doubled for each further one (default 0.5 s).
    pub backoff: Duration,
    /// Requests in flight at most (default 4).
    pub concurrency: usize,
    /// The longest wait a `Retry-After` header is honoured for (default 120 s; the request
    /// `timeout` caps it too).
    pub max_retry_after: Duration,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            api_key: None,
            timeout: Duration::from_secs(60),
            retries: 2,
            backoff: Duration::from_millis(500),
            concurrency: 4,
            max_retry_after: Duration::from_secs(120),
        }
    }
}

impl std::fmt::Debug for HttpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSettings")
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .field("backoff", &self.backoff)
            .field("concurrency", &self.concurrency)
            .field("max_retry_after", &self.max_retry_after)
            .finish()
    }
}

/// One URL that takes JSON `POST`s: retries, backoff and bounded concurrency.
pub struct HttpEndpoint {
    name: String,
    url: String,
    /// Said after the URL in errors, e.g. `` (model `gpt-4o-mini`)``.
    detail: String,
    settings: HttpSettings,
    agent: ureq::Agent,
}

impl HttpEndpoint {
    /// Checks `settings`; `name` (the model's name in the config) prefixes errors. Sends
    /// nothing: an unreachable server shows at the first request.
    ///
    /// # Errors
    /// [`Error::Config`] naming the setting: a URL that is not http(s), zero concurrency, a zero
    /// timeout.
    pub fn try_new(
        name: impl Into<String>,
        url: impl Into<String>,
        settings: HttpSettings,
    ) -> Result<Self> {
        let name = name.into();
        let url = url.into();
        let bad = |message: String| Error::Config(format!("model `{name}`: {message}"));
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(bad(format!(
                "the URL must start with http:// or https://, found {url:?}"
            )));
        }
        if settings.concurrency == 0 {
            return Err(bad("`concurrency` must be positive".into()));
        }
        if settings.timeout.is_zero() {
            return Err(bad("`timeout_secs` must be positive".into()));
        }
        let agent = ureq::AgentBuilder::new()
            .timeout(settings.timeout)
            // Keep a connection per worker alive (ureq keeps one per host by default), so that
            // https endpoints do not pay a TLS handshake per request.
            .max_idle_connections_per_host(settings.concurrency)
            .user_agent(concat!("metamorph/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(HttpEndpoint {
            name,
            url,
            detail: String::new(),
            settings,
            agent,
        })
    }

    /// Adds `detail` after the URL in error messages (e.g. which model id was asked).
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = detail.into();
        self
    }

    /// The URL requests go to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The settings it was made with.
    pub fn settings(&self) -> &HttpSettings {
        &self.settings
    }

    /// An [`Error::Model`] of this endpoint's model about `item`.
    pub fn error(&self, item: &str, message: impl std::fmt::Display) -> Error {
        Error::Model {
            model: self.name.clone(),
            message: format!("{item}: {message}"),
        }
    }

    /// The body of a 2xx reply to `body`, retrying transient failures; `item` (e.g.
    /// ``example `x` ``) names what is asked in errors and logs.
    ///
    /// # Errors
    /// [`Error::Model`] naming `item` and the URL: the last failure, with the number of
    /// attempts.
    pub fn post(&self, item: &str, body: &str) -> Result<String> {
        let mut attempt = 0;
        loop {
            match self.send(body) {
                Ok(text) => return Ok(text),
                Err(failure) => {
                    let attempts = attempt + 1;
                    if !failure.retryable || attempt >= self.settings.retries {
                        let tries = if attempts > 1 {
                            format!(" (after {attempts} attempts)")
                        } else {
                            String::new()
                        };
                        return Err(self.error(
                            item,
                            format!(
                                "POST {}{}: {}{tries}",
                                self.url, self.detail, failure.message
                            ),
                        ));
                    }
                    let delay = failure
                        .retry_after
                        .map(|d| self.retry_after_delay(d))
                        .unwrap_or_else(|| self.backoff(attempt));
                    tracing::warn!(
                        "model `{}`: {item}: {}; retry {}/{} in {:.2}s",
                        self.name,
                        failure.message,
                        attempts,
                        self.settings.retries,
                        delay.as_secs_f64()
                    );
                    std::thread::sleep(delay);
                    attempt += 1;
                }
            }
        }
    }

    /// `f` on every item by at most `concurrency` threads, the results in the items' order.
    ///
    /// # Errors
    /// The first failure in item order: after any failure no further item is started.
    pub fn map_concurrent<T: Sync, R: Send + Sync>(
        &self,
        items: &[T],
        f: impl Fn(&T) -> Result<R> + Sync,
    ) -> Result<Vec<R>> {
        let results: Vec<OnceLock<Result<R>>> = items.iter().map(|_| OnceLock::new()).collect();
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let workers = self.settings.concurrency.min(items.len());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    // After a failure the batch fails: start no further requests.
                    if failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else {
                        break;
                    };
                    let result = f(item);
                    if result.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    // Each index is taken by one worker only, so the cell is empty.
                    let _ = results[i].set(result);
                });
            }
        });
        let mut out = Vec::with_capacity(items.len());
        let mut not_started = None;
        for (i, slot) in results.into_iter().enumerate() {
            match slot.into_inner() {
                Some(result) => out.push(result?),
                // Only skipped after a failure, which a later slot returns.
                None => {
                    not_started.get_or_insert(i);
                }
            }
        }
        match not_started {
            Some(i) => Err(self.error(&format!("item {i}"), "was not sent (no worker took it)")),
            None => Ok(out),
        }
    }

    /// How long to wait when the server says `Retry-After: asked`: at most the request
    /// `timeout` (the user's bound on waiting for one reply) and at most `max_retry_after`.
    pub fn retry_after_delay(&self, asked: Duration) -> Duration {
        asked
            .min(self.settings.timeout)
            .min(self.settings.max_retry_after)
    }

    /// `backoff · 2^attempt`, capped, times a random factor in [0.5, 1).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let full = self
            .settings
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
        if let Some(key) = &self.settings.api_key {
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
                        self.settings.timeout.as_secs_f64()
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
}

/// A reply for an error message: quoted, cut at 200 characters.
pub fn quoted(reply: &str) -> String {
    const MAX: usize = 200;
    if reply.chars().count() <= MAX {
        format!("{reply:?}")
    } else {
        let head: String = reply.chars().take(MAX).collect();
        format!("{head:?}…")
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
            quoted(body.trim())
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
        .unwrap_or_else(|| quoted(body.trim()))
}

/// A failed exchange.
struct Failure {
    retryable: bool,
    message: String,
    retry_after: Option<Duration>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_settings_are_config_errors_naming_them() {
        let message = |url: &str, s: HttpSettings| {
            HttpEndpoint::try_new("m", url, s)
                .err()
                .unwrap()
                .to_string()
        };
        assert!(message("127.0.0.1:8000", HttpSettings::default()).contains("http://"));
        let zero = HttpSettings {
            concurrency: 0,
            ..HttpSettings::default()
        };
        assert!(message("http://127.0.0.1:1/", zero).contains("`concurrency`"));
        let instant = HttpSettings {
            timeout: Duration::ZERO,
            ..HttpSettings::default()
        };
        assert!(message("http://127.0.0.1:1/", instant).contains("`timeout_secs`"));
    }

    #[test]
    fn debug_output_hides_the_key() {
        let s = HttpSettings {
            api_key: Some("sk-secret".into()),
            ..HttpSettings::default()
        };
        let shown = format!("{s:?}");
        assert!(!shown.contains("sk-secret") && shown.contains("<hidden>"));
    }

    #[test]
    fn retry_after_is_capped_by_the_timeout() {
        let endpoint = |timeout: u64, max_retry_after: Option<u64>| {
            let defaults = HttpSettings::default();
            HttpEndpoint::try_new(
                "m",
                "http://127.0.0.1:1/x",
                HttpSettings {
                    timeout: Duration::from_secs(timeout),
                    max_retry_after: max_retry_after
                        .map_or(defaults.max_retry_after, Duration::from_secs),
                    ..defaults
                },
            )
            .unwrap()
        };
        let e = endpoint(5, None);
        assert_eq!(
            e.retry_after_delay(Duration::from_secs(40)),
            Duration::from_secs(5)
        );
        assert_eq!(
            e.retry_after_delay(Duration::from_secs(2)),
            Duration::from_secs(2)
        );
        let long = endpoint(600, None);
        assert_eq!(
            long.retry_after_delay(Duration::from_secs(900)),
            Duration::from_secs(120)
        );
        let capped = endpoint(600, Some(7));
        assert_eq!(
            capped.retry_after_delay(Duration::from_secs(40)),
            Duration::from_secs(7)
        );
    }

    #[test]
    fn backoff_doubles_with_jitter_and_a_cap() {
        let settings = HttpSettings {
            backoff: Duration::from_secs(1),
            ..HttpSettings::default()
        };
        let e = HttpEndpoint::try_new("m", "http://127.0.0.1:1/score", settings).unwrap();
        assert_eq!(e.url(), "http://127.0.0.1:1/score");
        for attempt in 0..4 {
            let full = Duration::from_secs(1 << attempt);
            let d = e.backoff(attempt);
            assert!(d >= full / 2 && d < full, "{attempt}: {d:?}");
        }
        assert!(e.backoff(20) <= MAX_BACKOFF);
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
