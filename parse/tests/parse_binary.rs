//! `metamorph-parse`: `example` Parquet shards → `parsed` shards.

use crate::common;

use std::path::Path;
use std::process::Command;

use metamorph_data::{
    from_batch, read_shard, DatasetFormat, DatasetReader, ParquetShardWriter, ParsedText,
    ReadOptions, RecordKind, ShardSpec,
};

/// Writes the bundled SQuAD sample as an `example` Parquet file.
fn squad_examples(dir: &Path) -> std::path::PathBuf {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/samples/squad.json");
    let path = dir.join("examples.parquet");
    let mut writer = ParquetShardWriter::try_new(&path, RecordKind::Example).unwrap();
    for batch in DatasetReader::open(sample, DatasetFormat::Squad, ReadOptions::default())
        .unwrap()
        .batches()
    {
        writer.write(&batch.unwrap()).unwrap();
    }
    writer.commit().unwrap()
}

fn parse(input: &Path, output: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_metamorph-parse"))
        .arg("--quiet")
        .arg("--input")
        .arg(input)
        .arg("--output")
        .arg(output)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn writes_parsed_shards_for_every_text_field() {
    common::en_core_web_sm();
    let dir = tempfile::tempdir().unwrap();
    let input = squad_examples(dir.path());
    let out = parse(&input, &dir.path().join("out"), &["--shard", "1/1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = dir.path().join("out/parsed/part-00001-of-00001.parquet");
    let rows: Vec<ParsedText> = read_shard(&file, ShardSpec::WHOLE, 100)
        .unwrap()
        .flat_map(|b| from_batch::<ParsedText>(&b.unwrap(), "test").unwrap())
        .collect();
    assert!(
        rows.iter().any(|r| r.field == "context") && rows.iter().any(|r| r.field == "question")
    );
    for row in &rows {
        assert!(
            !row.tokens.is_empty() && !row.sentences.is_empty() && !row.phrases.is_empty(),
            "{row:?}"
        );
        for t in &row.tokens {
            // Character offsets point at the token's text.
            let text: String = row
                .text
                .chars()
                .skip(t.start as usize)
                .take((t.end - t.start) as usize)
                .collect();
            assert_eq!(text, t.text);
            assert!(!t.tag.is_empty() && !t.pos.is_empty() && !t.dep.is_empty());
        }
    }
    assert!(
        rows.iter()
            .flat_map(|r| &r.tokens)
            .any(|t| !t.ent_type.is_empty()),
        "no entities found"
    );
    // A re-run finds the shard complete and leaves it alone.
    let again = parse(&input, &dir.path().join("out"), &["--shard", "1/1"]);
    assert!(again.status.success());
}

#[test]
fn a_missing_pipeline_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = squad_examples(dir.path());
    let out = parse(
        &input,
        &dir.path().join("out"),
        &["--model", "/nonexistent/en_core_web_sm"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("/nonexistent/en_core_web_sm") && stderr.contains("no such directory"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("out/parsed").exists()
            || std::fs::read_dir(dir.path().join("out/parsed"))
                .unwrap()
                .next()
                .is_none()
    );
}

#[test]
fn a_corrupt_pipeline_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = dir.path().join("pipeline");
    let source = common::en_core_web_sm();
    copy_dir(&source, &pipeline);
    std::fs::write(pipeline.join("parser/moves"), b"\xc1 not msgpack").unwrap();
    let input = squad_examples(dir.path());
    let out = parse(
        &input,
        &dir.path().join("out"),
        &["--model", pipeline.to_str().unwrap()],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("parser/moves"), "{stderr}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn loads_a_hub_repo_from_the_cache_in_offline_mode() {
    // The hub cache layout hf-hub reads: refs/main names a snapshot holding the repo's files.
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("hub/models--spacy--en_core_web_sm");
    let commit = "0123456789abcdef0123456789abcdef01234567";
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs/main"), commit).unwrap();
    copy_dir(
        &common::en_core_web_sm(),
        &repo.join("snapshots").join(commit),
    );
    let config = dir.path().join("metamorph.toml");
    std::fs::write(
        &config,
        format!(
            "[parse]\nmodel = \"spacy/en_core_web_sm\"\noffline = true\ncache_dir = {:?}\n",
            dir.path().join("hub")
        ),
    )
    .unwrap();
    let input = squad_examples(dir.path());
    let out = parse(
        &input,
        &dir.path().join("out"),
        &["--config", config.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir
        .path()
        .join("out/parsed/part-00001-of-00001.parquet")
        .is_file());
    // A repo that is not in the cache is an error naming it, not a download attempt.
    let out = parse(
        &input,
        &dir.path().join("out2"),
        &[
            "--config",
            config.to_str().unwrap(),
            "--model",
            "spacy/en_core_web_lg",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("spacy/en_core_web_lg") && stderr.contains("offline"),
        "{stderr}"
    );
}
