//! `[[execute.models]]` tables of the candle task kinds: the keys reach the models, and bad
//! settings are configuration errors naming the model and the setting, raised at start.

use std::path::Path;

use metamorph_data::{ConfigFile, Example, Task};
use metamorph_execute::{ExecuteConfig, ExecuteStage, ModelConfig};

/// The fixtures folder, the config's base directory.
fn base() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../models/tests/fixtures/encoders"
    ))
}

fn config(models: &str) -> ExecuteConfig {
    ConfigFile::parse(models, "test.toml")
        .unwrap()
        .section("execute")
        .unwrap()
}

fn start_error(models: &str) -> String {
    let config = config(models);
    match ExecuteStage::from_config(&config, base(), true) {
        Ok(_) => panic!("started: {models}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_task_key_is_read() {
    let config = config(
        r#"
        [[execute.models]]
        name = "qa"
        kind = "extractive-qa"
        model = "roberta-qa"
        max_length = 48
        doc_stride = 12
        max_answer_len = 4
        null_threshold = 0.5
        batch_tokens = 512
        batch_size = 4
        batch_cost = 64

        [[execute.models]]
        name = "boolq"
        kind = "sequence-classification"
        model = "bert-sequence"
        tasks = ["boolq", "paraphrase"]
        pair_order = "context-question"
        label_map = { negative = "no", neutral = "no", positive = "yes" }
        "#,
    );
    let metamorph_execute::ModelKind::ExtractiveQa(qa) = &config.models[0].kind else {
        panic!("{:?}", config.models[0])
    };
    assert_eq!(
        (
            qa.checkpoint.max_length,
            qa.qa.doc_stride,
            qa.qa.max_answer_len
        ),
        (Some(48), Some(12), Some(4))
    );
    assert_eq!(
        (
            qa.qa.null_threshold,
            qa.packing.batch_tokens,
            qa.packing.batch_cost
        ),
        (Some(0.5), Some(512), Some(64))
    );
    let models: Vec<_> = config
        .models
        .iter()
        .map(|m| m.start(base()).unwrap())
        .collect();
    assert_eq!(models[0].max_batch(), 4);
    assert!(models[0].handles(Task::Squad) && models[0].handles(Task::Drop));
    assert!(models[1].handles(Task::BoolQ) && !models[1].handles(Task::Sentiment));

    // A long context becomes windows of 48 tokens; every answer is at most 4 tokens, so a few
    // words.
    let mut ex = Example::new("long", Task::Squad);
    ex.question = Some("Where does the river flow?".into());
    ex.context = Some("The river flows north through the old town. ".repeat(12));
    let answer = models[0].predict(&[&ex]).unwrap().remove(0).answer.unwrap();
    assert!(answer.text.split_whitespace().count() <= 4, "{answer:?}");

    let mut ex = Example::new("b", Task::BoolQ);
    ex.question = Some("is the river long".into());
    ex.context = Some("The river is long.".into());
    let p = models[1].predict(&[&ex]).unwrap().remove(0);
    assert!(matches!(p.label.as_deref(), Some("yes" | "no")), "{p:?}");
}

#[test]
fn bad_settings_are_named_at_start() {
    let message = start_error(
        r#"[[execute.models]]
        name = "m"
        kind = "sequence-classification"
        model = "bert-qa""#,
    );
    // A QA checkpoint forced to classify: its config.json lacks what that head needs.
    assert!(message.contains("bert-qa/config.json"), "{message}");

    let message = start_error(
        r#"[[execute.models]]
        name = "m"
        kind = "candle"
        model = "bert-token""#,
    );
    assert!(message.contains("answers no task"), "{message}");

    let message = start_error(
        r#"[[execute.models]]
        name = "m"
        kind = "sequence-classification"
        model = "bert-sequence"
        tasks = ["boolq"]"#,
    );
    assert!(
        message.contains("`negative`") && message.contains("boolq"),
        "{message}"
    );

    let message = start_error(
        r#"[[execute.models]]
        name = "m"
        kind = "extractive-qa"
        model = "bert-qa"
        max_length = 64
        doc_stride = 64"#,
    );
    assert!(message.contains("doc_stride 64"), "{message}");

    let message = start_error(
        r#"[[execute.models]]
        name = "m"
        kind = "extractive-qa"
        model = "bert-qa"
        tasks = ["boolq"]"#,
    );
    assert!(
        message.contains("squad, drop") && message.contains("boolq"),
        "{message}"
    );

    let message = start_error(
        r#"[[execute.models]]
        name = "m"
        kind = "extractive-qa""#,
    );
    assert!(message.contains("needs `model`"), "{message}");

    // An unknown kind, and a key of another kind, are refused when the config is read.
    let read_error = |models: &str| {
        ConfigFile::parse(models, "test.toml")
            .unwrap()
            .section::<ExecuteConfig>("execute")
            .unwrap_err()
            .to_string()
    };
    let message = read_error(
        r#"[[execute.models]]
        name = "m"
        kind = "qa"
        model = "bert-qa""#,
    );
    assert!(
        message.contains("unknown kind `qa`")
            && message.contains("extractive-qa, sequence-classification, candle"),
        "{message}"
    );
    let message = read_error(
        r#"[[execute.models]]
        name = "baseline"
        kind = "subprocess"
        command = ["python3", "m.py"]
        base_url = "http://127.0.0.1:8000/v1""#,
    );
    assert!(
        message.contains("test.toml")
            && message.contains("[[execute.models]] `baseline`")
            && message.contains("`base_url`")
            && message.contains("kind `subprocess`"),
        "{message}"
    );
}

#[test]
fn a_checkpoint_spec_names_its_model() {
    for (spec, name) in [
        ("models/squad-bert/", "squad-bert"),
        ("asset:all-MiniLM-L6-v2", "all-MiniLM-L6-v2"),
        ("hf:deepset/roberta-base-squad2@main", "roberta-base-squad2"),
        (".", "model"),
    ] {
        let m = ModelConfig::for_checkpoint(spec, "candle").unwrap();
        assert_eq!(m.name, name, "{spec}");
        let checkpoint = m.kind.checkpoint().unwrap();
        assert_eq!(checkpoint.model.as_deref(), Some(spec));
        assert_eq!(m.kind.name(), "candle");
    }
}
