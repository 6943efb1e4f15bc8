//! Finding the project's shared public samples (`../shared/data`, beside the checkout) from
//! tests and benchmarks.
//!
//! A user's clone has no `../shared`, so every caller must cope with [`sample`] returning
//! `None`: such a test skips its shared-data part, and [`sample`] says so on the terminal where
//! `cargo test` shows it (written to stderr directly, past the test harness's output capture,
//! which would otherwise hide it for a passing test). `METAMORPH_SHARED_DATA` points elsewhere.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder holding the shared samples: `$METAMORPH_SHARED_DATA`, else `../shared/data`
/// relative to the workspace root.
pub fn root() -> PathBuf {
    std::env::var_os("METAMORPH_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"))
}

/// The shared sample file `relative` (e.g. `"boolq/superglue_boolq_val_first1000.jsonl"`) when
/// it exists; otherwise prints `SKIPPED …` (naming the test and the path) on stderr, visible in
/// `cargo test`'s output, and returns `None`.
pub fn sample(relative: &str) -> Option<PathBuf> {
    let path = root().join(relative);
    existing(&path).or_else(|| {
        skipped(format_args!(
            "{} is not present (../shared/data exists only beside the project checkout; set \
             METAMORPH_SHARED_DATA to use a copy elsewhere)",
            path.display()
        ));
        None
    })
}

/// `path` when it is a file.
fn existing(path: &Path) -> Option<PathBuf> {
    path.is_file().then(|| path.to_path_buf())
}

/// Tells whoever runs `cargo test` that the current test skipped part of its work and why:
/// `SKIPPED <test name>: <reason>` on stderr. Written to the handle directly, because
/// `eprintln!` output of a passing test is captured and never shown.
pub fn skipped(reason: impl std::fmt::Display) {
    let thread = std::thread::current();
    let test = thread
        .name()
        .filter(|name| *name != "main")
        .unwrap_or("a test");
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {reason}");
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_missing_sample_is_none() {
        assert_eq!(
            super::existing(&super::root().join("no/such/sample.jsonl")),
            None
        );
        let this_file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/shared_data.rs");
        assert_eq!(super::existing(&this_file), Some(this_file.clone()));
    }
}
