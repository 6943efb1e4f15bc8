//! A stage's output for one shard: one Parquet file per record kind it produces, written
//! atomically, plus a manifest that marks the shard complete and says what it was made from.
//!
//! Layout under an output directory:
//! ```text
//! <output>/<kind>/part-00001-of-00004.parquet      e.g. case/, prediction/, verdict/
//! <output>/_manifests/<stage>.part-00001-of-00004.json
//! <output>/_manifests/<stage>.part-00001-of-00004.lock
//! ```
//!
//! How a shard is claimed, resumed and replaced ([`claim_shard`]):
//! * The writer holds the shard's [`ShardLock`] from the resume check to the manifest, so any
//!   number of processes can write disjoint shards into one output, and a second process for
//!   the same shard waits, then finds it complete.
//! * A manifest records the shard's [`Fingerprint`] (tool version, shard count, input hashes,
//!   settings). A shard counts as complete only when its manifest's fingerprint equals the
//!   new run's and every file it lists is there with the size it lists. Otherwise the shard
//!   is redone, with a warning naming what changed; its old manifest and parts are removed
//!   first, so no part stays visible that no manifest vouches for.
//! * Parts of the same stage written with another shard count are removed (their locks
//!   taken first: a live run of the other count is an error), so a 2-shard and a 4-shard run
//!   never mix in one output. Readers refuse mixed counts too
//!   ([`crate::parquet_io::check_one_shard_count`]).
//! * Committing finishes and syncs every file and the manifest under temporary names before
//!   renaming any of them, so a full disk fails before anything is visible; a rename that
//!   fails removes the parts already renamed.
//! * **Nothing outside the output is written or deleted.** A manifest entry must be a plain
//!   relative path (`<kind>/<file>`, no `..`, no root) with no symbolic link on the way;
//!   anything else is an error naming the manifest and the entry, and nothing of that manifest
//!   is deleted. The folders a shard writes into (`<kind>/`, `_manifests/`) must not be
//!   symbolic links: a planted link is refused with an error naming it, never followed.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::fingerprint::Fingerprint;
use crate::parquet_io::{remove_temporaries_of, AtomicFile, ParquetShardWriter};
use crate::record::RecordKind;
use crate::runner::Tap;
use crate::shard::ShardSpec;
use crate::shard_lock::{holder, ShardLock};
use crate::{Error, Result};

/// The record of a completed shard.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// The stage that wrote it.
    pub stage: String,
    /// The shard, as `i/n`.
    pub shard: String,
    /// What the shard was made from (absent in manifests of older versions, which are redone).
    #[serde(default)]
    pub fingerprint: Option<Fingerprint>,
    /// Files written, with their record kind and row count.
    pub files: Vec<ManifestFile>,
    /// What the models and generators did for this shard: predictions, cache hits, requests
    /// and tokens (the summary sums these over the run's shards).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<crate::usage::ModelUsage>,
}

/// One file of a [`Manifest`].
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ManifestFile {
    /// Record kind.
    pub kind: String,
    /// Path relative to the output directory.
    pub path: String,
    /// Rows in the file.
    pub rows: usize,
    /// Size of the file in bytes.
    #[serde(default)]
    pub bytes: Option<u64>,
}

impl Manifest {
    /// True when every file it lists is in `output` (confined to it, see [`inside_output`])
    /// with the size it lists.
    fn files_intact(&self, output: &Path) -> bool {
        self.files.iter().all(|f| {
            inside_output(output, &f.path).is_ok_and(|path| {
                std::fs::metadata(path)
                    .is_ok_and(|m| m.is_file() && f.bytes.is_none_or(|b| b == m.len()))
            })
        })
    }

    /// The paths of the files it lists, once every one of them is checked to be inside
    /// `output`: callers remove them only after this succeeded for all.
    ///
    /// # Errors
    /// [`Error::Config`] naming `manifest` and the entry that points elsewhere.
    fn confined_files(&self, output: &Path, manifest: &Path) -> Result<Vec<PathBuf>> {
        self.files
            .iter()
            .map(|f| {
                inside_output(output, &f.path).map_err(|why| {
                    Error::Config(format!(
                        "{}: entry `{}` {why}; metamorph deletes nothing outside {} (remove \
                         the manifest by hand if you trust it)",
                        manifest.display(),
                        f.path,
                        output.display()
                    ))
                })
            })
            .collect()
    }
}

/// `relative` joined to `output`, if it stays inside: a plain relative path (no root, no `..`
/// or `.`), and no symbolic link among the folders on the way. The reason otherwise.
pub fn inside_output(output: &Path, relative: &str) -> std::result::Result<PathBuf, String> {
    let path = Path::new(relative);
    if relative.is_empty() || !path.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err("is not a plain relative path inside the output folder".into());
    }
    let mut at = output.to_path_buf();
    let mut components = path.components().peekable();
    while let Some(component) = components.next() {
        at.push(component);
        if components.peek().is_some() && is_symlink(&at) {
            return Err(format!("passes through the symbolic link {}", at.display()));
        }
    }
    Ok(at)
}

/// Whether `path` is a symbolic link (not followed).
fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Fails when `dir`, a folder metamorph writes into inside an output, is a symbolic link:
/// such a link is refused, never followed.
///
/// # Errors
/// [`Error::Config`] naming the link and where it points.
pub fn refuse_symlinked_dir(dir: &Path) -> Result<()> {
    if is_symlink(dir) {
        let target = std::fs::read_link(dir)
            .map(|t| t.display().to_string())
            .unwrap_or_else(|_| "?".into());
        return Err(Error::Config(format!(
            "{} is a symbolic link (to {target}): metamorph writes nothing through links inside \
             its output folder; remove the link, or choose another output",
            dir.display()
        )));
    }
    Ok(())
}

fn manifest_path(output: &Path, stage: &str, shard: ShardSpec) -> PathBuf {
    output.join("_manifests").join(shard.manifest_name(stage))
}

fn read_manifest(path: &Path) -> Option<Manifest> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// The manifest of a completed shard, if the shard is complete (manifest present and every file
/// it lists still there, whatever it was made from; [`claim_shard`] also checks that).
pub fn completed_shard(output: &Path, stage: &str, shard: ShardSpec) -> Option<Manifest> {
    read_manifest(&manifest_path(output, stage, shard)).filter(|m| m.files_intact(output))
}

/// Whether a previous run completed `shard` of `stage` in `output` from exactly `fingerprint`
/// (its shard count set from `shard`), files intact: a look without the lock, for deciding
/// whether there is work at all before starting models. [`claim_shard`] decides for real.
pub fn is_current(output: &Path, stage: &str, shard: ShardSpec, fingerprint: &Fingerprint) -> bool {
    let mut fingerprint = fingerprint.clone();
    fingerprint.shards = shard.count();
    read_manifest(&manifest_path(output, stage, shard))
        .is_some_and(|m| m.fingerprint.as_ref() == Some(&fingerprint) && m.files_intact(output))
}

/// What [`claim_shard`] found.
#[derive(Debug)]
pub enum Claim {
    /// A previous run completed the shard from the same inputs and settings.
    Complete(Manifest),
    /// The shard is to be written; the claim holds its lock.
    Write(ShardClaim),
}

/// The right to write one shard of one stage: its lock, held until the outputs are committed
/// or dropped.
#[derive(Debug)]
pub struct ShardClaim {
    lock: ShardLock,
    output: PathBuf,
    stage: String,
    shard: ShardSpec,
    fingerprint: Fingerprint,
}

/// Claims `shard` of `stage` in `output` for a run whose inputs and settings are `fingerprint`
/// (its shard count is set from `shard`): waits for another process writing the same shard,
/// returns [`Claim::Complete`] when a previous run already made it from the same fingerprint
/// (unless `force`), and otherwise clears what is in the way (the shard's stale manifest,
/// parts and temporaries; parts of the stage written with another shard count) and returns
/// the claim.
///
/// # Errors
/// [`Error::Io`] for the lock or removals; [`Error::Config`] when a run of `stage` with
/// another shard count is writing into `output` right now.
pub fn claim_shard(
    output: &Path,
    stage: &str,
    shard: ShardSpec,
    mut fingerprint: Fingerprint,
    force: bool,
) -> Result<Claim> {
    fingerprint.shards = shard.count();
    refuse_symlinked_dir(&output.join("_manifests"))?;
    let lock = ShardLock::acquire(output, stage, shard)?;
    let path = manifest_path(output, stage, shard);
    if let Some(old) = read_manifest(&path) {
        let changes = match &old.fingerprint {
            Some(previous) => fingerprint.changes_from(previous),
            None => vec!["made by an older metamorph that recorded no fingerprint".into()],
        };
        if !force && changes.is_empty() && old.files_intact(output) {
            return Ok(Claim::Complete(old));
        }
        if !force && !changes.is_empty() {
            tracing::warn!(
                "shard {shard} of `{stage}` in {} was made from something else ({}); redoing it",
                output.display(),
                changes.join("; ")
            );
        }
        // Every entry is checked before anything is removed; then the manifest goes first:
        // parts without one are never taken as complete.
        let files = old.confined_files(output, &path)?;
        remove_file_if_present(&path)?;
        files.iter().try_for_each(|f| remove_file_if_present(f))?;
    }
    remove_temporaries_of(&path);
    remove_other_shard_counts(output, stage, shard.count())?;
    Ok(Claim::Write(ShardClaim {
        lock,
        output: output.to_path_buf(),
        stage: stage.to_string(),
        shard,
        fingerprint,
    }))
}

impl ShardClaim {
    /// The shard.
    pub fn shard(&self) -> ShardSpec {
        self.shard
    }

    /// Opens a writer per kind (every kind gets a file, empty or not, so downstream globs
    /// always match), after removing the temporaries a killed writer of this shard left.
    ///
    /// # Errors
    /// [`Error::Io`] / [`Error::Parquet`] if a file cannot be created.
    pub fn outputs(self, kinds: &[RecordKind]) -> Result<Arc<ShardOutputs>> {
        let mut writers = BTreeMap::new();
        for &kind in kinds {
            let dir = ShardSpec::kind_dir(&self.output, kind);
            refuse_symlinked_dir(&dir)?;
            let target = dir.join(self.shard.file_name());
            let stale = remove_temporaries_of(&target);
            if stale > 0 {
                tracing::info!(file = %target.display(), stale, "removed temporary files of an interrupted run");
            }
            writers.insert(kind, ParquetShardWriter::try_new(target, kind)?);
        }
        Ok(Arc::new(ShardOutputs {
            claim: self,
            writers: Mutex::new(writers),
            usage: Mutex::new(Vec::new()),
        }))
    }
}

fn remove_file_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Removes the manifests and parts of `stage` in `output` written with a shard count other
/// than `count`, each under its own lock. Several processes of a new run may do this at
/// once; a directory-wide lock makes them take turns, so only a live writer of the other
/// count makes a shard's lock busy.
fn remove_other_shard_counts(output: &Path, stage: &str, count: usize) -> Result<()> {
    let dir = output.join("_manifests");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(());
    };
    let prefix = format!("{stage}.part-");
    let others: Vec<ShardSpec> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_manifest = name.starts_with(&prefix) && name.ends_with(".json");
            is_manifest
                .then(|| ShardSpec::of_file_name(&name))
                .flatten()
        })
        .filter(|s| s.count() != count)
        .collect();
    if others.is_empty() {
        return Ok(());
    }
    let _turn = ShardLock::acquire(output, &format!("{stage}.shard-count"), ShardSpec::WHOLE)?;
    for other in others {
        let lock_path = ShardLock::path(output, stage, other);
        let Some(_lock) = ShardLock::try_acquire_at(&lock_path)? else {
            return Err(Error::Config(format!(
                "{}: shard {other} of a {}-shard run of `{stage}` is being written by {}; a \
                 {count}-shard run cannot share its output: wait for it, or write to another \
                 output",
                output.display(),
                other.count(),
                holder(&lock_path)
            )));
        };
        let path = manifest_path(output, stage, other);
        if let Some(manifest) = read_manifest(&path) {
            let files = manifest.confined_files(output, &path)?;
            remove_file_if_present(&path)?;
            files.iter().try_for_each(|f| remove_file_if_present(f))?;
            // Its lock too, held now: locks of a shard count no run uses would pile up.
            remove_file_if_present(&lock_path)?;
            tracing::warn!(
                "removed shard {other} of an earlier {}-shard run of `{stage}` from {} (this run \
                 has {count} shards)",
                other.count(),
                output.display()
            );
        }
    }
    Ok(())
}

/// Open Parquet writers for the kinds one stage produces in one shard.
pub struct ShardOutputs {
    claim: ShardClaim,
    writers: Mutex<BTreeMap<RecordKind, ParquetShardWriter>>,
    usage: Mutex<Vec<crate::usage::ModelUsage>>,
}

impl ShardOutputs {
    /// A runner tap that writes every produced batch to its kind's file.
    pub fn tap(self: &Arc<Self>) -> Tap {
        let outputs = self.clone();
        Box::new(move |kind, batch| outputs.write(kind, batch))
    }

    /// Writes one batch.
    ///
    /// # Errors
    /// [`Error::Schema`] for a kind this shard has no writer for; Parquet errors.
    pub fn write(&self, kind: RecordKind, batch: &arrow::array::RecordBatch) -> Result<()> {
        let mut writers = self.writers.lock().unwrap_or_else(|e| e.into_inner());
        let writer = writers.get_mut(&kind).ok_or_else(|| Error::Schema {
            context: format!("stage `{}`", self.claim.stage),
            message: format!("produced {kind} records, which it did not declare"),
        })?;
        writer.write(batch)
    }

    /// Records what the models and generators did for this shard, for its manifest.
    pub fn record_usage(&self, usage: impl IntoIterator<Item = crate::usage::ModelUsage>) {
        self.usage
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(usage);
    }

    /// Commits every file and the manifest (see the module docs for the order); returns the
    /// manifest. The shard's lock is released afterwards.
    ///
    /// # Errors
    /// IO or Parquet errors naming the file; the shard is then not marked complete and none of
    /// its files is visible.
    pub fn commit(self: Arc<Self>) -> Result<Manifest> {
        let this = Arc::try_unwrap(self).map_err(|_| Error::Schema {
            context: "shard outputs".into(),
            message: "still in use by a running stage".into(),
        })?;
        let claim = this.claim;
        let writers = this.writers.into_inner().unwrap_or_else(|e| e.into_inner());
        // 1. Every part finished and on disk under its temporary name.
        let mut finished = Vec::new();
        let mut files = Vec::new();
        for (kind, writer) in writers {
            let rows = writer.rows();
            let file = writer.finish()?;
            let target = file.target();
            let bytes = std::fs::metadata(file.temporary_path())
                .map_err(|e| Error::io(target, e))?
                .len();
            files.push(ManifestFile {
                kind: kind.to_string(),
                path: target
                    .strip_prefix(&claim.output)
                    .unwrap_or(target)
                    .to_string_lossy()
                    .into_owned(),
                rows,
                bytes: Some(bytes),
            });
            finished.push(file);
        }
        // 2. The manifest, also on disk before anything is renamed.
        let manifest = Manifest {
            stage: claim.stage.clone(),
            shard: claim.shard.to_string(),
            fingerprint: Some(claim.fingerprint.clone()),
            files,
            usage: crate::usage::sum_usage(
                this.usage
                    .into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .iter(),
            ),
        };
        let json =
            serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Config(e.to_string()))?;
        let manifest_file = AtomicFile::written(
            manifest_path(&claim.output, &claim.stage, claim.shard),
            &json,
        )?;
        // 3. Parts into place, then the manifest; a failure takes back what was renamed.
        let mut renamed: Vec<PathBuf> = Vec::new();
        let result = finished
            .into_iter()
            .try_for_each(|file| file.commit().map(|path| renamed.push(path)))
            .and_then(|()| manifest_file.commit().map(drop));
        if let Err(e) = result {
            for path in &renamed {
                let _ = std::fs::remove_file(path);
            }
            return Err(e);
        }
        drop(claim.lock);
        Ok(manifest)
    }
}
