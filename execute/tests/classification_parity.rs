//! Sequence classification models under test on the tiny fixtures of every architecture
//! (`models/tests/fixtures/encoders/*-sequence`): single texts (sentiment) and text pairs
//! (paraphrase, BoolQ in both pair orders) must give the softmax of the reference logits of
//! `transformers` within 1e-4, with the model labels translated to the task's labels; a
//! relation is classified as its sentence with the arguments marked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use metamorph_data::assets::ModelSource;
use metamorph_data::{EntitySpan, Example, Task};
use metamorph_execute::candle::batching::BatchOptions;
use metamorph_execute::candle::{
    relation_text, Checkpoint, ClassificationOptions, EntityMarkers, LoadOptions, PairOrder,
    SequenceClassificationModel, TaskEncoder,
};
use metamorph_execute::Model;
use serde::Deserialize;

#[derive(Deserialize)]
struct Golden {
    labels: Vec<String>,
    inputs: Vec<Input>,
}

#[derive(Deserialize)]
struct Input {
    #[serde(default)]
    texts: Vec<String>,
    #[serde(default)]
    pairs: Vec<(String, String)>,
    logits: Vec<Vec<f32>>,
}

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/tests/fixtures/encoders");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .ends_with("-sequence")
        })
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty());
    dirs
}

fn model(dir: &Path, options: ClassificationOptions) -> SequenceClassificationModel {
    let checkpoint =
        Checkpoint::try_resolve(&ModelSource::Local(dir.to_path_buf()), &Default::default())
            .unwrap();
    let encoder =
        TaskEncoder::try_load("fixture", &checkpoint, None, &LoadOptions::default()).unwrap();
    let options = options.with_batch(
        BatchOptions::default()
            .with_max_tokens(200)
            .with_max_rows(2),
    );
    SequenceClassificationModel::try_new("fixture", encoder, options).unwrap()
}

fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.iter().map(|e| e / sum).collect()
}

/// Asserts `(label, prob)` pairs of a prediction.
fn check(what: &str, got: &metamorph_data::Prediction, want: &[(&str, f32)]) {
    let probs = got.probabilities.as_ref().unwrap();
    assert_eq!(probs.len(), want.len(), "{what}");
    for (p, (label, prob)) in probs.iter().zip(want) {
        assert_eq!(p.label, *label, "{what}");
        assert!(
            (p.prob - prob).abs() <= 1e-4,
            "{what}: {} vs {prob}",
            p.prob
        );
    }
    let best = want
        .iter()
        .fold(want[0], |b, w| if w.1 > b.1 { *w } else { b });
    assert_eq!(got.label.as_deref(), Some(best.0), "{what}");
}

#[test]
fn probabilities_match_transformers_for_texts_and_pairs() {
    let mut checked = 0;
    for dir in fixtures() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let golden: Golden =
            serde_json::from_str(&std::fs::read_to_string(dir.join("golden.json")).unwrap())
                .unwrap();
        assert_eq!(golden.labels, ["negative", "neutral", "positive"], "{name}");
        // Two task labels out of three model labels: probabilities add up.
        let table = BTreeMap::from([
            ("negative".to_string(), "no".to_string()),
            ("neutral".to_string(), "no".to_string()),
            ("positive".to_string(), "yes".to_string()),
        ]);
        let plain = model(&dir, ClassificationOptions::default());
        let question_first = model(
            &dir,
            ClassificationOptions::default().with_label_map(table.clone()),
        );
        let context_first = model(
            &dir,
            ClassificationOptions::default()
                .with_label_map(table)
                .with_pair_order(PairOrder::ContextQuestion),
        );
        for input in &golden.inputs {
            let probs: Vec<Vec<f32>> = input.logits.iter().map(|l| softmax(l)).collect();
            if !input.texts.is_empty() {
                let examples: Vec<Example> = input
                    .texts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let mut e = Example::new(format!("t{i}"), Task::Sentiment);
                        e.text = Some(t.clone());
                        e
                    })
                    .collect();
                let refs: Vec<&Example> = examples.iter().collect();
                for (i, p) in plain.predict(&refs).unwrap().iter().enumerate() {
                    let want = [
                        ("negative", probs[i][0]),
                        ("neutral", probs[i][1]),
                        ("positive", probs[i][2]),
                    ];
                    check(&format!("{name} text {i}"), p, &want);
                    checked += 1;
                }
            }
            if !input.pairs.is_empty() {
                let boolq: Vec<Example> = input
                    .pairs
                    .iter()
                    .enumerate()
                    .map(|(i, (a, b))| {
                        let mut e = Example::new(format!("b{i}"), Task::BoolQ);
                        e.question = Some(a.clone());
                        e.context = Some(b.clone());
                        e
                    })
                    .collect();
                // The same pairs with the roles swapped, for the context-first model.
                let swapped: Vec<Example> = boolq
                    .iter()
                    .map(|e| {
                        let mut s = e.clone();
                        std::mem::swap(&mut s.question, &mut s.context);
                        s
                    })
                    .collect();
                let refs: Vec<&Example> = boolq.iter().collect();
                let swapped_refs: Vec<&Example> = swapped.iter().collect();
                let first = question_first.predict(&refs).unwrap();
                let flipped = context_first.predict(&swapped_refs).unwrap();
                for (i, (p, q)) in first.iter().zip(&flipped).enumerate() {
                    let want = [("no", probs[i][0] + probs[i][1]), ("yes", probs[i][2])];
                    check(&format!("{name} boolq pair {i}"), p, &want);
                    check(&format!("{name} boolq pair {i}, context first"), q, &want);
                    checked += 1;
                }
            }
        }
        // Sentiment labels mean nothing for paraphrase without a table.
        let mut pair = Example::new("p", Task::Paraphrase);
        pair.text = Some("a".into());
        pair.text_b = Some("b".into());
        let message = plain.predict(&[&pair]).unwrap_err().to_string();
        assert!(
            message.contains("`negative`") && message.contains("paraphrase"),
            "{message}"
        );
        let mut empty = Example::new("e", Task::Sentiment);
        empty.text = Some("  ".into());
        let message = plain.predict(&[&empty]).unwrap_err().to_string();
        assert!(
            message.contains("`e`") && message.contains("`text`"),
            "{message}"
        );
    }
    assert!(checked >= 30, "only {checked} predictions checked");
}

#[test]
fn relations_are_classified_as_their_marked_sentence() {
    let dir = fixtures().remove(0);
    let relation = model(
        &dir,
        ClassificationOptions::default().with_tasks(vec![Task::Relation, Task::Sentiment]),
    );
    let mut ex = Example::new("r", Task::Relation);
    ex.tokens = Some(
        "Marie Curie worked at the University of Paris"
            .split(' ')
            .map(str::to_string)
            .collect(),
    );
    ex.head = Some(EntitySpan {
        text: "Marie Curie".into(),
        start: 0,
        end: 2,
        entity_type: Some("PERSON".into()),
    });
    ex.tail = Some(EntitySpan {
        text: "University of Paris".into(),
        start: 5,
        end: 8,
        entity_type: Some("ORGANIZATION".into()),
    });
    let text = relation_text(
        ex.tokens.as_ref().unwrap(),
        ex.head.as_ref().unwrap(),
        ex.tail.as_ref().unwrap(),
        EntityMarkers::TypedPunct,
    )
    .unwrap();
    assert_eq!(
        text,
        "@ * person * Marie Curie @ worked at the # ^ organization ^ University of Paris #"
    );
    let mut same = Example::new("s", Task::Sentiment);
    same.text = Some(text);
    let got = relation.predict(&[&ex, &same]).unwrap();
    assert!(!relation.handles(Task::BoolQ));
    assert_eq!(got[0].task, Task::Relation);
    assert_eq!(got[0].label, got[1].label);
    // Relation labels are the model's own.
    let probs = got[0].probabilities.as_ref().unwrap();
    let labels: Vec<&str> = probs.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["negative", "neutral", "positive"]);
    for (a, b) in probs.iter().zip(got[1].probabilities.as_ref().unwrap()) {
        assert!((a.prob - b.prob).abs() < 1e-6);
    }
    // A missing argument is named.
    ex.tail = None;
    let message = relation.predict(&[&ex]).unwrap_err().to_string();
    assert!(
        message.contains("`r`") && message.contains("`tail`"),
        "{message}"
    );
}
