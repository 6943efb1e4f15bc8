//! `metamorph-read`: dataset file → `example` Parquet shards.

use std::path::Path;
use std::process::Command;

use metamorph_data::{from_batch, read_shard, Example, ShardSpec};

fn read_binary(input: &Path, output: &Path, shard: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_metamorph-read"))
        .args(["--quiet", "--format", "boolq", "--input"])
        .arg(input)
        .arg("--output")
        .arg(output)
        .args(["--shard", shard])
        .output()
        .unwrap()
}

#[test]
fn shards_of_a_dataset_cover_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/boolq.jsonl");
    let mut ids = Vec::new();
    for shard in ["1/3", "2/3", "3/3"] {
        let out = read_binary(&sample, dir.path(), shard);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let index = &shard[..1];
        let file = dir
            .path()
            .join(format!("example/part-0000{index}-of-00003.parquet"));
        for batch in read_shard(&file, ShardSpec::WHOLE, 100).unwrap() {
            ids.extend(
                from_batch::<Example>(&batch.unwrap(), "test")
                    .unwrap()
                    .into_iter()
                    .map(|e| e.id),
            );
        }
    }
    ids.sort();
    ids.dedup();
    let lines = std::fs::read_to_string(&sample).unwrap();
    assert_eq!(
        ids.len(),
        lines.lines().filter(|l| !l.trim().is_empty()).count()
    );
    assert!(dir
        .path()
        .join("_manifests/read.part-00001-of-00003.json")
        .is_file());
}

#[test]
fn a_malformed_file_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.jsonl");
    std::fs::write(&input, "{\"question\": \"q\"}\n").unwrap();
    let out = read_binary(&input, &dir.path().join("out"), "1/1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("bad.jsonl:line 1: field `passage`: missing"),
        "{stderr}"
    );
    assert!(!dir
        .path()
        .join("out/example/part-00001-of-00001.parquet")
        .exists());
}
