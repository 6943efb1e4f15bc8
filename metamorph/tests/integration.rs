//! The crate's integration tests, one module per file in `tests/`, linked into one test binary
//! (see `metamorph_data::test_layout`). Run one file's tests with
//! `cargo test -p metamorph --test integration <file>::`.

mod book_examples;
mod hostile_inputs;
mod pipeline;
mod response_cache;
mod slurm;

/// Each `tests/*.rs` file must be a module above, or its tests would silently never run.
#[test]
fn every_test_file_is_declared() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let missing = metamorph_data::test_layout::undeclared_test_files(&tests);
    assert!(
        missing.is_empty(),
        "tests/*.rs files not declared in tests/integration.rs: {missing:?}"
    );
}
