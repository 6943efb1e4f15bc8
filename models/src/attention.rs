//! Dot-product attention for the encoder-decoders (BART, T5), with the queries of several rows
//! sharing one row of keys and values.
//!
//! Why grouped: the beams of one input share its encoder output, so cross-attention keeps one
//! row of keys and values per input, not per beam, and the input's beams attend as one group
//! of queries. `transformers` repeats the encoder output per beam instead. At 4 beams that
//! made three quarters of the cross-attention key and value projections repeats, and every step
//! read four copies of the cache. Self-attention is the group of one.
//!
//! On the CPU in `f32` the attention runs as one pass per input on rayon's threads (scores,
//! softmax and weighted values for each head and query), instead of candle's batched products:
//! a decoding step's products are thousands of 1–4 × 64 × 33 matrices, which candle ran on the
//! calling thread while the worker threads waited (3% of BART's samples at 32 inputs × 4
//! beams). Other devices and types take candle's ops.

use candle_core::{DType, Device, Result, Tensor};
use rayon::prelude::*;

use crate::device::with_cpu_f32;

/// Multi-head attention of projected queries `q` (`(b·group, t, heads·head_dim)`, rows
/// input-major) over `k` and `v` (`(b, heads, t_k, head_dim)`): each `group` consecutive rows
/// of `q` attend to one row of keys and values. The scores are multiplied by `scale` when
/// given, then `bias` (broadcastable to `(b, heads, group·t, t_k)`: masks, position bias) is
/// added before the softmax. Returns the context before the output projection, shaped as `q`.
///
/// # Errors
/// When `group` does not divide `q`'s rows or the shapes do not agree.
pub(crate) fn grouped_attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    bias: Option<&Tensor>,
    scale: Option<f64>,
    group: usize,
) -> Result<Tensor> {
    let (rows, t, d) = q.dims3()?;
    let (_, heads, _, head_dim) = k.dims4()?;
    if group == 0 || rows % group != 0 {
        candle_core::bail!("{rows} rows are not groups of {group}");
    }
    let b = rows / group;
    if heads * head_dim != d {
        candle_core::bail!("queries of width {d} for {heads} heads of {head_dim}");
    }
    let on_host = [q, k, v]
        .iter()
        .all(|x| matches!(x.device(), Device::Cpu) && x.dtype() == DType::F32);
    if on_host && head_dim > 0 && k.dim(0)? == b && v.dims() == k.dims() {
        return attention_on_host(q, k, v, bias, scale, b, group * t);
    }
    attention_by_ops(q, k, v, bias, scale, b, group * t)
}

/// [`grouped_attention`] as candle ops (batched products, then softmax): any device and type.
fn attention_by_ops(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    bias: Option<&Tensor>,
    scale: Option<f64>,
    b: usize,
    queries: usize,
) -> Result<Tensor> {
    let (rows, t, d) = q.dims3()?;
    let (_, heads, _, head_dim) = k.dims4()?;
    // `(b·group, t, d)` → `(b, heads, group·t, head_dim)`.
    let q = q
        .reshape((b, queries, heads, head_dim))?
        .transpose(1, 2)?
        .contiguous()?;
    let mut scores = q.matmul(&k.t()?)?;
    if let Some(scale) = scale {
        scores = (scores * scale)?;
    }
    if let Some(bias) = bias {
        scores = scores.broadcast_add(bias)?;
    }
    let probs = candle_nn::ops::softmax_last_dim(&scores)?;
    probs
        .matmul(v)?
        .transpose(1, 2)?
        .contiguous()?
        .reshape((rows, t, d))
}

/// [`grouped_attention`] on the CPU in `f32`: `b` inputs, `queries` = group·t query rows each.
fn attention_on_host(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    bias: Option<&Tensor>,
    scale: Option<f64>,
    b: usize,
    queries: usize,
) -> Result<Tensor> {
    let (rows, t, d) = q.dims3()?;
    let (_, heads, keys, head_dim) = k.dims4()?;
    let bias = match bias {
        Some(m) => Some(
            m.broadcast_as((b, heads, queries, keys))?
                .to_dtype(DType::F32)?
                .contiguous()?,
        ),
        None => None,
    };
    let (q, k, v) = (q.contiguous()?, k.contiguous()?, v.contiguous()?);
    let scale = scale.unwrap_or(1.0) as f32;
    // Head-major first (`(b, heads, queries, head_dim)`), one rayon task per input and head,
    // so that a single input's beams still spread over the threads; then into `q`'s layout.
    let mut by_head = vec![0f32; b * heads * queries * head_dim];
    let mut run = |q: &[f32], k: &[f32], v: &[f32], bias: Option<&[f32]>| {
        by_head
            .par_chunks_mut((queries * head_dim).max(1))
            .enumerate()
            .for_each(|(ih, out)| {
                let (i, h) = (ih / heads, ih % heads);
                let at = ih * keys * head_dim;
                let (kh, vh) = (&k[at..at + keys * head_dim], &v[at..at + keys * head_dim]);
                let mut scores = vec![0f32; keys];
                for (r, o) in out.chunks_exact_mut(head_dim).enumerate() {
                    let qr = &q[(i * queries + r) * d + h * head_dim..][..head_dim];
                    let bias_row = bias.map(|m| &m[(ih * queries + r) * keys..][..keys]);
                    for (j, s) in scores.iter_mut().enumerate() {
                        *s = dot(qr, &kh[j * head_dim..(j + 1) * head_dim]) * scale
                            + bias_row.map_or(0.0, |m| m[j]);
                    }
                    softmax(&mut scores);
                    for (j, &p) in scores.iter().enumerate() {
                        for (o, &x) in o.iter_mut().zip(&vh[j * head_dim..(j + 1) * head_dim]) {
                            *o += p * x;
                        }
                    }
                }
            })
    };
    with_cpu_f32(&q, |q| {
        with_cpu_f32(&k, |k| {
            with_cpu_f32(&v, |v| match &bias {
                Some(m) => with_cpu_f32(m, |m| run(q, k, v, Some(m))),
                None => {
                    run(q, k, v, None);
                    Ok(())
                }
            })
        })
    })????;
    let mut out = vec![0f32; rows * t * d];
    out.par_chunks_mut((queries * d).max(1))
        .enumerate()
        .for_each(|(i, out)| {
            for (r, row) in out.chunks_exact_mut(d).enumerate() {
                for (h, o) in row.chunks_exact_mut(head_dim).enumerate() {
                    let at = ((i * heads + h) * queries + r) * head_dim;
                    o.copy_from_slice(&by_head[at..at + head_dim]);
                }
            }
        });
    Tensor::from_vec(out, (rows, t, d), &Device::Cpu)
}

/// `a·b` with 8 independent sums, so that it vectorises.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (ac, bc) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ac
        .remainder()
        .iter()
        .zip(bc.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ac.zip(bc) {
        for l in 0..8 {
            lanes[l] += x[l] * y[l];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// Softmax in place, as candle's `softmax_last_dim` computes it (max, `exp`, sum, divide).
fn softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0f32;
    for x in row.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    for x in row.iter_mut() {
        *x /= sum;
    }
}

#[cfg(test)]
mod tests {
    use candle_core::{Device, IndexOp};

    use super::*;

    fn values(shape: &[usize], seed: u32) -> Tensor {
        let n: usize = shape.iter().product();
        let v: Vec<f32> = (0..n)
            .map(|i| (((i as u32).wrapping_mul(2_654_435_761) ^ seed) % 1000) as f32 / 500.0 - 1.0)
            .collect();
        Tensor::from_vec(v, shape, &Device::Cpu).unwrap()
    }

    #[test]
    fn the_host_pass_matches_candle_ops() {
        // Decoding's shapes (one query per row, beams grouped) and the encoder's (a query per
        // token, a padding mask); scaled (BART) and not (T5).
        for (b, group, t, scale) in [
            (3, 4, 1, Some(0.125)),
            (2, 1, 5, None),
            (1, 2, 3, Some(0.5)),
        ] {
            let (heads, hd, tk) = (2, 8, 6);
            let q = values(&[b * group, t, heads * hd], 7);
            let (k, v) = (
                values(&[b, heads, tk, hd], 8),
                values(&[b, heads, tk, hd], 9),
            );
            let mut mask = vec![0f32; b * tk];
            mask[tk - 1] = f32::MIN;
            let mask = Tensor::from_vec(mask, (b, 1, 1, tk), &Device::Cpu).unwrap();
            for bias in [None, Some(&mask)] {
                let host = attention_on_host(&q, &k, &v, bias, scale, b, group * t).unwrap();
                let ops = attention_by_ops(&q, &k, &v, bias, scale, b, group * t).unwrap();
                assert_eq!(host.dims(), ops.dims());
                let host = host.flatten_all().unwrap().to_vec1::<f32>().unwrap();
                let ops = ops.flatten_all().unwrap().to_vec1::<f32>().unwrap();
                for (h, o) in host.iter().zip(&ops) {
                    assert!(
                        (h - o).abs() < 1e-5,
                        "b={b} group={group} t={t}: {h} vs {o}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_group_attends_as_its_rows_would_alone() {
        // 2 inputs × 3 beams, 2 query positions, 2 heads of 4, 5 keys; a padding mask per input.
        let (b, group, t, heads, hd, tk) = (2, 3, 2, 2, 4, 5);
        let q = values(&[b * group, t, heads * hd], 1);
        let (k, v) = (
            values(&[b, heads, tk, hd], 2),
            values(&[b, heads, tk, hd], 3),
        );
        let mask = Tensor::from_vec(
            vec![0f32, 0., 0., 0., f32::MIN, 0., 0., 0., 0., 0.],
            (b, 1, 1, tk),
            &Device::Cpu,
        )
        .unwrap();
        let grouped = grouped_attention(&q, &k, &v, Some(&mask), Some(0.5), group).unwrap();
        for row in 0..b * group {
            let input = row / group;
            let alone = grouped_attention(
                &q.i(row..row + 1).unwrap(),
                &k.i(input..input + 1).unwrap(),
                &v.i(input..input + 1).unwrap(),
                Some(&mask.i(input..input + 1).unwrap()),
                Some(0.5),
                1,
            )
            .unwrap();
            let got = grouped
                .i(row..row + 1)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap();
            let want = alone.flatten_all().unwrap().to_vec1::<f32>().unwrap();
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-6, "row {row}: {g} vs {w}");
            }
        }
        assert!(grouped_attention(&q, &k, &v, None, None, 4).is_err());
        assert!(grouped_attention(&q, &k, &v, None, None, 0).is_err());
    }
}
