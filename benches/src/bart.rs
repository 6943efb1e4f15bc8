//! A random-weight BART with bart-base's shape for the generation benches
//! (`benches/generate.rs`, `src/bin/generate_vs_torch.rs`).
//!
//! The checkpoint is written once, as an ordinary `config.json` + `model.safetensors` directory,
//! so that metamorph's `Bart::load` and `transformers`' `from_pretrained`
//! (`scripts/bart_speed.py`) read the very same weights. Random weights decode to arbitrary
//! tokens, so every speed run forces its outputs to a fixed length
//! (`min_new_tokens = max_new_tokens`): both sides then do the same work.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use candle_core::{Device, Tensor};

/// bart-base's shape: d_model 768, 6 + 6 layers, 12 heads, feed-forward 3072, vocabulary
/// 50265, 1024 positions; the special tokens of `facebook/bart-base`.
pub const BART_BASE_CONFIG: &str = r#"{
  "model_type": "bart",
  "architectures": ["BartForConditionalGeneration"],
  "vocab_size": 50265,
  "d_model": 768,
  "encoder_layers": 6,
  "decoder_layers": 6,
  "encoder_attention_heads": 12,
  "decoder_attention_heads": 12,
  "encoder_ffn_dim": 3072,
  "decoder_ffn_dim": 3072,
  "activation_function": "gelu",
  "max_position_embeddings": 1024,
  "scale_embedding": false,
  "pad_token_id": 1,
  "bos_token_id": 0,
  "eos_token_id": 2,
  "decoder_start_token_id": 2,
  "forced_bos_token_id": 0,
  "forced_eos_token_id": 2,
  "tie_word_embeddings": true,
  "is_encoder_decoder": true,
  "dropout": 0.0,
  "attention_dropout": 0.0,
  "activation_dropout": 0.0
}
"#;

/// Where the bench checkpoint lives: `target/bench-models/bart-base-random/` of the workspace
/// (or of `CARGO_TARGET_DIR`).
pub fn default_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("bench-models").join("bart-base-random")
}

/// Writes the random bart-base-shaped checkpoint into `dir` unless it is already there, and
/// returns `dir`. Written under a temporary name and renamed, so an interrupted run leaves no
/// half-written checkpoint. The tokenizer is the tiny BART fixture's (the benches feed ids).
///
/// # Errors
/// When a file cannot be written.
pub fn ensure_checkpoint(dir: &Path) -> Result<PathBuf, Box<dyn std::error::Error>> {
    if dir.join("model.safetensors").is_file() {
        return Ok(dir.to_path_buf());
    }
    let parent = dir
        .parent()
        .ok_or("the checkpoint directory has no parent")?;
    std::fs::create_dir_all(parent)?;
    let tmp = parent.join(format!(
        ".{}.partial",
        dir.file_name().and_then(|n| n.to_str()).unwrap_or("bart")
    ));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp)?;
    }
    std::fs::create_dir_all(&tmp)?;
    std::fs::write(tmp.join("config.json"), BART_BASE_CONFIG)?;
    let fixture_tokenizer = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../generate/tests/fixtures/bart-tiny/tokenizer.json");
    std::fs::copy(fixture_tokenizer, tmp.join("tokenizer.json"))?;
    candle_core::safetensors::save(&random_weights(0)?, tmp.join("model.safetensors"))?;
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::rename(&tmp, dir)?;
    Ok(dir.to_path_buf())
}

/// Seeded weights named as in a `transformers` `BartForConditionalGeneration` checkpoint with
/// [`BART_BASE_CONFIG`] (the LM head is tied to `model.shared`).
fn random_weights(seed: u64) -> candle_core::Result<HashMap<String, Tensor>> {
    const D: usize = 768;
    const FFN: usize = 3072;
    const VOCAB: usize = 50265;
    const POSITIONS: usize = 1024 + 2;
    let mut seed = seed;
    let mut map = HashMap::new();
    let mut put = |name: String, shape: &[usize], center: f32, scale: f32| {
        let v: Vec<f32> = crate::uniform(&mut seed, shape.iter().product(), scale)
            .into_iter()
            .map(|x| x + center)
            .collect();
        map.insert(name, Tensor::from_vec(v, shape, &Device::Cpu)?);
        candle_core::Result::Ok(())
    };
    put("model.shared.weight".into(), &[VOCAB, D], 0.0, 0.05)?;
    put("final_logits_bias".into(), &[1, VOCAB], 0.0, 0.0)?;
    for part in ["encoder", "decoder"] {
        let p = format!("model.{part}");
        put(
            format!("{p}.embed_positions.weight"),
            &[POSITIONS, D],
            0.0,
            0.05,
        )?;
        put(format!("{p}.layernorm_embedding.weight"), &[D], 1.0, 0.1)?;
        put(format!("{p}.layernorm_embedding.bias"), &[D], 0.0, 0.05)?;
        let attentions: &[&str] = if part == "encoder" {
            &["self_attn"]
        } else {
            &["self_attn", "encoder_attn"]
        };
        for layer in 0..6 {
            let l = format!("{p}.layers.{layer}");
            for attn in attentions {
                for proj in ["q_proj", "k_proj", "v_proj", "out_proj"] {
                    put(format!("{l}.{attn}.{proj}.weight"), &[D, D], 0.0, 0.05)?;
                    put(format!("{l}.{attn}.{proj}.bias"), &[D], 0.0, 0.02)?;
                }
                put(format!("{l}.{attn}_layer_norm.weight"), &[D], 1.0, 0.1)?;
                put(format!("{l}.{attn}_layer_norm.bias"), &[D], 0.0, 0.05)?;
            }
            put(format!("{l}.fc1.weight"), &[FFN, D], 0.0, 0.05)?;
            put(format!("{l}.fc1.bias"), &[FFN], 0.0, 0.02)?;
            put(format!("{l}.fc2.weight"), &[D, FFN], 0.0, 0.03)?;
            put(format!("{l}.fc2.bias"), &[D], 0.0, 0.02)?;
            put(format!("{l}.final_layer_norm.weight"), &[D], 1.0, 0.1)?;
            put(format!("{l}.final_layer_norm.bias"), &[D], 0.0, 0.05)?;
        }
    }
    Ok(map)
}

/// `batch` inputs of `len` seeded token ids each, framed like BART inputs (`<s> … </s>`).
pub fn inputs(batch: usize, len: usize, seed: u64) -> Vec<Vec<u32>> {
    let mut seed = seed;
    (0..batch)
        .map(|_| {
            let body = crate::uniform(&mut seed, len.saturating_sub(2), 1.0)
                .into_iter()
                .map(|x| 5 + ((x + 1.0) / 2.0 * 49_990.0) as u32);
            std::iter::once(0)
                .chain(body)
                .chain(std::iter::once(2))
                .collect()
        })
        .collect()
}
