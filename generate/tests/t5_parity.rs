//! Parity of the candle T5 and the decoding code with `transformers` 5 on the tiny random
//! T5 of `scripts/t5_fixtures.py` (`cargo xtask fixtures t5`): identical `generate()`
//! token ids for every decoding case, batched and one input at a time, encoder states within
//! 1e-4 and decoder logits within 1e-5 of the largest logit (they reach 50 on this model; the
//! largest difference measured is 3.0e-4, a relative 6e-6, i.e. float32 rounding).

use std::path::PathBuf;

use candle_core::Tensor;
use metamorph_data::assets::{HubOptions, ModelSource};
use metamorph_data::Error;
use metamorph_generate::decoding::generate_ids;
use metamorph_generate::{DecodingOptions, Seq2Seq};
use metamorph_models::t5::T5;
use metamorph_models::ModelOptions;
use serde_json::Value;

use crate::common;

use common::{assert_close, floats, ids, options, texts};

fn fixture_dir() -> PathBuf {
    common::fixture_dir("t5-tiny")
}

fn golden() -> Value {
    common::golden(&fixture_dir())
}

fn model() -> T5 {
    T5::load(&fixture_dir(), "t5-tiny", ModelOptions::default()).unwrap()
}

#[test]
fn tokenizer_gives_the_reference_input_ids() {
    let golden = golden();
    let inputs = texts(&golden);
    assert_eq!(
        model().tokenize(&inputs).unwrap(),
        ids(&golden["input_ids"])
    );
}

#[test]
fn encoder_states_and_decoder_logits_match() {
    let golden = golden();
    let model = model();
    let inputs = ids(&golden["input_ids"]);
    let encoded = model.encode(&inputs).unwrap();
    let hidden = &golden["forward"]["encoder_hidden"];
    for (b, row) in inputs.iter().enumerate() {
        let got = encoded
            .hidden
            .get(b)
            .unwrap()
            .narrow(0, 0, row.len())
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        assert_close(
            &format!("encoder input {b}"),
            &got,
            &floats(&hidden[b]),
            1e-4,
        );
    }
    let decoder_ids = ids(&golden["forward"]["decoder_input_ids"]);
    let tokens = Tensor::new(decoder_ids, &candle_core::Device::Cpu).unwrap();
    let mut session = model.session(&encoded, 1).unwrap();
    let logits = session.forward(&tokens).unwrap();
    let got = logits.flatten_all().unwrap().to_vec1::<f32>().unwrap();
    let want = floats(&golden["forward"]["logits"]);
    let scale = want.iter().fold(0f32, |m, x| m.max(x.abs()));
    assert_close("decoder logits", &got, &want, 1e-5 * scale);
}

#[test]
fn generate_ids_match_transformers_batched_and_one_by_one() {
    let golden = golden();
    let model = model();
    let inputs = ids(&golden["input_ids"]);
    for case in golden["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let options = options(case);
        assert_eq!(
            generate_ids(&model, &inputs, &options).unwrap(),
            ids(&case["batched"]),
            "{name}, batched"
        );
        for (i, (input, want)) in inputs.iter().zip(ids(&case["single"])).enumerate() {
            assert_eq!(
                generate_ids(&model, std::slice::from_ref(input), &options).unwrap(),
                [want],
                "{name}, input {i} alone"
            );
        }
    }
}

#[test]
fn seq2seq_decodes_the_generated_ids_without_special_tokens() {
    let golden = golden();
    let model = model();
    let case = &golden["cases"][0];
    let inputs = texts(&golden);
    let texts = model.generate(&inputs, &options(case)).unwrap();
    for (text, ids) in texts.iter().zip(ids(&case["batched"])) {
        assert_eq!(text, &model.tokenizer().decode(&ids, true).unwrap());
        assert!(!text.contains("</s>") && !text.contains("<pad>"), "{text}");
    }
    assert_eq!(Seq2Seq::name(&model), "t5-tiny");
}

#[test]
fn loading_problems_name_the_file() {
    let missing = ModelSource::Local(PathBuf::from("/nonexistent/bart"));
    let err =
        T5::from_source(&missing, &HubOptions::default(), ModelOptions::default()).unwrap_err();
    assert!(matches!(err, Error::Asset { .. }), "{err}");
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "tokenizer.json",
        "model.safetensors",
        "generation_config.json",
    ] {
        std::fs::copy(fixture_dir().join(file), dir.path().join(file)).unwrap();
    }
    std::fs::write(dir.path().join("config.json"), r#"{"model_type": "bart"}"#).unwrap();
    let err = T5::load(dir.path(), "x", ModelOptions::default()).unwrap_err();
    assert!(err.to_string().contains("config.json"), "{err}");
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture_dir().join("config.json")).unwrap())
            .unwrap();
    config["d_model"] = 48.into();
    std::fs::write(dir.path().join("config.json"), config.to_string()).unwrap();
    let err = T5::load(dir.path(), "x", ModelOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("model.safetensors") && err.to_string().contains("do not fit"),
        "{err}"
    );
}

#[test]
fn bad_inputs_are_model_errors() {
    let model = model();
    let err = generate_ids(&model, &[vec![]], &DecodingOptions::default()).unwrap_err();
    assert!(
        matches!(err, Error::Model { .. }) && err.to_string().contains("input 0"),
        "{err}"
    );
    let err =
        generate_ids(&model, &[vec![0, 100_000, 2]], &DecodingOptions::default()).unwrap_err();
    assert!(err.to_string().contains("100000"), "{err}");
    assert_eq!(
        model.generate(&[], &DecodingOptions::default()).unwrap(),
        Vec::<String>::new()
    );
    // A session's rows are its inputs × beams: any other count is an error, not a silent
    // mix-up of which encoder output a row attends to.
    let encoded = model.encode(&[vec![100, 1], vec![200, 1]]).unwrap();
    assert!(model.session(&encoded, 0).is_err());
    let mut session = model.session(&encoded, 2).unwrap();
    let three_rows = Tensor::new(&[[0u32], [0], [0]], &candle_core::Device::Cpu).unwrap();
    let err = session.forward(&three_rows).unwrap_err();
    assert!(err.to_string().contains("2 inputs × 2 beams"), "{err}");
    let four_rows = Tensor::new(&[[0u32], [0], [0], [0]], &candle_core::Device::Cpu).unwrap();
    assert_eq!(session.forward(&four_rows).unwrap().dims(), &[4, 1, 384]);
}

/// Half-precision weights run on CPU; their logits stay near the `f32` reference (loose bounds:
/// f16 carries 11 significant bits, bf16 8; measured 1.4% and 17% of the largest logit on this
/// peaky random model) and greedy decoding gives well-formed output.
#[test]
fn half_precision_runs_close_to_f32() {
    let golden = golden();
    let inputs = ids(&golden["input_ids"]);
    let want = floats(&golden["forward"]["logits"]);
    let scale = want.iter().fold(0f32, |m, x| m.max(x.abs()));
    for (dtype, bound) in [
        (candle_core::DType::F16, 0.02),
        (candle_core::DType::BF16, 0.25),
    ] {
        let options = ModelOptions {
            dtype,
            ..ModelOptions::default()
        };
        let model = T5::load(&fixture_dir(), "t5-tiny", options).unwrap();
        let encoded = model.encode(&inputs).unwrap();
        let decoder_ids = ids(&golden["forward"]["decoder_input_ids"]);
        let tokens = Tensor::new(decoder_ids, &candle_core::Device::Cpu).unwrap();
        let logits = model
            .session(&encoded, 1)
            .unwrap()
            .forward(&tokens)
            .unwrap();
        let got = logits.flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let worst = got
            .iter()
            .zip(&want)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max);
        eprintln!("{dtype:?}: max abs logit difference {worst} (largest logit {scale})");
        assert!(
            worst <= bound * scale,
            "{dtype:?}: {worst} vs scale {scale}"
        );
        let out = generate_ids(&model, &inputs, &DecodingOptions::default()).unwrap();
        assert_eq!(out.len(), inputs.len());
        for row in out {
            assert_eq!(row[0], 0, "decoder start");
            assert!(row
                .iter()
                .all(|&t| (t as usize) < model.config().vocab_size));
        }
    }
}
