//! A stage's output for one shard: one Parquet file per record kind it produces, written
//! atomically, plus a manifest written last that marks the shard complete (what resume checks).
//!
//! Layout under an output directory:
//! ```text
//! <output>/<kind>/part-00001-of-00004.parquet      e.g. case/, prediction/, verdict/
//! <output>/_manifests/<stage>.part-00001-of-00004.json
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::parquet_io::{remove_stale_temporaries, AtomicFile, ParquetShardWriter};
use crate::record::RecordKind;
use crate::runner::Tap;
use crate::shard::ShardSpec;
use crate::{Error, Result};

/// The record of a completed shard.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// The stage that wrote it.
    pub stage: String,
    /// The shard, as `i/n`.
    pub shard: String,
    /// Files written, with their record kind and row count.
    pub files: Vec<ManifestFile>,
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
}

fn manifest_path(output: &Path, stage: &str, shard: ShardSpec) -> PathBuf {
    output.join("_manifests").join(shard.manifest_name(stage))
}

/// The manifest of a completed shard, if the shard is complete (manifest present and every file
/// it lists still there).
pub fn completed_shard(output: &Path, stage: &str, shard: ShardSpec) -> Option<Manifest> {
    let text = std::fs::read_to_string(manifest_path(output, stage, shard)).ok()?;
    let manifest: Manifest = serde_json::from_str(&text).ok()?;
    manifest
        .files
        .iter()
        .all(|f| output.join(&f.path).is_file())
        .then_some(manifest)
}

/// Open Parquet writers for the kinds one stage produces in one shard.
pub struct ShardOutputs {
    output: PathBuf,
    stage: String,
    shard: ShardSpec,
    writers: Mutex<BTreeMap<RecordKind, ParquetShardWriter>>,
}

impl ShardOutputs {
    /// Opens a writer per kind (every kind gets a file, empty or not, so downstream globs always
    /// match) and clears temporaries a killed run left behind.
    ///
    /// # Errors
    /// [`Error::Io`] / [`Error::Parquet`] if a file cannot be created.
    pub fn create(
        output: &Path,
        stage: &str,
        shard: ShardSpec,
        kinds: &[RecordKind],
    ) -> Result<Arc<Self>> {
        let mut writers = BTreeMap::new();
        for &kind in kinds {
            let dir = ShardSpec::kind_dir(output, kind);
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            let stale = remove_stale_temporaries(&dir);
            if stale > 0 {
                tracing::info!(dir = %dir.display(), stale, "removed temporary files of an interrupted run");
            }
            writers.insert(
                kind,
                ParquetShardWriter::try_new(dir.join(shard.file_name()), kind)?,
            );
        }
        Ok(Arc::new(ShardOutputs {
            output: output.to_path_buf(),
            stage: stage.to_string(),
            shard,
            writers: Mutex::new(writers),
        }))
    }

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
            context: format!("stage `{}`", self.stage),
            message: format!("produced {kind} records, which it did not declare"),
        })?;
        writer.write(batch)
    }

    /// Commits every file, then the manifest; returns the manifest.
    ///
    /// # Errors
    /// IO or Parquet errors; the shard is then not marked complete.
    pub fn commit(self: Arc<Self>) -> Result<Manifest> {
        let this = Arc::try_unwrap(self).map_err(|_| Error::Schema {
            context: "shard outputs".into(),
            message: "still in use by a running stage".into(),
        })?;
        let writers = this.writers.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut files = Vec::new();
        for (kind, writer) in writers {
            let rows = writer.rows();
            let path = writer.commit()?;
            let relative = path
                .strip_prefix(&this.output)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            files.push(ManifestFile {
                kind: kind.to_string(),
                path: relative,
                rows,
            });
        }
        let manifest = Manifest {
            stage: this.stage.clone(),
            shard: this.shard.to_string(),
            files,
        };
        let json =
            serde_json::to_vec_pretty(&manifest).map_err(|e| Error::Config(e.to_string()))?;
        AtomicFile::write_all(manifest_path(&this.output, &this.stage, this.shard), &json)?;
        Ok(manifest)
    }
}
