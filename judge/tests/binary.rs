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
    Prediction {
        label: Some(label.into()),
        ..Prediction::new(id, "m", Task::BoolQ)
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
