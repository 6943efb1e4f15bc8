//! `metamorph-judge` run alone on shards of Parquet files, as on a cluster node.

use std::path::Path;
use std::process::Command;

use metamorph_data::{
    from_batch, read_shard, to_batch, Case, Example, Expectation, ParquetShardWriter, Precondition,
    Prediction, RecordKind, ShardSpec, Task, Verdict,
};

fn case(i: usize) -> Case {
    let mut source = Example::new(format!("s{i}"), Task::BoolQ);
    source.question = Some(format!("was {i} before"));
    let mut followup = source.clone();
    followup.id = format!("s{i}:MR1-3:0");
    followup.question = Some(format!("was {i} after"));
    let yes = Precondition::SourceLabelIs {
        source: 0,
        label: "yes".into(),
    };
    Case::new(
        "mt4mrc",
        "MR1-3",
        vec![source],
        followup,
        &Expectation::Inverted,
    )
    .with_precondition(&yes)
}

fn prediction(id: &str, label: &str) -> Prediction {
    model_prediction("m", id, label)
}

fn model_prediction(model: &str, id: &str, label: &str) -> Prediction {
    Prediction {
        label: Some(label.into()),
        ..Prediction::new(id, model, Task::BoolQ)
    }
}

fn write<R: metamorph_data::Record>(path: &Path, rows: &[R]) {
    let mut w = ParquetShardWriter::try_new(path, R::KIND).unwrap();
    w.write(&to_batch(rows).unwrap()).unwrap();
    w.commit().unwrap();
}

fn judge(dir: &Path, shard: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_metamorph-judge"))
        .args(["--quiet", "--input"])
        .arg(dir.join("in/case/*.parquet"))
        .arg("--input")
        .arg(dir.join("in/prediction/*.parquet"))
        .arg("--output")
        .arg(dir.join("out"))
        .args(["--shard", shard])
        .output()
        .unwrap()
}

#[test]
fn two_shards_judge_every_case_once_and_share_one_summary() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<Case> = (0..40).map(case).collect();
    let mut predictions = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        // Sources: yes for even i; follow-ups: "no" except every 4th, a violation.
        predictions.push(prediction(
            &c.source_ids[0],
            if i % 2 == 0 { "yes" } else { "no" },
        ));
        predictions.push(prediction(
            &c.case_id,
            if i % 4 == 0 { "yes" } else { "no" },
        ));
    }
    write(
        &dir.path().join("in/case/part-00001-of-00001.parquet"),
        &cases,
    );
    write(
        &dir.path().join("in/prediction/part-00001-of-00001.parquet"),
        &predictions,
    );

    for shard in ["1/2", "2/2"] {
        let out = judge(dir.path(), shard);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut judged = Vec::new();
    for part in ["part-00001-of-00002.parquet", "part-00002-of-00002.parquet"] {
        let path = dir.path().join("out/verdict").join(part);
        let rows: Vec<Verdict> = read_shard(&path, ShardSpec::WHOLE, 64)
            .unwrap()
            .flat_map(|b| from_batch::<Verdict>(&b.unwrap(), "test").unwrap())
            .collect();
        assert!(!rows.is_empty(), "{part} is empty");
        judged.extend(rows);
    }
    judged.sort_by(|a, b| a.case_id.cmp(&b.case_id));
    assert_eq!(judged.len(), 40);
    judged.dedup_by(|a, b| a.case_id == b.case_id);
    assert_eq!(judged.len(), 40);

    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/summary.json")).unwrap(),
    )
    .unwrap();
    let mr = &summary["relations"][0];
    assert_eq!(
        (
            mr["cases"].as_u64(),
            mr["applicable"].as_u64(),
            mr["violations"].as_u64()
        ),
        (Some(40), Some(20), Some(10))
    );

    // The report sits next to the summary and shows the violations.
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(
        html.contains("<mark class=\"ins\">"),
        "no highlighted example"
    );

    // A finished shard is not redone.
    let again = judge(dir.path(), "1/2");
    assert!(again.status.success());
}

#[test]
fn missing_predictions_and_wrong_inputs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("in/case/part-00001-of-00001.parquet"),
        &[case(1)],
    );
    write(
        &dir.path().join("in/prediction/part-00001-of-00001.parquet"),
        &[prediction("s1", "yes")],
    );
    let out = judge(dir.path(), "1/1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("s1:MR1-3:0") && stderr.contains("no prediction"),
        "{stderr}"
    );
    assert!(!dir
        .path()
        .join("out/verdict/part-00001-of-00001.parquet")
        .exists());

    let examples = [Example::new("e", Task::BoolQ)];
    let mut w = ParquetShardWriter::try_new(
        dir.path().join("in/prediction/extra.parquet"),
        RecordKind::Example,
    )
    .unwrap();
    w.write(&to_batch(&examples).unwrap()).unwrap();
    w.commit().unwrap();
    let out = judge(dir.path(), "1/1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("extra.parquet") && stderr.contains("holds example records"),
        "{stderr}"
    );
}

/// Judges 40 cases for `model`, which answers every source Yes and keeps the answer on the
/// follow-up of every `every`-th case (a violation); returns the run directory.
fn judged_run(root: &Path, name: &str, model: &str, every: usize) -> std::path::PathBuf {
    let dir = root.join(name);
    let cases: Vec<Case> = (0..40).map(case).collect();
    let mut predictions = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        predictions.push(model_prediction(model, &c.source_ids[0], "yes"));
        let violated = i % every == 0;
        predictions.push(model_prediction(
            model,
            &c.case_id,
            if violated { "yes" } else { "no" },
        ));
    }
    write(&dir.join("in/case/part-00001-of-00001.parquet"), &cases);
    write(
        &dir.join("in/prediction/part-00001-of-00001.parquet"),
        &predictions,
    );
    let out = judge(&dir, "1/1");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir.join("out")
}

fn judge_cmd(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_metamorph-judge"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn diff_of_a_run_with_itself_reports_no_change() {
    let dir = tempfile::tempdir().unwrap();
    let run = judged_run(dir.path(), "a", "m", 4);
    let out = judge_cmd(&["diff".as_ref(), run.as_os_str(), run.as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("no change: all 1 rate(s) within their intervals"),
        "{stdout}"
    );
}

#[test]
fn diff_with_another_models_run_reports_the_regression_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    // v1 violates 10 of 40 (every 4th), v2 every case: 25% → 100%.
    let a = judged_run(dir.path(), "a", "model-v1", 4);
    let b = judged_run(dir.path(), "b", "model-v2", 1);
    let out = judge_cmd(&["diff".as_ref(), a.as_os_str(), b.as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("comparing model `model-v1` (A) with `model-v2` (B)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("REGRESSED") && stdout.contains("+75.0pp"),
        "{stdout}"
    );
    assert!(stdout.contains("1 regression(s)"), "{stdout}");

    // Above a threshold larger than the rise, the change is still shown but passes.
    let out = judge_cmd(&[
        "diff".as_ref(),
        a.as_os_str(),
        b.as_os_str(),
        "--max-regression".as_ref(),
        "0.8".as_ref(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("regressed (within threshold)"), "{stdout}");

    // The other way round is an improvement: exit 0. JSON output for scripts.
    let out = judge_cmd(&[
        "diff".as_ref(),
        b.as_os_str(),
        a.as_os_str(),
        "--json".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows["rows"][0]["change"], "improved");
}

#[test]
fn diff_and_report_errors_are_clear() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let out = judge_cmd(&["diff".as_ref(), missing.as_os_str(), missing.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains("nowhere"), "{stderr}");
    let out = judge_cmd(&["report".as_ref(), missing.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));
}

#[test]
fn report_rebuilds_summary_and_page_of_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = judged_run(dir.path(), "a", "m", 4);
    std::fs::remove_file(run.join("report.html")).unwrap();
    std::fs::remove_file(run.join("summary.json")).unwrap();
    // Cases live outside the judge's output here, so the examples show outputs only; the
    // statistics are complete.
    let out = judge_cmd(&["report".as_ref(), run.as_os_str()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("report:") && stdout.contains("report.html"),
        "{stdout}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["schema_version"], metamorph_judge::SUMMARY_VERSION);
    assert_eq!(summary["relations"][0]["violations"], 10);
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(html.contains("case not found next to the verdicts"));

    // With the cases named, the examples show the inputs.
    let cases = dir.path().join("a/in/case/*.parquet");
    let out = judge_cmd(&[
        "report".as_ref(),
        run.as_os_str(),
        "--cases".as_ref(),
        cases.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(!html.contains("case not found") && html.contains("<mark class=\"ins\">"));
}
