//! A model's fingerprint for the response cache: a SHA-256 over everything its answers
//! depend on, so that a cached prediction is never handed to another model.
//!
//! # What goes in
//! * **The metamorph version**: a release may change prompts, reply parsing or batching.
//! * **The model's whole table as read** (its kind and every key: `model`, prompts, labels,
//!   system message, temperature, `max_tokens`, device, dtype, head keys, endpoint URL and
//!   model id, command and environment, …), minus only the name, `tasks` (which routes
//!   inputs) and the budget (`max_total_tokens`, `max_requests`: a run resumed with a larger
//!   budget must find the answers already paid for), none of which changes an answer. Keys that change no answer (timeouts, batch sizes) are
//!   included too: a safe miss is better than a clever hit.
//! * **The contents of the files it runs**: a candle checkpoint's folder (`config.json`, the
//!   tokenizer, the weights), a GGUF file, every argument of a subprocess command that names a
//!   file (the script), and the files the table's `cache_inputs` lists (what a script loads on
//!   its own, e.g. its weights). Files are hashed by content when the model's answers are
//!   first looked up, never when caching is off.
//!
//! # What cannot be seen
//! An HTTP endpoint's model can change behind the same URL and model id, and a subprocess may
//! read files its command does not name: list those in `cache_inputs`, or run with
//! `--no-cache` (or `[execute] cache = false`) after changing what the server or script runs.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use metamorph_data::usage::Spent;
use metamorph_data::{Example, Prediction, Result, Task};
use sha2::{Digest, Sha256};

use crate::Model;

/// The fingerprint of a model whose settings read as `settings` and which runs `files`.
///
/// # Errors
/// [`metamorph_data::Error::Io`] naming a file that cannot be read.
pub fn fingerprint(settings: &str, files: &[PathBuf]) -> Result<String> {
    let mut hasher = Sha256::new();
    hasher.update(b"metamorph response cache 1\n");
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    hasher.update(b"\n");
    hasher.update(settings.as_bytes());
    let mut files: Vec<&PathBuf> = files.iter().collect();
    files.sort();
    files.dedup();
    for file in files {
        let hash = metamorph_data::assets::sha256_file(file)?;
        // The name is left out: the same weights under another path are the same model.
        hasher.update(b"\nfile ");
        hasher.update(hash.as_bytes());
    }
    Ok(metamorph_data::to_hex(&hasher.finalize()))
}

/// Every regular file directly in `dir` (a checkpoint's folder), following links as the
/// loader does.
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// A model started from its config table: it answers the table's `tasks` and knows its
/// fingerprint (computed once, when first asked).
pub struct ConfiguredModel {
    inner: Arc<dyn Model>,
    tasks: Vec<Task>,
    settings: String,
    files: Vec<PathBuf>,
    fingerprint: OnceLock<String>,
}

impl ConfiguredModel {
    /// `inner`, answering `tasks` (empty: whatever it answers), fingerprinted from its
    /// `settings` text and the `files` it runs.
    pub fn new(
        inner: Arc<dyn Model>,
        tasks: Vec<Task>,
        settings: String,
        files: Vec<PathBuf>,
    ) -> Self {
        ConfiguredModel {
            inner,
            tasks,
            settings,
            files,
            fingerprint: OnceLock::new(),
        }
    }

    /// The files whose contents are part of the fingerprint.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }
}

impl Model for ConfiguredModel {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        self.inner.predict(batch)
    }

    fn handles(&self, task: Task) -> bool {
        if self.tasks.is_empty() {
            self.inner.handles(task)
        } else {
            self.tasks.contains(&task)
        }
    }

    fn max_batch(&self) -> usize {
        self.inner.max_batch()
    }

    fn spent(&self) -> Option<Spent> {
        self.inner.spent()
    }

    fn requests_left(&self) -> Option<u64> {
        self.inner.requests_left()
    }

    fn fingerprint(&self) -> Result<Option<String>> {
        if let Some(done) = self.fingerprint.get() {
            return Ok(Some(done.clone()));
        }
        let started = std::time::Instant::now();
        let computed = fingerprint(&self.settings, &self.files)?;
        tracing::debug!(
            model = self.name(),
            files = self.files.len(),
            "fingerprinted in {:.2} s",
            started.elapsed().as_secs_f64()
        );
        Ok(Some(self.fingerprint.get_or_init(|| computed).clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_and_file_contents_change_the_fingerprint_and_names_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.bin"), dir.path().join("b.bin"));
        std::fs::write(&a, b"weights").unwrap();
        std::fs::write(&b, b"weights").unwrap();
        let base = fingerprint("kind", std::slice::from_ref(&a)).unwrap();
        assert_eq!(base, fingerprint("kind", std::slice::from_ref(&b)).unwrap());
        assert_ne!(
            base,
            fingerprint("kind2", std::slice::from_ref(&a)).unwrap()
        );
        std::fs::write(&a, b"weights2").unwrap();
        assert_ne!(base, fingerprint("kind", &[a]).unwrap());
        assert_eq!(files_in(dir.path()).len(), 2);
    }
}
