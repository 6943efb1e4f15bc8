//! An exclusive claim on one shard of one stage in an output directory, so any number of
//! processes can write disjoint shards into one output while two runs of the *same* shard take
//! turns.
//!
//! The claim is an advisory `flock(2)` on `<output>/_manifests/<stage>.part-<i>-of-<n>.lock`
//! (std's [`File::lock`]). The kernel releases it when its process ends, however it ends, so a
//! process that holds the lock knows that no live process is writing that shard: the shard's
//! temporary files are then provably stale and safe to remove. A second process asking for a
//! held shard waits (logging who holds it) and re-checks the manifest once it gets the lock,
//! so a re-submitted cluster task finds the shard done instead of redoing it. Lock files stay in
//! place (removing them would race with a waiter that already opened one).
//!
//! `flock` works on local file systems and on NFSv4 (Linux maps it to byte-range locks); on
//! Lustre it needs the `flock` mount option.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::runner::CancelToken;
use crate::shard::ShardSpec;
use crate::{Error, Result};

/// How often a waiting process retries a held lock (and checks for Ctrl-C).
const POLL: Duration = Duration::from_millis(100);
/// How often a waiting process says again that it is waiting.
const REMIND: Duration = Duration::from_secs(60);

/// A held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct ShardLock {
    _file: File,
    path: PathBuf,
}

impl ShardLock {
    /// The lock file of `shard` of `stage` under `output`.
    pub fn path(output: &Path, stage: &str, shard: ShardSpec) -> PathBuf {
        output
            .join("_manifests")
            .join(format!("{}.lock", shard.manifest_stem(stage)))
    }

    /// Takes the lock of `shard` of `stage` in `output`, waiting while another process holds
    /// it; gives up with [`Error::Interrupted`] on Ctrl-C.
    ///
    /// # Errors
    /// [`Error::Io`] naming the lock file if it cannot be created or locked.
    pub fn acquire(output: &Path, stage: &str, shard: ShardSpec) -> Result<ShardLock> {
        let path = Self::path(output, stage, shard);
        let cancel = CancelToken::install_ctrl_c();
        let mut waiting_since: Option<Instant> = None;
        let mut reminded = Instant::now();
        loop {
            if let Some(lock) = Self::try_acquire_at(&path)? {
                if let Some(since) = waiting_since {
                    tracing::info!(lock = %path.display(), waited_secs = since.elapsed().as_secs(), "got the shard");
                }
                return Ok(lock);
            }
            if cancel.is_cancelled() {
                return Err(Error::Interrupted);
            }
            if waiting_since.is_none() || reminded.elapsed() >= REMIND {
                tracing::info!(
                    "shard {shard} of `{stage}` in {} is being written by {}; waiting for it \
                     to finish",
                    output.display(),
                    holder(&path)
                );
                waiting_since.get_or_insert_with(Instant::now);
                reminded = Instant::now();
            }
            std::thread::sleep(POLL);
        }
    }

    /// Takes the lock at `path` if nobody holds it; `None` when another process does.
    ///
    /// # Errors
    /// [`Error::Io`] naming the lock file.
    pub fn try_acquire_at(path: &Path) -> Result<Option<ShardLock>> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Ok(None),
            Err(TryLockError::Error(e)) => return Err(Error::io(path, e)),
        }
        // Who holds it, for the messages of processes that wait on it.
        let who = format!("pid {} on {}\n", std::process::id(), host_name());
        let written = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(who.as_bytes()));
        written.map_err(|e| Error::io(path, e))?;
        Ok(Some(ShardLock {
            _file: file,
            path: path.to_path_buf(),
        }))
    }

    /// The lock file.
    pub fn file_path(&self) -> &Path {
        &self.path
    }
}

/// Who holds the lock at `path`, as its holder wrote it (`pid 4242 on node17`).
pub fn holder(path: &Path) -> String {
    let mut text = String::new();
    let read = File::open(path).and_then(|mut f| f.read_to_string(&mut text));
    match read {
        Ok(_) if !text.trim().is_empty() => format!("another process ({})", text.trim()),
        _ => "another process".to_string(),
    }
}

/// This machine's host name (for lock messages on shared storage).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "this host".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_refused_to_a_second_claim_and_freed_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let shard = ShardSpec::new(0, 2).unwrap();
        let lock = ShardLock::acquire(dir.path(), "parse", shard).unwrap();
        let path = ShardLock::path(dir.path(), "parse", shard);
        assert_eq!(lock.file_path(), path);
        assert!(path.ends_with("_manifests/parse.part-00001-of-00002.lock"));
        // flock is per open file description: a second open in this process conflicts too.
        assert!(ShardLock::try_acquire_at(&path).unwrap().is_none());
        assert!(holder(&path).contains(&format!("pid {}", std::process::id())));
        // Another shard and another stage are free.
        let other = ShardLock::path(dir.path(), "parse", ShardSpec::new(1, 2).unwrap());
        assert!(ShardLock::try_acquire_at(&other).unwrap().is_some());
        drop(lock);
        assert!(ShardLock::try_acquire_at(&path).unwrap().is_some());
    }

    #[test]
    fn a_waiter_gets_the_lock_when_the_holder_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let shard = ShardSpec::WHOLE;
        let lock = ShardLock::acquire(dir.path(), "judge", shard).unwrap();
        let output = dir.path().to_path_buf();
        let waiter = std::thread::spawn(move || {
            let started = Instant::now();
            let _lock = ShardLock::acquire(&output, "judge", shard).unwrap();
            started.elapsed()
        });
        std::thread::sleep(Duration::from_millis(400));
        drop(lock);
        let waited = waiter.join().unwrap();
        assert!(waited >= Duration::from_millis(300), "{waited:?}");
    }
}
