//! What the integration tests share: case shards in and out and log text (the binary tests),
//! and reading a fixture's `golden.json` written by the reference scripts in `scripts/` (the
//! parity tests).
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};

use metamorph_data::{
    from_batch, read_shard, to_batch, Case, ParquetShardWriter, RecordKind, ShardSpec,
};
use metamorph_generate::DecodingOptions;
use serde_json::Value;

/// Writes `cases` as the one input shard `<dir>/in/case/…`.
pub fn write_cases(dir: &Path, cases: &[Case]) {
    let path = dir.join("in/case/part-00001-of-00001.parquet");
    let mut w = ParquetShardWriter::try_new(&path, RecordKind::Case).unwrap();
    w.write(&to_batch(cases).unwrap()).unwrap();
    w.commit().unwrap();
}

/// The cases the binary wrote under `<dir>/out/case`, by id.
pub fn read_cases(dir: &Path) -> Vec<Case> {
    let mut out: Vec<Case> = std::fs::read_dir(dir.join("out/case"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .flat_map(|p| {
            read_shard(&p, ShardSpec::WHOLE, 64)
                .unwrap()
                .flat_map(|b| from_batch::<Case>(&b.unwrap(), "test").unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort_by(|a, b| a.case_id.cmp(&b.case_id));
    out
}

/// Log text without terminal colour codes.
pub fn plain_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    let mut rest = text.as_ref();
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        rest = rest.find('m').map_or("", |m| &rest[m + 1..]);
    }
    out.push_str(rest);
    out
}

/// `generate/tests/fixtures/<name>`.
pub fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The fixture's `golden.json`.
pub fn golden(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("golden.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The golden file's `inputs` texts.
pub fn texts(golden: &Value) -> Vec<&str> {
    golden["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect()
}

/// Rows of token ids.
pub fn ids(value: &Value) -> Vec<Vec<u32>> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as u32)
                .collect()
        })
        .collect()
}

/// Every number of a nested JSON array, flattened.
pub fn floats(value: &Value) -> Vec<f32> {
    match value {
        Value::Array(items) => items.iter().flat_map(floats).collect(),
        Value::Number(n) => vec![n.as_f64().unwrap() as f32],
        other => panic!("not a number: {other}"),
    }
}

/// `generate()` keyword arguments → options (defaults as `transformers`').
pub fn options(case: &Value) -> DecodingOptions {
    DecodingOptions::from_generate_kwargs(&case["options"]).unwrap()
}

/// Asserts that `got` and `want` differ by at most `tolerance` anywhere.
pub fn assert_close(name: &str, got: &[f32], want: &[f32], tolerance: f32) {
    assert_eq!(got.len(), want.len(), "{name}: lengths");
    let worst = got
        .iter()
        .zip(want)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(worst <= tolerance, "{name}: max abs difference {worst}");
}
