//! Finding the project's shared public samples (`../shared/data`, beside the checkout) from
//! tests and benchmarks.
//!
//! A user's clone has no `../shared`, so every caller must cope with [`sample`] returning
//! `None`: tests print why they skipped and pass. `METAMORPH_SHARED_DATA` points elsewhere.

use std::path::{Path, PathBuf};

/// The folder holding the shared samples: `$METAMORPH_SHARED_DATA`, else `../shared/data`
/// relative to the workspace root.
pub fn root() -> PathBuf {
    std::env::var_os("METAMORPH_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"))
}

/// The shared sample file `relative` (e.g. `"boolq/superglue_boolq_val_first1000.jsonl"`) when
/// it exists; otherwise prints `skipped: …` (naming the path) on stderr and returns `None`.
pub fn sample(relative: &str) -> Option<PathBuf> {
    let path = root().join(relative);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!(
            "skipped: {} is not present (../shared/data exists only beside the project checkout)",
            path.display()
        );
        None
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_missing_sample_is_none() {
        assert_eq!(super::sample("no/such/sample.jsonl"), None);
    }
}
