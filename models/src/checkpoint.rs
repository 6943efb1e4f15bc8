//! What the seq2seq and masked-LM models of this crate share: device and float type, special tokens from
//! `config.json` overridden by `generation_config.json`, and text in and out through
//! `tokenizer.json` with errors naming the model and the input.

use std::path::Path;

use candle_core::{DType, Device};
use metamorph_data::{Error, Result};
use serde::Deserialize;
use tokenizers::Tokenizer;

use crate::seq2seq::SpecialTokens;

/// The optional file with generation defaults next to `config.json`.
pub(crate) const GENERATION_CONFIG: &str = "generation_config.json";

/// The keys of `generation_config.json` that override `config.json`'s.
#[derive(Debug, Default, Deserialize)]
struct GenerationKeys {
    #[serde(default)]
    decoder_start_token_id: Option<u32>,
    #[serde(default)]
    forced_bos_token_id: Option<u32>,
    #[serde(default)]
    forced_eos_token_id: Option<u32>,
    #[serde(default)]
    pad_token_id: Option<u32>,
    #[serde(default)]
    eos_token_id: Option<OneOrMany>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(u32),
    Many(Vec<u32>),
}

/// Where the model runs and in which float type.
#[derive(Clone, Debug)]
pub struct ModelOptions {
    /// Device (CPU by default).
    pub device: Device,
    /// Weight and activation type: `F32` (default), `F16` or `BF16`. Logits go to `f32` for
    /// decoding.
    pub dtype: DType,
}

impl Default for ModelOptions {
    fn default() -> Self {
        ModelOptions {
            device: Device::Cpu,
            dtype: DType::F32,
        }
    }
}

pub(crate) fn asset_err(path: &Path, message: impl Into<String>) -> Error {
    Error::Asset {
        name: path.display().to_string(),
        message: message.into(),
    }
}

/// The special tokens from `config.json`, overridden by `generation_config.json` when present.
pub(crate) fn special_tokens(
    defaults: SpecialTokens,
    vocab_size: usize,
    generation_path: &Path,
) -> Result<SpecialTokens> {
    let keys: GenerationKeys = if generation_path.is_file() {
        let text =
            std::fs::read_to_string(generation_path).map_err(|e| Error::io(generation_path, e))?;
        serde_json::from_str(&text)
            .map_err(|e| asset_err(generation_path, format!("invalid generation config: {e}")))?
    } else {
        GenerationKeys::default()
    };
    let eos = match keys.eos_token_id {
        None => defaults.eos,
        Some(OneOrMany::One(id)) => id,
        Some(OneOrMany::Many(ids)) if ids.len() == 1 => ids[0],
        Some(OneOrMany::Many(ids)) => {
            return Err(asset_err(
                generation_path,
                format!("{} end-of-sequence tokens; one is supported", ids.len()),
            ))
        }
    };
    let special = SpecialTokens {
        decoder_start: keys
            .decoder_start_token_id
            .unwrap_or(defaults.decoder_start),
        eos,
        pad: keys.pad_token_id.unwrap_or(defaults.pad),
        forced_bos: keys.forced_bos_token_id.or(defaults.forced_bos),
        forced_eos: keys.forced_eos_token_id.or(defaults.forced_eos),
    };
    let vocab = vocab_size as u32;
    let ids = [
        Some(special.decoder_start),
        Some(special.eos),
        Some(special.pad),
        special.forced_bos,
        special.forced_eos,
    ];
    if let Some(bad) = ids.into_iter().flatten().find(|&id| id >= vocab) {
        return Err(asset_err(
            generation_path,
            format!("special token id {bad} is outside the vocabulary of {vocab}"),
        ));
    }
    Ok(special)
}

/// A run-time error of the model `name`.
pub(crate) fn model_err(name: &str, message: impl std::fmt::Display) -> Error {
    Error::Model {
        model: name.to_string(),
        message: message.to_string(),
    }
}

/// A run-time error of the model `model`, saying what was being done.
pub(crate) fn model_error(model: &str, doing: &str, e: impl std::fmt::Display) -> Error {
    model_err(model, format!("{doing}: {e}"))
}

/// Token ids of each text (special tokens added, truncation as `tokenizer` is set up).
pub(crate) fn tokenize(tokenizer: &Tokenizer, name: &str, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            tokenizer
                .encode(*text, true)
                .map(|e| e.get_ids().to_vec())
                .map_err(|e| model_err(name, format!("input {i}: tokenization failed: {e}")))
        })
        .collect()
}

/// The text of each output's token ids, special tokens skipped.
pub(crate) fn decode(
    tokenizer: &Tokenizer,
    name: &str,
    outputs: &[Vec<u32>],
) -> Result<Vec<String>> {
    outputs
        .iter()
        .enumerate()
        .map(|(i, ids)| {
            tokenizer
                .decode(ids, true)
                .map_err(|e| model_err(name, format!("input {i}: cannot decode the output: {e}")))
        })
        .collect()
}
