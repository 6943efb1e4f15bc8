//! The workspace's integration-test layout: each crate links its `tests/*.rs` files into one
//! binary, `tests/integration.rs`, as modules (`autotests = false` in its Cargo.toml).
//!
//! One binary instead of one per file: each links all of candle, arrow and tokenizers (~60 MB),
//! and some 50 such links cost CI minutes and gigabytes of disk (lld died with SIGBUS when a CI
//! disk filled). The price is that a new file in `tests/` runs only once it is declared there;
//! every crate's `every_test_file_is_declared` test calls [`undeclared_test_files`] so that a
//! forgotten one fails instead of silently never running.

use std::path::Path;

/// The stems of the `*.rs` files in `tests_dir` that `tests_dir/integration.rs` does not
/// declare as `mod <stem>;`, sorted.
///
/// # Panics
/// When `tests_dir` or its `integration.rs` cannot be read: this is a test helper.
pub fn undeclared_test_files(tests_dir: &Path) -> Vec<String> {
    let root = tests_dir.join("integration.rs");
    let declared =
        std::fs::read_to_string(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let mut missing = Vec::new();
    let entries =
        std::fs::read_dir(tests_dir).unwrap_or_else(|e| panic!("{}: {e}", tests_dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("{}: {e}", tests_dir.display()))
            .path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs")
            && stem != "integration"
            && !declared.contains(&format!("\nmod {stem};\n"))
        {
            missing.push(stem.to_string());
        }
    }
    missing.sort();
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_not_declared_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("integration.rs"), "//! x\n\nmod alpha;\n").unwrap();
        std::fs::write(dir.path().join("alpha.rs"), "").unwrap();
        std::fs::write(dir.path().join("beta.rs"), "").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "").unwrap();
        assert_eq!(undeclared_test_files(dir.path()), ["beta"]);
    }
}
