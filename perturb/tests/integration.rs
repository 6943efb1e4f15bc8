//! The crate's integration tests, one module per file in `tests/`, linked into one test binary.
//!
//! One binary instead of one per file: each links all of candle, arrow and tokenizers (~60 MB),
//! and 11 such links cost CI minutes and gigabytes of disk (lld dies with SIGBUS when the
//! disk fills). `autotests = false` in Cargo.toml, so a new file in `tests/` runs only once it is
//! declared here; `every_test_file_is_declared` fails until it is. Run one file's tests with
//! `cargo test -p metamorph-perturb --test integration <file>::`.

mod bpb_break_sample;
mod crest_samples;
mod entity_pool;
mod first_names;
mod geography;
mod inflect;
mod mt4mrc_boolq_sample;
mod nlplego_samples;
mod sit4re_samples;
mod stage;
mod wordnet;

/// Each `tests/*.rs` file must be a module above, or its tests would silently never run.
#[test]
fn every_test_file_is_declared() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = include_str!("integration.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests directory") {
        let path = entry.expect("tests directory entry").path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs")
            && stem != "integration"
            && !this.contains(&format!("\nmod {stem};\n"))
        {
            missing.push(stem.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "tests/*.rs files not declared in tests/integration.rs: {missing:?}"
    );
}
