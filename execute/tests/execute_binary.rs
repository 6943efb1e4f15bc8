//! `metamorph-execute --model <checkpoint>` on a shard of cases, as on a cluster node: no
//! config file, the head chosen from the fixture's `config.json`.

use std::path::{Path, PathBuf};
use std::process::Command;

use metamorph_data::assets::ModelSource;
use metamorph_data::{
    from_batch, read_shard, to_batch, Case, Example, Expectation, ParquetShardWriter, Prediction,
    ShardSpec, Task,
};
use metamorph_execute::candle::{
    Checkpoint, LoadOptions, QaOptions, QuestionAnsweringModel, TaskEncoder,
};
use metamorph_execute::Model;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../models/tests/fixtures/encoders")
        .join(name)
}

fn squad_case(i: usize) -> Case {
    let mut source = Example::new(format!("sq{i}"), Task::Squad);
    source.question = Some(format!("Which city is number {i}?"));
    source.context = Some(format!(
        "The river flows through city {i} and then past Zürich — the café district — before \
         reaching the sea after {} kilometres.",
        100 + i
    ));
    let mut followup = source.clone();
    followup.id = format!("sq{i}:MR:0");
    followup.question = Some(format!("Which town is number {i}?"));
    Case::new("f", "MR", vec![source], followup, &Expectation::Equal)
}

fn sentiment_case(i: usize) -> Case {
    let mut source = Example::new(format!("se{i}"), Task::Sentiment);
    source.text = Some(format!("The film number {i} was wonderful."));
    let mut followup = source.clone();
    followup.id = format!("se{i}:MR:0");
    followup.text = Some(format!("The movie number {i} was wonderful."));
    Case::new("f", "MR", vec![source], followup, &Expectation::Equal)
}

fn write_cases(dir: &Path, cases: &[Case]) {
    let path = dir.join("in/case/part-00001-of-00001.parquet");
    let mut w = ParquetShardWriter::try_new(&path, metamorph_data::RecordKind::Case).unwrap();
    w.write(&to_batch(cases).unwrap()).unwrap();
    w.commit().unwrap();
}

fn execute(dir: &Path, model: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_metamorph-execute"))
        .args(["--quiet", "--input"])
        .arg(dir.join("in/case/*.parquet"))
        .arg("--output")
        .arg(dir.join("out"))
        .arg("--model")
        .arg(model)
        .args(extra)
        .output()
        .unwrap()
}

fn predictions(dir: &Path) -> Vec<Prediction> {
    let mut out: Vec<Prediction> = std::fs::read_dir(dir.join("out/prediction"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .flat_map(|p| {
            read_shard(&p, ShardSpec::WHOLE, 64)
                .unwrap()
                .flat_map(|b| from_batch::<Prediction>(&b.unwrap(), "test").unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    out.sort_by(|a, b| a.example_id.cmp(&b.example_id));
    out
}

#[test]
fn a_qa_checkpoint_answers_every_input_like_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let cases: Vec<Case> = (0..6).map(squad_case).collect();
    write_cases(dir.path(), &cases);
    let out = execute(dir.path(), &fixture("bert-qa"), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = predictions(dir.path());
    assert_eq!(got.len(), 12, "one prediction per source and follow-up");

    let checkpoint =
        Checkpoint::try_resolve(&ModelSource::Local(fixture("bert-qa")), &Default::default())
            .unwrap();
    let encoder =
        TaskEncoder::try_load("bert-qa", &checkpoint, None, &LoadOptions::default()).unwrap();
    let model = QuestionAnsweringModel::try_new("bert-qa", encoder, QaOptions::default()).unwrap();
    for case in &cases {
        for example in case.sources.iter().chain([&case.followup]) {
            let p = got.iter().find(|p| p.example_id == example.id).unwrap();
            assert_eq!(p.model, "bert-qa");
            assert_eq!(p.task, Task::Squad);
            let answer = p.answer.as_ref().unwrap();
            let want = model.predict(&[example]).unwrap().remove(0).answer.unwrap();
            assert_eq!(answer.text, want.text, "{}", example.id);
            assert_eq!((answer.start, answer.end), (want.start, want.end));
            // Offsets are characters of the context.
            let (s, e) = (answer.start.unwrap() as usize, answer.end.unwrap() as usize);
            let context: Vec<char> = example.context.as_ref().unwrap().chars().collect();
            assert_eq!(context[s..e].iter().collect::<String>(), answer.text);
        }
    }
}

#[test]
fn a_classification_checkpoint_labels_sentiment_with_probabilities() {
    let dir = tempfile::tempdir().unwrap();
    write_cases(dir.path(), &(0..4).map(sentiment_case).collect::<Vec<_>>());
    let out = execute(
        dir.path(),
        &fixture("bert-sequence"),
        &["--kind", "sequence-classification", "--task", "sentiment"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = predictions(dir.path());
    assert_eq!(got.len(), 8);
    for p in &got {
        let probs = p.probabilities.as_ref().unwrap();
        let labels: Vec<&str> = probs.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["negative", "neutral", "positive"]);
        let total: f32 = probs.iter().map(|l| l.prob).sum();
        assert!((total - 1.0).abs() < 1e-5);
        let best = probs
            .iter()
            .fold(&probs[0], |b, l| if l.prob > b.prob { l } else { b });
        assert_eq!(p.label.as_deref(), Some(best.label.as_str()));
    }
}

#[test]
fn bad_models_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    write_cases(dir.path(), &[squad_case(0)]);
    let missing = dir.path().join("no-such-model");
    let out = execute(dir.path(), &missing, &[]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no-such-model"), "{stderr}");
    // A QA checkpoint cannot be told to do sentiment.
    let out = execute(dir.path(), &fixture("bert-qa"), &["--task", "sentiment"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("sentiment") && stderr.contains("squad"),
        "{stderr}"
    );
}
