//! What the models of a run cost: predictions answered from the response cache or by a model
//! call, and the requests and tokens of paid endpoints, with the budget that stops a run.
//!
//! # Design decisions
//! * **Counted where they happen, summed where they are read**: the execute stage counts
//!   predictions and cache hits per unit, the OpenAI-compatible client counts requests and the
//!   `usage` of each reply ([`UsageMeter`]); a unit's counts go into its manifest, and the
//!   summary sums the manifests of the units it reports, so sharded and resumed runs add up.
//! * **A budget is per process and per run**: [`Budget`] bounds the requests and tokens this
//!   process sends from when the model starts. Answers from the cache cost nothing, so a later
//!   run with a larger budget asks only what the stopped run had not been answered — that is
//!   what resuming means here.
//! * **Checked before each request**: a request is not sent once the budget is spent. Requests
//!   already in flight finish, so a run may overshoot `max_total_tokens` by what those replies
//!   use, and never `max_requests`.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// One model's (or generator's) usage over some units of a run, as `summary.json` lists it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelUsage {
    /// The model's (or generator's) name in the config.
    pub name: String,
    /// `model` (a model under test) or `generator`.
    pub role: String,
    /// Inputs answered (each source once, each follow-up).
    pub predictions: u64,
    /// Of those, answered from the response cache (no model call).
    pub from_cache: u64,
    /// Distinct inputs sent to the model (identical inputs run once).
    pub executed: u64,
    /// Prompts sent to a paid endpoint (a prompt's retries are one request).
    pub requests: u64,
    /// Prompt tokens its replies reported.
    pub prompt_tokens: u64,
    /// Completion tokens its replies reported.
    pub completion_tokens: u64,
}

impl ModelUsage {
    /// An empty record for `name` in `role`.
    pub fn new(name: impl Into<String>, role: &str) -> Self {
        ModelUsage {
            name: name.into(),
            role: role.to_string(),
            ..ModelUsage::default()
        }
    }

    /// Prompt plus completion tokens.
    pub fn total_tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }

    /// Adds `other`'s counts (same name and role).
    pub fn add(&mut self, other: &ModelUsage) {
        self.predictions += other.predictions;
        self.from_cache += other.from_cache;
        self.executed += other.executed;
        self.requests += other.requests;
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
    }

    /// Adds the endpoint counts of `spent`.
    pub fn add_spent(&mut self, spent: Spent) {
        self.requests += spent.requests;
        self.prompt_tokens += spent.prompt_tokens;
        self.completion_tokens += spent.completion_tokens;
    }
}

/// Sums `records` by (role, name), sorted.
pub fn sum_usage<'a>(records: impl IntoIterator<Item = &'a ModelUsage>) -> Vec<ModelUsage> {
    let mut sums: std::collections::BTreeMap<(String, String), ModelUsage> = Default::default();
    for record in records {
        sums.entry((record.role.clone(), record.name.clone()))
            .or_insert_with(|| ModelUsage::new(&record.name, &record.role))
            .add(record);
    }
    sums.into_values().collect()
}

/// What an endpoint client has spent so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spent {
    /// Requests sent.
    pub requests: u64,
    /// Prompt tokens reported.
    pub prompt_tokens: u64,
    /// Completion tokens reported.
    pub completion_tokens: u64,
}

impl Spent {
    /// What was spent since `earlier` (a snapshot of the same meter).
    pub fn since(self, earlier: Spent) -> Spent {
        Spent {
            requests: self.requests.saturating_sub(earlier.requests),
            prompt_tokens: self.prompt_tokens.saturating_sub(earlier.prompt_tokens),
            completion_tokens: self
                .completion_tokens
                .saturating_sub(earlier.completion_tokens),
        }
    }

    /// Prompt plus completion tokens.
    pub fn total_tokens(self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }
}

/// The budget keys of a paid endpoint's table (`max_total_tokens`, `max_requests`), flattened
/// beside its other keys. Unset: no bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Budget {
    /// Stop sending requests once the replies have reported this many tokens (prompt plus
    /// completion) in this run.
    #[serde(default)]
    pub max_total_tokens: Option<u64>,
    /// Stop after this many prompts sent in this run (a prompt's retries are one request).
    #[serde(default)]
    pub max_requests: Option<u64>,
}

impl Budget {
    /// Whether any bound is set.
    pub fn is_bounded(&self) -> bool {
        self.max_total_tokens.is_some() || self.max_requests.is_some()
    }
}

/// Counts a client's requests and reported tokens, and refuses a request once its [`Budget`]
/// is spent. Shared by the client's concurrent requests.
#[derive(Debug, Default)]
pub struct UsageMeter {
    budget: Budget,
    requests: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
}

impl UsageMeter {
    /// A meter bounded by `budget`.
    pub fn new(budget: Budget) -> Self {
        UsageMeter {
            budget,
            ..UsageMeter::default()
        }
    }

    /// The budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }

    /// Takes one request from the budget.
    ///
    /// # Errors
    /// [`Error::Budget`] for `who` when the budget is spent: the message says what was spent
    /// and how to go on.
    pub fn start_request(&self, who: &str) -> Result<()> {
        let tokens = self.spent().total_tokens();
        if let Some(max) = self.budget.max_total_tokens {
            if tokens >= max {
                return Err(self.exhausted(who, format!("`max_total_tokens` = {max} reached")));
            }
        }
        if let Some(max) = self.budget.max_requests {
            // Claim a slot only while one is left, so that concurrent requests never pass it.
            let claimed = self
                .requests
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                    (n < max).then_some(n + 1)
                });
            if claimed.is_err() {
                return Err(self.exhausted(who, format!("`max_requests` = {max} reached")));
            }
        } else {
            self.requests.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    }

    /// Requests the budget still allows (`None`: no request bound).
    pub fn requests_left(&self) -> Option<u64> {
        self.budget
            .max_requests
            .map(|max| max.saturating_sub(self.requests.load(Ordering::SeqCst)))
    }

    /// Records the token counts a reply reported.
    pub fn record_tokens(&self, prompt: u64, completion: u64) {
        self.prompt_tokens.fetch_add(prompt, Ordering::SeqCst);
        self.completion_tokens
            .fetch_add(completion, Ordering::SeqCst);
    }

    /// What was spent so far.
    pub fn spent(&self) -> Spent {
        Spent {
            requests: self.requests.load(Ordering::SeqCst),
            prompt_tokens: self.prompt_tokens.load(Ordering::SeqCst),
            completion_tokens: self.completion_tokens.load(Ordering::SeqCst),
        }
    }

    fn exhausted(&self, who: &str, why: String) -> Error {
        let spent = self.spent();
        Error::Budget {
            model: who.to_string(),
            message: format!(
                "{why} after {} requests and {} tokens ({} prompt, {} completion) in this run",
                spent.requests,
                spent.total_tokens(),
                spent.prompt_tokens,
                spent.completion_tokens
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_stop_at_the_request_bound_even_when_concurrent() {
        let meter = UsageMeter::new(Budget {
            max_requests: Some(5),
            ..Budget::default()
        });
        let passed = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..4 {
                        if meter.start_request("m").is_ok() {
                            passed.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                });
            }
        });
        assert_eq!(passed.into_inner(), 5);
        assert_eq!(meter.spent().requests, 5);
        let e = meter.start_request("m").unwrap_err();
        assert!(e.is_budget(), "{e}");
        assert!(
            e.to_string()
                .contains("`max_requests` = 5 reached after 5 requests"),
            "{e}"
        );
    }

    #[test]
    fn tokens_stop_the_next_request_once_reported_past_the_bound() {
        let meter = UsageMeter::new(Budget {
            max_total_tokens: Some(100),
            ..Budget::default()
        });
        meter.start_request("m").unwrap();
        meter.record_tokens(60, 30);
        meter.start_request("m").unwrap();
        meter.record_tokens(20, 5);
        let e = meter.start_request("m").unwrap_err().to_string();
        assert!(
            e.contains("`max_total_tokens` = 100 reached after 2 requests and 115 tokens (80 prompt, 35 completion)"),
            "{e}"
        );
    }

    #[test]
    fn usage_sums_by_role_and_name() {
        let mut a = ModelUsage::new("m", "model");
        a.predictions = 3;
        a.from_cache = 1;
        let mut b = a.clone();
        b.prompt_tokens = 7;
        let g = ModelUsage::new("m", "generator");
        let sums = sum_usage([&a, &g, &b]);
        assert_eq!(sums.len(), 2);
        assert_eq!(sums[0].role, "generator");
        assert_eq!(
            (
                sums[1].predictions,
                sums[1].from_cache,
                sums[1].prompt_tokens
            ),
            (6, 2, 7)
        );
    }
}
