//! Random-weight BERT encoders for the throughput benches (`benches/execute.rs`,
//! `src/bin/encoder_vs_torch.rs`): the BERT-base shape, seeded weights with a checkpoint's
//! tensor names, and the two CPU forward passes side by side — metamorph's `FastBert` and
//! candle-transformers' `BertModel`.

use std::collections::HashMap;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use metamorph_models::FastBert;

/// BERT-base: hidden 768, 12 layers, 12 heads, intermediate 3072, vocab 30522, GELU (erf),
/// 512 positions; `layers` overrides the depth (12 for BERT-base).
pub fn bert_base(layers: usize) -> Config {
    Config {
        num_hidden_layers: layers,
        ..Config::default()
    }
}

/// Random f32 weights named as in a transformers `BertModel` checkpoint, on the CPU.
pub fn random_weights(config: &Config, seed: u64) -> VarBuilder<'static> {
    let mut seed = seed;
    let mut map = HashMap::new();
    let (h, i) = (config.hidden_size, config.intermediate_size);
    let mut put = |name: String, shape: &[usize], center: f32, scale: f32| {
        let v: Vec<f32> = crate::uniform(&mut seed, shape.iter().product(), scale)
            .into_iter()
            .map(|x| x + center)
            .collect();
        let tensor = Tensor::from_vec(v, shape, &Device::Cpu).expect("shape matches");
        map.insert(name, tensor);
    };
    put(
        "embeddings.word_embeddings.weight".into(),
        &[config.vocab_size, h],
        0.0,
        0.05,
    );
    put(
        "embeddings.position_embeddings.weight".into(),
        &[config.max_position_embeddings, h],
        0.0,
        0.05,
    );
    put(
        "embeddings.token_type_embeddings.weight".into(),
        &[config.type_vocab_size, h],
        0.0,
        0.05,
    );
    let norms = |l: Option<usize>| -> Vec<String> {
        match l {
            None => vec!["embeddings.LayerNorm".into()],
            Some(l) => vec![
                format!("encoder.layer.{l}.attention.output.LayerNorm"),
                format!("encoder.layer.{l}.output.LayerNorm"),
            ],
        }
    };
    for name in std::iter::once(None)
        .chain((0..config.num_hidden_layers).map(Some))
        .flat_map(norms)
    {
        put(format!("{name}.weight"), &[h], 1.0, 0.1);
        put(format!("{name}.bias"), &[h], 0.0, 0.1);
    }
    for l in 0..config.num_hidden_layers {
        for (name, out, inp) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", i, h),
            ("output.dense", h, i),
        ] {
            let scale = 1.7 / (inp as f32).sqrt();
            put(
                format!("encoder.layer.{l}.{name}.weight"),
                &[out, inp],
                0.0,
                scale,
            );
            put(format!("encoder.layer.{l}.{name}.bias"), &[out], 0.0, 0.02);
        }
    }
    VarBuilder::from_tensors(map, DType::F32, &Device::Cpu)
}

/// `[batch, seq]` random token ids (1000..30000, as the PyTorch script), type ids 0, mask 1.
pub fn inputs(batch: usize, seq: usize, seed: u64) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut seed = seed;
    let ids = crate::uniform(&mut seed, batch * seq, 1.0)
        .into_iter()
        .map(|x| 1000 + ((x + 1.0) * 14_499.0) as u32)
        .collect();
    (ids, vec![0; batch * seq], vec![1; batch * seq])
}

/// A CPU f32 BERT forward pass under test.
pub enum Encoder {
    /// metamorph's `FastBert`.
    Fast(FastBert),
    /// candle-transformers' `BertModel` (op by op).
    Candle(BertModel),
}

impl Encoder {
    /// Loads `backend` (`fast` or `candle`) with `vb`'s weights.
    pub fn load(backend: &str, vb: VarBuilder, config: &Config) -> candle_core::Result<Self> {
        match backend {
            "fast" => FastBert::load(vb, config).map(Encoder::Fast),
            "candle" => BertModel::load(vb, config).map(Encoder::Candle),
            other => candle_core::bail!("unknown backend `{other}` (fast, candle)"),
        }
    }

    /// The last hidden states of one padded batch, summed (so nothing is optimized away).
    pub fn forward(
        &self,
        (ids, types, mask): &(Vec<u32>, Vec<u32>, Vec<u32>),
        batch: usize,
        seq: usize,
    ) -> candle_core::Result<f32> {
        match self {
            Encoder::Fast(model) => Ok(model
                .forward_slices(ids, types, mask, batch, seq)?
                .iter()
                .sum()),
            Encoder::Candle(model) => {
                let t = |v: &[u32]| Tensor::from_slice(v, (batch, seq), &Device::Cpu);
                model
                    .forward(&t(ids)?, &t(types)?, Some(&t(mask)?))?
                    .sum_all()?
                    .to_scalar::<f32>()
            }
        }
    }
}
