//! The crate's integration tests, one module per file in `tests/`, linked into one test binary
//! (see `metamorph_data::test_layout`). Run one file's tests with
//! `cargo test -p metamorph-execute --test integration <file>::`.

mod candle_loading;
mod causal_lm;
mod causal_lm_real;
mod classification_parity;
mod common;
mod execute_binary;
mod http;
mod minilm;
mod openai;
mod qa_pipeline_parity;
mod shards_on_one_output;
mod subprocess;
mod task_model_config;
mod token_classification;

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
