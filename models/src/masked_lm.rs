//! Masked-LM fill on candle: BERT, RoBERTa/XLM-R and DeBERTa-v2/v3 checkpoints with their MLM
//! head, for word substitution (NLPLego seed-003, CREST seed-004).
//!
//! The encoder is the shared [`Backbone`]; the head is laid out as `transformers` 5 defines it:
//!
//! | architecture | transform (dense → activation → layer norm) | decoder | bias |
//! |---|---|---|---|
//! | BERT | `cls.predictions.transform.{dense,LayerNorm}`, `hidden_act` | `cls.predictions.decoder.weight`, else tied to the word embeddings | `cls.predictions.bias` |
//! | RoBERTa, XLM-R | `lm_head.{dense,layer_norm}`, exact GELU | `lm_head.decoder.weight`, else tied | `lm_head.bias` |
//! | DeBERTa-v2 (`legacy`, the default) | as BERT | as BERT | as BERT |
//! | DeBERTa-v2 (`legacy = false`) | `lm_predictions.lm_head.{dense,LayerNorm}`, `hidden_act` | the word embeddings | `lm_predictions.lm_head.bias` |
//!
//! Tied decoder weights are usually absent from the safetensors file (`save_pretrained` stores
//! one copy), so the word embeddings are used when the decoder's own weight is missing.
//!
//! Whole words: a predicted piece is a candidate word only if it starts a word and is made of
//! letters (apostrophes and hyphens inside allowed). Word starts are told by the tokenizer's
//! model: WordPiece pieces that do not begin with its continuation prefix (`##`), byte-level
//! BPE pieces that begin with `Ġ` (the encoded space), and SentencePiece/Unigram pieces that
//! begin with `▁`. The masked word is replaced by a single mask token placed where the word was,
//! so the space before it belongs to the mask's context as in `transformers`' fill-mask
//! pipeline.

use std::path::Path;

use candle_core::{DType, Device, Module, Tensor, D};
use candle_nn::{LayerNorm, Linear, VarBuilder};
use metamorph_data::assets::{HubOptions, ModelSource};
use metamorph_data::{Error, Result};
use serde::Deserialize;
use tokenizers::models::ModelWrapper;
use tokenizers::{Encoding, Tokenizer};

use crate::encoders::backbone::{Backbone, BackboneInfo, LoadError};
use crate::encoders::{Activation, Architecture, Checkpoint};
use crate::ModelOptions;

/// A candidate for a masked position.
#[derive(Clone, Debug, PartialEq)]
pub struct FillCandidate {
    /// The predicted word (whole word, detokenised).
    pub word: String,
    /// Its probability under the model.
    pub prob: f32,
}

/// A masked language model.
pub trait MaskedLm: Send + Sync {
    /// The model's name.
    fn name(&self) -> &str;

    /// The model's mask token as it must appear in inputs (e.g. `[MASK]`, `<mask>`).
    fn mask_token(&self) -> &str;

    /// For each input text (holding one or more mask tokens), the `top_k` candidates of each
    /// masked position, in order of position.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Model`] when the model fails or an input holds no mask.
    fn fill(&self, inputs: &[&str], top_k: usize) -> Result<Vec<Vec<Vec<FillCandidate>>>>;
}

/// The MLM head: transform, then the decoder against the vocabulary.
struct MlmHead {
    dense: Linear,
    activation: Activation,
    norm: LayerNorm,
    /// `[vocab, hidden]`.
    decoder: Tensor,
    /// `[vocab]`.
    bias: Tensor,
}

impl MlmHead {
    fn forward(&self, hidden: &Tensor) -> candle_core::Result<Tensor> {
        let h = self
            .norm
            .forward(&self.activation.apply(&self.dense.forward(hidden)?)?)?;
        h.matmul(&self.decoder.t()?)?.broadcast_add(&self.bias)
    }
}

/// The `config.json` keys the head reads.
#[derive(Deserialize)]
struct HeadKeys {
    #[serde(default = "default_act")]
    hidden_act: String,
    #[serde(default = "default_eps")]
    layer_norm_eps: f64,
    #[serde(default = "default_legacy")]
    legacy: bool,
    #[serde(default)]
    embedding_size: Option<usize>,
    vocab_size: usize,
}

fn default_act() -> String {
    "gelu".into()
}
fn default_eps() -> f64 {
    1e-12
}
fn default_legacy() -> bool {
    true
}

/// How the tokenizer marks word boundaries in its pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
enum WordStyle {
    /// WordPiece: continuation pieces start with this prefix (`##`).
    Continuation(String),
    /// Byte-level BPE (`Ġ`) or SentencePiece (`▁`): word-initial pieces start with this mark.
    StartMark(String),
}

impl WordStyle {
    fn of(tokenizer: &Tokenizer) -> Self {
        match tokenizer.get_model() {
            ModelWrapper::WordPiece(wp) => {
                WordStyle::Continuation(wp.continuing_subword_prefix.clone())
            }
            ModelWrapper::Unigram(_) => WordStyle::StartMark("▁".into()),
            _ => WordStyle::StartMark("Ġ".into()),
        }
    }

    /// The word a piece spells when it starts a word, else `None`.
    fn word<'a>(&self, piece: &'a str) -> Option<&'a str> {
        match self {
            WordStyle::Continuation(prefix) => {
                (!piece.starts_with(prefix.as_str())).then_some(piece)
            }
            WordStyle::StartMark(mark) => piece.strip_prefix(mark.as_str()),
        }
    }
}

/// A word of letters (with inner apostrophes or hyphens).
fn is_word(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_alphabetic)
        && word
            .chars()
            .all(|c| c.is_alphabetic() || c == '\'' || c == '-')
        && word.chars().last().is_some_and(char::is_alphabetic)
}

/// The `(token id, probability)` pairs predicted for one masked position, best first.
pub type TopK = Vec<(u32, f32)>;

/// A masked language model under candle.
pub struct CandleMaskedLm {
    name: String,
    backbone: Backbone,
    info: BackboneInfo,
    head: MlmHead,
    tokenizer: Tokenizer,
    mask_token: String,
    mask_id: u32,
    style: WordStyle,
    device: Device,
}

impl std::fmt::Debug for CandleMaskedLm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CandleMaskedLm")
            .field("name", &self.name)
            .field("mask_token", &self.mask_token)
            .finish_non_exhaustive()
    }
}

/// Which candidates [`CandleMaskedLm::substitutes`] keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct FillOptions {
    /// Predictions considered per masked word.
    pub top_k: usize,
    /// Keep only candidates with at least this probability (CREST: 0.1).
    pub min_prob: f32,
    /// Keep only candidates of the replaced word's part of speech (needs a parser).
    pub same_pos: bool,
}

impl Default for FillOptions {
    fn default() -> Self {
        FillOptions {
            top_k: 10,
            min_prob: 0.0,
            same_pos: false,
        }
    }
}

impl CandleMaskedLm {
    /// Loads the checkpoint `source` (directory, `asset:NAME` or `hf:ORG/NAME@REV`).
    ///
    /// # Errors
    /// [`Error::Asset`] naming the file that is missing or does not fit; [`Error::Config`]
    /// for an architecture without an MLM head here or an unsupported dtype.
    pub fn from_source(
        source: &ModelSource,
        hub: &HubOptions,
        options: &ModelOptions,
    ) -> Result<Self> {
        let checkpoint = Checkpoint::try_resolve(source, hub)?;
        Self::load(&checkpoint, &source.to_string(), options)
    }

    /// Loads the checkpoint in `dir` and names it `name`.
    ///
    /// # Errors
    /// As [`CandleMaskedLm::from_source`].
    pub fn load_dir(dir: &Path, name: &str, options: &ModelOptions) -> Result<Self> {
        let source = ModelSource::Local(dir.to_path_buf());
        let checkpoint = Checkpoint::try_resolve(&source, &HubOptions::default())?;
        Self::load(&checkpoint, name, options)
    }

    /// Loads a resolved `checkpoint` and names it `name`.
    ///
    /// # Errors
    /// As [`CandleMaskedLm::from_source`].
    pub fn load(checkpoint: &Checkpoint, name: &str, options: &ModelOptions) -> Result<Self> {
        let config_path = checkpoint.config_path();
        let config_err = |message: String| Error::Asset {
            name: config_path.display().to_string(),
            message,
        };
        let architecture = checkpoint.architecture;
        if !matches!(
            architecture,
            Architecture::Bert
                | Architecture::Roberta
                | Architecture::XlmRoberta
                | Architecture::DebertaV2
        ) {
            return Err(Error::Config(format!(
                "model `{name}`: masked-LM fill supports BERT, RoBERTa/XLM-R and DeBERTa-v2, \
                 not {}",
                architecture.model_type()
            )));
        }
        if options.dtype != DType::F32 && architecture == Architecture::DebertaV2 {
            return Err(Error::Config(format!(
                "model `{name}`: DeBERTa-v2 runs in f32 only (dtype = \"f32\")"
            )));
        }
        let keys: HeadKeys = serde_json::from_str(&checkpoint.config_json)
            .map_err(|e| config_err(format!("not a masked-LM config: {e}")))?;
        let activation = match architecture {
            Architecture::Roberta | Architecture::XlmRoberta => Activation::Gelu,
            _ => Activation::from_name(&keys.hidden_act).ok_or_else(|| {
                config_err(format!("hidden_act {:?} is not supported", keys.hidden_act))
            })?,
        };
        let tokenizer_path = checkpoint.tokenizer_path();
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path).map_err(|e| Error::Asset {
            name: tokenizer_path.display().to_string(),
            message: format!("cannot load the tokenizer: {e}"),
        })?;
        tokenizer.with_padding(None);
        let _ = tokenizer.with_truncation(None);
        let (mask_token, mask_id) = ["[MASK]", "<mask>"]
            .iter()
            .find_map(|t| tokenizer.token_to_id(t).map(|id| (t.to_string(), id)))
            .ok_or_else(|| Error::Asset {
                name: tokenizer_path.display().to_string(),
                message: "the tokenizer has no mask token ([MASK] or <mask>)".into(),
            })?;
        // SAFETY: the files are memory-mapped read-only; like every safetensors loader this
        // assumes nobody rewrites them while the model is loaded.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(&checkpoint.weights, options.dtype, &options.device)
        }
        .map_err(|e| Error::Asset {
            name: checkpoint.weights[0].display().to_string(),
            message: format!("cannot read the safetensors weights: {e}"),
        })?;
        let weights_err = |e: candle_core::Error| Error::Asset {
            name: checkpoint.weights[0].display().to_string(),
            message: format!("weights do not fit {}: {e}", config_path.display()),
        };
        let (backbone, info) =
            Backbone::load(architecture, &checkpoint.config_json, &vb).map_err(|e| match e {
                LoadError::Config(message) => config_err(message),
                LoadError::Weights(e) => weights_err(e),
            })?;
        if keys.embedding_size.is_some_and(|e| e != info.hidden_size) {
            return Err(config_err(
                "embedding_size different from hidden_size is not supported".into(),
            ));
        }
        let head = load_head(&vb, architecture, &keys, activation, info.hidden_size)
            .map_err(weights_err)?;
        Ok(CandleMaskedLm {
            name: name.to_string(),
            backbone,
            info,
            head,
            style: WordStyle::of(&tokenizer),
            tokenizer,
            mask_token,
            mask_id,
            device: options.device.clone(),
        })
    }

    fn model_err(&self, message: String) -> Error {
        Error::Model {
            model: self.name.clone(),
            message,
        }
    }

    /// For each input, the top `top_k` `(token id, probability)` of each mask position, in
    /// position order. Inputs run as one padded batch.
    ///
    /// # Errors
    /// [`Error::Model`] naming the input when it holds no mask, is longer than the model's
    /// positions, or the forward pass fails.
    pub fn top_k_ids(&self, inputs: &[&str], top_k: usize) -> Result<Vec<Vec<TopK>>> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self
            .tokenizer
            .encode_batch(inputs.to_vec(), true)
            .map_err(|e| self.model_err(format!("tokenizing: {e}")))?;
        let mut masks = Vec::with_capacity(inputs.len());
        for (i, e) in encodings.iter().enumerate() {
            if e.len() > self.info.max_positions {
                return Err(self.model_err(format!(
                    "input {i}: {} tokens, more than the model's {} positions",
                    e.len(),
                    self.info.max_positions
                )));
            }
            let positions: Vec<usize> = e
                .get_ids()
                .iter()
                .enumerate()
                .filter(|(_, &id)| id == self.mask_id)
                .map(|(p, _)| p)
                .collect();
            if positions.is_empty() {
                return Err(self.model_err(format!(
                    "input {i} holds no mask token {}: {:?}",
                    self.mask_token, inputs[i]
                )));
            }
            masks.push(positions);
        }
        let batch: Vec<(&Encoding, Option<usize>)> = encodings.iter().map(|e| (e, None)).collect();
        let picks: Vec<(usize, usize)> = masks
            .iter()
            .enumerate()
            .flat_map(|(r, positions)| positions.iter().map(move |&p| (r, p)))
            .collect();
        let run = || -> candle_core::Result<Vec<Vec<f32>>> {
            let logits = self.logits_at(&batch, &picks)?;
            candle_nn::ops::softmax(&logits, D::Minus1)?.to_vec2::<f32>()
        };
        let probs = run().map_err(|e| self.model_err(format!("forward pass: {e}")))?;
        let mut next = probs.into_iter();
        Ok(masks
            .iter()
            .map(|positions| {
                positions
                    .iter()
                    .map(|_| largest(&next.next().unwrap_or_default(), top_k))
                    .collect()
            })
            .collect())
    }

    /// The head's `f32` logits at `picks` (row, position) of one padded batch: row `r` holds
    /// the ids of `batch[r].0`, with position `batch[r].1` (when given) replaced by the mask
    /// token. Only the picked positions go through the head.
    fn logits_at(
        &self,
        batch: &[(&Encoding, Option<usize>)],
        picks: &[(usize, usize)],
    ) -> candle_core::Result<Tensor> {
        let rows = batch.len();
        let width = batch.iter().map(|(e, _)| e.len()).max().unwrap_or(0);
        let (mut ids, mut types, mut mask) = (
            vec![self.info.pad_id; rows * width],
            vec![0u32; rows * width],
            vec![0u32; rows * width],
        );
        for (r, (e, masked)) in batch.iter().enumerate() {
            for (p, &id) in e.get_ids().iter().enumerate() {
                ids[r * width + p] = if *masked == Some(p) { self.mask_id } else { id };
                types[r * width + p] = if self.info.token_types {
                    e.get_type_ids()[p]
                } else {
                    0
                };
                mask[r * width + p] = 1;
            }
        }
        let t = |v: Vec<u32>| Tensor::from_vec(v, (rows, width), &self.device);
        let hidden = self.backbone.forward(&t(ids)?, &t(types)?, &t(mask)?)?;
        let picked = picks
            .iter()
            .map(|&(r, p)| hidden.get(r)?.get(p))
            .collect::<candle_core::Result<Vec<_>>>()?;
        self.head
            .forward(&Tensor::stack(&picked, 0)?)?
            .to_dtype(DType::F32)
    }

    /// The pseudo-log-likelihood of the characters `span` of each `text` (Salazar et al., ACL
    /// 2020, "Masked Language Model Scoring"): every word piece that overlaps the span is
    /// masked in turn, the rest of the text left visible, and the natural-log probability the
    /// model gives the true piece there is summed. Returns `(sum, pieces)` per request; a span
    /// that covers no piece gives `(0.0, 0)`. The masked copies of all requests run as padded
    /// batches of at most `batch` rows. The validity step compares a substituted word's
    /// likelihood with the original's this way.
    ///
    /// # Errors
    /// [`Error::Model`] naming the request whose text is longer than the model's positions or
    /// whose span lies outside it, or when the forward pass fails.
    pub fn span_pseudo_log_likelihoods(
        &self,
        requests: &[(&str, std::ops::Range<usize>)],
        batch: usize,
    ) -> Result<Vec<(f32, usize)>> {
        if requests.is_empty() {
            return Ok(Vec::new());
        }
        let texts: Vec<&str> = requests.iter().map(|(t, _)| *t).collect();
        let encodings = self
            .tokenizer
            .encode_batch_char_offsets(texts, true)
            .map_err(|e| self.model_err(format!("tokenizing: {e}")))?;
        // One row per (request, piece): the request's ids with that piece masked.
        let mut rows: Vec<(usize, usize, u32)> = Vec::new();
        for (r, (e, (text, span))) in encodings.iter().zip(requests).enumerate() {
            if e.len() > self.info.max_positions {
                return Err(self.model_err(format!(
                    "request {r}: {} tokens, more than the model's {} positions",
                    e.len(),
                    self.info.max_positions
                )));
            }
            let chars = text.chars().count();
            if span.start > span.end || span.end > chars {
                return Err(self.model_err(format!(
                    "request {r}: span {}..{} is outside its {chars}-character text",
                    span.start, span.end
                )));
            }
            for (p, (&(start, end), &special)) in e
                .get_offsets()
                .iter()
                .zip(e.get_special_tokens_mask())
                .enumerate()
            {
                if special == 0 && start < span.end && end > span.start {
                    rows.push((r, p, e.get_ids()[p]));
                }
            }
        }
        let mut out = vec![(0.0f32, 0usize); requests.len()];
        for chunk in rows.chunks(batch.max(1)) {
            let batch: Vec<(&Encoding, Option<usize>)> = chunk
                .iter()
                .map(|&(r, position, _)| (&encodings[r], Some(position)))
                .collect();
            let picks: Vec<(usize, usize)> = chunk
                .iter()
                .enumerate()
                .map(|(k, &(_, position, _))| (k, position))
                .collect();
            let run = || -> candle_core::Result<Vec<Vec<f32>>> {
                let logits = self.logits_at(&batch, &picks)?;
                candle_nn::ops::log_softmax(&logits, D::Minus1)?.to_vec2::<f32>()
            };
            let log_probs = run().map_err(|e| self.model_err(format!("forward pass: {e}")))?;
            for (&(r, _, id), row) in chunk.iter().zip(log_probs) {
                out[r].0 += row.get(id as usize).copied().unwrap_or(f32::NEG_INFINITY);
                out[r].1 += 1;
            }
        }
        Ok(out)
    }

    /// Replacements for the word at characters `start..end` of `text`, best first: the model's
    /// top `options.top_k` predictions for a mask in its place, kept when they are whole words,
    /// differ from the word (ignoring case), reach `options.min_prob`, and — with
    /// `options.same_pos` and a `parser` — carry the word's coarse part of speech (spaCy's
    /// `pos`) when substituted and tagged.
    ///
    /// # Errors
    /// [`Error::Model`] for a span outside the text, or as [`CandleMaskedLm::top_k_ids`];
    /// [`Error::Config`] when `same_pos` is asked without a parser.
    pub fn substitutes(
        &self,
        text: &str,
        (start, end): (usize, usize),
        options: &FillOptions,
        parser: Option<&metamorph_parse::spacy::pipeline::Pipeline>,
    ) -> Result<Vec<FillCandidate>> {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let byte = |c: usize| chars.get(c).map_or(text.len(), |(b, _)| *b);
        if start >= end || end > chars.len() {
            return Err(self.model_err(format!(
                "span {start}..{end} is not a word of a {}-character text",
                chars.len()
            )));
        }
        let (bs, be) = (byte(start), byte(end));
        let original = &text[bs..be];
        let masked = format!("{}{}{}", &text[..bs], self.mask_token, &text[be..]);
        let top = self.top_k_ids(&[&masked], options.top_k)?;
        let mut kept = Vec::new();
        for &(id, prob) in &top[0][0] {
            if prob < options.min_prob {
                continue;
            }
            let Some(piece) = self.tokenizer.id_to_token(id) else {
                continue;
            };
            let Some(word) = self.style.word(&piece) else {
                continue;
            };
            if !is_word(word) || word.eq_ignore_ascii_case(original) {
                continue;
            }
            kept.push(FillCandidate {
                word: word.to_string(),
                prob,
            });
        }
        if options.same_pos && !kept.is_empty() {
            let parser = parser.ok_or_else(|| {
                Error::Config(format!(
                    "model `{}`: same-POS filtering needs a parser",
                    self.name
                ))
            })?;
            let pos_at = |t: &str, at: usize| -> Result<Option<String>> {
                let docs = parser.process(&[t]).map_err(|e| Error::Model {
                    model: parser.name().to_string(),
                    message: format!("tagging a substitution: {e}"),
                })?;
                let parsed = metamorph_parse::to_parsed_text("", "text", &docs[0]);
                Ok(parsed
                    .tokens
                    .iter()
                    .find(|tok| tok.start as usize == at)
                    .map(|tok| tok.pos.clone()))
            };
            let want = pos_at(text, start)?;
            let mut same = Vec::new();
            for candidate in kept {
                let substituted = format!("{}{}{}", &text[..bs], candidate.word, &text[be..]);
                if want.is_some() && pos_at(&substituted, start)? == want {
                    same.push(candidate);
                }
            }
            kept = same;
        }
        Ok(kept)
    }
}

/// The `k` largest of `probs` with their indices, largest first, ties by lower index (as
/// `torch.topk` orders distinct values).
fn largest(probs: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut order: Vec<usize> = (0..probs.len()).collect();
    let by = |a: &usize, b: &usize| probs[*b].total_cmp(&probs[*a]).then(a.cmp(b));
    if k < order.len() {
        order.select_nth_unstable_by(k, by);
        order.truncate(k);
    }
    order.sort_by(by);
    order.into_iter().map(|i| (i as u32, probs[i])).collect()
}

fn load_head(
    vb: &VarBuilder<'static>,
    architecture: Architecture,
    keys: &HeadKeys,
    activation: Activation,
    hidden: usize,
) -> candle_core::Result<MlmHead> {
    let (prefix, norm_name, embeddings) = match architecture {
        Architecture::Bert => (
            "cls.predictions.transform",
            "LayerNorm",
            "bert.embeddings.word_embeddings.weight",
        ),
        Architecture::Roberta | Architecture::XlmRoberta => (
            "lm_head",
            "layer_norm",
            "roberta.embeddings.word_embeddings.weight",
        ),
        _ if keys.legacy => (
            "cls.predictions.transform",
            "LayerNorm",
            "deberta.embeddings.word_embeddings.weight",
        ),
        _ => (
            "lm_predictions.lm_head",
            "LayerNorm",
            "deberta.embeddings.word_embeddings.weight",
        ),
    };
    let vocab = keys.vocab_size;
    let head_vb = vb.pp(prefix);
    let dense = candle_nn::linear(hidden, hidden, head_vb.pp("dense"))?;
    let norm = candle_nn::layer_norm(hidden, keys.layer_norm_eps, head_vb.pp(norm_name))?;
    let (decoder_name, bias_name) = match architecture {
        Architecture::Roberta | Architecture::XlmRoberta => {
            ("lm_head.decoder.weight", "lm_head.bias")
        }
        Architecture::DebertaV2 if !keys.legacy => (
            "lm_predictions.lm_head.decoder.weight",
            "lm_predictions.lm_head.bias",
        ),
        _ => ("cls.predictions.decoder.weight", "cls.predictions.bias"),
    };
    let decoder = if vb.contains_tensor(decoder_name) {
        vb.get((vocab, hidden), decoder_name)?
    } else {
        vb.get((vocab, hidden), embeddings)?
    };
    let bias = vb.get(vocab, bias_name)?;
    Ok(MlmHead {
        dense,
        activation,
        norm,
        decoder,
        bias,
    })
}

impl MaskedLm for CandleMaskedLm {
    fn name(&self) -> &str {
        &self.name
    }

    fn mask_token(&self) -> &str {
        &self.mask_token
    }

    fn fill(&self, inputs: &[&str], top_k: usize) -> Result<Vec<Vec<Vec<FillCandidate>>>> {
        let ids = self.top_k_ids(inputs, top_k)?;
        Ok(ids
            .into_iter()
            .map(|masks| {
                masks
                    .into_iter()
                    .map(|top| {
                        top.into_iter()
                            .map(|(id, prob)| {
                                let piece = self.tokenizer.id_to_token(id).unwrap_or_default();
                                let word = self.style.word(&piece).unwrap_or(&piece).to_string();
                                FillCandidate { word, prob }
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_starts_follow_the_tokenizer_style() {
        let wordpiece = WordStyle::Continuation("##".into());
        assert_eq!(wordpiece.word("north"), Some("north"));
        assert_eq!(wordpiece.word("##ned"), None);
        let bpe = WordStyle::StartMark("Ġ".into());
        assert_eq!(bpe.word("Ġhouse"), Some("house"));
        assert_eq!(bpe.word("house"), None);
        assert!(is_word("don't") && is_word("well-known") && is_word("Zürich"));
        assert!(!is_word("") && !is_word("42") && !is_word("-a") && !is_word(","));
    }

    #[test]
    fn top_k_orders_by_probability_then_id() {
        let probs = [0.1, 0.4, 0.1, 0.3, 0.1];
        assert_eq!(
            largest(&probs, 3),
            vec![(1, 0.4), (3, 0.3), (0, 0.1)],
            "equal values keep the lower id first"
        );
        assert_eq!(largest(&probs, 9).len(), 5);
    }
}
