//! `FastBert` against candle-transformers' `BertModel` on seeded random weights: same hidden
//! states (within 1e-4, f32) for padded batches, every hidden activation, checkpoint prefixes,
//! and clear errors for bad inputs. (The MiniLM golden test covers a real checkpoint.)

use std::collections::HashMap;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, HiddenAct};
use metamorph_models::FastBert;

/// Seeded uniform values in [-scale, scale] (splitmix64), so the weights are the same every run.
fn values(seed: &mut u64, n: usize, scale: f32) -> Vec<f32> {
    (0..n)
        .map(|_| {
            *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = *seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            ((z >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

fn config(act: HiddenAct, hidden: usize, heads: usize, layers: usize) -> Config {
    Config {
        vocab_size: 97,
        hidden_size: hidden,
        num_hidden_layers: layers,
        num_attention_heads: heads,
        intermediate_size: 2 * hidden,
        hidden_act: act,
        max_position_embeddings: 40,
        type_vocab_size: 2,
        ..Config::default()
    }
}

/// Random weights with the names of a transformers `BertModel` checkpoint, under `prefix`.
fn weights(config: &Config, prefix: &str, seed: u64) -> HashMap<String, Tensor> {
    let mut seed = seed;
    let mut map = HashMap::new();
    let (h, i) = (config.hidden_size, config.intermediate_size);
    let mut put = |name: String, shape: &[usize], center: f32, scale: f32| {
        let n = shape.iter().product();
        let v: Vec<f32> = values(&mut seed, n, scale)
            .into_iter()
            .map(|x| x + center)
            .collect();
        map.insert(
            format!("{prefix}{name}"),
            Tensor::from_vec(v, shape, &Device::Cpu).unwrap(),
        );
    };
    put(
        "embeddings.word_embeddings.weight".into(),
        &[config.vocab_size, h],
        0.0,
        1.0,
    );
    put(
        "embeddings.position_embeddings.weight".into(),
        &[config.max_position_embeddings, h],
        0.0,
        0.5,
    );
    put(
        "embeddings.token_type_embeddings.weight".into(),
        &[config.type_vocab_size, h],
        0.0,
        0.5,
    );
    let mut norms = vec!["embeddings.LayerNorm".to_string()];
    for l in 0..config.num_hidden_layers {
        norms.push(format!("encoder.layer.{l}.attention.output.LayerNorm"));
        norms.push(format!("encoder.layer.{l}.output.LayerNorm"));
    }
    for name in norms {
        put(format!("{name}.weight"), &[h], 1.0, 0.2);
        put(format!("{name}.bias"), &[h], 0.0, 0.2);
    }
    for l in 0..config.num_hidden_layers {
        let p = format!("encoder.layer.{l}");
        for (name, out, inp) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", i, h),
            ("output.dense", h, i),
        ] {
            let scale = 1.7 / (inp as f32).sqrt();
            put(format!("{p}.{name}.weight"), &[out, inp], 0.0, scale);
            put(format!("{p}.{name}.bias"), &[out], 0.0, 0.1);
        }
    }
    map
}

/// Ragged batch: row r has `len - 3r` real tokens, the rest padding; type ids switch halfway.
fn inputs(rows: usize, width: usize, vocab: u32) -> (Tensor, Tensor, Tensor) {
    let mut ids = Vec::new();
    let mut types = Vec::new();
    let mut mask = Vec::new();
    for r in 0..rows {
        let real = width.saturating_sub(3 * r).max(1);
        for t in 0..width {
            ids.push(if t < real {
                (7 * r as u32 + 13 * t as u32) % vocab
            } else {
                0
            });
            types.push(u32::from(t >= real / 2 && t < real));
            mask.push(u32::from(t < real));
        }
    }
    let t = |v: Vec<u32>| Tensor::from_vec(v, (rows, width), &Device::Cpu).unwrap();
    (t(ids), t(types), t(mask))
}

/// Largest absolute difference over the real (unmasked) positions.
fn worst_diff(a: &Tensor, b: &Tensor, mask: &Tensor) -> f32 {
    let m = mask.to_dtype(DType::F32).unwrap().unsqueeze(2).unwrap();
    (a - b)
        .unwrap()
        .abs()
        .unwrap()
        .broadcast_mul(&m)
        .unwrap()
        .max_all()
        .unwrap()
        .to_scalar::<f32>()
        .unwrap()
}

fn compare(config: &Config, prefix: &str, rows: usize, width: usize) -> f32 {
    let vb = VarBuilder::from_tensors(weights(config, prefix, 42), DType::F32, &Device::Cpu);
    let reference = BertModel::load(vb.clone(), config).unwrap();
    let fast = FastBert::load(vb, config).unwrap();
    let (ids, types, mask) = inputs(rows, width, config.vocab_size as u32);
    let expected = reference.forward(&ids, &types, Some(&mask)).unwrap();
    let got = fast.forward(&ids, &types, Some(&mask)).unwrap();
    assert_eq!(got.dims(), expected.dims());
    worst_diff(&got, &expected, &mask)
}

#[test]
fn matches_bert_model_for_every_activation() {
    for act in [HiddenAct::Gelu, HiddenAct::GeluApproximate, HiddenAct::Relu] {
        let worst = compare(&config(act, 48, 4, 2), "", 4, 19);
        assert!(worst < 1e-4, "{act:?}: worst difference {worst}");
    }
}

#[test]
fn matches_bert_model_with_bert_base_heads() {
    // 12 heads of 64, BERT-base's head shape, on one layer.
    let worst = compare(&config(HiddenAct::Gelu, 768, 12, 1), "", 3, 33);
    assert!(worst < 1e-4, "worst difference {worst}");
}

#[test]
fn loads_prefixed_checkpoints() {
    let worst = compare(&config(HiddenAct::Gelu, 32, 2, 1), "bert.", 2, 9);
    assert!(worst < 1e-4, "worst difference {worst}");
}

#[test]
fn single_row_without_mask_matches() {
    let config = config(HiddenAct::Gelu, 32, 4, 2);
    let vb = VarBuilder::from_tensors(weights(&config, "", 7), DType::F32, &Device::Cpu);
    let reference = BertModel::load(vb.clone(), &config).unwrap();
    let fast = FastBert::load(vb, &config).unwrap();
    let (ids, types, mask) = inputs(1, 40, config.vocab_size as u32);
    let expected = reference.forward(&ids, &types, None).unwrap();
    let got = fast.forward(&ids, &types, None).unwrap();
    assert!(worst_diff(&got, &expected, &mask.ones_like().unwrap()) < 1e-4);
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let config = config(HiddenAct::Gelu, 32, 4, 1);
    let vb = VarBuilder::from_tensors(weights(&config, "", 1), DType::F32, &Device::Cpu);
    let fast = FastBert::load(vb, &config).unwrap();
    let err = fast
        .forward_slices(&[1, 2, 97], &[0, 0, 0], &[1, 1, 1], 1, 3)
        .unwrap_err();
    assert!(err.to_string().contains("token id 97"), "{err}");
    let err = fast
        .forward_slices(&[1, 2, 3], &[0, 2, 0], &[1, 1, 1], 1, 3)
        .unwrap_err();
    assert!(err.to_string().contains("token type id 2"), "{err}");
    let err = fast
        .forward_slices(&[1, 2], &[0, 0, 0], &[1, 1, 1], 1, 3)
        .unwrap_err();
    assert!(
        err.to_string().contains("input_ids holds 2 values"),
        "{err}"
    );
    let long = vec![1u32; 41];
    let err = fast
        .forward_slices(&long, &[0; 41], &[1; 41], 1, 41)
        .unwrap_err();
    assert!(
        err.to_string().contains("max_position_embeddings 40"),
        "{err}"
    );
}

#[test]
fn missing_tensor_is_named() {
    let config = config(HiddenAct::Gelu, 32, 4, 1);
    let mut map = weights(&config, "", 1);
    map.remove("encoder.layer.0.intermediate.dense.weight");
    let vb = VarBuilder::from_tensors(map, DType::F32, &Device::Cpu);
    let err = FastBert::load(vb, &config).err().expect("load fails");
    assert!(
        err.to_string().contains("intermediate.dense.weight"),
        "{err}"
    );
}
