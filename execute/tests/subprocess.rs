//! The JSONL subprocess adapter against a model program written for these tests
//! (`tests/fixtures/test_model.py`, Python standard library only).

use std::path::PathBuf;
use std::time::Instant;

use metamorph_data::{Example, Task};
use metamorph_execute::{Model, SubprocessConfig, SubprocessModel};

fn model(mode: &[&str], timeout_secs: f64, batch_size: usize) -> SubprocessModel {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/test_model.py");
    let mut command = vec!["python3".to_string(), script.display().to_string()];
    command.extend(mode.iter().map(|s| s.to_string()));
    SubprocessModel::spawn(
        "test-model",
        SubprocessConfig {
            command,
            timeout_secs,
            batch_size,
            workdir: None,
            env: Default::default(),
        },
    )
    .expect("python3 starts")
}

fn questions(n: usize) -> Vec<Example> {
    (0..n)
        .map(|i| {
            let mut ex = Example::new(format!("q{i}"), Task::BoolQ);
            ex.context = Some("A passage.".into());
            ex.question = Some(if i % 2 == 0 {
                format!("was {i} before")
            } else {
                format!("was {i} after")
            });
            ex
        })
        .collect()
}

#[test]
fn answers_come_back_in_input_order_across_batches() {
    let m = model(&["keyword"], 30.0, 7);
    let examples = questions(40);
    let refs: Vec<&Example> = examples.iter().collect();
    let predictions = m.predict(&refs).unwrap();
    assert_eq!(predictions.len(), 40);
    for (i, p) in predictions.iter().enumerate() {
        assert_eq!(p.example_id, format!("q{i}"));
        assert_eq!(
            p.label.as_deref(),
            Some(if i % 2 == 0 { "yes" } else { "no" })
        );
        assert_eq!(p.model, "test-model");
        assert!(p.latency_ms >= 0.0);
    }
    // The process stays up between calls.
    assert_eq!(m.predict(&refs[..3]).unwrap().len(), 3);
}

#[test]
fn large_batches_do_not_deadlock_on_pipes() {
    let m = model(&["keyword"], 60.0, 2000);
    let mut examples = questions(2000);
    for ex in &mut examples {
        ex.context = Some("long passage ".repeat(200));
    }
    let refs: Vec<&Example> = examples.iter().collect();
    assert_eq!(m.predict(&refs).unwrap().len(), 2000);
}

#[test]
fn a_dying_child_is_reported_with_its_stderr() {
    let m = model(&["exit-after", "3"], 30.0, 10);
    let examples = questions(10);
    let refs: Vec<&Example> = examples.iter().collect();
    let message = m.predict(&refs).unwrap_err().to_string();
    assert!(
        message.contains("test-model") && message.contains("exit status: 3"),
        "{message}"
    );
    assert!(message.contains("CUDA out of memory"), "{message}");
    let again = m.predict(&refs[..1]).unwrap_err().to_string();
    assert!(again.contains("already failed"), "{again}");
}

#[test]
fn a_hanging_child_times_out() {
    let m = model(&["hang"], 1.0, 4);
    let examples = questions(4);
    let refs: Vec<&Example> = examples.iter().collect();
    let started = Instant::now();
    let message = m.predict(&refs).unwrap_err().to_string();
    assert!(
        message.contains("timed out") && message.contains("4 of 4"),
        "{message}"
    );
    assert!(started.elapsed().as_secs_f64() < 20.0);
}

#[test]
fn stdout_noise_is_a_protocol_error() {
    let m = model(&["garbage"], 10.0, 2);
    let examples = questions(2);
    let refs: Vec<&Example> = examples.iter().collect();
    let message = m.predict(&refs).unwrap_err().to_string();
    assert!(
        message.contains("not a protocol response") && message.contains("loading weights"),
        "{message}"
    );
}

#[test]
fn a_missing_program_is_a_clear_error() {
    let result = SubprocessModel::spawn(
        "ghost",
        SubprocessConfig {
            command: vec!["/nonexistent/model-server".into()],
            timeout_secs: 1.0,
            batch_size: 1,
            workdir: None,
            env: Default::default(),
        },
    );
    let message = result.err().expect("spawn fails").to_string();
    assert!(
        message.contains("ghost") && message.contains("cannot start"),
        "{message}"
    );
}

/// The bundled coreference baseline (`examples/models/coref_string_match.py`) answers `coref`
/// requests with clusters of character spans that the adapter turns into predictions.
#[test]
fn the_bundled_coreference_baseline_returns_clusters() {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/models/coref_string_match.py");
    let m = SubprocessModel::spawn(
        "coref-baseline",
        SubprocessConfig {
            command: vec!["python3".into(), script.display().to_string()],
            timeout_secs: 30.0,
            batch_size: 8,
            workdir: None,
            env: Default::default(),
        },
    )
    .expect("python3 starts");
    let text = "Mr. Darcy looked at Elizabeth. He smiled, and she laughed. Darcy left.";
    let mut ex = Example::new("doc-1", Task::Coref);
    ex.text = Some(text.into());
    let predictions = m.predict(&[&ex]).unwrap();
    let clusters = predictions[0].clusters.as_ref().expect("clusters");
    let words: Vec<Vec<&str>> = clusters
        .iter()
        .map(|c| {
            c.iter()
                .map(|s| &text[s.start as usize..s.end as usize])
                .collect()
        })
        .collect();
    assert_eq!(
        words,
        vec![vec!["Darcy", "He", "Darcy"], vec!["Elizabeth", "she"]]
    );
}

/// Processes whose command line contains `marker`, from `/proc`.
fn processes_with(marker: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|raw| String::from_utf8_lossy(&raw).replace('\0', " "))
        .filter(|cmd| cmd.contains(marker))
        .collect()
}

#[test]
#[cfg(target_os = "linux")]
fn a_timeout_stops_the_whole_process_group_even_with_a_full_stdin_pipe() {
    // A launcher shell whose model never reads its stdin and never answers: the batch below is
    // larger than a pipe buffer, so the writer blocks until the model's group is gone.
    let marker = format!("metamorph-group-test-{}", std::process::id());
    let script = format!("python3 -c 'import time; time.sleep(600)' {marker}");
    let model = SubprocessModel::spawn(
        "hung",
        SubprocessConfig {
            command: vec!["sh".into(), "-c".into(), script],
            timeout_secs: 1.0,
            batch_size: 4096,
            workdir: None,
            env: Default::default(),
        },
    )
    .unwrap();
    let started = Instant::now();
    while processes_with(&marker).len() < 2 && started.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        !processes_with(&marker).is_empty(),
        "the model did not start"
    );
    let mut examples = questions(4096);
    for ex in &mut examples {
        ex.context = Some("a passage long enough to fill the pipe ".repeat(4));
    }
    // On another thread, so that a regression fails here instead of hanging the test run.
    let (sent, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let refs: Vec<&Example> = examples.iter().collect();
        let _ = sent.send(model.predict(&refs).map(|_| ()));
    });
    let outcome = received
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the run hung: the model's group was not stopped");
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("timed out"), "{error}");
    let deadline = Instant::now() + std::time::Duration::from_secs(5);
    while !processes_with(&marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        processes_with(&marker),
        Vec::<String>::new(),
        "left running"
    );
}

#[test]
fn a_child_that_closes_stdout_is_reported_as_such_not_as_a_time_out() {
    let m = model(&["close-stdout"], 120.0, 2);
    let examples = questions(2);
    let refs: Vec<&Example> = examples.iter().collect();
    let message = m.predict(&refs).unwrap_err().to_string();
    assert!(
        message.contains("closed its stdout") && !message.contains("timed out"),
        "{message}"
    );
}

#[test]
fn a_missing_workdir_is_named_as_such() {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/test_model.py");
    let config = SubprocessConfig {
        command: vec!["python3".into(), script.display().to_string()],
        timeout_secs: 10.0,
        batch_size: 2,
        workdir: Some("/no/such/folder".into()),
        env: Default::default(),
    };
    let e = SubprocessModel::spawn("m", config)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("`workdir` /no/such/folder is not an existing folder"),
        "{e}"
    );
}
