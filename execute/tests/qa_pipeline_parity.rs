//! Extractive QA against transformers' question-answering pipeline: every `qa_pipeline` entry
//! of the QA fixtures (`models/tests/fixtures/encoders/*-qa/golden.json`, written by
//! `scripts/encoder_fixtures.py`) must give the same answer text and character offsets, and
//! the same score within 1e-4, with the entry's `max_seq_len`, `doc_stride`, `max_answer_len`
//! and `handle_impossible_answer` (null threshold 0). The reference is transformers 4.57's
//! pipeline algorithm (12 candidates per window, answers with one text merged by summed
//! score). The entries are run together in one
//! padded batch per setting, so padding and packing must not change any answer either.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use metamorph_data::assets::ModelSource;
use metamorph_data::{Example, Task};
use metamorph_execute::candle::batching::BatchOptions;
use metamorph_execute::candle::question_answering::WindowTokenizer;
use metamorph_execute::candle::{
    Checkpoint, LoadOptions, QaOptions, QuestionAnsweringModel, TaskEncoder,
};
use metamorph_execute::Model;
use serde::Deserialize;

#[derive(Deserialize)]
struct Golden {
    qa_pipeline: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    question: String,
    context: String,
    max_seq_len: usize,
    doc_stride: usize,
    max_answer_len: usize,
    handle_impossible_answer: bool,
    windows: usize,
    answer: Answer,
}

#[derive(Deserialize)]
struct Answer {
    text: String,
    start: u32,
    end: u32,
    score: f32,
}

fn qa_fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/tests/fixtures/encoders");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().ends_with("-qa"))
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no QA fixtures under {}", root.display());
    dirs
}

fn load(dir: &Path) -> TaskEncoder {
    let checkpoint =
        Checkpoint::try_resolve(&ModelSource::Local(dir.to_path_buf()), &Default::default())
            .unwrap();
    TaskEncoder::try_load("fixture", &checkpoint, None, &LoadOptions::default()).unwrap()
}

#[test]
fn answers_match_the_transformers_pipeline() {
    let (mut checked, mut total, mut null_answers) = (0, 0, 0);
    for dir in qa_fixtures() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let golden: Golden =
            serde_json::from_str(&std::fs::read_to_string(dir.join("golden.json")).unwrap())
                .unwrap();
        // Entries by setting: each setting is one model, all its entries one batch.
        let mut settings: BTreeMap<(usize, usize, usize, bool), Vec<&Entry>> = BTreeMap::new();
        total += golden.qa_pipeline.len();
        for e in &golden.qa_pipeline {
            let key = (
                e.max_seq_len,
                e.doc_stride,
                e.max_answer_len,
                e.handle_impossible_answer,
            );
            settings.entry(key).or_default().push(e);
        }
        for ((max_seq_len, doc_stride, max_answer_len, impossible), entries) in settings {
            let encoder = load(&dir);
            let windows =
                WindowTokenizer::new(encoder.tokenizer(), max_seq_len, doc_stride).unwrap();
            for e in &entries {
                let w = windows.windows(&e.question, &e.context).unwrap();
                assert_eq!(
                    w.encodings.len(),
                    e.windows,
                    "{name}: windows of {:?}",
                    e.question
                );
            }
            let options = QaOptions::default()
                .with_max_seq_len(max_seq_len)
                .with_doc_stride(doc_stride)
                .with_max_answer_len(max_answer_len)
                .with_null_threshold(impossible.then_some(0.0))
                .with_batch(
                    BatchOptions::default()
                        .with_max_tokens(256)
                        .with_max_rows(3),
                );
            let model = QuestionAnsweringModel::try_new(&name, encoder, options).unwrap();
            let examples: Vec<Example> = entries
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let mut ex = Example::new(format!("q{i}"), Task::Squad);
                    ex.question = Some(e.question.clone());
                    ex.context = Some(e.context.clone());
                    ex
                })
                .collect();
            let refs: Vec<&Example> = examples.iter().collect();
            let predictions = model.predict(&refs).unwrap();
            for (e, p) in entries.iter().zip(&predictions) {
                let got = p.answer.as_ref().unwrap();
                let want = &e.answer;
                let what = format!("{name}: {:?} (settings {max_seq_len}/{doc_stride}/{max_answer_len}/{impossible})", e.question);
                assert_eq!(got.text, want.text, "{what}");
                assert_eq!(
                    (got.start, got.end),
                    (Some(want.start), Some(want.end)),
                    "{what}"
                );
                let score = got.score.unwrap();
                assert!(
                    (score - want.score).abs() <= 1e-4,
                    "{what}: score {score} vs {}",
                    want.score
                );
                // Alone, unbatched, the answer is the same.
                let alone = model.answer("alone", &e.question, &e.context).unwrap();
                assert_eq!(&alone.text, &got.text, "{what}");
                assert!((alone.score.unwrap() - score).abs() <= 1e-5, "{what}");
                checked += 1;
                null_answers += usize::from(want.text.is_empty());
            }
            // Every window ran once in the batch and once alone.
            let stats = model.padding_stats();
            let windows: usize = entries.iter().map(|e| e.windows).sum();
            assert_eq!(stats.rows as usize, 2 * windows);
            assert!(stats.padded_tokens >= stats.real_tokens);
        }
    }
    assert_eq!(checked, total);
    assert!(checked >= 60, "only {checked} pipeline answers checked");
    // Both outcomes of the null answer occur.
    assert!(
        null_answers > 0 && null_answers < checked,
        "{null_answers} null answers"
    );
}
