//! A `tokenizers::Tokenizer` built from a GGUF file's `tokenizer.ggml.*` metadata, so a model
//! file is all a causal LM needs.
//!
//! Two vocabularies occur in the files metamorph runs:
//! * **`gpt2`** (SmolLM2, Llama 3, Qwen): byte-level BPE with explicit merges. The
//!   pre-tokenizer is chosen by `tokenizer.ggml.pre` as llama.cpp chooses it: `smollm` splits
//!   every digit off first, then the GPT-2 pattern (the `Digits` + `ByteLevel` pipeline of
//!   SmolLM2's own `tokenizer.json`); `gpt2`/`default` is the GPT-2 pattern alone; `llama-bpe`
//!   (Llama 3) and `qwen2` their patterns. Another `pre` is refused by name rather than
//!   tokenized differently from the model's training.
//! * **`llama`** (SentencePiece, e.g. Gemma 3): pieces with scores and types. As `transformers`
//!   converts such a vocabulary, the merges are every split of a piece into two pieces of the
//!   vocabulary, ranked by the merged piece's score; spaces become `▁` (with a leading `▁` only
//!   where `tokenizer.ggml.add_space_prefix` is true); bytes the vocabulary lacks fall back to
//!   the `<0xNN>` pieces.
//!
//! Control pieces (type 3) become special added tokens, user-defined ones (type 4) added
//! tokens matched before the model runs, as both references do. Special tokens are never added
//! by [`encode`](tokenizers::Tokenizer::encode) here: callers place the start token themselves.

use std::collections::HashMap;

use candle_core::quantized::gguf_file::{Content, Value};
use tokenizers::decoders::byte_fallback::ByteFallback;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::decoders::fuse::Fuse;
use tokenizers::decoders::sequence::Sequence as DecoderSequence;
use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::normalizers::{Prepend, Replace};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::{
    AddedToken, DecoderWrapper, NormalizerWrapper, SplitDelimiterBehavior, Tokenizer,
};

use super::decoder::bad_file;
use metamorph_data::Result;

/// llama.cpp's `LLAMA_TOKEN_TYPE_*` codes.
const CONTROL: u32 = 3;
const USER_DEFINED: u32 = 4;

/// The special ids a file declares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecialIds {
    /// `tokenizer.ggml.bos_token_id`.
    pub bos: Option<u32>,
    /// `tokenizer.ggml.eos_token_id`.
    pub eos: Option<u32>,
    /// `tokenizer.ggml.padding_token_id`.
    pub pad: Option<u32>,
    /// `tokenizer.ggml.add_bos_token`: whether the model expects its start token first.
    pub add_bos: bool,
}

/// The tokenizer and special ids of `content`.
///
/// # Errors
/// [`metamorph_data::Error::Asset`] naming `file` and the missing or unsupported key.
pub fn from_gguf(content: &Content, file: &str) -> Result<(Tokenizer, SpecialIds)> {
    let bad = |message: String| bad_file(file, message);
    let get = |key: &str| content.metadata.get(key);
    let string = |key: &str| get(key).and_then(|v| v.to_string().ok()).cloned();
    let strings = |key: &str| -> Result<Vec<String>> {
        let values = get(key)
            .ok_or_else(|| bad(format!("no `{key}` in its metadata")))?
            .to_vec()
            .map_err(|e| bad(format!("`{key}`: {e}")))?;
        values
            .iter()
            .map(|v| {
                v.to_string()
                    .cloned()
                    .map_err(|e| bad(format!("`{key}`: {e}")))
            })
            .collect()
    };
    let id = |key: &str| get(key).and_then(as_u32);
    let flag = |key: &str| get(key).and_then(|v| v.to_bool().ok());

    let kind = string("tokenizer.ggml.model")
        .ok_or_else(|| bad("no `tokenizer.ggml.model` in its metadata".into()))?;
    let tokens = strings("tokenizer.ggml.tokens")?;
    let types: Vec<u32> = match get("tokenizer.ggml.token_type") {
        Some(v) => v
            .to_vec()
            .map_err(|e| bad(format!("`tokenizer.ggml.token_type`: {e}")))?
            .iter()
            .map(|t| as_u32(t).unwrap_or(1))
            .collect(),
        None => vec![1; tokens.len()],
    };
    let specials = SpecialIds {
        bos: id("tokenizer.ggml.bos_token_id"),
        eos: id("tokenizer.ggml.eos_token_id"),
        pad: id("tokenizer.ggml.padding_token_id"),
        add_bos: flag("tokenizer.ggml.add_bos_token").unwrap_or(false),
    };
    let ids: HashMap<&str, u32> = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (t.as_str(), i as u32))
        .collect();
    let vocab: Vocab = tokens
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), i as u32))
        .collect();
    let mut tokenizer = match kind.as_str() {
        "gpt2" => {
            let merges = strings("tokenizer.ggml.merges")?
                .into_iter()
                .map(|m| {
                    m.split_once(' ')
                        .map(|(a, b)| (a.to_string(), b.to_string()))
                        .ok_or_else(|| bad(format!("merge {m:?} is not two pieces")))
                })
                .collect::<Result<Vec<_>>>()?;
            let bpe = BPE::builder()
                .vocab_and_merges(vocab, merges)
                .build()
                .map_err(|e| bad(format!("its BPE vocabulary: {e}")))?;
            let mut tokenizer = Tokenizer::new(bpe);
            let pre = string("tokenizer.ggml.pre").unwrap_or_else(|| "default".into());
            tokenizer.with_pre_tokenizer(Some(byte_level_pre_tokenizer(&pre, file)?));
            tokenizer.with_decoder(Some(ByteLevelDecoder::default()));
            tokenizer
        }
        "llama" => {
            let merges = sentencepiece_merges(&tokens, &ids);
            let unk =
                id("tokenizer.ggml.unknown_token_id").and_then(|i| tokens.get(i as usize).cloned());
            let mut builder = BPE::builder()
                .vocab_and_merges(vocab, merges)
                .byte_fallback(true)
                .fuse_unk(true);
            if let Some(unk) = unk {
                builder = builder.unk_token(unk);
            }
            let bpe = builder
                .build()
                .map_err(|e| bad(format!("its SentencePiece vocabulary: {e}")))?;
            let mut tokenizer = Tokenizer::new(bpe);
            let replace = Replace::new(" ", "▁").map_err(|e| bad(e.to_string()))?;
            let normalizer: NormalizerWrapper =
                if flag("tokenizer.ggml.add_space_prefix").unwrap_or(true) {
                    tokenizers::normalizers::Sequence::new(vec![
                        Prepend::new("▁".into()).into(),
                        replace.into(),
                    ])
                    .into()
                } else {
                    replace.into()
                };
            tokenizer
                .with_normalizer(Some(normalizer))
                .map_err(|e| bad(format!("its normalizer: {e}")))?;
            let space = Replace::new("▁", " ").map_err(|e| bad(e.to_string()))?;
            let decoder: DecoderWrapper = DecoderSequence::new(vec![
                space.into(),
                ByteFallback::new().into(),
                Fuse::new().into(),
            ])
            .into();
            tokenizer.with_decoder(Some(decoder));
            tokenizer
        }
        other => {
            return Err(bad(format!(
                "tokenizer model `{other}` is not supported (expected gpt2 or llama)"
            )))
        }
    };
    let added = |t: u32| {
        tokens
            .iter()
            .zip(&types)
            .filter(move |(_, &ty)| ty == t)
            .map(|(s, _)| s.clone())
    };
    let control: Vec<AddedToken> = added(CONTROL).map(|s| AddedToken::from(s, true)).collect();
    tokenizer
        .add_special_tokens(control)
        .map_err(|e| bad(format!("its control tokens: {e}")))?;
    let user: Vec<AddedToken> = added(USER_DEFINED)
        .map(|s| AddedToken::from(s, false).normalized(false))
        .collect();
    tokenizer
        .add_tokens(user)
        .map_err(|e| bad(format!("its user-defined tokens: {e}")))?;
    Ok((tokenizer, specials))
}

fn as_u32(v: &Value) -> Option<u32> {
    v.to_u32()
        .ok()
        .or_else(|| v.to_i32().ok().map(|x| x as u32))
        .or_else(|| v.to_u64().ok().map(|x| x as u32))
}

/// Llama 3's.
const LLAMA3_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";
/// Qwen 2's.
const QWEN2_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

fn byte_level_pre_tokenizer(pre: &str, file: &str) -> Result<tokenizers::PreTokenizerWrapper> {
    let split = |pattern: &str| -> Result<tokenizers::PreTokenizerWrapper> {
        Ok(Split::new(
            SplitPattern::Regex(pattern.into()),
            SplitDelimiterBehavior::Isolated,
            false,
        )
        .map_err(|e| bad_file(file, format!("pre-tokenizer `{pre}`: {e}")))?
        .into())
    };
    let bytes_only = ByteLevel::new(false, false, false);
    Ok(match pre {
        "smollm" => Sequence::new(vec![
            Digits::new(true).into(),
            ByteLevel::new(false, false, true).into(),
        ])
        .into(),
        "gpt2" | "default" => ByteLevel::new(false, false, true).into(),
        "llama-bpe" | "llama3" | "smaug-bpe" => {
            Sequence::new(vec![split(LLAMA3_PATTERN)?, bytes_only.into()]).into()
        }
        "qwen2" => Sequence::new(vec![split(QWEN2_PATTERN)?, bytes_only.into()]).into(),
        other => {
            return Err(bad_file(
                file,
                format!(
                    "pre-tokenizer `{other}` is not supported (known: smollm, gpt2, default, \
                     llama-bpe, qwen2); its text would be split unlike the model's training"
                ),
            ))
        }
    })
}

/// The merges of a SentencePiece BPE vocabulary, as `transformers` rebuilds them for Gemma:
/// every split of a piece into two pieces of the vocabulary, ordered by the merged piece's
/// position in the vocabulary (Gemma's scores do not follow its merge order; the file's order
/// does), then by the lengths of the two halves.
fn sentencepiece_merges(tokens: &[String], ids: &HashMap<&str, u32>) -> Vec<(String, String)> {
    // (merged id, left length in chars, right length in chars, left id, right id, cut)
    let mut merges: Vec<(u32, usize, usize, u32, u32, usize)> = Vec::new();
    for (i, piece) in tokens.iter().enumerate() {
        let mut local = Vec::new();
        let total = piece.chars().count();
        for (n, (cut, _)) in piece.char_indices().enumerate().skip(1) {
            let (l, r) = piece.split_at(cut);
            if let (Some(&a), Some(&b)) = (ids.get(l), ids.get(r)) {
                local.push((i as u32, n, total - n, a, b, cut));
            }
        }
        local.sort_by_key(|m| (m.3, m.4));
        merges.extend(local);
    }
    // Stable, as Python's sort is: equal keys keep the order above.
    merges.sort_by_key(|m| (m.0, m.1, m.2));
    merges
        .into_iter()
        .map(|(i, .., cut)| {
            let (l, r) = tokens[i as usize].split_at(cut);
            (l.to_string(), r.to_string())
        })
        .collect()
}
