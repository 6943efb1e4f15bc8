//! The response cache: every prediction of a model under test, stored by the model's
//! fingerprint and the request, so that no model is asked the same thing twice.
//!
//! ```text
//! <cache dir>/v1/<model fingerprint>/<host>-<pid>-<nanos>.jsonl   one segment per writing process
//! <cache dir>/v1/<model fingerprint>/last-used                    touched when a run reads it
//! ```
//!
//! # Design decisions
//! * **Keyed by what decides the answer**: the model's fingerprint
//!   ([`crate::model_fingerprint`]: version, its table, the contents of the files it runs) and
//!   the SHA-256 of the request as the JSONL protocol sends it, id left out (task, question,
//!   context, text, entity spans, …). The model's name is not in the key: renaming a model
//!   keeps its answers; changing a template, a weight or a decoding setting does not.
//! * **Outside the run's output, shared by runs**: the default folder is
//!   `$METAMORPH_CACHE_DIR`, else `<$METAMORPH_HOME or ~/.cache/metamorph>/predictions`, so a
//!   rerun with `--force`, a new relation or another config over the same data reuses answers.
//! * **Append-only segments, one per process**: processes of a sharded run (Slurm tasks, local
//!   workers) each append to their own file, flushed after every model call, so nothing is
//!   shared mid-write and a killed run keeps what it was answered. A model's segments are read
//!   into memory the first time its answers are looked up; a torn last line (a process killed
//!   mid-write) is skipped.
//! * **A size cap** (`[execute] cache_max_mb`, default 2048): when a run opens the cache and it
//!   is larger, the models used longest ago are removed whole until it fits.
//! * **Off switches**: `metamorph run --no-cache`, `[execute] cache = false`, or
//!   `METAMORPH_NO_CACHE=1`.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use metamorph_data::{Error, Prediction, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The layout version: a folder per version, so an incompatible layout never reads another's.
const LAYOUT: &str = "v1";

/// Default size cap in MiB.
pub const DEFAULT_MAX_MB: u64 = 2048;

/// One line of a segment.
#[derive(Serialize, Deserialize)]
struct Entry {
    /// SHA-256 of the request (hex).
    key: String,
    /// The prediction, with an empty `example_id` and `model`.
    prediction: Prediction,
}

/// One model's answers: those read from disk and this process's segment.
struct ModelAnswers {
    dir: PathBuf,
    answers: HashMap<String, Prediction>,
    segment: Option<BufWriter<File>>,
}

/// The response cache of a run (see the module docs).
pub struct ResponseCache {
    root: PathBuf,
    models: Mutex<HashMap<String, Arc<Mutex<ModelAnswers>>>>,
}

impl std::fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseCache")
            .field("root", &self.root)
            .finish()
    }
}

/// The request key of an input: the SHA-256 of its request as encoded (id left out).
pub fn request_key(encoded_request: &str) -> String {
    metamorph_data::to_hex(&Sha256::digest(encoded_request.as_bytes()))
}

impl ResponseCache {
    /// The default folder: `$METAMORPH_CACHE_DIR`, else `predictions/` under the asset cache
    /// root (`$METAMORPH_HOME`, else `$XDG_CACHE_HOME/metamorph`, else `~/.cache/metamorph`).
    pub fn default_dir() -> PathBuf {
        match std::env::var_os("METAMORPH_CACHE_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => metamorph_data::assets::home().join("predictions"),
        }
    }

    /// Whether `METAMORPH_NO_CACHE` turns the cache off (any value but empty and `0`).
    pub fn disabled_by_env() -> bool {
        std::env::var("METAMORPH_NO_CACHE").is_ok_and(|v| !v.is_empty() && v != "0")
    }

    /// Opens (creating) the cache at `root` and trims it to `max_bytes`, removing the models
    /// used longest ago.
    ///
    /// # Errors
    /// [`Error::Io`] naming the folder when it cannot be created or read.
    pub fn open(root: &Path, max_bytes: u64) -> Result<Self> {
        let layout = root.join(LAYOUT);
        std::fs::create_dir_all(&layout).map_err(|e| Error::io(&layout, e))?;
        let removed = trim(&layout, max_bytes)?;
        if removed > 0 {
            tracing::info!(
                cache = %root.display(),
                removed,
                "response cache over its cap of {} MiB: removed the models used longest ago",
                max_bytes >> 20
            );
        }
        Ok(ResponseCache {
            root: root.to_path_buf(),
            models: Mutex::new(HashMap::new()),
        })
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The answers of the model with `fingerprint`, read from disk the first time.
    fn model(&self, fingerprint: &str) -> Result<Arc<Mutex<ModelAnswers>>> {
        let mut models = self.models.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(model) = models.get(fingerprint) {
            return Ok(model.clone());
        }
        let dir = self.root.join(LAYOUT).join(fingerprint);
        let answers = read_segments(&dir)?;
        if dir.is_dir() {
            touch(&dir.join("last-used"));
        }
        let model = Arc::new(Mutex::new(ModelAnswers {
            dir,
            answers,
            segment: None,
        }));
        models.insert(fingerprint.to_string(), model.clone());
        Ok(model)
    }

    /// The stored prediction of the model with `fingerprint` for each key (in order).
    ///
    /// # Errors
    /// [`Error::Io`] when the model's segments cannot be read.
    pub fn get_many(&self, fingerprint: &str, keys: &[&str]) -> Result<Vec<Option<Prediction>>> {
        let model = self.model(fingerprint)?;
        let model = model.lock().unwrap_or_else(|e| e.into_inner());
        Ok(keys
            .iter()
            .map(|k| model.answers.get(*k).cloned())
            .collect())
    }

    /// Stores the predictions of the model with `fingerprint`, one per key, and flushes them
    /// to this process's segment.
    ///
    /// # Errors
    /// [`Error::Io`] naming the segment when it cannot be written.
    pub fn put_many(&self, fingerprint: &str, entries: &[(&str, &Prediction)]) -> Result<()> {
        let model = self.model(fingerprint)?;
        let mut model = model.lock().unwrap_or_else(|e| e.into_inner());
        if model.segment.is_none() {
            std::fs::create_dir_all(&model.dir).map_err(|e| Error::io(&model.dir, e))?;
            touch(&model.dir.join("last-used"));
            let path = model.dir.join(segment_name());
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| Error::io(&path, e))?;
            model.segment = Some(BufWriter::new(file));
        }
        let dir = model.dir.clone();
        for (key, prediction) in entries {
            let mut entry = Entry {
                key: key.to_string(),
                prediction: (*prediction).clone(),
            };
            entry.prediction.example_id.clear();
            entry.prediction.model.clear();
            let line = serde_json::to_string(&entry).map_err(|e| Error::Schema {
                context: "response cache".into(),
                message: format!("cannot encode a prediction: {e}"),
            })?;
            let segment = model.segment.as_mut().expect("opened above");
            writeln!(segment, "{line}").map_err(|e| Error::io(&dir, e))?;
            model.answers.insert(entry.key, entry.prediction);
        }
        model
            .segment
            .as_mut()
            .expect("opened above")
            .flush()
            .map_err(|e| Error::io(&dir, e))
    }
}

/// A segment name no other process uses: host, process id and the time.
fn segment_name() -> String {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let host = std::env::var("HOSTNAME")
        .ok()
        .filter(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or_else(|| "host".into());
    format!("{host}-{}-{nanos}.jsonl", std::process::id())
}

/// Every answer in the segments of `dir` (none when it does not exist).
fn read_segments(dir: &Path) -> Result<HashMap<String, Prediction>> {
    let mut answers = HashMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(answers);
    };
    let mut torn = 0usize;
    for entry in entries.filter_map(|e| e.ok()) {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
        for line in BufReader::new(file).lines() {
            let line = line.map_err(|e| Error::io(&path, e))?;
            match serde_json::from_str::<Entry>(&line) {
                Ok(entry) => {
                    answers.insert(entry.key, entry.prediction);
                }
                Err(_) => torn += 1,
            }
        }
    }
    if torn > 0 {
        tracing::debug!(dir = %dir.display(), torn, "skipped unreadable cache lines");
    }
    Ok(answers)
}

fn touch(path: &Path) {
    // Best effort: only the eviction order depends on it.
    let _ = std::fs::write(path, b"");
}

/// Removes whole model folders, used longest ago first, until `layout` holds at most
/// `max_bytes`; returns how many were removed.
fn trim(layout: &Path, max_bytes: u64) -> Result<usize> {
    let mut models = Vec::new();
    let mut total = 0u64;
    let entries = std::fs::read_dir(layout).map_err(|e| Error::io(layout, e))?;
    for entry in entries.filter_map(|e| e.ok()) {
        let dir = entry.path();
        // Only folders named as fingerprints are the cache's; anything else is left alone.
        let is_model = dir.is_dir()
            && dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.len() == 64 && n.chars().all(|c| c.is_ascii_hexdigit()));
        if !is_model {
            continue;
        }
        let size: u64 = std::fs::read_dir(&dir)
            .map(|files| {
                files
                    .filter_map(|f| f.ok()?.metadata().ok())
                    .filter(|m| m.is_file())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0);
        let used = std::fs::metadata(dir.join("last-used"))
            .or_else(|_| std::fs::metadata(&dir))
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        total += size;
        models.push((used, size, dir));
    }
    models.sort();
    let mut removed = 0;
    for (_, size, dir) in models {
        if total <= max_bytes {
            break;
        }
        std::fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        total -= size;
        removed += 1;
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use metamorph_data::Task;

    fn prediction(label: &str) -> Prediction {
        Prediction {
            label: Some(label.into()),
            ..Prediction::new("x", "m", Task::BoolQ)
        }
    }

    const FP_A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const FP_B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    #[test]
    fn answers_survive_the_process_and_stay_with_their_model() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResponseCache::open(dir.path(), u64::MAX).unwrap();
        cache
            .put_many(
                FP_A,
                &[("k1", &prediction("yes")), ("k2", &prediction("no"))],
            )
            .unwrap();
        drop(cache);
        let cache = ResponseCache::open(dir.path(), u64::MAX).unwrap();
        let got = cache.get_many(FP_A, &["k2", "k1", "k3"]).unwrap();
        let labels: Vec<Option<&str>> = got
            .iter()
            .map(|p| p.as_ref().and_then(|p| p.label.as_deref()))
            .collect();
        assert_eq!(labels, [Some("no"), Some("yes"), None]);
        assert!(got[0].as_ref().unwrap().example_id.is_empty());
        assert_eq!(cache.get_many(FP_B, &["k1"]).unwrap(), [None]);
    }

    #[test]
    fn a_torn_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResponseCache::open(dir.path(), u64::MAX).unwrap();
        cache.put_many(FP_A, &[("k1", &prediction("yes"))]).unwrap();
        let model_dir = dir.path().join(LAYOUT).join(FP_A);
        std::fs::write(model_dir.join("killed.jsonl"), "{\"key\":\"k2\",\"predic").unwrap();
        let cache = ResponseCache::open(dir.path(), u64::MAX).unwrap();
        assert!(cache.get_many(FP_A, &["k1"]).unwrap()[0].is_some());
    }

    #[test]
    fn over_its_cap_the_model_used_longest_ago_goes_first() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResponseCache::open(dir.path(), u64::MAX).unwrap();
        cache.put_many(FP_A, &[("k", &prediction("old"))]).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        cache.put_many(FP_B, &[("k", &prediction("new"))]).unwrap();
        let one_model = std::fs::read_dir(dir.path().join(LAYOUT).join(FP_B))
            .unwrap()
            .filter_map(|f| f.ok()?.metadata().ok())
            .map(|m| m.len())
            .sum::<u64>();
        drop(cache);
        let cache = ResponseCache::open(dir.path(), one_model).unwrap();
        assert_eq!(cache.get_many(FP_A, &["k"]).unwrap(), [None]);
        assert!(cache.get_many(FP_B, &["k"]).unwrap()[0].is_some());
    }
}
