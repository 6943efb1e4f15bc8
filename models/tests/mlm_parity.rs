//! Parity of the candle masked LM with `transformers` 5 on the tiny random MLM checkpoints of
//! `scripts/mlm_fixtures.py` (`cargo xtask fixtures mlm`): BERT, RoBERTa and DeBERTa-v2 with its
//! legacy and `lm_predictions` heads. Input ids identical, top-10 ids identical in order and
//! their probabilities within 1e-4, batched and one text at a time; then the substitution
//! filters.

use crate::common;

use metamorph_data::Error;
use metamorph_models::masked_lm::{CandleMaskedLm, FillOptions};
use metamorph_models::{MaskedLm, ModelOptions};
use serde_json::Value;

const HEADS: [&str; 4] = ["bert", "roberta", "deberta-v2", "deberta-v2-lm-predictions"];

fn load(name: &str) -> (CandleMaskedLm, Value) {
    let dir = common::fixture_dir(&format!("mlm/{name}"));
    let model = CandleMaskedLm::load_dir(&dir, name, &ModelOptions::default()).unwrap();
    (model, common::golden(&dir))
}

fn check(name: &str, got: &[Vec<(u32, f32)>], case: &Value, worst: &mut f32) {
    let masks = case["masks"].as_array().unwrap();
    assert_eq!(got.len(), masks.len(), "{name}: masked positions");
    for (top, want) in got.iter().zip(masks) {
        let ids: Vec<u32> = top.iter().map(|(id, _)| *id).collect();
        let want_ids: Vec<u32> = want["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(ids, want_ids, "{name}: top ids of {}", case["text"]);
        let probs: Vec<f32> = top.iter().map(|(_, p)| *p).collect();
        let want_probs = common::floats(&want["probs"]);
        common::assert_close(name, &probs, &want_probs, 1e-4);
        for (a, b) in probs.iter().zip(&want_probs) {
            *worst = worst.max((a - b).abs());
        }
    }
}

#[test]
fn top_k_ids_and_probabilities_match_transformers() {
    let mut worst = 0f32;
    for name in HEADS {
        let (model, golden) = load(name);
        let cases = golden["cases"].as_array().unwrap();
        let texts: Vec<&str> = cases.iter().map(|c| c["text"].as_str().unwrap()).collect();
        let top_k = golden["top_k"].as_u64().unwrap() as usize;
        let batched = model.top_k_ids(&texts, top_k).unwrap();
        for (case, got) in cases.iter().zip(&batched) {
            check(name, got, case, &mut worst);
            let alone = model
                .top_k_ids(&[case["text"].as_str().unwrap()], top_k)
                .unwrap();
            check(name, &alone[0], case, &mut worst);
        }
        assert_eq!(model.mask_token(), golden["mask_token"].as_str().unwrap());
    }
    eprintln!("largest probability difference: {worst:e}");
}

#[test]
fn fill_returns_the_predicted_words() {
    let (model, golden) = load("bert");
    let case = &golden["cases"][2];
    let filled = model.fill(&[case["text"].as_str().unwrap()], 3).unwrap();
    let tokens: Vec<&str> = case["masks"][0]["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .take(3)
        .map(|v| v.as_str().unwrap())
        .collect();
    let words: Vec<&str> = filled[0][0].iter().map(|c| c.word.as_str()).collect();
    assert_eq!(words, tokens);
}

#[test]
fn substitutes_are_whole_words_above_the_floor_and_not_the_original() {
    for name in HEADS {
        let (model, _) = load(name);
        let text = "The house is red.";
        // "house" is characters 4..9.
        let all = model
            .substitutes(
                text,
                (4, 9),
                &FillOptions {
                    top_k: 50,
                    ..FillOptions::default()
                },
                None,
            )
            .unwrap();
        assert!(!all.is_empty(), "{name}: no whole-word candidate among 50");
        for c in &all {
            assert!(c
                .word
                .chars()
                .all(|ch| ch.is_alphabetic() || ch == '\'' || ch == '-'));
            assert!(!c.word.eq_ignore_ascii_case("house"));
            assert!(
                !c.word.starts_with("##") && !c.word.starts_with('Ġ') && !c.word.starts_with('▁')
            );
        }
        assert!(
            all.windows(2).all(|w| w[0].prob >= w[1].prob),
            "{name}: best first"
        );
        let floor = all[0].prob;
        let above = model
            .substitutes(
                text,
                (4, 9),
                &FillOptions {
                    top_k: 50,
                    min_prob: floor,
                    same_pos: false,
                },
                None,
            )
            .unwrap();
        assert!(!above.is_empty() && above.iter().all(|c| c.prob >= floor));
        assert!(above.len() < all.len() || all.iter().all(|c| c.prob >= floor));
    }
}

#[test]
fn bad_inputs_are_clear_errors() {
    let (model, _) = load("roberta");
    let err = model.top_k_ids(&["no mask here"], 5).unwrap_err();
    assert!(
        matches!(err, Error::Model { .. }) && err.to_string().contains("no mask"),
        "{err}"
    );
    let err = model
        .substitutes("short", (3, 9), &FillOptions::default(), None)
        .unwrap_err();
    assert!(err.to_string().contains("3..9"), "{err}");
    let err = model
        .substitutes(
            "The house is red.",
            (4, 9),
            &FillOptions {
                top_k: 50,
                min_prob: 0.0,
                same_pos: true,
            },
            None,
        )
        .unwrap_err();
    assert!(matches!(err, Error::Config(_)), "{err}");
    let encoders = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/encoders/distilbert-qa");
    let err = CandleMaskedLm::load_dir(&encoders, "d", &ModelOptions::default()).unwrap_err();
    assert!(err.to_string().contains("distilbert"), "{err}");
}

/// With a parser, only candidates tagged like the replaced word survive (spaCy's
/// en_core_web_sm through the `parse` port; fetched into the asset cache on first use).
#[test]
fn same_pos_keeps_the_replaced_words_part_of_speech() {
    use metamorph_parse::spacy::pipeline::Pipeline;
    let dir = metamorph_data::assets::ensure("en_core_web_sm").unwrap();
    let parser = Pipeline::load(&dir).unwrap();
    let pos_at = |text: &str, at: u32| -> String {
        let docs = parser.process(&[text]).unwrap();
        let parsed = metamorph_parse::to_parsed_text("", "text", &docs[0]);
        parsed
            .tokens
            .iter()
            .find(|t| t.start == at)
            .map(|t| t.pos.clone())
            .unwrap_or_default()
    };
    let (model, _) = load("bert");
    let text = "The old house stood near the river.";
    // "house" is characters 8..13, a NOUN.
    let options = FillOptions {
        top_k: 100,
        min_prob: 0.0,
        same_pos: false,
    };
    let all = model.substitutes(text, (8, 13), &options, None).unwrap();
    let same = model
        .substitutes(
            text,
            (8, 13),
            &FillOptions {
                same_pos: true,
                ..options
            },
            Some(&parser),
        )
        .unwrap();
    assert!(same.len() <= all.len());
    assert!(same.iter().all(|c| all.contains(c)));
    let want = pos_at(text, 8);
    assert_eq!(want, "NOUN");
    for c in &same {
        let substituted = format!("The old {} stood near the river.", c.word);
        assert_eq!(pos_at(&substituted, 8), want, "{}", c.word);
    }
    // The filter removed what the tagger reads as another part of speech.
    let dropped: Vec<_> = all.iter().filter(|c| !same.contains(c)).collect();
    for c in dropped {
        let substituted = format!("The old {} stood near the river.", c.word);
        assert_ne!(pos_at(&substituted, 8), want, "{}", c.word);
    }
}

#[test]
fn span_pseudo_log_likelihoods_match_transformers() {
    for name in HEADS {
        let dir = common::fixture_dir(&format!("mlm/{name}"));
        let model = CandleMaskedLm::load_dir(&dir, name, &ModelOptions::default()).unwrap();
        let golden: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("pll.json")).unwrap()).unwrap();
        let cases = golden["cases"].as_array().unwrap();
        let requests: Vec<(&str, std::ops::Range<usize>)> = cases
            .iter()
            .map(|c| {
                let span = c["span"].as_array().unwrap();
                let (a, b) = (span[0].as_u64().unwrap(), span[1].as_u64().unwrap());
                (c["text"].as_str().unwrap(), a as usize..b as usize)
            })
            .collect();
        // Batches smaller than one request's pieces, and one batch for all.
        for batch in [3, 64] {
            let got = model.span_pseudo_log_likelihoods(&requests, batch).unwrap();
            for ((pll, pieces), case) in got.iter().zip(cases) {
                assert_eq!(
                    *pieces as u64,
                    case["pieces"].as_u64().unwrap(),
                    "{name}: pieces of {}",
                    case["text"]
                );
                let want = case["pll"].as_f64().unwrap() as f32;
                assert!(
                    (pll - want).abs() <= 1e-3 * want.abs().max(1.0),
                    "{name}: {pll} against {want} for {}",
                    case["text"]
                );
            }
        }
    }
    let (model, _) = load("bert");
    assert!(model
        .span_pseudo_log_likelihoods(&[("short text", 3..40)], 8)
        .is_err());
    assert_eq!(
        model
            .span_pseudo_log_likelihoods(&[("short text", 5..5)], 8)
            .unwrap(),
        vec![(0.0, 0)]
    );
}
