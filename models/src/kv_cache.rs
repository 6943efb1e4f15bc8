//! A decoder's self-attention cache grown by one step, in beam order.
//!
//! Beam search reorders the cached keys and values after every step (each surviving beam takes
//! its parent's history), and the next step appends its own. Done as candle ops that is two
//! full copies of the cache per step and layer — a gather, then a concatenation — which a
//! profile of BART-base at 32 inputs × 4 beams found on the calling thread while the worker
//! threads waited (issue 23). [`append_in_order`] does both in one pass on the CPU in `f32`,
//! and falls back to the two candle ops elsewhere; [`PendingOrder`] holds a reorder until then.
//! BART's and T5's decoders use both.

use std::mem::MaybeUninit;

use candle_core::{DType, Device, Result, Tensor};
use rayon::prelude::*;

use crate::device::with_cpu_f32;

/// A beam reorder not yet applied to a decoder's self-attention caches: row `r` of the caches
/// is their stored row `order[r]`. Applied by [`append_in_order`] when the next step appends.
#[derive(Clone, Debug, Default)]
pub struct PendingOrder(Option<Vec<usize>>);

impl PendingOrder {
    /// Records `rows` (row `r` takes the current row `rows[r]`) for caches of `cached` rows,
    /// composed with a reorder still pending; an identity is nothing to do.
    pub fn then(&mut self, rows: &[usize], cached: usize) -> std::result::Result<(), String> {
        if rows.len() != cached || rows.iter().any(|&r| r >= cached) {
            return Err(format!("{} rows from {cached} cached", rows.len()));
        }
        if rows.iter().enumerate().all(|(r, &from)| r == from) {
            return Ok(());
        }
        self.0 = Some(match self.0.take() {
            Some(pending) => rows.iter().map(|&r| pending[r]).collect(),
            None => rows.to_vec(),
        });
        Ok(())
    }

    /// The order to apply at the next append, leaving none pending.
    pub fn take(&mut self) -> Option<Vec<usize>> {
        self.0.take()
    }
}

/// `past` (`[rows, heads, t, d]`) with its rows taken in `order` (row `r` of the result is row
/// `order[r]` of `past`; `None` keeps them), then `new` (`[rows, heads, t′, d]`) appended along
/// the time axis: `[rows, heads, t + t′, d]`.
pub fn append_in_order(past: &Tensor, order: Option<&[usize]>, new: &Tensor) -> Result<Tensor> {
    let (rows, heads, t, d) = past.dims4()?;
    let (new_rows, new_heads, t_new, new_d) = new.dims4()?;
    if (new_rows, new_heads, new_d) != (rows, heads, d) {
        candle_core::bail!(
            "cache {:?} and step {:?} do not agree",
            past.dims(),
            new.dims()
        );
    }
    if let Some(order) = order {
        if order.len() != rows || order.iter().any(|&o| o >= rows) {
            candle_core::bail!("beam order {order:?} does not index {rows} rows");
        }
    }
    let on_cpu_f32 = matches!(past.device(), Device::Cpu)
        && past.dtype() == DType::F32
        && new.dtype() == DType::F32
        && past.is_contiguous()
        && new.is_contiguous();
    if !on_cpu_f32 {
        let past = match order {
            Some(order) => {
                let index: Vec<u32> = order.iter().map(|&o| o as u32).collect();
                past.contiguous()?
                    .index_select(&Tensor::new(index.as_slice(), past.device())?, 0)?
            }
            None => past.clone(),
        };
        return Tensor::cat(&[&past, new], 2);
    }
    let (old_run, new_run) = (t * d, t_new * d);
    let row_len = heads * (old_run + new_run);
    let out = with_cpu_f32(past, |past| {
        with_cpu_f32(new, |new| {
            let mut out: Vec<f32> = Vec::with_capacity(rows * row_len);
            // Rows on rayon's threads, into memory not zeroed first: a step's copies (every
            // layer's keys and values, 75 MB per step at 32 inputs × 4 beams and 16
            // positions) ran on the calling thread while the workers waited.
            out.spare_capacity_mut()[..rows * row_len]
                .par_chunks_mut(row_len.max(1))
                .enumerate()
                .for_each(|(r, row)| {
                    let from = order.map_or(r, |order| order[r]);
                    for (h, head) in row.chunks_exact_mut(old_run + new_run).enumerate() {
                        let old_at = (from * heads + h) * old_run;
                        let new_at = (r * heads + h) * new_run;
                        let (old, fresh) = head.split_at_mut(old_run);
                        write_all(old, &past[old_at..old_at + old_run]);
                        write_all(fresh, &new[new_at..new_at + new_run]);
                    }
                });
            // SAFETY: the chunks cover all `rows × row_len` values, each written above.
            unsafe { out.set_len(rows * row_len) };
            out
        })
    })??;
    Tensor::from_vec(out, (rows, heads, t + t_new, d), &Device::Cpu)
}

/// Initialises `dst` with `src` (equal lengths).
fn write_all(dst: &mut [MaybeUninit<f32>], src: &[f32]) {
    assert_eq!(dst.len(), src.len());
    // SAFETY: both are `src.len()` values long, and a `&mut` slice does not overlap `src`;
    // `MaybeUninit<f32>` has `f32`'s layout.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<f32>(), src.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(shape: (usize, usize, usize, usize), seed: f32) -> Tensor {
        let n = shape.0 * shape.1 * shape.2 * shape.3;
        let values: Vec<f32> = (0..n).map(|i| seed + i as f32 * 0.5).collect();
        Tensor::from_vec(values, shape, &Device::Cpu).unwrap()
    }

    /// What candle's gather and concatenation give.
    fn by_candle(past: &Tensor, order: Option<&[usize]>, new: &Tensor) -> Vec<f32> {
        let past = match order {
            Some(order) => {
                let index: Vec<u32> = order.iter().map(|&o| o as u32).collect();
                past.contiguous()
                    .unwrap()
                    .index_select(&Tensor::new(index.as_slice(), &Device::Cpu).unwrap(), 0)
                    .unwrap()
            }
            None => past.clone(),
        };
        Tensor::cat(&[&past, new], 2)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap()
    }

    #[test]
    fn matches_a_gather_then_a_concatenation() {
        let past = tensor((4, 3, 5, 2), 0.0);
        let new = tensor((4, 3, 1, 2), 1000.0);
        for order in [None, Some(&[2usize, 2, 0, 3][..]), Some(&[3, 2, 1, 0][..])] {
            let got = append_in_order(&past, order, &new).unwrap();
            assert_eq!(got.dims(), &[4, 3, 6, 2]);
            assert_eq!(
                got.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
                by_candle(&past, order, &new),
                "{order:?}"
            );
        }
        // Several new positions at once, and a non-contiguous cache (the candle path).
        let new = tensor((4, 3, 2, 2), 2000.0);
        let strided = tensor((4, 5, 3, 2), 0.0).transpose(1, 2).unwrap();
        for past in [&past, &strided] {
            let got = append_in_order(past, Some(&[1, 0, 3, 2]), &new).unwrap();
            assert_eq!(
                got.flatten_all().unwrap().to_vec1::<f32>().unwrap(),
                by_candle(past, Some(&[1, 0, 3, 2]), &new)
            );
        }
    }

    #[test]
    fn pending_orders_compose() {
        let mut pending = PendingOrder::default();
        pending.then(&[0, 1, 2], 3).unwrap();
        assert_eq!(pending.take(), None);
        pending.then(&[2, 0, 1], 3).unwrap();
        pending.then(&[1, 1, 0], 3).unwrap();
        // Row r is now old row [2, 0, 1][[1, 1, 0][r]].
        assert_eq!(pending.take(), Some(vec![0, 0, 2]));
        assert!(pending.then(&[0, 3, 1], 3).is_err());
        assert!(pending.then(&[0, 1], 3).is_err());
    }

    #[test]
    fn shapes_and_orders_that_do_not_fit_are_errors() {
        let past = tensor((2, 3, 5, 2), 0.0);
        assert!(append_in_order(&past, None, &tensor((2, 3, 1, 4), 0.0)).is_err());
        assert!(append_in_order(&past, Some(&[0, 2]), &tensor((2, 3, 1, 2), 0.0)).is_err());
        assert!(append_in_order(&past, Some(&[0]), &tensor((2, 3, 1, 2), 0.0)).is_err());
    }
}
