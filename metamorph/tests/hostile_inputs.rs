//! The second hostile probe's defects, each as the user met it: nothing written or deleted
//! outside `--output`, no summary that mixes two configs, no dataset counted twice, no input
//! read forever, and small config mistakes named (issue 42). The `metamorph` binary runs as a
//! real process where the defect was met that way.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use metamorph::{PipelineOptions, Plan};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A config over the bundled BoolQ sample (MR1-3, the keyword test model, no validity step)
/// with `extra` appended to the `[pipeline]` table and `model_mode` for the model.
fn config(dir: &Path, datasets: &[(&str, &Path)], extra: &str, model_mode: &str) -> PathBuf {
    let script = root().join("execute/tests/fixtures/test_model.py");
    let mut text = format!("[pipeline]\noutput = \"out\"\nbatch_size = 8\n{extra}\n");
    for (name, path) in datasets {
        text.push_str(&format!(
            "[[pipeline.datasets]]\nname = \"{name}\"\npath = {:?}\nformat = \"boolq\"\n\n",
            path.display().to_string()
        ));
    }
    text.push_str(&format!(
        "[perturb]\nrelations = [\"MR1-3\"]\n\n[execute]\ncache = false\n\n[[execute.models]]\nname = \"keyword\"\n\
         command = [\"python3\", {:?}, {model_mode:?}]\nbatch_size = 4\ntimeout_secs = 60\n\n\
         [validate]\nenabled = false\n",
        script.display().to_string()
    ));
    let path = dir.join("metamorph.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn boolq_sample() -> PathBuf {
    root().join("data/samples/boolq.jsonl")
}

fn metamorph(args: &[&str], config: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_metamorph"))
        .args(args)
        .arg("--config")
        .arg(config)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_planted_manifest_cannot_make_force_delete_outside_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &[("boolq", &boolq_sample())], "", "keyword");
    let run = metamorph(&["run", "--quiet"], &cfg);
    assert!(run.status.success(), "{}", stderr(&run));
    let victim = dir.path().join("victim.parquet");
    std::fs::write(&victim, b"precious").unwrap();
    let manifest = dir
        .path()
        .join("out/boolq/_manifests/pipeline.part-00001-of-00001.json");
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    json["files"][0]["path"] = "../../victim.parquet".into();
    std::fs::write(&manifest, serde_json::to_vec(&json).unwrap()).unwrap();
    let run = metamorph(&["run", "--quiet", "--force"], &cfg);
    let message = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{message}");
    assert!(
        message.contains("../../victim.parquet") && message.contains("pipeline.part-00001"),
        "{message}"
    );
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
}

#[test]
fn a_planted_symlink_is_refused_and_nothing_is_written_through_it() {
    for link in ["boolq/case", "boolq/verdict", "boolq"] {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config(dir.path(), &[("boolq", &boolq_sample())], "", "keyword");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let at = dir.path().join("out").join(link);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &at).unwrap();
        let run = metamorph(&["run", "--quiet"], &cfg);
        let message = stderr(&run);
        assert_eq!(run.status.code(), Some(1), "{link}: {message}");
        assert!(
            message.contains("symbolic link") && message.contains(&at.display().to_string()),
            "{link}: {message}"
        );
        assert_eq!(
            std::fs::read_dir(&elsewhere).unwrap().count(),
            0,
            "{link}: something was written through the link"
        );
    }
}

#[test]
fn a_summary_never_mixes_two_configs_writing_one_output() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let out = dir.path().join("shared-out");
    let cfg_a = config(&a, &[("boolq", &boolq_sample())], "shards = 2", "keyword");
    let cfg_b = config(&b, &[("boolq", &boolq_sample())], "shards = 2", "slow");
    let options = PipelineOptions {
        output: Some(out.clone()),
        ..Default::default()
    };
    // Run A writes both shards; run B, with another model, rewrites shard 1 of the same
    // output before A writes its summary (what two overlapping runs do).
    let mut plan_a = Plan::load(&cfg_a, &options).unwrap();
    for unit in plan_a.units().to_vec() {
        plan_a.run(&unit).unwrap();
    }
    let mut plan_b = Plan::load(&cfg_b, &options).unwrap();
    let second = plan_b.units()[1].clone();
    plan_b.run(&second).unwrap();
    let e = plan_a.finish().unwrap_err().to_string();
    assert!(
        e.contains("dataset `boolq` shard 2/2") && e.contains("another config"),
        "{e}"
    );
    assert!(
        !out.join("summary.json").exists(),
        "a mixed summary was written"
    );
}

#[test]
fn one_file_under_two_dataset_names_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(boolq_sample(), &copy).unwrap();
    for second in [boolq_sample(), copy] {
        let cfg = config(
            dir.path(),
            &[("one", &boolq_sample()), ("two", &second)],
            "",
            "keyword",
        );
        let e = Plan::load(&cfg, &PipelineOptions::default())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("datasets `one` and `two` read the same data"),
            "{e}"
        );
    }
}

#[test]
fn endless_inputs_are_refused_before_a_byte_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &[("zero", Path::new("/dev/zero"))],
        "",
        "keyword",
    );
    let run = metamorph(&["run", "--quiet"], &cfg);
    let message = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{message}");
    assert!(
        message.contains("/dev/zero") && message.contains("not a regular file"),
        "{message}"
    );
    let run = metamorph(&["run", "--quiet"], Path::new("/dev/urandom"));
    let message = stderr(&run);
    assert_eq!(run.status.code(), Some(1), "{message}");
    assert!(message.contains("/dev/urandom"), "{message}");
    // A FIFO (which would block, then stream) is refused the same way.
    let fifo = dir.path().join("fifo.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let cfg = config(dir.path(), &[("fifo", &fifo)], "", "keyword");
    let run = metamorph(&["run", "--quiet"], &cfg);
    assert!(
        stderr(&run).contains("not a regular file"),
        "{}",
        stderr(&run)
    );
}

#[test]
fn small_config_mistakes_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let load_error = |extra: &str, edit: (&str, &str)| -> String {
        let cfg = config(dir.path(), &[("boolq", &boolq_sample())], extra, "keyword");
        let text = std::fs::read_to_string(&cfg)
            .unwrap()
            .replace(edit.0, edit.1);
        std::fs::write(&cfg, text).unwrap();
        Plan::load(&cfg, &PipelineOptions::default())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let e = load_error("", ("batch_size = 8", "batch_size = 0"));
    assert!(e.contains("batch_size must be at least 1"), "{e}");
    let e = load_error("", ("relations = [\"MR1-3\"]", "relations = []"));
    assert!(e.contains("relations = [] names no relation"), "{e}");
    let e = load_error("", ("batch_size = 4", "batch_size = 4\ntasks = []"));
    assert!(e.contains("`tasks = []` lists no task"), "{e}");
    let e = load_error(
        "",
        ("batch_size = 4", "batch_size = 4\nbase_url = \"http://x\""),
    );
    assert!(
        e.contains("`base_url`") && e.contains("kind `subprocess`"),
        "{e}"
    );
    let e = load_error("", ("name = \"boolq\"", "name = \"..\""));
    assert!(e.contains("cannot be `.` or `..`"), "{e}");
}
