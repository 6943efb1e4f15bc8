//! What the parity tests share: reading a fixture's `golden.json` written by the reference
//! scripts in `scripts/`, and comparing floats.
#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};

use serde_json::Value;

/// `models/tests/fixtures/<name>`.
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

/// Every number of a nested JSON array, flattened.
pub fn floats(value: &Value) -> Vec<f32> {
    match value {
        Value::Array(items) => items.iter().flat_map(floats).collect(),
        Value::Number(n) => vec![n.as_f64().unwrap() as f32],
        other => panic!("not a number: {other}"),
    }
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
