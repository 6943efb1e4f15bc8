//! Parquet shard IO: atomic writes (temporary name, then rename), glob inputs, and reading the
//! rows of one shard.

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow::array::{Array, AsArray, BooleanArray, RecordBatch};
use arrow::compute::filter_record_batch;
use arrow::datatypes::{DataType, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::record::RecordKind;
use crate::shard::ShardSpec;
use crate::{Error, Result};

/// A file written under a hidden temporary name and renamed into place by [`commit`]; dropped
/// without a commit (error, panic, Ctrl-C), it removes the temporary file, so a reader never
/// sees a half-written output.
///
/// The temporary name is `.<name>.tmp-<pid>`: per process, and tied to the final name, so a
/// process that owns a shard (see [`crate::ShardLock`]) can find and remove exactly the
/// temporaries a killed writer of that shard left ([`remove_temporaries_of`]).
///
/// [`commit`]: AtomicFile::commit
#[derive(Debug)]
pub struct AtomicFile {
    tmp: PathBuf,
    target: PathBuf,
    file: Option<File>,
    /// Still to be renamed (false once committed, or persisted).
    pending: bool,
}

impl AtomicFile {
    /// Creates the temporary file `.<name>.tmp-<pid>` beside `target` (creating parent folders).
    ///
    /// # Errors
    /// [`Error::Io`] if the folder or file cannot be created.
    pub fn create(target: impl Into<PathBuf>) -> Result<Self> {
        let target = target.into();
        let dir = target.parent().unwrap_or(Path::new(".")).to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!("{}{}", temporary_prefix(&name), std::process::id()));
        let file = File::create(&tmp).map_err(|e| Error::io(&target, e))?;
        Ok(AtomicFile {
            tmp,
            target,
            file: Some(file),
            pending: true,
        })
    }

    /// The open temporary file.
    pub fn file(&mut self) -> &mut File {
        self.file
            .as_mut()
            .expect("file is open until finish or commit")
    }

    /// The final path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// The temporary path the data is written to until the rename.
    pub fn temporary_path(&self) -> &Path {
        &self.tmp
    }

    /// Flushes the data to disk and closes the file, still under its temporary name: where a
    /// full disk shows up, before anything is renamed into place.
    ///
    /// # Errors
    /// [`Error::Io`] naming the final path.
    pub fn finish(&mut self) -> Result<()> {
        if let Some(file) = self.file.take() {
            file.sync_all().map_err(|e| Error::io(&self.target, e))?;
        }
        Ok(())
    }

    /// Flushes the data to disk (unless [`AtomicFile::finish`] did) and renames the file to
    /// its final name; returns that path.
    ///
    /// # Errors
    /// [`Error::Io`] if syncing or renaming fails (the temporary file is then removed).
    pub fn commit(mut self) -> Result<PathBuf> {
        self.finish()?;
        std::fs::rename(&self.tmp, &self.target).map_err(|e| Error::io(&self.target, e))?;
        self.pending = false;
        Ok(std::mem::take(&mut self.target))
    }

    /// Writes `bytes` to `target` atomically.
    ///
    /// # Errors
    /// [`Error::Io`] on any IO failure.
    pub fn write_all(target: impl Into<PathBuf>, bytes: &[u8]) -> Result<PathBuf> {
        let f = Self::written(target, bytes)?;
        f.commit()
    }

    /// A finished (synced, not yet renamed) temporary file holding `bytes`.
    ///
    /// # Errors
    /// [`Error::Io`] naming the final path.
    pub fn written(target: impl Into<PathBuf>, bytes: &[u8]) -> Result<Self> {
        use std::io::Write;
        let mut f = AtomicFile::create(target)?;
        let target = f.target.clone();
        f.file()
            .write_all(bytes)
            .map_err(|e| Error::io(&target, e))?;
        f.finish()?;
        Ok(f)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.pending {
            drop(self.file.take());
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The start of every temporary name of the file `name`: `.<name>.tmp-`.
fn temporary_prefix(name: &str) -> String {
    format!(".{name}.tmp-")
}

/// Removes the temporary files of the final file `target` that any process left (see
/// [`AtomicFile`]); returns how many. Only for a caller that knows no live process is writing
/// `target` (it holds the shard's lock).
pub fn remove_temporaries_of(target: &Path) -> usize {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return 0;
    };
    let prefix = temporary_prefix(&name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// Writes batches of one record kind to a Parquet file atomically
/// (`try_new` → `write` → `commit`).
pub struct ParquetShardWriter {
    writer: ArrowWriter<File>,
    file: AtomicFile,
    schema: SchemaRef,
    rows: usize,
}

impl ParquetShardWriter {
    /// Opens a writer for `kind` records that will land at `target` on commit.
    ///
    /// Files are Snappy-compressed with dictionary encoding: readable unmodified by pyarrow,
    /// polars and DuckDB.
    ///
    /// # Errors
    /// [`Error::Io`] / [`Error::Parquet`] if the file cannot be created.
    pub fn try_new(target: impl Into<PathBuf>, kind: RecordKind) -> Result<Self> {
        let mut file = AtomicFile::create(target)?;
        let handle = file
            .file()
            .try_clone()
            .map_err(|e| Error::io(file.target(), e))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .build();
        let schema = kind.schema();
        let writer = ArrowWriter::try_new(handle, schema.clone(), Some(props))?;
        Ok(ParquetShardWriter {
            writer,
            file,
            schema,
            rows: 0,
        })
    }

    /// Appends a batch.
    ///
    /// # Errors
    /// [`Error::Schema`] if the batch's columns differ from the kind's schema; [`Error::Parquet`]
    /// on encoding failure.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.schema_ref().fields() != self.schema.fields() {
            return Err(Error::Schema {
                context: self.file.target().display().to_string(),
                message: "batch columns differ from the record kind's schema".into(),
            });
        }
        self.rows += batch.num_rows();
        let file = &self.file;
        self.writer
            .write(batch)
            .map_err(|e| Error::from(e).context(file.target().display().to_string()))
    }

    /// Rows written so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Writes the Parquet footer and flushes the file to disk under its temporary name;
    /// [`AtomicFile::commit`] then renames it into place.
    ///
    /// # Errors
    /// [`Error::Parquet`] / [`Error::Io`] naming the file (no file is left behind).
    pub fn finish(self) -> Result<AtomicFile> {
        let ParquetShardWriter {
            writer, mut file, ..
        } = self;
        let target = file.target().display().to_string();
        writer.close().map_err(|e| Error::from(e).context(target))?;
        file.finish()?;
        Ok(file)
    }

    /// Finishes the Parquet footer and renames the file into place; returns its path.
    ///
    /// # Errors
    /// [`Error::Parquet`] / [`Error::Io`] on failure (no file is left behind).
    pub fn commit(self) -> Result<PathBuf> {
        self.finish()?.commit()
    }
}

/// The files matching one glob pattern, sorted; an empty list when nothing matches.
///
/// # Errors
/// [`Error::Config`] for an invalid pattern; [`Error::Io`] for an unreadable folder.
pub fn glob_files(pattern: &str) -> Result<Vec<PathBuf>> {
    let paths = glob::glob(pattern)
        .map_err(|e| Error::Config(format!("invalid input pattern `{pattern}`: {e}")))?;
    let mut files = Vec::new();
    for path in paths {
        let path = path.map_err(|e| {
            let p = e.path().to_path_buf();
            Error::io(p, e.into())
        })?;
        if path.is_file() {
            files.push(path);
        }
    }
    Ok(files)
}

/// Expands `--input` glob patterns into a sorted, de-duplicated list of Parquet files.
///
/// # Errors
/// [`Error::Config`] for an invalid pattern or a pattern that matches no file.
pub fn expand_inputs(patterns: &[String]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for pattern in patterns {
        let matched = glob_files(pattern)?;
        if matched.is_empty() {
            return Err(Error::Config(format!(
                "input pattern `{pattern}` matches no file"
            )));
        }
        files.extend(matched);
    }
    files.sort();
    files.dedup();
    check_one_shard_count(&files)?;
    Ok(files)
}

/// Checks that the shard files (`part-<i>-of-<n>.parquet`) in each folder of `files` come from
/// runs of one shard count: parts of a 2-shard and a 4-shard run side by side hold every row
/// twice.
///
/// # Errors
/// [`Error::Config`] naming the folder and the two counts.
pub fn check_one_shard_count(files: &[PathBuf]) -> Result<()> {
    let mut counts: std::collections::BTreeMap<&Path, (usize, &Path)> = Default::default();
    for file in files {
        let Some(shard) = file
            .file_name()
            .and_then(|n| ShardSpec::of_file_name(&n.to_string_lossy()))
        else {
            continue;
        };
        let dir = file.parent().unwrap_or(Path::new("."));
        match counts.get(dir) {
            None => {
                counts.insert(dir, (shard.count(), file));
            }
            Some(&(count, first)) if count != shard.count() => {
                return Err(Error::Config(format!(
                    "{} holds parts of a {count}-shard run ({}) and of a {}-shard run ({}): \
                     rows would be counted twice; re-run into a fresh output, or re-run the \
                     stage that wrote them with the shard count you want (it replaces the \
                     other run's parts)",
                    dir.display(),
                    first.display(),
                    shard.count(),
                    file.display()
                )));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The record kind stored in a Parquet file, read from its footer.
///
/// # Errors
/// [`Error::Io`] / [`Error::Schema`] when the file cannot be read or is not a metamorph file.
pub fn file_kind(path: &Path) -> Result<RecordKind> {
    let builder = open(path)?;
    RecordKind::of_schema(builder.schema()).ok_or_else(|| Error::Schema {
        context: path.display().to_string(),
        message: "not a metamorph record file (no `metamorph.record` schema metadata)".into(),
    })
}

fn open(path: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| Error::Schema {
        context: path.display().to_string(),
        message: format!("not a readable Parquet file: {e}"),
    })
}

/// Reads the rows of `path` that belong to `shard`, `batch_size` rows at a time.
///
/// # Errors
/// The iterator yields [`Error::Schema`] naming the file for unreadable files and batches whose
/// shard key column is missing.
pub fn read_shard(
    path: &Path,
    shard: ShardSpec,
    batch_size: usize,
) -> Result<impl Iterator<Item = Result<RecordBatch>> + Send + 'static> {
    let kind = file_kind(path)?;
    let reader = open(path)?.with_batch_size(batch_size.max(1)).build()?;
    let context = path.display().to_string();
    Ok(reader.filter_map(move |batch| {
        // Batches decoded from Parquet lose the schema metadata; put the kind's schema back
        // (which also checks that the file's columns are the ones this build expects).
        let batch = batch.map_err(|e| e.to_string()).and_then(|b| {
            RecordBatch::try_new(kind.schema(), b.columns().to_vec())
                .map_err(|e| format!("columns differ from the {kind} schema of this build: {e}"))
        });
        let batch = match batch {
            Ok(b) => b,
            Err(message) => {
                return Some(Err(Error::Schema {
                    context: context.clone(),
                    message,
                }))
            }
        };
        match keep_shard_rows(&batch, kind, shard, &context) {
            Ok(b) if b.num_rows() == 0 => None,
            other => Some(other),
        }
    }))
}

/// Keeps the rows of `batch` whose shard key belongs to `shard`.
///
/// # Errors
/// [`Error::Schema`] if the key column is missing or of an unexpected type.
pub fn keep_shard_rows(
    batch: &RecordBatch,
    kind: RecordKind,
    shard: ShardSpec,
    context: &str,
) -> Result<RecordBatch> {
    if shard.count() == 1 {
        return Ok(batch.clone());
    }
    let name = kind.shard_key_column();
    let missing = || Error::Schema {
        context: context.to_string(),
        message: format!("{kind} records need a `{name}` column of strings"),
    };
    let column = batch.column_by_name(name).ok_or_else(missing)?;
    let mask: BooleanArray = match column.data_type() {
        DataType::Utf8 => {
            let keys = column.as_string::<i32>();
            (0..keys.len())
                .map(|i| Some(keys.is_valid(i) && shard.contains(keys.value(i))))
                .collect()
        }
        DataType::List(_) => {
            let lists = column.as_list::<i32>();
            (0..lists.len())
                .map(|i| {
                    let first = lists.value(i);
                    let first = first.as_string_opt::<i32>()?;
                    Some(!first.is_empty() && shard.contains(first.value(0)))
                })
                .map(|keep| Some(keep.unwrap_or(false)))
                .collect()
        }
        _ => return Err(missing()),
    };
    Ok(filter_record_batch(batch, &mask)?)
}
