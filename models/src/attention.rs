//! Dot-product attention for the encoder-decoders (BART, T5), with the queries of several rows
//! sharing one row of keys and values.
//!
//! Why grouped: the beams of one input share its encoder output, so cross-attention keeps one
//! row of keys and values per input, not per beam, and the input's beams attend as one group
//! of queries. `transformers` repeats the encoder output per beam instead. At 4 beams that
//! made three quarters of the cross-attention key and value projections repeats, and every step
//! read four copies of the cache. Self-attention is the group of one.

use candle_core::{Result, Tensor};

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
    // `(b·group, t, d)` → `(b, heads, group·t, head_dim)`.
    let q = q
        .reshape((b, group * t, heads, head_dim))?
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
