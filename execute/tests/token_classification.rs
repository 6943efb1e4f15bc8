//! The token classifier on the tiny token-classification fixtures of every architecture: each
//! non-special token's probabilities are the softmax of `transformers`' logits (within 1e-4),
//! its label the likeliest, its offsets characters of the text, and the aggregated spans cover
//! exactly the tokens not labelled `O`.

use std::path::{Path, PathBuf};

use metamorph_data::assets::ModelSource;
use metamorph_execute::candle::batching::BatchOptions;
use metamorph_execute::candle::{Checkpoint, LoadOptions, TaskEncoder, TokenClassifier};
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
    input_ids: Vec<Vec<u32>>,
    attention_mask: Vec<Vec<u32>>,
    logits: Vec<Vec<Vec<f32>>>,
}

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/tests/fixtures/encoders");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().ends_with("-token"))
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty());
    dirs
}

fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.iter().map(|e| e / sum).collect()
}

#[test]
fn token_labels_match_transformers_and_spans_cover_the_entities() {
    let mut checked = 0;
    for dir in fixtures() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let golden: Golden =
            serde_json::from_str(&std::fs::read_to_string(dir.join("golden.json")).unwrap())
                .unwrap();
        let checkpoint =
            Checkpoint::try_resolve(&ModelSource::Local(dir.clone()), &Default::default()).unwrap();
        let encoder =
            TaskEncoder::try_load(&name, &checkpoint, None, &LoadOptions::default()).unwrap();
        let classifier = TokenClassifier::try_new(
            &name,
            encoder,
            None,
            BatchOptions::default().with_max_rows(2),
        )
        .unwrap();
        for input in golden.inputs.iter().filter(|i| !i.texts.is_empty()) {
            let texts: Vec<&str> = input.texts.iter().map(String::as_str).collect();
            let tokens = classifier.tokens(&texts).unwrap();
            let spans = classifier.classify(&texts).unwrap();
            for (row, text) in texts.iter().enumerate() {
                let real = input.attention_mask[row]
                    .iter()
                    .filter(|&&m| m == 1)
                    .count();
                assert!(!tokens[row].is_empty(), "{name}: no tokens");
                let chars: Vec<char> = text.chars().collect();
                for t in &tokens[row] {
                    assert!(t.index < real, "{name}");
                    let want = softmax(&input.logits[row][t.index]);
                    for (got, want) in t.probabilities.iter().zip(&want) {
                        assert!(
                            (got - want).abs() <= 1e-4,
                            "{name} row {row} token {}",
                            t.index
                        );
                    }
                    let best = want
                        .iter()
                        .enumerate()
                        .fold(0, |b, (i, &p)| if p > want[b] { i } else { b });
                    assert_eq!(t.label, golden.labels[best], "{name}");
                    assert!(t.start <= t.end && t.end <= chars.len(), "{name}");
                    checked += 1;
                }
                // Special tokens (first and last real position here) are left out.
                assert_ne!(tokens[row][0].index, 0, "{name}");
                assert!(input.input_ids[row].len() >= real);
                // Every token not labelled O lies in exactly one span of its type.
                for t in tokens[row].iter().filter(|t| t.label != "O") {
                    let kind = t.label.split_once('-').map_or(t.label.as_str(), |x| x.1);
                    let covering = spans[row]
                        .iter()
                        .filter(|s| s.start <= t.start && t.end <= s.end)
                        .count();
                    assert_eq!(covering, 1, "{name}: token {t:?} in {:?}", spans[row]);
                    assert!(spans[row].iter().any(|s| s.label == kind));
                }
                for s in &spans[row] {
                    assert_eq!(s.text, chars[s.start..s.end].iter().collect::<String>());
                    assert_ne!(s.label, "O");
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} tokens checked");
}
