//! A BERT encoder forward pass for the CPU in f32, written for throughput, with the semantics of
//! candle-transformers' `BertModel` (same checkpoints, same hidden states within f32 rounding).
//!
//! Why it exists: candle's generic op-by-op forward spends much of a BERT forward outside the
//! matrix products — three `contiguous` copies per layer for the per-head layout and one back,
//! a softmax built from five separate ops, a scalar `erf` per GELU element, a mask broadcast —
//! and its batched `Linear` issues one GEMM per sequence instead of one for the batch. Here
//! (measurements in `benches/README.md`):
//!
//! * **One GEMM per dense layer** over all `rows × width` tokens, the bias written into the
//!   output first so that the GEMM accumulates onto it; Q, K and V are **fused** into one
//!   `[3H, H]` projection.
//! * **Attention without copies**: for every (sequence, head) the score and context products
//!   read Q, K and V in place out of the fused `[tokens, 3H]` buffer through strides and write the
//!   context straight into its `[tokens, H]` columns; the (sequence, head) pairs run in parallel
//!   on rayon, each with its own `width × width` scratch. Scores are scaled inside the GEMM.
//! * **Vectorized elementwise kernels** (exp for the softmax, erf/tanh for GELU, layer norm):
//!   branch-free polynomials that the compiler vectorizes, compiled for AVX2 and AVX-512 and
//!   chosen at run time (`simd_kernel!`), so the build stays portable.
//! * **Buffers reused** between calls: the activations (for BERT-base at 64 × 384 tokens, about
//!   0.75 GB) stay allocated after a call, trading memory for not faulting in and zeroing fresh
//!   pages every forward pass (12% of the profile before).
//! * Matrix products are the `gemm` crate's (candle's own CPU GEMM) with its AVX-512 kernels
//!   enabled (workspace feature `x86-v4`, runtime-detected).
//!
//! Accuracy: `exp` and `erf` are the Cephes/Eigen single-precision approximations (within a few
//! ulp of libm, tested below); hidden states match `BertModel` within 1e-4 (tested, BERT-base heads
//! included) and the MiniLM golden within 1e-4 (tests in `execute/tests/fast_bert.rs` and `minilm.rs`).
//!
//! Scope: absolute position embeddings (the only kind candle-transformers' config has), hidden
//! activations `gelu` (erf), `gelu_approximate` (tanh) and `relu`. Weights are copied out of the
//! `VarBuilder` into f32 vectors once at load, whatever their stored dtype; callers that want f16,
//! bf16 or a GPU use `BertModel` instead (see `SentenceEncoder`).

use candle_core::{bail, DType, Device, Result, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{Config, HiddenAct, PositionEmbeddingType};
use gemm::Parallelism;
use rayon::prelude::*;
use std::sync::Mutex;

/// Defines `fn $name` that runs its body compiled for AVX-512 or AVX2+FMA when the CPU has
/// them (runtime detection, cached by std), and as plain code otherwise: the loops are written
/// branch-free so that the compiler vectorizes them for whichever target it compiles for.
macro_rules! simd_kernel {
    ($(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block) => {
        $(#[$meta])*
        fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn generic($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
                fn v4($($arg: $ty),*) {
                    generic($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn v3($($arg: $ty),*) {
                    generic($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                {
                    // SAFETY: the CPU has the features `v4` is compiled for.
                    return unsafe { v4($($arg),*) };
                }
                if std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
                {
                    // SAFETY: the CPU has the features `v3` is compiled for.
                    return unsafe { v3($($arg),*) };
                }
            }
            generic($($arg),*)
        }
    };
}

/// A BERT encoder (embeddings + transformer layers, no pooler) on the CPU in f32.
pub struct FastBert {
    word: Vec<f32>,
    position: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
    hidden: usize,
    heads: usize,
    intermediate: usize,
    vocab: usize,
    type_vocab: usize,
    max_positions: usize,
    act: HiddenAct,
    /// Activation buffers kept between calls (one set per concurrent caller), so that a forward
    /// pass does not fault in tens of megabytes of fresh zeroed pages every time.
    scratch: Mutex<Vec<Buffers>>,
}

/// The activations of one forward pass, grown on demand and reused.
#[derive(Default)]
struct Buffers {
    x: Vec<f32>,
    qkv: Vec<f32>,
    context: Vec<f32>,
    attended: Vec<f32>,
    inner: Vec<f32>,
}

/// `y = x Wᵀ + b` with `W` stored as the checkpoint has it, `[out, in]` row-major.
struct Dense {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
}

/// Layer norm over the last axis: `(x − mean) / sqrt(var + eps) · gamma + beta`.
struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
    eps: f32,
}

/// One transformer layer (post-norm, as BERT).
struct Layer {
    qkv: Dense,
    attention_output: Dense,
    attention_norm: Norm,
    intermediate: Dense,
    output: Dense,
    output_norm: Norm,
}

fn tensor_vec(vb: &VarBuilder, shape: &[usize], name: &str) -> Result<Vec<f32>> {
    vb.get(shape, name)?
        .to_device(&Device::Cpu)?
        .to_dtype(DType::F32)?
        .flatten_all()?
        .to_vec1::<f32>()
}

impl Dense {
    fn load(vb: &VarBuilder, inputs: usize, outputs: usize) -> Result<Self> {
        Ok(Dense {
            weight: tensor_vec(vb, &[outputs, inputs], "weight")?,
            bias: tensor_vec(vb, &[outputs], "bias")?,
            inputs,
            outputs,
        })
    }

    /// Q, K and V stacked into one `[3H, H]` projection.
    fn load_fused(vbs: &[VarBuilder], inputs: usize, outputs: usize) -> Result<Self> {
        let mut weight = Vec::with_capacity(vbs.len() * outputs * inputs);
        let mut bias = Vec::with_capacity(vbs.len() * outputs);
        for vb in vbs {
            weight.extend(tensor_vec(vb, &[outputs, inputs], "weight")?);
            bias.extend(tensor_vec(vb, &[outputs], "bias")?);
        }
        Ok(Dense {
            weight,
            bias,
            inputs,
            outputs: vbs.len() * outputs,
        })
    }

    /// `y[tokens, out] = x[tokens, in] Wᵀ + b`.
    fn forward(&self, x: &[f32], y: &mut [f32], tokens: usize) {
        assert_eq!(x.len(), tokens * self.inputs);
        assert_eq!(y.len(), tokens * self.outputs);
        for row in y.chunks_exact_mut(self.outputs) {
            row.copy_from_slice(&self.bias);
        }
        if tokens == 0 {
            return;
        }
        // SAFETY: the asserts above bound every access: x is [tokens, inputs] row-major, the
        // weight [outputs, inputs] read as its transpose (row stride 1, column stride `inputs`),
        // y [tokens, outputs] row-major; the three do not overlap.
        unsafe {
            gemm::gemm(
                tokens,
                self.outputs,
                self.inputs,
                y.as_mut_ptr(),
                1,
                self.outputs as isize,
                true,
                x.as_ptr(),
                1,
                self.inputs as isize,
                self.weight.as_ptr(),
                self.inputs as isize,
                1,
                1.0,
                1.0,
                false,
                false,
                false,
                parallelism(tokens),
            )
        }
    }
}

impl Norm {
    fn load(vb: &VarBuilder, size: usize, eps: f64) -> Result<Self> {
        Ok(Norm {
            gamma: tensor_vec(vb, &[size], "weight")?,
            beta: tensor_vec(vb, &[size], "bias")?,
            eps: eps as f32,
        })
    }

    /// Normalizes every row of `x` (rows of `gamma.len()`) in place, after adding `residual`.
    fn forward(&self, x: &mut [f32], residual: Option<&[f32]>) {
        let width = self.gamma.len();
        let rows = x.len() / width;
        let chunk = rows.div_ceil(rayon::current_num_threads()).max(16) * width;
        let run = |x: &mut [f32], residual: Option<&[f32]>| {
            layer_norm_rows(x, residual, &self.gamma, &self.beta, self.eps)
        };
        match residual {
            Some(residual) => x
                .par_chunks_mut(chunk)
                .zip(residual.par_chunks(chunk))
                .for_each(|(x, r)| run(x, Some(r))),
            None => x.par_chunks_mut(chunk).for_each(|x| run(x, None)),
        }
    }
}

/// Sum with 16 independent lanes, so that it vectorizes.
#[inline(always)]
fn sum(xs: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 16];
    for block in xs.chunks(16) {
        for (l, v) in lanes.iter_mut().zip(block) {
            *l += v;
        }
    }
    lanes.iter().sum()
}

/// Max with 16 independent lanes.
#[inline(always)]
fn max(xs: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 16];
    for block in xs.chunks(16) {
        for (l, v) in lanes.iter_mut().zip(block) {
            *l = l.max(*v);
        }
    }
    lanes.iter().copied().fold(f32::NEG_INFINITY, f32::max)
}

/// `eˣ` in single precision, Cephes' `expf` (range reduction by ln 2, degree-6 polynomial),
/// branch-free so that loops over it vectorize; 0 below −87.3, saturating at 88.7.
#[inline(always)]
#[allow(clippy::excessive_precision)] // Cephes' coefficients as published
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const C1: f32 = 0.693_359_4;
    const C2: f32 = -2.121_944_4e-4;
    // Adding and subtracting 1.5·2²³ rounds to the nearest integer in any rounding mode-free way.
    const ROUND: f32 = 12_582_912.0;
    let xc = x.clamp(-87.3, 88.7);
    let n = (xc * LOG2E + ROUND) - ROUND;
    let r = xc - n * C1 - n * C2;
    let mut p = 1.987_569_1e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 5.000_000_1e-1;
    let y = p * r * r + r + 1.0;
    let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
    if x < -87.3 {
        0.0
    } else {
        y * scale
    }
}

/// `erf(x)` in single precision: Eigen's rational approximation on [−4, 4] (±1 beyond, where
/// f32 cannot tell them apart), branch-free.
#[inline(always)]
#[allow(clippy::excessive_precision)] // Eigen's coefficients as published
pub fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = -2.726_142_2e-10f32;
    p = p * x2 + 2.770_681_4e-8;
    p = p * x2 - 2.101_024e-6;
    p = p * x2 - 5.692_506_4e-5;
    p = p * x2 - 7.349_906_3e-4;
    p = p * x2 - 2.954_599_8e-3;
    p = p * x2 - 1.609_603_3e-2;
    let p = p * x;
    let mut q = -1.456_607_2e-5f32;
    q = q * x2 - 2.133_740_6e-4;
    q = q * x2 - 1.682_827e-3;
    q = q * x2 - 7.373_329e-3;
    q = q * x2 - 1.426_474e-2;
    p / q
}

/// `tanh(x) = 1 − 2 / (e²ˣ + 1)`, with [`exp`].
#[inline(always)]
fn tanh(x: f32) -> f32 {
    1.0 - 2.0 / (exp(2.0 * x) + 1.0)
}

/// The exact (erf) GELU of every element, in place, vectorised and in parallel chunks: what
/// [`crate::encoders::activation::gelu_erf`] runs for f32 tensors on the CPU.
pub(crate) fn gelu_erf_in_place(xs: &mut [f32]) {
    activate(HiddenAct::Gelu, xs);
}

/// `log_softmax` of `row` in place (`x − max − ln Σ eˣ⁻ᵐᵃˣ`), vectorised with [`exp`]: beam
/// search's scores over a vocabulary, where a scalar `expf` per word was 3% of BART's
/// decoding at 32 inputs × 4 beams.
pub fn log_softmax_in_place(row: &mut [f32]) {
    log_softmax_row(row);
}

simd_kernel! {
    /// [`log_softmax_in_place`]'s kernel.
    fn log_softmax_row(row: &mut [f32]) {
        let m = max(row);
        let mut lanes = [0.0f32; 16];
        for block in row.chunks(16) {
            for (l, v) in lanes.iter_mut().zip(block) {
                *l += exp(v - m);
            }
        }
        let log_sum = lanes.iter().sum::<f32>().ln();
        for x in row.iter_mut() {
            *x = *x - m - log_sum;
        }
    }
}

/// The hidden activation applied in place, in parallel chunks.
fn activate(act: HiddenAct, xs: &mut [f32]) {
    let chunk = xs.len().div_ceil(rayon::current_num_threads()).max(4096);
    xs.par_chunks_mut(chunk).for_each(|xs| match act {
        HiddenAct::Gelu => gelu_erf(xs),
        HiddenAct::GeluApproximate => gelu_tanh(xs),
        HiddenAct::Relu => relu(xs),
    });
}

simd_kernel! {
    /// Residual add then layer norm of every `gamma.len()`-wide row of `x`, in place.
    fn layer_norm_rows(
        x: &mut [f32],
        residual: Option<&[f32]>,
        gamma: &[f32],
        beta: &[f32],
        eps: f32
    ) {
        let width = gamma.len();
        if let Some(residual) = residual {
            for (a, b) in x.iter_mut().zip(residual) {
                *a += b;
            }
        }
        for row in x.chunks_exact_mut(width) {
            let mean = sum(row) / width as f32;
            let mut lanes = [0.0f32; 16];
            for block in row.chunks(16) {
                for (l, v) in lanes.iter_mut().zip(block) {
                    let c = v - mean;
                    *l += c * c;
                }
            }
            let var = lanes.iter().sum::<f32>();
            let inv = 1.0 / (var / width as f32 + eps).sqrt();
            for ((v, g), b) in row.iter_mut().zip(gamma).zip(beta) {
                *v = (*v - mean) * inv * g + b;
            }
        }
    }
}

simd_kernel! {
    /// GELU with the exact erf, in place.
    fn gelu_erf(xs: &mut [f32]) {
        for x in xs.iter_mut() {
            *x = 0.5 * *x * (1.0 + erf(*x * std::f32::consts::FRAC_1_SQRT_2));
        }
    }
}

simd_kernel! {
    /// GELU with the tanh approximation, in place.
    fn gelu_tanh(xs: &mut [f32]) {
        const K: f32 = 0.797_884_6; // sqrt(2/π)
        for x in xs.iter_mut() {
            let v = *x;
            *x = 0.5 * v * (1.0 + tanh(K * (v + 0.044_715 * v * v * v)));
        }
    }
}

simd_kernel! {
    /// ReLU, in place.
    fn relu(xs: &mut [f32]) {
        for x in xs.iter_mut() {
            *x = x.max(0.0);
        }
    }
}

simd_kernel! {
/// Softmax of every row of `scores` (`width` wide) after adding `bias` to each row.
fn softmax_rows(scores: &mut [f32], bias: &[f32]) {
    let width = bias.len();
    for row in scores.chunks_exact_mut(width) {
        for (s, b) in row.iter_mut().zip(bias) {
            *s += b;
        }
        let m = max(row);
        for s in row.iter_mut() {
            *s = exp(*s - m);
        }
        let inv = 1.0 / sum(row);
        for s in row.iter_mut() {
            *s *= inv;
        }
    }
}
}

/// The GEMM parallelism for a dense layer over `tokens` rows: all of rayon's threads, except
/// for a few sentences' worth of rows (the substitution checks embed one short sentence and its
/// handful of variants at a time), where waking and joining the threads costs more than the
/// product: measured on 2 cores, the MT4MRC perturb bench spent a tenth of its time in
/// `sched_yield` and futex calls with every GEMM split.
fn parallelism(tokens: usize) -> Parallelism {
    match rayon::current_num_threads() {
        0 | 1 => Parallelism::None,
        _ if tokens < SERIAL_GEMM_ROWS => Parallelism::None,
        n => Parallelism::Rayon(n),
    }
}

/// Below this many token rows a dense layer's GEMM runs on the calling thread.
const SERIAL_GEMM_ROWS: usize = 128;

/// A raw pointer that may cross threads: the attention tasks write disjoint column blocks.
#[derive(Clone, Copy)]
struct SharedMut(*mut f32);
// SAFETY: only used by `attention`, whose tasks write pairwise disjoint elements.
unsafe impl Send for SharedMut {}
unsafe impl Sync for SharedMut {}

impl SharedMut {
    /// The pointer (a method, so that closures capture the `Send` wrapper, not the field).
    fn get(self) -> *mut f32 {
        self.0
    }
}

impl FastBert {
    /// Loads the weights `BertModel::load` would, from the same `VarBuilder` (top level,
    /// `bert.` or `{model_type}.` prefix), as f32 on the CPU.
    ///
    /// # Errors
    /// A candle error naming the tensor that is missing or has the wrong shape.
    pub fn load(vb: VarBuilder, config: &Config) -> Result<Self> {
        let PositionEmbeddingType::Absolute = config.position_embedding_type;
        let h = config.hidden_size;
        if config.num_attention_heads == 0 || !h.is_multiple_of(config.num_attention_heads) {
            bail!(
                "hidden_size {h} is not a multiple of num_attention_heads {}",
                config.num_attention_heads
            );
        }
        let mut prefixes = vec![String::new(), "bert.".to_string()];
        if let Some(model_type) = &config.model_type {
            prefixes.push(format!("{model_type}."));
        }
        let vb = match prefixes
            .iter()
            .find(|p| vb.contains_tensor(&format!("{p}embeddings.word_embeddings.weight")))
        {
            Some(p) if p.is_empty() => vb,
            Some(p) => vb.pp(p.trim_end_matches('.')),
            // Let the plain lookup below name the missing tensor.
            None => vb,
        };
        let emb = vb.pp("embeddings");
        let word = tensor_vec(
            &emb.pp("word_embeddings"),
            &[config.vocab_size, h],
            "weight",
        )?;
        let position = tensor_vec(
            &emb.pp("position_embeddings"),
            &[config.max_position_embeddings, h],
            "weight",
        )?;
        let token_type = tensor_vec(
            &emb.pp("token_type_embeddings"),
            &[config.type_vocab_size, h],
            "weight",
        )?;
        let embedding_norm = Norm::load(&emb.pp("LayerNorm"), h, config.layer_norm_eps)?;
        let layers = (0..config.num_hidden_layers)
            .map(|i| {
                let vb = vb.pp(format!("encoder.layer.{i}"));
                let attn = vb.pp("attention");
                let this = attn.pp("self");
                Ok(Layer {
                    qkv: Dense::load_fused(
                        &[this.pp("query"), this.pp("key"), this.pp("value")],
                        h,
                        h,
                    )?,
                    attention_output: Dense::load(&attn.pp("output").pp("dense"), h, h)?,
                    attention_norm: Norm::load(
                        &attn.pp("output").pp("LayerNorm"),
                        h,
                        config.layer_norm_eps,
                    )?,
                    intermediate: Dense::load(
                        &vb.pp("intermediate").pp("dense"),
                        h,
                        config.intermediate_size,
                    )?,
                    output: Dense::load(&vb.pp("output").pp("dense"), config.intermediate_size, h)?,
                    output_norm: Norm::load(
                        &vb.pp("output").pp("LayerNorm"),
                        h,
                        config.layer_norm_eps,
                    )?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(FastBert {
            word,
            position,
            token_type,
            embedding_norm,
            layers,
            hidden: h,
            heads: config.num_attention_heads,
            intermediate: config.intermediate_size,
            vocab: config.vocab_size,
            type_vocab: config.type_vocab_size,
            max_positions: config.max_position_embeddings,
            act: config.hidden_act,
            scratch: Mutex::new(Vec::new()),
        })
    }

    /// The width of the hidden states.
    pub fn hidden_size(&self) -> usize {
        self.hidden
    }

    /// As `BertModel::forward`: `input_ids`, `token_type_ids` and the optional `attention_mask`
    /// (1 = attend, 0 = padding; all ones when absent) are `[rows, width]` integer tensors; the
    /// result is the last layer's hidden states `[rows, width, hidden]`, f32 on the CPU.
    ///
    /// # Errors
    /// Shapes that disagree, an id outside the vocabulary or a width beyond the positions.
    pub fn forward(
        &self,
        input_ids: &Tensor,
        token_type_ids: &Tensor,
        attention_mask: Option<&Tensor>,
    ) -> Result<Tensor> {
        let (rows, width) = input_ids.dims2()?;
        let flat = |t: &Tensor| -> Result<Vec<u32>> {
            if t.dims2()? != (rows, width) {
                bail!(
                    "expected [{rows}, {width}] like input_ids, got {:?}",
                    t.dims()
                );
            }
            t.to_device(&Device::Cpu)?
                .to_dtype(DType::U32)?
                .flatten_all()?
                .to_vec1::<u32>()
        };
        let ids = flat(input_ids)?;
        let types = flat(token_type_ids)?;
        let mask = match attention_mask {
            Some(mask) => flat(mask)?,
            None => vec![1; rows * width],
        };
        let hidden = self.forward_slices(&ids, &types, &mask, rows, width)?;
        Tensor::from_vec(hidden, (rows, width, self.hidden), &Device::Cpu)
    }

    /// The same forward pass on row-major `[rows, width]` slices; returns the hidden states
    /// `[rows, width, hidden]` row-major.
    ///
    /// # Errors
    /// Slices that are not `rows × width` long, an id outside the vocabulary or the token types,
    /// or a width beyond `max_position_embeddings`.
    pub fn forward_slices(
        &self,
        ids: &[u32],
        type_ids: &[u32],
        mask: &[u32],
        rows: usize,
        width: usize,
    ) -> Result<Vec<f32>> {
        let tokens = rows * width;
        for (name, s) in [
            ("input_ids", ids),
            ("token_type_ids", type_ids),
            ("attention_mask", mask),
        ] {
            if s.len() != tokens {
                bail!("{name} holds {} values, expected {rows} × {width}", s.len());
            }
        }
        if width > self.max_positions {
            bail!(
                "sequence width {width} exceeds max_position_embeddings {}",
                self.max_positions
            );
        }
        if let Some(id) = ids.iter().find(|&&id| id as usize >= self.vocab) {
            bail!("token id {id} is outside the vocabulary of {}", self.vocab);
        }
        if let Some(t) = type_ids.iter().find(|&&t| t as usize >= self.type_vocab) {
            bail!(
                "token type id {t} is outside type_vocab_size {}",
                self.type_vocab
            );
        }
        let h = self.hidden;
        let mut buffers = self
            .scratch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        let Buffers {
            x,
            qkv,
            context,
            attended,
            inner,
        } = &mut buffers;
        // Every element of these is written before it is read (embeddings, bias-initialised
        // dense outputs, the context blocks of every head), so stale contents do not matter.
        x.resize(tokens * h, 0.0);
        qkv.resize(tokens * 3 * h, 0.0);
        context.resize(tokens * h, 0.0);
        attended.resize(tokens * h, 0.0);
        inner.resize(tokens * self.intermediate, 0.0);
        let (x, qkv, context, attended, inner) = (
            &mut x[..tokens * h],
            &mut qkv[..tokens * 3 * h],
            &mut context[..tokens * h],
            &mut attended[..tokens * h],
            &mut inner[..tokens * self.intermediate],
        );
        for (t, row) in x.chunks_exact_mut(h).enumerate() {
            let w = &self.word[ids[t] as usize * h..][..h];
            let p = &self.position[(t % width) * h..][..h];
            let y = &self.token_type[type_ids[t] as usize * h..][..h];
            for (((o, w), p), y) in row.iter_mut().zip(w).zip(p).zip(y) {
                *o = (w + y) + p;
            }
        }
        self.embedding_norm.forward(x, None);
        // BertModel's extended mask: (1 − m) · f32::MIN added to the scores of key positions.
        let bias: Vec<f32> = mask.iter().map(|&m| (1.0 - m as f32) * f32::MIN).collect();
        for layer in &self.layers {
            layer.qkv.forward(x, qkv, tokens);
            self.attention(qkv, &bias, context, rows, width);
            layer.attention_output.forward(context, attended, tokens);
            layer.attention_norm.forward(attended, Some(x));
            layer.intermediate.forward(attended, inner, tokens);
            activate(self.act, inner);
            layer.output.forward(inner, x, tokens);
            layer.output_norm.forward(x, Some(attended));
        }
        let hidden = x.to_vec();
        self.scratch
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(buffers);
        Ok(hidden)
    }

    /// Scaled dot-product attention of every (sequence, head) pair, read in place from the
    /// fused `qkv` `[tokens, 3H]` buffer, written into `context` `[tokens, H]`.
    fn attention(&self, qkv: &[f32], bias: &[f32], context: &mut [f32], rows: usize, width: usize) {
        let h = self.hidden;
        let d = h / self.heads;
        let ld = 3 * h;
        assert_eq!(qkv.len(), rows * width * ld);
        assert_eq!(context.len(), rows * width * h);
        let scale = 1.0 / (d as f32).sqrt();
        let out = SharedMut(context.as_mut_ptr());
        (0..rows * self.heads).into_par_iter().for_each_init(
            || vec![0.0f32; width * width],
            |scores, task| {
                let (b, head) = (task / self.heads, task % self.heads);
                let block = &qkv[b * width * ld..(b + 1) * width * ld];
                let q = block[head * d..].as_ptr();
                let k = block[h + head * d..].as_ptr();
                let v = block[2 * h + head * d..].as_ptr();
                // SAFETY: `block` is this sequence's [width, 3H] rows; Q, K and V of `head` are
                // its columns head·d.., H + head·d.. and 2H + head·d.., d wide, so every read
                // stays inside it. `scores` is width × width. The context of (b, head) is rows
                // b·width.. of `context`, columns head·d..(head+1)·d, which no other task writes.
                unsafe {
                    gemm::gemm(
                        width,
                        width,
                        d,
                        scores.as_mut_ptr(),
                        1,
                        width as isize,
                        false,
                        q,
                        1,
                        ld as isize,
                        k,
                        ld as isize,
                        1,
                        0.0,
                        scale,
                        false,
                        false,
                        false,
                        Parallelism::None,
                    );
                }
                softmax_rows(scores, &bias[b * width..(b + 1) * width]);
                // SAFETY: see above.
                unsafe {
                    gemm::gemm(
                        width,
                        d,
                        width,
                        out.get().add(b * width * h + head * d),
                        1,
                        h as isize,
                        false,
                        scores.as_ptr(),
                        1,
                        width as isize,
                        v,
                        1,
                        ld as isize,
                        0.0,
                        1.0,
                        false,
                        false,
                        false,
                        Parallelism::None,
                    );
                }
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_softmax_matches_the_definition() {
        // A vocabulary-sized row (not a multiple of 16) with a wide range, and a short one.
        for len in [50_265usize, 3] {
            let row: Vec<f32> = (0..len)
                .map(|i| ((i * 7919) % 4001) as f32 / 100.0 - 20.0)
                .collect();
            let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
            let log_sum = row
                .iter()
                .map(|&x| (x as f64 - max).exp())
                .sum::<f64>()
                .ln();
            let mut got = row.clone();
            log_softmax_in_place(&mut got);
            for (g, x) in got.iter().zip(&row) {
                let want = *x as f64 - max - log_sum;
                assert!((*g as f64 - want).abs() < 1e-4, "{g} vs {want}");
            }
        }
    }

    #[test]
    fn exp_matches_libm() {
        let mut worst = 0.0f32;
        let mut x = -87.0f32;
        while x < 88.0 {
            let rel = ((exp(x) - x.exp()) / x.exp()).abs();
            worst = worst.max(rel);
            x += 0.0137;
        }
        assert!(worst < 5e-7, "worst relative error {worst}");
        assert_eq!(exp(-200.0), 0.0);
        assert_eq!(exp(f32::MIN), 0.0);
        assert_eq!(exp(0.0), 1.0);
    }

    #[test]
    fn erf_matches_libm() {
        let mut worst = 0.0f32;
        let mut x = -6.0f32;
        while x < 6.0 {
            worst = worst.max((erf(x) - libm::erff(x)).abs());
            x += 0.001;
        }
        assert!(worst < 5e-7, "worst absolute error {worst}");
    }

    #[test]
    fn tanh_matches_libm() {
        let mut worst = 0.0f32;
        let mut x = -20.0f32;
        while x < 20.0 {
            worst = worst.max((tanh(x) - x.tanh()).abs());
            x += 0.01;
        }
        assert!(worst < 1e-6, "worst absolute error {worst}");
    }

    #[test]
    fn softmax_rows_skips_masked_keys() {
        let mut scores = vec![1.0, 2.0, 3.0, 0.5, 0.5, 9.0];
        softmax_rows(&mut scores, &[0.0, 0.0, f32::MIN]);
        let e = [1.0f32.exp(), 2.0f32.exp()];
        assert!((scores[0] - e[0] / (e[0] + e[1])).abs() < 1e-6);
        assert!((scores[1] - e[1] / (e[0] + e[1])).abs() < 1e-6);
        assert_eq!(scores[2], 0.0);
        assert!((scores[3] - 0.5).abs() < 1e-6 && (scores[4] - 0.5).abs() < 1e-6);
        assert_eq!(scores[5], 0.0);
    }
}
