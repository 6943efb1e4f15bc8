//! The plain HTTP adapter (config `kind = "http"`): the JSONL subprocess protocol
//! ([`crate::protocol`]) over HTTP, for a model served on another machine or by a server that
//! batches itself (a coreference system behind a small web app, a GPU inference server).
//!
//! Each batch of at most `batch_size` examples is one `POST {url}` whose body is a JSON array of
//! the protocol's request objects; the reply (2xx, any content type) is a JSON array of the
//! protocol's response objects, in any order, matched by `id`. Every request must be answered
//! once: an unknown, repeated or missing id fails the batch, naming it; a response's `error`
//! fails it with the model's message. Up to `concurrency` batches are in flight; timeouts,
//! connection errors, 408, 429 and 5xx are retried as [`metamorph_data::http`] documents,
//! and an API key (from the variable `api_key_env` names, never the config) is sent as
//! `Authorization: Bearer`.

use std::time::Instant;

use metamorph_data::http::{quoted, HttpEndpoint, HttpSettings};
use metamorph_data::{Example, Prediction, Result};

use crate::protocol::{BatchAnswers, Request, Response};
use crate::Model;

/// How to reach a model that speaks the protocol over HTTP.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// Where each batch is posted, e.g. `http://10.0.0.7:8080/predict`.
    pub url: String,
    /// Examples per request (default 32).
    pub batch_size: usize,
    /// Timeout, retries, backoff, requests in flight (default 1) and API key.
    pub transport: HttpSettings,
}

impl HttpConfig {
    /// The defaults for `url`: batches of 32, one in flight, 120 s per request.
    pub fn new(url: impl Into<String>) -> Self {
        HttpConfig {
            url: url.into(),
            batch_size: 32,
            transport: HttpSettings {
                timeout: std::time::Duration::from_secs(120),
                concurrency: 1,
                ..HttpSettings::default()
            },
        }
    }
}

/// A model under test behind an HTTP endpoint speaking the JSONL protocol's objects.
pub struct HttpModel {
    name: String,
    batch_size: usize,
    endpoint: HttpEndpoint,
}

impl HttpModel {
    /// Checks `config`; sends nothing (an unreachable server shows at the first batch).
    ///
    /// # Errors
    /// [`metamorph_data::Error::Config`] naming the setting: a URL that is not http(s), a zero
    /// batch size, concurrency or timeout.
    pub fn try_new(name: impl Into<String>, config: HttpConfig) -> Result<Self> {
        let name = name.into();
        if config.batch_size == 0 {
            return Err(metamorph_data::Error::Config(format!(
                "model `{name}`: `batch_size` must be positive"
            )));
        }
        let endpoint = HttpEndpoint::try_new(&name, config.url, config.transport)?;
        Ok(HttpModel {
            name,
            batch_size: config.batch_size,
            endpoint,
        })
    }

    /// One batch: post it, read the array of responses, match them to the requests.
    fn round_trip(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        let item = match batch {
            [one] => format!("example `{}`", one.id),
            [first, ..] => format!("batch of {} examples from `{}`", batch.len(), first.id),
            [] => return Ok(Vec::new()),
        };
        let started = Instant::now();
        let mut answers =
            BatchAnswers::new(&self.name, batch).map_err(|m| self.endpoint.error(&item, m))?;
        let requests: Vec<Request<'_>> = batch.iter().map(|e| Request::from_example(e)).collect();
        let body = serde_json::to_string(&requests).map_err(|e| {
            self.endpoint
                .error(&item, format!("cannot encode the requests: {e}"))
        })?;
        let reply = self.endpoint.post(&item, &body)?;
        let responses: Vec<Response> = serde_json::from_str(&reply).map_err(|e| {
            self.endpoint.error(
                &item,
                format!(
                    "the reply of {} is not a JSON array of protocol responses ({e}): {}",
                    self.endpoint.url(),
                    quoted(&reply)
                ),
            )
        })?;
        for response in responses {
            answers
                .accept(response)
                .map_err(|m| self.endpoint.error(&item, m))?;
        }
        let latency = started.elapsed().as_secs_f32() * 1000.0 / batch.len() as f32;
        answers
            .finish(latency)
            .map_err(|m| self.endpoint.error(&item, m))
    }
}

impl Model for HttpModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn max_batch(&self) -> usize {
        self.batch_size * self.endpoint.settings().concurrency
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        let chunks: Vec<&[&Example]> = batch.chunks(self.batch_size).collect();
        let predictions = self
            .endpoint
            .map_concurrent(&chunks, |chunk| self.round_trip(chunk))?;
        Ok(predictions.into_iter().flatten().collect())
    }
}
