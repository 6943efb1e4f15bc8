//! Sentence embeddings from a BERT-family encoder: mean pooling over the attention mask, then
//! L2 normalisation, as sentence-transformers' `all-MiniLM-L6-v2` recipe
//! (<https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2#usage-huggingface-transformers>).
//!
//! For a batch of token ids `[B, T]` with mask `m` `[B, T]`, the encoder gives `h` `[B, T, H]`
//! and the embedding of row `b` is `e = Σ_t m[b,t] h[b,t] / max(Σ_t m[b,t], 1e-9)`, returned as
//! `e / max(‖e‖₂, 1e-12)` (the epsilons of the reference's `torch.clamp` and `F.normalize`).
//!
//! Texts are tokenized without padding, sorted by length and cut into batches of
//! [`EncoderOptions::with_batch_size`] texts, each padded only to its own longest text (length
//! buckets), so short texts do not pay for long ones.

use std::time::Instant;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::Config as BertConfig;
use metamorph_data::{Error, Result};
use tokenizers::{Tokenizer, TruncationParams};

use crate::checkpoint::model_error;
use crate::encoders::backbone::{Backbone, LoadError};
use crate::encoders::{Architecture, Checkpoint};

/// How a [`SentenceEncoder`] runs.
#[derive(Clone, Debug)]
pub struct EncoderOptions {
    device: Device,
    dtype: DType,
    batch_size: usize,
    max_length: Option<usize>,
}

impl Default for EncoderOptions {
    /// CPU, f32, 64 texts per batch, the checkpoint's own length limit.
    fn default() -> Self {
        EncoderOptions {
            device: Device::Cpu,
            dtype: DType::F32,
            batch_size: 64,
            max_length: None,
        }
    }
}

impl EncoderOptions {
    /// The device the weights and activations live on (default CPU; see [`super::device()`]).
    pub fn with_device(mut self, device: Device) -> Self {
        self.device = device;
        self
    }

    /// The dtype of weights and activations (default f32); pooling is always done in f32.
    pub fn with_dtype(mut self, dtype: DType) -> Self {
        self.dtype = dtype;
        self
    }

    /// Texts per forward pass (default 64; 0 is taken as 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Tokens per text, special tokens included; longer texts are truncated. Default:
    /// `max_seq_length` of `sentence_bert_config.json` when the checkpoint has one, else the
    /// model's `max_position_embeddings`.
    pub fn with_max_length(mut self, max_length: usize) -> Self {
        self.max_length = Some(max_length);
        self
    }
}

/// A BERT-family encoder that turns texts into unit-length sentence embeddings.
pub struct SentenceEncoder {
    name: String,
    model: Backbone,
    tokenizer: Tokenizer,
    pad_id: u32,
    hidden_size: usize,
    options: EncoderOptions,
    span: tracing::Span,
}

impl SentenceEncoder {
    /// Loads `checkpoint` for the model called `name` (used in messages).
    ///
    /// # Errors
    /// [`Error::Asset`] naming the file when `config.json` does not fit the architecture,
    /// `tokenizer.json` does not load or the weights lack a tensor; [`Error::Config`] for a
    /// `max_length` beyond the model's positions.
    pub fn try_new(name: &str, checkpoint: &Checkpoint, options: EncoderOptions) -> Result<Self> {
        let asset_err = |path: &std::path::Path, message: String| Error::Asset {
            name: path.display().to_string(),
            message,
        };
        let config_path = checkpoint.config_path();
        let config: BertConfig = match checkpoint.architecture {
            Architecture::Bert => serde_json::from_str(&checkpoint.config_json)
                .map_err(|e| asset_err(&config_path, format!("not a BERT config: {e}")))?,
            other => {
                return Err(asset_err(
                    &config_path,
                    format!(
                        "sentence embeddings run on BERT checkpoints only, not {}",
                        other.model_type()
                    ),
                ))
            }
        };
        let max_positions = config.max_position_embeddings;
        let max_length = match options.max_length {
            Some(n) if n > max_positions || n < 2 => {
                return Err(Error::Config(format!(
                    "model `{name}`: max_length {n} is outside 2..={max_positions} (the model's \
                     max_position_embeddings)"
                )))
            }
            Some(n) => n,
            None => sentence_bert_max_length(&checkpoint.dir)
                .unwrap_or(max_positions)
                .min(max_positions),
        };
        let tokenizer_path = checkpoint.tokenizer_path();
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| asset_err(&tokenizer_path, format!("cannot load the tokenizer: {e}")))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                ..Default::default()
            }))
            .map_err(|e| asset_err(&tokenizer_path, format!("cannot set truncation: {e}")))?;
        // SAFETY: the files are memory-mapped read-only; like every safetensors loader this
        // assumes nobody rewrites them while the model is loaded.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(&checkpoint.weights, options.dtype, &options.device)
        }
        .map_err(|e| {
            asset_err(
                &checkpoint.weights[0],
                format!("cannot read the safetensors weights: {e}"),
            )
        })?;
        let (model, _) = Backbone::load(Architecture::Bert, &checkpoint.config_json, &vb).map_err(
            |e| match e {
                LoadError::Config(message) => asset_err(&config_path, message),
                LoadError::Weights(e) => asset_err(
                    &checkpoint.weights[0],
                    format!("weights do not fit {config_path:?}: {e}"),
                ),
            },
        )?;
        Ok(SentenceEncoder {
            name: name.to_string(),
            model,
            tokenizer,
            pad_id: u32::try_from(config.pad_token_id).unwrap_or(0),
            hidden_size: config.hidden_size,
            options,
            span: tracing::span!(tracing::Level::TRACE, "sentence-encoder"),
        })
    }

    /// The embedding width.
    pub fn dim(&self) -> usize {
        self.hidden_size
    }

    /// Whether `word` is one whole token of the tokenizer's vocabulary, as written or lower-cased
    /// (an uncased WordPiece vocabulary lists its words in lower case). A WordPiece vocabulary
    /// keeps the ~30,000 most useful pieces of its training text, so a word it holds whole is
    /// in common use; a rare or archaic one ("erstwhile", "histrion") is split into pieces.
    pub fn has_whole_word(&self, word: &str) -> bool {
        self.tokenizer.token_to_id(word).is_some()
            || self.tokenizer.token_to_id(&word.to_lowercase()).is_some()
    }

    /// One unit-length embedding per text, in input order.
    ///
    /// # Errors
    /// [`Error::Model`] if tokenization or the forward pass fails.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let _enter = self.span.enter();
        let started = Instant::now();
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| model_error(&self.name, "tokenization failed", e))?;
        let mut out = vec![Vec::new(); texts.len()];
        let (mut real, mut padded) = (0usize, 0usize);
        for (bucket, width) in length_buckets(&encodings, self.options.batch_size) {
            let bucket = &bucket[..];
            let mut ids = Vec::with_capacity(bucket.len() * width);
            let mut mask = Vec::with_capacity(bucket.len() * width);
            for &i in bucket {
                let enc = &encodings[i];
                ids.extend_from_slice(enc.get_ids());
                mask.extend_from_slice(enc.get_attention_mask());
                let pad = width - enc.len();
                ids.extend(std::iter::repeat_n(self.pad_id, pad));
                mask.extend(std::iter::repeat_n(0u32, pad));
                real += enc.len();
            }
            padded += bucket.len() * width;
            let rows = self
                .forward(&ids, &mask, bucket.len(), width)
                .map_err(|e| model_error(&self.name, "forward pass failed", e))?;
            for (&i, row) in bucket.iter().zip(rows) {
                out[i] = row;
            }
        }
        tracing::debug!(
            model = %self.name,
            texts = texts.len(),
            tokens = real,
            padding_waste = if padded == 0 { 0.0 } else { 1.0 - real as f64 / padded as f64 },
            elapsed_ms = started.elapsed().as_secs_f64() * 1e3,
            "embedded"
        );
        Ok(out)
    }

    /// Two unit-length embeddings per `(text, byte range)`, from one forward pass: the text's
    /// (as [`SentenceEncoder::embed`]) and the span's, the mean of the encoder's last hidden
    /// states over the word pieces that overlap the range, read in the whole text's context
    /// (how BERT-based lexical substitution compares a word with its substitute: the two in
    /// their sentences). A range no piece overlaps gives the whole text's mean.
    ///
    /// # Errors
    /// [`Error::Model`] if tokenization or the forward pass fails.
    pub fn embed_with_spans(
        &self,
        items: &[(&str, std::ops::Range<usize>)],
    ) -> Result<Vec<(Vec<f32>, Vec<f32>)>> {
        let _enter = self.span.enter();
        let texts: Vec<&str> = items.iter().map(|(t, _)| *t).collect();
        let encodings = self
            .tokenizer
            .encode_batch(texts, true)
            .map_err(|e| model_error(&self.name, "tokenization failed", e))?;
        let mut out = vec![(Vec::new(), Vec::new()); items.len()];
        for (bucket, width) in length_buckets(&encodings, self.options.batch_size) {
            let bucket = &bucket[..];
            let mut ids = Vec::with_capacity(bucket.len() * width);
            let mut masks: Vec<Vec<u32>> = Vec::with_capacity(bucket.len());
            let mut pooled: Vec<u32> = Vec::with_capacity(bucket.len() * width);
            for &i in bucket {
                let (enc, range) = (&encodings[i], &items[i].1);
                ids.extend_from_slice(enc.get_ids());
                ids.extend(std::iter::repeat_n(self.pad_id, width - enc.len()));
                let mut mask = enc.get_attention_mask().to_vec();
                mask.resize(width, 0);
                let special = enc.get_special_tokens_mask();
                let mut span: Vec<u32> = enc
                    .get_offsets()
                    .iter()
                    .enumerate()
                    .map(|(k, &(a, b))| {
                        u32::from(special[k] == 0 && a < range.end && range.start < b && a < b)
                    })
                    .collect();
                span.resize(width, 0);
                if span.iter().all(|&m| m == 0) {
                    span.clone_from(&mask);
                }
                pooled.extend(span);
                masks.push(mask);
            }
            let mask: Vec<u32> = masks.concat();
            let mut rows = self
                .pooled_forward(&ids, &mask, &[&mask, &pooled], bucket.len(), width)
                .map_err(|e| model_error(&self.name, "forward pass failed", e))?;
            let spans = rows.pop().unwrap_or_default();
            let sentences = rows.pop().unwrap_or_default();
            for ((&i, sentence), span) in bucket.iter().zip(sentences).zip(spans) {
                out[i] = (sentence, span);
            }
        }
        Ok(out)
    }

    /// Encoder, pooling and normalisation for one padded `[rows, width]` batch.
    fn forward(
        &self,
        ids: &[u32],
        mask: &[u32],
        rows: usize,
        width: usize,
    ) -> candle_core::Result<Vec<Vec<f32>>> {
        Ok(self
            .pooled_forward(ids, mask, &[mask], rows, width)?
            .remove(0))
    }

    /// The encoder over `ids` with attention `mask`, mean-pooled over the positions each of
    /// `pools` marks and normalised, for one padded `[rows, width]` batch: one list of rows
    /// per pool, from a single forward pass.
    fn pooled_forward(
        &self,
        ids: &[u32],
        mask: &[u32],
        pools: &[&[u32]],
        rows: usize,
        width: usize,
    ) -> candle_core::Result<Vec<Vec<Vec<f32>>>> {
        let device = &self.options.device;
        let ids = Tensor::from_slice(ids, (rows, width), device)?;
        let mask = Tensor::from_slice(mask, (rows, width), device)?;
        let token_types = ids.zeros_like()?;
        let hidden = self
            .model
            .forward(&ids, &token_types, &mask)?
            .to_dtype(DType::F32)?;
        pools
            .iter()
            .map(|pool| {
                let mask = Tensor::from_slice(pool, (rows, width), device)?
                    .to_dtype(DType::F32)?
                    .unsqueeze(2)?;
                let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
                let counts = mask.sum(1)?.clamp(1e-9f32, f32::MAX)?;
                let mean = summed.broadcast_div(&counts)?;
                let norms = mean
                    .sqr()?
                    .sum_keepdim(1)?
                    .sqrt()?
                    .clamp(1e-12f32, f32::MAX)?;
                mean.broadcast_div(&norms)?.to_vec2::<f32>()
            })
            .collect()
    }
}

/// `max_seq_length` of sentence-transformers' `sentence_bert_config.json`, when present.
fn sentence_bert_max_length(dir: &std::path::Path) -> Option<usize> {
    let text = std::fs::read_to_string(dir.join("sentence_bert_config.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("max_seq_length")?.as_u64()?.try_into().ok()
}

/// The indices of `encodings` in length order, cut into batches of `size`, each with its width
/// (its longest encoding): length buckets, so short texts do not pay for long ones.
fn length_buckets(encodings: &[tokenizers::Encoding], size: usize) -> Vec<(Vec<usize>, usize)> {
    let mut order: Vec<usize> = (0..encodings.len()).collect();
    order.sort_by_key(|&i| encodings[i].len());
    order
        .chunks(size.max(1))
        .map(|bucket| {
            let width = bucket
                .iter()
                .map(|&i| encodings[i].len())
                .max()
                .unwrap_or(0);
            (bucket.to_vec(), width)
        })
        .collect()
}

/// The cosine of two embeddings from [`SentenceEncoder::embed`] (unit length, so a dot
/// product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
