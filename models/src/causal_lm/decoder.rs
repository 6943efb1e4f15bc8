//! The decoder-only transformer behind [`super::CausalLm`]: one forward pass for the two GGUF
//! families metamorph runs, Llama (SmolLM2) and Gemma 3, which differ only in switches
//! ([`Family`]): Gemma 3 scales the embeddings, normalises queries and keys per head, normalises
//! each block's output again before the residual add, uses GELU (tanh) instead of SiLU, rotates
//! the two halves of a head (NeoX) where llama.cpp's Llama files hold weights permuted for
//! interleaved rotation, and alternates five sliding-window layers with one global layer.
//!
//! Every call takes explicit positions and a key-validity record per row (`KeyPositions`), so
//! one code path serves right-padded scoring, a shared prefix broadcast to many continuations
//! and left-padded generation: a query at position `p` attends to the cached keys whose
//! position is `0 ≤ k ≤ p` (and `p − k < window` on sliding layers); padding has position −1.

use candle_core::quantized::{gguf_file, GgmlDType, QMatMul, QTensor};
use candle_core::{DType, Device, Module, Tensor, D};
use metamorph_data::{Error, Result};

/// The architectures a GGUF file may declare (`general.architecture`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// `llama` (SmolLM2, Llama 2/3, Mistral-style files without sliding windows).
    Llama,
    /// `gemma3`.
    Gemma3,
}

impl Family {
    /// The family of `general.architecture`.
    pub fn from_architecture(name: &str) -> Option<Self> {
        match name {
            "llama" => Some(Family::Llama),
            "gemma3" => Some(Family::Gemma3),
            _ => None,
        }
    }

    /// The architecture's name in GGUF metadata.
    pub fn name(self) -> &'static str {
        match self {
            Family::Llama => "llama",
            Family::Gemma3 => "gemma3",
        }
    }
}

/// How a matrix's weights are kept in memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightFormat {
    /// As stored in the file (Q4_1, Q4_K, …), multiplied by candle's quantized kernels.
    Quantized,
    /// Dequantized once to f32 at load: exact to the file's values, and the reference
    /// implementation's arithmetic.
    #[default]
    F32,
}

/// The hyper-parameters read from the file's metadata.
#[derive(Clone, Debug)]
pub struct DecoderConfig {
    /// Which switches apply.
    pub family: Family,
    /// Transformer blocks.
    pub layers: usize,
    /// Hidden size.
    pub hidden: usize,
    /// Query heads.
    pub heads: usize,
    /// Key/value heads (grouped-query attention).
    pub kv_heads: usize,
    /// Width of one head.
    pub head_dim: usize,
    /// RMS norm epsilon.
    pub eps: f64,
    /// Rotary base of the global layers.
    pub rope_theta: f32,
    /// Rotary base of the sliding-window layers (Gemma 3: 10,000).
    pub rope_theta_local: f32,
    /// Sliding window of the local layers, if any.
    pub sliding_window: Option<usize>,
    /// Every `sliding_pattern`-th layer is global (Gemma 3: 6).
    pub sliding_pattern: usize,
    /// Tokens the model was trained on at most.
    pub context_length: usize,
    /// Vocabulary size (rows of the embedding matrix).
    pub vocab: usize,
}

impl DecoderConfig {
    /// Reads the hyper-parameters of `family` from `content`'s metadata.
    pub fn read(content: &gguf_file::Content, family: Family, file: &str) -> Result<Self> {
        let arch = family.name();
        let get = |key: &str| {
            content
                .metadata
                .get(&format!("{arch}.{key}"))
                .ok_or_else(|| bad_file(file, format!("no `{arch}.{key}` in its metadata")))
        };
        let int = |key: &str| -> Result<usize> {
            let v = get(key)?;
            v.to_u32()
                .map(|v| v as usize)
                .or_else(|_| v.to_u64().map(|v| v as usize))
                .map_err(|e| bad_file(file, format!("`{arch}.{key}`: {e}")))
        };
        let float = |key: &str| -> Result<f32> {
            get(key)?
                .to_f32()
                .map_err(|e| bad_file(file, format!("`{arch}.{key}`: {e}")))
        };
        let hidden = int("embedding_length")?;
        let heads = int("attention.head_count")?;
        let kv_heads = int("attention.head_count_kv").unwrap_or(heads);
        let head_dim = int("attention.key_length").unwrap_or(hidden / heads.max(1));
        let eps = float("attention.layer_norm_rms_epsilon")? as f64;
        let (rope_theta_default, local_default) = match family {
            Family::Llama => (10_000.0, 10_000.0),
            Family::Gemma3 => (1_000_000.0, 10_000.0),
        };
        let rope_theta = float("rope.freq_base").unwrap_or(rope_theta_default);
        let rope_theta_local = float("rope.local_freq_base").unwrap_or(local_default);
        let sliding_window = match family {
            Family::Llama => None,
            Family::Gemma3 => Some(int("attention.sliding_window")?),
        };
        let sliding_pattern = int("attention.sliding_window_type").unwrap_or(6);
        if heads == 0 || kv_heads == 0 || heads % kv_heads != 0 || head_dim % 2 != 0 {
            return Err(bad_file(
                file,
                format!("{heads} query heads, {kv_heads} key/value heads of width {head_dim}: not a grouped-query layout"),
            ));
        }
        if matches!(family, Family::Llama) {
            if let Ok(n) = int("rope.dimension_count") {
                if n != head_dim {
                    return Err(bad_file(
                        file,
                        format!("rotary dimension {n} differs from the head width {head_dim} (partial rotary embeddings are not supported)"),
                    ));
                }
            }
        }
        let vocab = content
            .tensor_infos
            .get("token_embd.weight")
            .ok_or_else(|| bad_file(file, "no `token_embd.weight` tensor".into()))?
            .shape
            .dims()[0];
        Ok(DecoderConfig {
            family,
            layers: int("block_count")?,
            hidden,
            heads,
            kv_heads,
            head_dim,
            eps,
            rope_theta,
            rope_theta_local,
            sliding_window,
            sliding_pattern: sliding_pattern.max(1),
            context_length: int("context_length").unwrap_or(2048),
            vocab,
        })
    }

    /// Whether layer `i` attends within the sliding window.
    fn is_sliding(&self, i: usize) -> bool {
        self.sliding_window.is_some() && !(i + 1).is_multiple_of(self.sliding_pattern)
    }
}

pub(crate) fn bad_file(file: &str, message: String) -> Error {
    Error::Asset {
        name: file.to_string(),
        message,
    }
}

fn model_err(e: candle_core::Error) -> Error {
    Error::Model {
        model: "causal LM".into(),
        message: e.to_string(),
    }
}

/// One weight matrix `out × in`, multiplied from the right of the activations.
struct Linear(QMatMul);

impl Linear {
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        self.0.forward(x)
    }
}

struct Layer {
    attn_norm: Tensor,
    wq: Linear,
    wk: Linear,
    wv: Linear,
    wo: Linear,
    q_norm: Option<Tensor>,
    k_norm: Option<Tensor>,
    post_attn_norm: Option<Tensor>,
    ffn_norm: Tensor,
    gate: Linear,
    up: Linear,
    down: Linear,
    post_ffn_norm: Option<Tensor>,
    sliding: bool,
}

/// The weights of the whole model.
pub struct Decoder {
    pub(crate) config: DecoderConfig,
    embeddings: Tensor,
    layers: Vec<Layer>,
    norm: Tensor,
    /// `None`: tied to the embeddings.
    output: Option<Linear>,
    device: Device,
}

/// Per row of a batch, the position of every cached key (−1 for padding), in cache order.
#[derive(Clone, Debug, Default)]
pub struct KeyPositions(pub Vec<Vec<i64>>);

/// The keys and values of every layer for the rows of a batch, and their positions.
pub struct Cache {
    kv: Vec<Option<(Tensor, Tensor)>>,
    pub(crate) positions: KeyPositions,
}

impl Cache {
    /// An empty cache for `layers` layers and `rows` rows.
    pub fn new(layers: usize, rows: usize) -> Self {
        Cache {
            kv: (0..layers).map(|_| None).collect(),
            positions: KeyPositions(vec![Vec::new(); rows]),
        }
    }

    /// Tokens cached per row.
    pub fn len(&self) -> usize {
        self.positions.0.first().map_or(0, Vec::len)
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The one-row cache repeated for `rows` rows (a shared prefix for many continuations).
    pub fn broadcast(&self, rows: usize) -> Result<Cache> {
        let kv = self
            .kv
            .iter()
            .map(|slot| {
                slot.as_ref()
                    .map(|(k, v)| -> candle_core::Result<(Tensor, Tensor)> {
                        Ok((repeat_rows(k, rows)?, repeat_rows(v, rows)?))
                    })
                    .transpose()
            })
            .collect::<candle_core::Result<Vec<_>>>()
            .map_err(model_err)?;
        let row = self.positions.0.first().cloned().unwrap_or_default();
        Ok(Cache {
            kv,
            positions: KeyPositions(vec![row; rows]),
        })
    }

    /// Keeps only the rows in `keep` (generation drops finished rows).
    pub fn select_rows(&mut self, keep: &[usize]) -> Result<()> {
        let device = self
            .kv
            .iter()
            .flatten()
            .next()
            .map(|(k, _)| k.device().clone());
        if let Some(device) = device {
            let index: Vec<u32> = keep.iter().map(|&i| i as u32).collect();
            let index = Tensor::new(index.as_slice(), &device).map_err(model_err)?;
            for (k, v) in self.kv.iter_mut().flatten() {
                *k = k.index_select(&index, 0).map_err(model_err)?;
                *v = v.index_select(&index, 0).map_err(model_err)?;
            }
        }
        self.positions.0 = keep
            .iter()
            .map(|&i| std::mem::take(&mut self.positions.0[i]))
            .collect();
        Ok(())
    }
}

fn repeat_rows(t: &Tensor, rows: usize) -> candle_core::Result<Tensor> {
    let mut dims = t.dims().to_vec();
    dims[0] = rows;
    t.broadcast_as(dims)?.contiguous()
}

impl Decoder {
    /// Loads the weights named as llama.cpp names them.
    pub fn load<R: std::io::Read + std::io::Seek>(
        content: &gguf_file::Content,
        reader: &mut R,
        config: DecoderConfig,
        format: WeightFormat,
        device: &Device,
        file: &str,
    ) -> Result<Self> {
        let mut files = Tensors {
            content,
            reader,
            device,
            file,
            format,
        };
        let mut layers = Vec::with_capacity(config.layers);
        let gemma = config.family == Family::Gemma3;
        for i in 0..config.layers {
            let p = format!("blk.{i}");
            let wq = files.linear(&format!("{p}.attn_q.weight"))?;
            let wk = files.linear(&format!("{p}.attn_k.weight"))?;
            let wv = files.linear(&format!("{p}.attn_v.weight"))?;
            let wo = files.linear(&format!("{p}.attn_output.weight"))?;
            let gate = files.linear(&format!("{p}.ffn_gate.weight"))?;
            let up = files.linear(&format!("{p}.ffn_up.weight"))?;
            let down = files.linear(&format!("{p}.ffn_down.weight"))?;
            let attn_norm = files.dense(&format!("{p}.attn_norm.weight"))?;
            let ffn_norm = files.dense(&format!("{p}.ffn_norm.weight"))?;
            let (q_norm, k_norm, post_attn_norm, post_ffn_norm) = if gemma {
                (
                    Some(files.dense(&format!("{p}.attn_q_norm.weight"))?),
                    Some(files.dense(&format!("{p}.attn_k_norm.weight"))?),
                    Some(files.dense(&format!("{p}.post_attention_norm.weight"))?),
                    Some(files.dense(&format!("{p}.post_ffw_norm.weight"))?),
                )
            } else {
                (None, None, None, None)
            };
            layers.push(Layer {
                attn_norm,
                wq,
                wk,
                wv,
                wo,
                q_norm,
                k_norm,
                post_attn_norm,
                ffn_norm,
                gate,
                up,
                down,
                post_ffn_norm,
                sliding: config.is_sliding(i),
            });
        }
        let embeddings = files.dense("token_embd.weight")?;
        let norm = files.dense("output_norm.weight")?;
        let output = if content.tensor_infos.contains_key("output.weight") {
            Some(files.linear("output.weight")?)
        } else if format == WeightFormat::Quantized {
            // Tied: the quantized copy for the head (an f32 copy of the vocabulary's rows is
            // most of what a generated token reads from memory), the f32 one for lookups.
            Some(files.linear("token_embd.weight")?)
        } else {
            None
        };
        Ok(Decoder {
            config,
            embeddings,
            layers,
            norm,
            output,
            device: device.clone(),
        })
    }

    /// The device the weights live on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Runs `ids` (rows of equal length; `positions[r][t]` each token's position, −1 for
    /// padding) through the blocks, appending their keys and values to `cache`; returns the
    /// final-normed hidden states `(rows, len, hidden)`.
    pub fn forward(
        &self,
        ids: &[Vec<u32>],
        positions: &[Vec<i64>],
        cache: &mut Cache,
    ) -> Result<Tensor> {
        self.forward_inner(ids, positions, cache).map_err(model_err)
    }

    fn forward_inner(
        &self,
        ids: &[Vec<u32>],
        positions: &[Vec<i64>],
        cache: &mut Cache,
    ) -> candle_core::Result<Tensor> {
        let c = &self.config;
        let rows = ids.len();
        let len = ids.first().map_or(0, Vec::len);
        let flat: Vec<u32> = ids.iter().flatten().copied().collect();
        let flat = Tensor::from_vec(flat, rows * len, &self.device)?;
        let mut x = self
            .embeddings
            .index_select(&flat, 0)?
            .reshape((rows, len, c.hidden))?;
        if c.family == Family::Gemma3 {
            x = (x * (c.hidden as f64).sqrt())?;
        }
        // Keys seen by this step: the cached ones, then this step's own.
        for (row, pos) in cache.positions.0.iter_mut().zip(positions) {
            row.extend_from_slice(pos);
        }
        let keys = &cache.positions;
        let global_mask = self.mask(positions, keys, None)?;
        let local_mask = match c.sliding_window {
            Some(w) => Some(self.mask(positions, keys, Some(w))?),
            None => None,
        };
        let rope_global = self.rope_tables(positions, c.rope_theta)?;
        let rope_local = match c.sliding_window {
            Some(_) => Some(self.rope_tables(positions, c.rope_theta_local)?),
            None => None,
        };
        for (layer, slot) in self.layers.iter().zip(cache.kv.iter_mut()) {
            let (mask, rope) = if layer.sliding {
                (
                    local_mask.as_ref().unwrap_or(&global_mask),
                    rope_local.as_ref().unwrap_or(&rope_global),
                )
            } else {
                (&global_mask, &rope_global)
            };
            let residual = x.clone();
            let h = rms_norm(&x, &layer.attn_norm, c.eps)?;
            let mut h = self.attention(layer, &h, mask, rope, slot)?;
            if let Some(n) = &layer.post_attn_norm {
                h = rms_norm(&h, n, c.eps)?;
            }
            let x1 = (h + residual)?;
            let h = rms_norm(&x1, &layer.ffn_norm, c.eps)?;
            let gate = layer.gate.forward(&h)?;
            let gate = match c.family {
                Family::Llama => candle_nn::ops::silu(&gate)?,
                Family::Gemma3 => gate.gelu()?,
            };
            let h = (gate * layer.up.forward(&h)?)?;
            let mut h = layer.down.forward(&h)?;
            if let Some(n) = &layer.post_ffn_norm {
                h = rms_norm(&h, n, c.eps)?;
            }
            x = (h + x1)?;
        }
        rms_norm(&x, &self.norm, c.eps)
    }

    /// Additive attention bias `(rows, 1, len, keys)`: 0 where a query may attend, −∞ elsewhere.
    fn mask(
        &self,
        queries: &[Vec<i64>],
        keys: &KeyPositions,
        window: Option<usize>,
    ) -> candle_core::Result<Tensor> {
        let rows = queries.len();
        let len = queries.first().map_or(0, Vec::len);
        let n_keys = keys.0.first().map_or(0, Vec::len);
        let mut bias = vec![f32::NEG_INFINITY; rows * len * n_keys];
        for (r, (qs, ks)) in queries.iter().zip(&keys.0).enumerate() {
            // A padding query attends where the row's last real token does, so its (unused)
            // output stays finite.
            let fallback = qs.iter().copied().max().unwrap_or(0).max(0);
            for (t, &q) in qs.iter().enumerate() {
                let q = if q < 0 { fallback } else { q };
                let out = &mut bias[(r * len + t) * n_keys..(r * len + t + 1) * n_keys];
                let mut any = false;
                for (slot, &k) in out.iter_mut().zip(ks) {
                    let inside = window.is_none_or(|w| q - k < w as i64);
                    if k >= 0 && k <= q && inside {
                        *slot = 0.0;
                        any = true;
                    }
                }
                if !any {
                    // Nothing to attend to (a row of padding only): attend to every key, so
                    // the softmax stays finite; the output is never read.
                    out.fill(0.0);
                }
            }
        }
        Tensor::from_vec(bias, (rows, 1, len, n_keys), &self.device)
    }

    /// cos and sin `(rows, len, head_dim / 2)` at each token's position.
    fn rope_tables(
        &self,
        positions: &[Vec<i64>],
        theta: f32,
    ) -> candle_core::Result<(Tensor, Tensor)> {
        let half = self.config.head_dim / 2;
        let inv: Vec<f64> = (0..half)
            .map(|i| 1.0 / (theta as f64).powf(2.0 * i as f64 / self.config.head_dim as f64))
            .collect();
        let rows = positions.len();
        let len = positions.first().map_or(0, Vec::len);
        let mut cos = Vec::with_capacity(rows * len * half);
        let mut sin = Vec::with_capacity(rows * len * half);
        for p in positions.iter().flatten() {
            let p = (*p).max(0) as f64;
            for f in &inv {
                // f32 angles, as the reference computes them (position × frequency in f32).
                let angle = (p as f32) * (*f as f32);
                cos.push(angle.cos());
                sin.push(angle.sin());
            }
        }
        Ok((
            Tensor::from_vec(cos, (rows, len, half), &self.device)?,
            Tensor::from_vec(sin, (rows, len, half), &self.device)?,
        ))
    }

    fn attention(
        &self,
        layer: &Layer,
        x: &Tensor,
        mask: &Tensor,
        (cos, sin): &(Tensor, Tensor),
        slot: &mut Option<(Tensor, Tensor)>,
    ) -> candle_core::Result<Tensor> {
        let c = &self.config;
        let (rows, len, _) = x.dims3()?;
        let heads = |t: Tensor, n: usize| -> candle_core::Result<Tensor> {
            t.reshape((rows, len, n, c.head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let mut q = heads(layer.wq.forward(x)?, c.heads)?;
        let mut k = heads(layer.wk.forward(x)?, c.kv_heads)?;
        let v = heads(layer.wv.forward(x)?, c.kv_heads)?;
        if let (Some(qn), Some(kn)) = (&layer.q_norm, &layer.k_norm) {
            q = rms_norm(&q, qn, c.eps)?;
            k = rms_norm(&k, kn, c.eps)?;
        }
        let (q, k) = match c.family {
            Family::Llama => (
                candle_nn::rotary_emb::rope_i(&q, cos, sin)?,
                candle_nn::rotary_emb::rope_i(&k, cos, sin)?,
            ),
            Family::Gemma3 => (
                candle_nn::rotary_emb::rope(&q, cos, sin)?,
                candle_nn::rotary_emb::rope(&k, cos, sin)?,
            ),
        };
        let (k, v) = match slot.take() {
            Some((pk, pv)) => (Tensor::cat(&[&pk, &k], 2)?, Tensor::cat(&[&pv, &v], 2)?),
            None => (k, v),
        };
        *slot = Some((k.clone(), v.clone()));
        let group = c.heads / c.kv_heads;
        let n_keys = k.dim(2)?;
        // Grouped-query attention without copying keys: the `group` query heads that share a
        // key head are stacked as extra query rows.
        let q = q.reshape((rows, c.kv_heads, group * len, c.head_dim))?;
        let scale = 1.0 / (c.head_dim as f64).sqrt();
        let scores = (q.matmul(&k.t()?)? * scale)?;
        let scores = scores
            .reshape((rows, c.kv_heads, group, len, n_keys))?
            .broadcast_add(&mask.unsqueeze(1)?)?;
        let weights = candle_nn::ops::softmax_last_dim(&scores)?.reshape((
            rows,
            c.kv_heads,
            group * len,
            n_keys,
        ))?;
        let out = weights.matmul(&v)?; // (rows, kv_heads, group * len, head_dim)
        let out = out
            .reshape((rows, c.heads, len, c.head_dim))?
            .transpose(1, 2)?
            .reshape((rows, len, c.heads * c.head_dim))?;
        layer.wo.forward(&out)
    }

    /// Log-probabilities over the vocabulary, `(n, vocab)`, of hidden states `(n, hidden)`.
    pub fn log_softmax(&self, hidden: &Tensor) -> Result<Tensor> {
        self.logits(hidden)
            .and_then(|l| candle_nn::ops::log_softmax(&l, D::Minus1))
            .map_err(model_err)
    }

    /// Logits `(n, vocab)` of hidden states `(n, hidden)`.
    pub fn logits(&self, hidden: &Tensor) -> candle_core::Result<Tensor> {
        match &self.output {
            Some(o) => o.forward(hidden),
            None => hidden.matmul(&self.embeddings.t()?),
        }
    }

    /// `log p(target | hidden)` for each row of `hidden` `(n, hidden)`, computed over the
    /// vocabulary in slices of rows so that a batch never holds all its logits at once.
    pub fn target_log_probs(&self, hidden: &Tensor, targets: &[u32]) -> Result<Vec<f32>> {
        const ROWS: usize = 64;
        let n = targets.len();
        let mut out = Vec::with_capacity(n);
        let mut start = 0;
        while start < n {
            let take = ROWS.min(n - start);
            let part = (|| -> candle_core::Result<Vec<f32>> {
                let h = hidden.narrow(0, start, take)?;
                let logits = self.logits(&h)?.to_dtype(DType::F32)?;
                let lse = logits.log_sum_exp(D::Minus1)?;
                let idx = Tensor::new(&targets[start..start + take], &self.device)?.unsqueeze(1)?;
                let picked = logits.gather(&idx, 1)?.squeeze(1)?;
                (picked - lse)?.to_vec1::<f32>()
            })()
            .map_err(model_err)?;
            out.extend(part);
            start += take;
        }
        Ok(out)
    }
}

/// Reads named tensors of one file.
struct Tensors<'a, R> {
    content: &'a gguf_file::Content,
    reader: &'a mut R,
    device: &'a Device,
    file: &'a str,
    format: WeightFormat,
}

impl<R: std::io::Read + std::io::Seek> Tensors<'_, R> {
    fn raw(&mut self, name: &str) -> Result<QTensor> {
        self.content
            .tensor(self.reader, name, self.device)
            .map_err(|e| bad_file(self.file, format!("tensor `{name}`: {e}")))
    }

    /// Dequantized to f32.
    fn dense(&mut self, name: &str) -> Result<Tensor> {
        self.raw(name)?
            .dequantize(self.device)
            .map_err(|e| bad_file(self.file, format!("tensor `{name}`: {e}")))
    }

    /// A weight matrix in the configured format.
    fn linear(&mut self, name: &str) -> Result<Linear> {
        Ok(Linear(match self.format {
            WeightFormat::F32 => QMatMul::Tensor(self.dense(name)?),
            WeightFormat::Quantized => {
                let q = self.raw(name)?;
                let q = if self.device.is_cpu() && !has_cpu_kernel(q.dtype()) {
                    // candle multiplies these block types with scalar code on the CPU;
                    // Q8_0 has SIMD kernels and holds their values to within 1/254 of each
                    // 32-weight block's largest.
                    let dense = q
                        .dequantize(self.device)
                        .map_err(|e| bad_file(self.file, format!("tensor `{name}`: {e}")))?;
                    QTensor::quantize(&dense, GgmlDType::Q8_0)
                        .map_err(|e| bad_file(self.file, format!("tensor `{name}`: {e}")))?
                } else {
                    q
                };
                QMatMul::from_qtensor(q)
                    .map_err(|e| bad_file(self.file, format!("tensor `{name}`: {e}")))?
            }
        }))
    }
}

/// Whether candle has SIMD CPU kernels for a block type (Q4_0, Q8_0 and the k-quants); Q4_1
/// and Q5_0/Q5_1 fall back to scalar loops.
fn has_cpu_kernel(dtype: GgmlDType) -> bool {
    !matches!(dtype, GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1)
}

fn rms_norm(x: &Tensor, weight: &Tensor, eps: f64) -> candle_core::Result<Tensor> {
    candle_nn::ops::rms_norm(&x.contiguous()?, weight, eps as f32)
}
