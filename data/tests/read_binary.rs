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

/// Every `part-*` file under `dir`, by path relative to it, and every temporary file.
fn parts(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["example", "_manifests"] {
        for entry in std::fs::read_dir(dir.join(sub)).into_iter().flatten() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if !name.ends_with(".lock") {
                out.push(format!("{sub}/{name}"));
            }
        }
    }
    out.sort();
    out
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_changed_input_redoes_the_shard_and_an_unchanged_one_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/boolq.jsonl");
    let input = dir.path().join("boolq.jsonl");
    std::fs::copy(&sample, &input).unwrap();
    let output = dir.path().join("out");
    let rows = || -> usize {
        let file = output.join("example/part-00001-of-00001.parquet");
        read_shard(&file, ShardSpec::WHOLE, 100)
            .unwrap()
            .map(|b| b.unwrap().num_rows())
            .sum()
    };
    assert!(read_binary(&input, &output, "1/1").status.success());
    let all = rows();
    let again = read_binary(&input, &output, "1/1");
    assert!(stderr_of(&again).is_empty(), "{}", stderr_of(&again));

    // The same file name with other contents: the old examples must not be reported as new.
    let text = std::fs::read_to_string(&sample).unwrap();
    let first_two: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(&input, first_two).unwrap();
    let redo = Command::new(env!("CARGO_BIN_EXE_metamorph-read"))
        .args(["--format", "boolq", "--input"])
        .arg(&input)
        .arg("--output")
        .arg(&output)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(redo.status.success(), "{}", stderr_of(&redo));
    let log = stderr_of(&redo);
    assert!(
        log.contains("redoing it") && log.contains("boolq.jsonl changed"),
        "{log}"
    );
    assert_eq!((all > 2, rows()), (true, 2));
}

#[test]
fn a_new_shard_count_replaces_the_parts_of_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/boolq.jsonl");
    for shard in ["1/2", "2/2"] {
        assert!(read_binary(&sample, dir.path(), shard).status.success());
    }
    assert_eq!(
        parts(dir.path()),
        [
            "_manifests/read.part-00001-of-00002.json",
            "_manifests/read.part-00002-of-00002.json",
            "example/part-00001-of-00002.parquet",
            "example/part-00002-of-00002.parquet",
        ]
    );
    for shard in ["1/3", "2/3", "3/3"] {
        let out = read_binary(&sample, dir.path(), shard);
        assert!(out.status.success(), "{}", stderr_of(&out));
    }
    assert_eq!(
        parts(dir.path()),
        [
            "_manifests/read.part-00001-of-00003.json",
            "_manifests/read.part-00002-of-00003.json",
            "_manifests/read.part-00003-of-00003.json",
            "example/part-00001-of-00003.parquet",
            "example/part-00002-of-00003.parquet",
            "example/part-00003-of-00003.parquet",
        ]
    );
    // Readers refuse a folder that mixes the two counts (here made by hand).
    let stray = dir.path().join("example/part-00001-of-00002.parquet");
    std::fs::copy(
        dir.path().join("example/part-00001-of-00003.parquet"),
        &stray,
    )
    .unwrap();
    let pattern = dir.path().join("example/*.parquet").display().to_string();
    let err = metamorph_data::expand_inputs(&[pattern])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("3-shard run") && err.contains("2-shard run"),
        "{err}"
    );
}

/// Whether this machine lets a test mount a small tmpfs in a namespace of its own (user and
/// mount namespaces: root, or unprivileged user namespaces enabled).
fn private_tmpfs_available() -> bool {
    Command::new("unshare")
        .args(["-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_full_disk_fails_naming_the_file_and_shard_and_leaves_no_part() {
    if !private_tmpfs_available() {
        metamorph_data::shared_data::skipped(
            "`unshare -rm` cannot mount a private tmpfs here, so a full disk cannot be simulated",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // About 300 KB of Parquet, for a 64 KiB file system.
    let input = dir.path().join("big.jsonl");
    let mut text = String::new();
    for i in 0..400 {
        let passage: String = (0..120).map(|w| format!("w{i}x{w} ")).collect();
        text.push_str(&format!(
            "{{\"idx\": {i}, \"question\": \"is it {i}\", \"passage\": \"{passage}\", \"label\": true}}\n"
        ));
    }
    std::fs::write(&input, text).unwrap();
    let mount = dir.path().join("small");
    std::fs::create_dir(&mount).unwrap();
    // The tmpfs exists only inside the command's own mount namespace.
    let script = "mount -t tmpfs -o size=64k tmpfs \"$1\" && \"$2\" --quiet --format boolq \
                  --input \"$3\" --output \"$1/out\"; code=$?; find \"$1/out\" -type f | sort; \
                  exit $code";
    let out = Command::new("unshare")
        .args(["-rm", "sh", "-c", script, "sh"])
        .arg(&mount)
        .arg(env!("CARGO_BIN_EXE_metamorph-read"))
        .arg(&input)
        .output()
        .unwrap();
    let stderr = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`read` shard 1/1")
            && stderr.contains("example/part-00001-of-00001.parquet")
            && stderr.contains("No space left on device"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let left = String::from_utf8_lossy(&out.stdout);
    let visible: Vec<&str> = left
        .lines()
        .filter(|l| l.ends_with(".parquet") || l.ends_with(".json") || l.contains(".tmp-"))
        .collect();
    assert!(visible.is_empty(), "left behind: {visible:?}");
}
