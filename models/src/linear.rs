//! A linear layer (`y = x·Wᵀ + b`, weights in `transformers`' `[out, in]` layout) with a fast
//! path for the few-row products of step-by-step decoding.
//!
//! Why: each decoding step multiplies only `rows = inputs × beams` vectors by every weight
//! matrix. candle hands that to `gemm`, which first packs the whole weight matrix into panels
//! for its micro-kernel — for a handful of rows the packing costs more than the product, and
//! decoding a random bart-base ran at under half of `transformers`' speed. On an x86-64 CPU
//! with AVX-512 or with AVX2 and FMA, in `f32`, this module instead multiplies by the weights
//! packed once per layer, on first use, into the 16-column panels of the parse pipeline's
//! kernel (`metamorph_parse::spacy::packed`), one rayon task per block of 128 output columns,
//! for products of any number of rows; the packed copy doubles the layer's memory on the CPU.
//! Other CPUs stream products of up to 32 rows: each weight row is read once and its dot
//! products taken with all input rows (the rows stay in cache), split over output rows on
//! rayon's threads. Other devices and float types, and larger products on CPUs without a
//! packed kernel, go through candle's `matmul` as `candle_nn::Linear` does.

use std::sync::{Arc, OnceLock};

use candle_core::{DType, Device, Module, Result, Tensor};
use candle_nn::VarBuilder;
use metamorph_parse::spacy::packed::Panels;
use rayon::prelude::*;

use crate::device::with_cpu_f32;

/// Without a packed kernel (neither AVX-512 nor AVX2 with FMA), products with at most this
/// many rows take the streaming path; above it `gemm`'s packing is paid back (measured on
/// bart-base shapes, see benches/README.md). With one, every product multiplies by the
/// packed-once weights: against them the streaming kernels lost at every row count, with
/// AVX-512 (greedy decoding at batch 1: 55–56 → 60–64 tokens/s; at batch 32: 297 → 472;
/// 2026-11-27) and with AVX2 (batch 1: 41 → 56; batch 32: 148 → 303; 2026-11-27).
const STREAMING_MAX_ROWS: usize = 32;
/// Output rows per rayon task.
const OUTPUTS_PER_TASK: usize = 64;
/// Lanes per accumulator: one AVX-512 register, two AVX2 registers.
const LANES: usize = 16;

/// Output columns per packed block: the unit of work of one thread (8 panels of 16; a block
/// of a bart-base layer, `128 × 768` weights, is 393 KB and stays in L2 while every row
/// passes).
const PACKED_BLOCK_COLUMNS: usize = 128;

/// `y = x·Wᵀ + b` over the last dimension of `x`.
#[derive(Clone, Debug)]
pub(crate) struct Linear {
    /// `[out, in]`.
    weight: Tensor,
    /// `[out]`.
    bias: Option<Tensor>,
    /// The weights packed for the packed kernel, in blocks of [`PACKED_BLOCK_COLUMNS`] output
    /// columns (`None` inside: not a CPU `f32` weight, or no packed kernel). Packed on first use,
    /// once per layer: a decoding step multiplies `inputs × beams` rows by every matrix, and
    /// `gemm` repacked each matrix on every call (16.8% of a 32 × 4-beam profile).
    packed: Arc<OnceLock<Option<Vec<Panels>>>>,
}

impl Linear {
    /// A layer from its weight `[out, in]` and optional bias `[out]`.
    pub(crate) fn new(weight: Tensor, bias: Option<Tensor>) -> Self {
        Linear {
            weight,
            bias,
            packed: Arc::new(OnceLock::new()),
        }
    }

    /// The packed blocks, packing them on first call.
    fn packed(&self) -> Result<Option<&[Panels]>> {
        if self.packed.get().is_none() {
            let (out_dim, in_dim) = self.weight.dims2()?;
            let blocks = if matches!(self.weight.device(), Device::Cpu)
                && self.weight.dtype() == DType::F32
            {
                let weight = self.weight.contiguous()?;
                with_cpu_f32(&weight, |w| {
                    (0..out_dim)
                        .step_by(PACKED_BLOCK_COLUMNS)
                        .map(|c| {
                            let end = (c + PACKED_BLOCK_COLUMNS).min(out_dim);
                            Panels::pack(&w[c * in_dim..end * in_dim], end - c, in_dim)
                        })
                        .collect::<Option<Vec<_>>>()
                })?
            } else {
                None
            };
            let _ = self.packed.set(blocks);
        }
        Ok(self.packed.get().and_then(|b| b.as_deref()))
    }
}

/// Loads `weight` `[out, in]` and `bias` `[out]` under `vb`.
pub(crate) fn linear(input: usize, output: usize, vb: VarBuilder) -> Result<Linear> {
    let weight = vb.get((output, input), "weight")?;
    let bias = vb.get(output, "bias")?;
    Ok(Linear::new(weight, Some(bias)))
}

/// Loads `weight` `[out, in]` under `vb`, without a bias.
pub(crate) fn linear_no_bias(input: usize, output: usize, vb: VarBuilder) -> Result<Linear> {
    Ok(Linear::new(vb.get((output, input), "weight")?, None))
}

impl Module for Linear {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (out_dim, in_dim) = self.weight.dims2()?;
        let dims = x.dims();
        let rows = x.elem_count() / in_dim.max(1);
        let cpu_f32 = matches!(x.device(), Device::Cpu)
            && x.dtype() == DType::F32
            && self.weight.dtype() == DType::F32
            && dims.last() == Some(&in_dim);
        let packed = match cpu_f32 {
            true => self.packed()?,
            false => None,
        };
        if cpu_f32 && (rows <= STREAMING_MAX_ROWS || packed.is_some()) {
            let mut shape = dims.to_vec();
            *shape.last_mut().expect("x has a last dimension") = out_dim;
            // Input and bias are read in place (copying them was serial work at every step).
            let x = x.contiguous()?;
            let bias = match &self.bias {
                Some(b) => Some(b.to_dtype(DType::F32)?.contiguous()?),
                None => None,
            };
            let product = |input: &[f32], bias: Option<&[f32]>| match packed {
                Some(blocks) => Ok(packed_product(input, rows, in_dim, blocks, out_dim, bias)),
                None => with_cpu_f32(&self.weight.contiguous()?, |w| {
                    streaming_product(input, rows, in_dim, w, out_dim, bias)
                }),
            };
            let out = with_cpu_f32(&x, |input| match &bias {
                Some(bias) => with_cpu_f32(bias, |bias| product(input, Some(bias)))?,
                None => product(input, None),
            })??;
            return Tensor::from_vec(out, shape, &Device::Cpu);
        }
        let w = match *dims {
            [b1, b2, _, _] => self.weight.broadcast_left((b1, b2))?.t()?,
            [b, _, _] => self.weight.broadcast_left(b)?.t()?,
            _ => self.weight.t()?,
        };
        let y = x.matmul(&w)?;
        match &self.bias {
            Some(bias) => y.broadcast_add(bias),
            None => Ok(y),
        }
    }
}

/// `x` `[rows, k]` times `wᵀ` (`w` `[n, k]`) plus `bias`, as `[rows, n]`.
fn streaming_product(
    x: &[f32],
    rows: usize,
    k: usize,
    w: &[f32],
    n: usize,
    bias: Option<&[f32]>,
) -> Vec<f32> {
    let mut out = vec![0f32; rows * n];
    let tasks = n.div_ceil(OUTPUTS_PER_TASK);
    let dst = SharedOut(out.as_mut_ptr());
    (0..tasks).into_par_iter().for_each(|task| {
        let first = task * OUTPUTS_PER_TASK;
        let outputs = OUTPUTS_PER_TASK.min(n - first);
        // Each task computes `[outputs, rows]` in a small buffer and writes its own columns
        // `first..first + outputs` of every output row.
        let mut block = [0f32; OUTPUTS_PER_TASK * STREAMING_MAX_ROWS];
        let block = &mut block[..outputs * rows];
        dot_rows(x, rows, k, &w[first * k..(first + outputs) * k], block);
        for r in 0..rows {
            for o in 0..outputs {
                let b = bias.map_or(0.0, |b| b[first + o]);
                // SAFETY: `r * n + first + o < rows * n`, and tasks write disjoint columns.
                unsafe { *dst.at(r * n + first + o) = block[o * rows + r] + b };
            }
        }
    });
    out
}

/// `x` `[rows, k]` times the packed blocks of `Wᵀ` (`n` columns in all) plus `bias`, as
/// `[rows, n]`: one rayon task per block, each writing its own columns.
fn packed_product(
    x: &[f32],
    rows: usize,
    k: usize,
    blocks: &[Panels],
    n: usize,
    bias: Option<&[f32]>,
) -> Vec<f32> {
    // Not zeroed first: every block writes all of its columns before anything reads them, and
    // zeroing a step's logits (32 × 4 beams × 50,265 words, 26 MB) was serial work while the
    // worker threads waited.
    let mut out: Vec<f32> = Vec::with_capacity(rows * n);
    let dst = SharedOut(out.as_mut_ptr());
    blocks.par_iter().enumerate().for_each(|(b, block)| {
        let first = b * PACKED_BLOCK_COLUMNS;
        // SAFETY: block `b` writes columns `first..first + block.rows()` of each of the `rows`
        // rows of `out` (row stride `n`), which no other block touches; `x` holds `rows × k`.
        unsafe { block.matmul_raw(x, rows, k, dst.at(first), n, false) };
        if let Some(bias) = bias {
            let own = &bias[first..first + block.rows()];
            for r in 0..rows {
                for (c, b) in own.iter().enumerate() {
                    // SAFETY: as above, this block's own columns.
                    unsafe { *dst.at(r * n + first + c) += b };
                }
            }
        }
    });
    // SAFETY: the blocks cover columns `0..n` (`Linear::packed`), each wrote its columns of
    // every row above (a product that does not accumulate writes every output), so all
    // `rows × n` values are initialised.
    unsafe { out.set_len(rows * n) };
    out
}

/// The output buffer, written by the tasks of [`streaming_product`] in disjoint columns.
#[derive(Clone, Copy)]
struct SharedOut(*mut f32);

// SAFETY: the tasks that share it write disjoint elements, and the buffer outlives them.
unsafe impl Send for SharedOut {}
// SAFETY: as above.
unsafe impl Sync for SharedOut {}

impl SharedOut {
    /// The element at `i`.
    ///
    /// # Safety
    /// `i` must be inside the buffer, and no other task may access the element.
    unsafe fn at(self, i: usize) -> *mut f32 {
        // SAFETY: guaranteed by the caller.
        unsafe { self.0.add(i) }
    }
}

/// `out[o * rows + r] = x[r]·w[o]` for the weight rows `w` (`[outputs, k]`), with AVX2+FMA
/// where the CPU has them (x86-64 CPUs with a packed kernel take the packed path instead, so
/// this runs on CPUs with AVX2 but no FMA, and in the tests).
fn dot_rows(x: &[f32], rows: usize, k: usize, w: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU supports AVX2 and FMA, checked just above.
            return unsafe { dot_rows_avx2(x, rows, k, w, out) };
        }
    }
    dot_rows_generic::<false>(x, rows, k, w, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_rows_avx2(x: &[f32], rows: usize, k: usize, w: &[f32], out: &mut [f32]) {
    dot_rows_generic::<true>(x, rows, k, w, out)
}

/// The portable kernel (compiled plain and inside the AVX2 wrapper): per-lane accumulators that
/// the compiler turns into vector registers, four input rows per pass over a weight row so that
/// each weight chunk loaded feeds four multiply-adds, two accumulators per row (even and odd
/// chunks) to keep two chains in flight. `FMA` uses fused multiply-add (only where the CPU has
/// it: without hardware FMA `mul_add` is a slow library call).
#[inline(always)]
fn dot_rows_generic<const FMA: bool>(x: &[f32], rows: usize, k: usize, w: &[f32], out: &mut [f32]) {
    let step = 2 * LANES;
    let full = k / step * step;
    let fma = |a: f32, b: f32, c: f32| if FMA { a.mul_add(b, c) } else { c + a * b };
    for (o, w_row) in w.chunks_exact(k).enumerate() {
        let out_row = &mut out[o * rows..(o + 1) * rows];
        let mut r = 0;
        while r < rows {
            let take = (rows - r).min(4);
            let mut even = [[0f32; LANES]; 4];
            let mut odd = [[0f32; LANES]; 4];
            for c in (0..full).step_by(step) {
                let w0: &[f32; LANES] = w_row[c..c + LANES].try_into().expect("LANES values");
                let w1: &[f32; LANES] = w_row[c + LANES..c + step].try_into().expect("LANES");
                for t in 0..take {
                    let start = (r + t) * k + c;
                    let x0: &[f32; LANES] = x[start..start + LANES].try_into().expect("LANES");
                    let x1: &[f32; LANES] = x[start + LANES..start + step]
                        .try_into()
                        .expect("LANES values");
                    for l in 0..LANES {
                        even[t][l] = fma(x0[l], w0[l], even[t][l]);
                        odd[t][l] = fma(x1[l], w1[l], odd[t][l]);
                    }
                }
            }
            for t in 0..take {
                let x_row = &x[(r + t) * k..(r + t + 1) * k];
                let tail: f32 = (full..k).map(|i| x_row[i] * w_row[i]).sum();
                let lanes: f32 = even[t].iter().zip(&odd[t]).map(|(a, b)| a + b).sum();
                out_row[r + t] = lanes + tail;
            }
            r += take;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(x: &[f32], rows: usize, k: usize, w: &[f32], n: usize, b: &[f32]) -> Vec<f32> {
        let mut out = vec![0f32; rows * n];
        for r in 0..rows {
            for o in 0..n {
                let dot: f64 = (0..k)
                    .map(|i| x[r * k + i] as f64 * w[o * k + i] as f64)
                    .sum();
                out[r * n + o] = dot as f32 + b[o];
            }
        }
        out
    }

    fn values(n: usize, seed: u32) -> Vec<f32> {
        (0..n)
            .map(|i| ((i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) % 1000) as f32)
            .map(|v| v / 500.0 - 1.0)
            .collect()
    }

    #[test]
    fn streaming_product_matches_the_definition_at_awkward_sizes() {
        // Row counts around the 4-row tiles, widths around the 16 lanes, outputs around a task.
        for (rows, k, n) in [
            (1, 5, 3),
            (3, 16, 70),
            (4, 33, 64),
            (7, 100, 129),
            (32, 48, 65),
            (1, 64, 70),
        ] {
            let (x, w, b) = (values(rows * k, 1), values(n * k, 2), values(n, 3));
            let fast = streaming_product(&x, rows, k, &w, n, Some(&b));
            let slow = reference(&x, rows, k, &w, n, &b);
            for (i, (f, s)) in fast.iter().zip(&slow).enumerate() {
                assert!((f - s).abs() < 1e-4, "{rows}x{k}x{n} at {i}: {f} vs {s}");
            }
        }
    }

    #[test]
    fn every_kernel_matches_the_definition() {
        // The dispatcher picks one kernel per CPU; check the portable one (both forms) too.
        let (rows, k, n) = (6, 70, 9);
        let (x, w) = (values(rows * k, 1), values(n * k, 2));
        let zeros = vec![0f32; n];
        let expected = reference(&x, rows, k, &w, n, &zeros);
        type Kernel = fn(&[f32], usize, usize, &[f32], &mut [f32]);
        let kernels: [(&str, Kernel); 2] = [
            ("plain", dot_rows_generic::<false>),
            ("mul_add", dot_rows_generic::<true>),
        ];
        for (name, kernel) in kernels {
            let mut transposed = vec![0f32; n * rows];
            kernel(&x, rows, k, &w, &mut transposed);
            for o in 0..n {
                for r in 0..rows {
                    let (got, want) = (transposed[o * rows + r], expected[r * n + o]);
                    assert!(
                        (got - want).abs() < 1e-4,
                        "{name} ({r}, {o}): {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_layer_agrees_with_candle_matmul_on_both_paths() -> Result<()> {
        let (k, n) = (40, 24);
        let weight = Tensor::from_vec(values(n * k, 5), (n, k), &Device::Cpu)?;
        let bias = Tensor::from_vec(values(n, 6), n, &Device::Cpu)?;
        let layer = Linear::new(weight.clone(), Some(bias.clone()));
        let reference = candle_nn::Linear::new(weight, Some(bias));
        // 1 and 2×3 rows take the packed kernel (AVX-512 or AVX2) or stream; 4×20 rows take the
        // packed kernel or candle.
        for (b, t) in [(1, 1), (2, 3), (4, 20)] {
            let x = Tensor::from_vec(values(b * t * k, 7), (b, t, k), &Device::Cpu)?;
            let ours = layer.forward(&x)?;
            let theirs = reference.forward(&x)?;
            assert_eq!(ours.dims(), theirs.dims());
            let diff = (ours - theirs)?.abs()?.max_all()?.to_scalar::<f32>()?;
            assert!(diff < 1e-4, "{b}x{t}: {diff}");
        }
        Ok(())
    }

    #[test]
    fn packed_blocks_match_candle_at_awkward_sizes() -> Result<()> {
        // Outputs across several blocks and a partial panel; rows across the 6-row tiles and
        // the 96-row cache block; an input width that is no multiple of 16.
        for (rows, k, n) in [
            (33, 40, 300),
            (130, 77, 129),
            (97, 16, 17),
            (2, 40, 300),
            (5, 77, 129),
        ] {
            let weight = Tensor::from_vec(values(n * k, 8), (n, k), &Device::Cpu)?;
            let bias = Tensor::from_vec(values(n, 9), n, &Device::Cpu)?;
            let layer = Linear::new(weight.clone(), Some(bias.clone()));
            let reference = candle_nn::Linear::new(weight, Some(bias));
            let x = Tensor::from_vec(values(rows * k, 10), (rows, k), &Device::Cpu)?;
            let ours = layer.forward(&x)?;
            let theirs = reference.forward(&x)?;
            let diff = (ours - theirs)?.abs()?.max_all()?.to_scalar::<f32>()?;
            assert!(diff < 1e-4, "{rows}x{k}x{n}: {diff}");
            // The blocks are packed once and reused.
            if Panels::available() {
                assert!(layer.packed.get().is_some_and(|b| b.is_some()));
            }
            let again = layer.forward(&x)?;
            assert_eq!(
                again.to_vec2::<f32>()?,
                layer.forward(&x)?.to_vec2::<f32>()?
            );
        }
        Ok(())
    }
}
