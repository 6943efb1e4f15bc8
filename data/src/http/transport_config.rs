//! The transport keys every HTTP client's config table takes — `api_key_env`, `timeout_secs`,
//! `retries`, `backoff_secs`, `concurrency`, `max_retry_after_secs` — declared and checked
//! once, here, for the `openai` and `http` models under test and the `openai` generator.

use std::time::Duration;

use serde::Deserialize;

use super::HttpSettings;
use crate::{Error, Result};

/// The transport keys of a config table (flattened into it: the keys sit beside the client's
/// own). Unset keys keep the client's defaults.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct HttpTransportConfig {
    /// The environment variable holding the API key; the key itself never goes in the config
    /// file. Unset: the client's default variable (`OPENAI_API_KEY` for the OpenAI-compatible
    /// clients, none for `http`); unset or empty variable: no `Authorization` header.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Seconds to wait for one request, connecting included.
    #[serde(default)]
    pub timeout_secs: Option<f64>,
    /// Further attempts after a timeout, connection error, 408, 429 or 5xx (default 2).
    #[serde(default)]
    pub retries: Option<u32>,
    /// Seconds before the first retry, doubled for each further one, with jitter (default
    /// 0.5); a `Retry-After` header overrides it.
    #[serde(default)]
    pub backoff_secs: Option<f64>,
    /// Requests in flight at most.
    #[serde(default)]
    pub concurrency: Option<usize>,
    /// The longest wait in seconds a server's `Retry-After` is honoured for (default 120;
    /// `timeout_secs` caps it too).
    #[serde(default)]
    pub max_retry_after_secs: Option<f64>,
}

impl HttpTransportConfig {
    /// These keys over `defaults`: the API key read by `env` from `api_key_env` (else from
    /// `default_key_var`), the durations checked. `what` names the table in errors and
    /// warnings (``model `x` ``, `[generate]`).
    ///
    /// # Errors
    /// [`Error::Config`] naming the key for a negative or non-finite number of seconds.
    pub fn resolve(
        &self,
        mut settings: HttpSettings,
        default_key_var: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
        what: &str,
    ) -> Result<HttpSettings> {
        if let Some(var) = self.api_key_env.as_deref().or(default_key_var) {
            settings.api_key = env(var).filter(|key| !key.trim().is_empty());
            if settings.api_key.is_none() && self.api_key_env.is_some() {
                tracing::warn!("{what}: `{var}` (api_key_env) is not set: sending no API key");
            }
        }
        let seconds = |value: f64, key: &str| {
            Duration::try_from_secs_f64(value).map_err(|_| {
                Error::Config(format!(
                    "{what}: `{key}` must be a number of seconds ≥ 0, found {value}"
                ))
            })
        };
        if let Some(t) = self.timeout_secs {
            settings.timeout = seconds(t, "timeout_secs")?;
        }
        if let Some(b) = self.backoff_secs {
            settings.backoff = seconds(b, "backoff_secs")?;
        }
        if let Some(r) = self.retries {
            settings.retries = r;
        }
        if let Some(c) = self.concurrency {
            settings.concurrency = c;
        }
        if let Some(m) = self.max_retry_after_secs {
            settings.max_retry_after = seconds(m, "max_retry_after_secs")?;
        }
        Ok(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_override_the_defaults_and_bad_seconds_are_named() {
        let config = HttpTransportConfig {
            api_key_env: Some("KEY".into()),
            timeout_secs: Some(3.0),
            retries: Some(5),
            ..Default::default()
        };
        let env = |var: &str| (var == "KEY").then(|| "sk-1".to_string());
        let s = config
            .resolve(HttpSettings::default(), Some("OTHER"), env, "model `m`")
            .unwrap();
        assert_eq!(s.api_key.as_deref(), Some("sk-1"));
        assert_eq!((s.timeout, s.retries), (Duration::from_secs(3), 5));
        assert_eq!(s.concurrency, HttpSettings::default().concurrency);
        let bad = HttpTransportConfig {
            backoff_secs: Some(-1.0),
            ..Default::default()
        };
        let e = bad
            .resolve(HttpSettings::default(), None, |_| None, "model `m`")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("model `m`") && e.contains("`backoff_secs`"),
            "{e}"
        );
    }

    #[test]
    fn the_default_variable_is_read_when_none_is_named() {
        let env = |var: &str| (var == "OPENAI_API_KEY").then(|| "sk-2".to_string());
        let s = HttpTransportConfig::default()
            .resolve(HttpSettings::default(), Some("OPENAI_API_KEY"), env, "x")
            .unwrap();
        assert_eq!(s.api_key.as_deref(), Some("sk-2"));
        let s = HttpTransportConfig::default()
            .resolve(HttpSettings::default(), None, env, "x")
            .unwrap();
        assert_eq!(s.api_key, None);
    }
}
