//! Stage binaries as cluster tasks: several `metamorph-execute` processes at once into one
//! output, and a forced exit that must not leave the model running. The model is the JSONL
//! test program (`fixtures/test_model.py`), slowed down so the processes really overlap.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use metamorph_data::{
    from_batch, read_shard, to_batch, Case, Example, Expectation, ParquetShardWriter, Prediction,
    RecordKind, ShardSpec, Task,
};

fn test_model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/test_model.py")
}

/// `n` sentiment cases, one source and one follow-up each, in `dir/in/case/`.
fn write_cases(dir: &Path, n: usize) {
    let cases: Vec<Case> = (0..n)
        .map(|i| {
            let mut source = Example::new(format!("se{i}"), Task::Sentiment);
            source.text = Some(format!("The film number {i} was wonderful."));
            let mut followup = source.clone();
            followup.id = format!("se{i}:MR:0");
            followup.text = Some(format!("The movie number {i} was wonderful."));
            Case::new("f", "MR", vec![source], followup, &Expectation::Equal)
        })
        .collect();
    let path = dir.join("in/case/part-00001-of-00001.parquet");
    let mut w = ParquetShardWriter::try_new(&path, RecordKind::Case).unwrap();
    w.write(&to_batch(&cases).unwrap()).unwrap();
    w.commit().unwrap();
}

/// A config whose one model runs `command`.
fn write_config(dir: &Path, command: &[String]) -> PathBuf {
    let path = dir.join("metamorph.toml");
    std::fs::write(
        &path,
        format!(
            "[execute]\ncache = false\n\n[[execute.models]]\nname = \"m\"\ncommand = {command:?}\nbatch_size = 2\n\
             timeout_secs = 60\n"
        ),
    )
    .unwrap();
    path
}

fn slow_model(seconds: &str) -> Vec<String> {
    vec![
        "python3".into(),
        test_model().display().to_string(),
        "slow".into(),
        seconds.into(),
    ]
}

fn spawn_execute(dir: &Path, config: &Path, shard: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_metamorph-execute"))
        .arg("--input")
        .arg(dir.join("in/case/*.parquet"))
        .arg("--output")
        .arg(dir.join("out"))
        .arg("--config")
        .arg(config)
        .args(["--shard", shard])
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(child: Child) -> String {
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

fn predictions(dir: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    for entry in std::fs::read_dir(dir.join("out/prediction")).unwrap() {
        let path = entry.unwrap().path();
        assert!(
            !path.to_string_lossy().contains(".tmp-"),
            "temporary left: {}",
            path.display()
        );
        for batch in read_shard(&path, ShardSpec::WHOLE, 64).unwrap() {
            let rows: Vec<Prediction> = from_batch(&batch.unwrap(), "test").unwrap();
            ids.extend(rows.into_iter().map(|p| p.example_id));
        }
    }
    ids.sort();
    ids
}

#[test]
fn disjoint_shards_written_at_once_into_one_output_all_land() {
    let dir = tempfile::tempdir().unwrap();
    write_cases(dir.path(), 12);
    let config = write_config(dir.path(), &slow_model("0.1"));
    let first = spawn_execute(dir.path(), &config, "1/2");
    let second = spawn_execute(dir.path(), &config, "2/2");
    finish(first);
    finish(second);
    let ids = predictions(dir.path());
    assert_eq!(ids.len(), 24, "{ids:?}");
    for i in 0..12 {
        assert!(ids.contains(&format!("se{i}")) && ids.contains(&format!("se{i}:MR:0")));
    }
    for shard in ["1", "2"] {
        let manifest = dir.path().join(format!(
            "out/_manifests/execute.part-0000{shard}-of-00002.json"
        ));
        assert!(manifest.is_file(), "{} missing", manifest.display());
    }
}

#[test]
fn the_same_shard_twice_at_once_is_written_once() {
    let dir = tempfile::tempdir().unwrap();
    write_cases(dir.path(), 6);
    let config = write_config(dir.path(), &slow_model("0.1"));
    let first = spawn_execute(dir.path(), &config, "1/1");
    std::thread::sleep(Duration::from_millis(200));
    let second = spawn_execute(dir.path(), &config, "1/1");
    let logs = [finish(first), finish(second)];
    let waited = logs.iter().filter(|l| l.contains("waiting for it")).count();
    let skipped = logs
        .iter()
        .filter(|l| l.contains("shard already complete"))
        .count();
    assert_eq!((waited, skipped), (1, 1), "{logs:#?}");
    assert_eq!(predictions(dir.path()).len(), 12);
}

/// Whether process `pid` is gone (or a zombie nobody reaped, which runs no more code).
fn is_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn a_second_interrupt_exits_at_once_and_stops_the_model() {
    let dir = tempfile::tempdir().unwrap();
    write_cases(dir.path(), 4);
    let pid_file = dir.path().join("model.pid");
    // A launcher shell whose model records its pid, reads one request and then hangs without
    // reading on, so closing its stdin (the polite stop) does not end it (stdin through fd 3: a
    // background command of a script would otherwise read /dev/null).
    let script = format!(
        "exec 3<&0; python3 -c 'import sys, time; sys.stdin.readline(); time.sleep(600)' <&3 & \
         echo $! > {}; wait",
        pid_file.display()
    );
    let config = write_config(dir.path(), &["sh".into(), "-c".into(), script]);
    let child = spawn_execute(dir.path(), &config, "1/1");
    let started = Instant::now();
    while !pid_file.is_file() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let model: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    if is_gone(model) {
        let out = child.wait_with_output().unwrap();
        panic!(
            "the model should be running; metamorph-execute: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for _ in 0..2 {
        let status = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        std::thread::sleep(Duration::from_millis(300));
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("second interrupt"), "{stderr}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !is_gone(model) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(is_gone(model), "model process {model} still running");
}
