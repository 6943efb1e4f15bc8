//! Constant weights packed once, at load, for the pipeline's dense products.
//!
//! Every matrix product of the parse pipeline multiplies activations by a constant weight
//! matrix (`y = x·Wᵀ`). A general SGEMM (`matrixmultiply`) repacks both operands on every call:
//! a profile of the one-thread parse showed 15% of the time in packing next to 41% in the
//! product itself. [`PackedWeights`] lays `W` out once as 16-column panels (`k × 16`, zero
//! padded), and on CPUs with AVX-512 a register-blocked kernel reads them directly, with the
//! activations broadcast from their rows in place (no packing at all at call time). Other CPUs
//! keep `matrixmultiply` on the row-major weights.
//!
//! Each output is the same sequential sum over `k` of `x·w` products (fused multiply-adds)
//! as before, so results agree with the SGEMM path to rounding; the spaCy parity tests run
//! on whichever path the machine takes. Products 512 deep or more (BART's, not the parse
//! pipeline's) are summed in slices of 256 (see [`DEPTH_SLICE`]), each slice's partial sum
//! added to the output.

/// Columns per panel: one AVX-512 register of `f32`.
const PANEL: usize = 16;
/// Rows of `x` per kernel call (with two panels: 12 accumulators).
const ROWS: usize = 6;
/// Rows of `x` per cache block: their activations stay in L2 while every panel pair passes.
const ROW_BLOCK: usize = 96;
/// Depth per slice for deep products (`k` ≥ [`DEEP`]): a panel pair's slice (256 × 32 floats,
/// 32 KB) stays in a 48 KB L1 while every row tile of the block passes over it. Unsliced, a
/// BART-base product's pair (768 or 3,072 deep: 96–384 KB) streamed from L2 for every tile.
const DEPTH_SLICE: usize = 256;
/// The depth from which products are sliced. Shallower ones (all of the parse pipeline's)
/// keep one sequential sum per output, so their results do not change.
const DEEP: usize = 512;

/// A constant `m × k` weight matrix `W` (row-major), ready for `y[n×m] = x[n×k]·Wᵀ`.
#[derive(Clone, Debug)]
pub struct PackedWeights {
    w: Vec<f32>,
    m: usize,
    k: usize,
    /// The panels, when the AVX-512 kernel runs on this CPU.
    panels: Option<Panels>,
}

/// An `m × k` weight matrix as `ceil(m/16)` panels of `k × 16` for the AVX-512 kernel, without
/// the row-major copy: what a caller keeps when it has the weights elsewhere (the models
/// crate's decoder layers, whose weights stay in their tensors).
#[derive(Clone, Debug)]
pub struct Panels {
    panels: Vec<f32>,
    m: usize,
    k: usize,
}

impl Panels {
    /// Packs `w` (`m × k`, row-major), or `None` when this CPU has no AVX-512 kernel.
    ///
    /// # Panics
    /// When `w` is not `m × k`.
    pub fn pack(w: &[f32], m: usize, k: usize) -> Option<Panels> {
        assert_eq!(w.len(), m * k, "weights are not {m}×{k}");
        avx512::available().then(|| Panels {
            panels: pack(w, m, k),
            m,
            k,
        })
    }

    /// Output width `m`.
    pub fn rows(&self) -> usize {
        self.m
    }

    /// Input width `k`.
    pub fn cols(&self) -> usize {
        self.k
    }

    /// `y = x·Wᵀ` (added to `y` when `accumulate`) for `n` rows of `x` at row stride `lda`,
    /// written to `n` rows of `y` at row stride `ldy` (columns `0..m` of each): several
    /// threads may fill disjoint column ranges of one output this way.
    ///
    /// # Safety
    /// `x` holds `(n - 1)·lda + k` values; `y` points to `(n - 1)·ldy + m` writable values
    /// that nothing else reads or writes during the call.
    ///
    /// # Panics
    /// When `x` is shorter than its shape or `ldy < m`.
    pub unsafe fn matmul_raw(
        &self,
        x: &[f32],
        n: usize,
        lda: usize,
        y: *mut f32,
        ldy: usize,
        accumulate: bool,
    ) {
        assert!(
            (n == 0 || x.len() >= (n - 1) * lda + self.k) && ldy >= self.m,
            "matrix shapes do not agree"
        );
        if n == 0 {
            return;
        }
        // SAFETY: panels exist only when AVX-512 is available; shapes checked above, `y`
        // guaranteed by the caller.
        unsafe { avx512::matmul(x, n, lda, self.k, &self.panels, self.m, y, ldy, accumulate) }
    }
}

impl PackedWeights {
    /// Packs `w` (`m × k`, row-major).
    ///
    /// # Panics
    /// When `w` is not `m × k`.
    pub fn new(w: Vec<f32>, m: usize, k: usize) -> Self {
        let panels = Panels::pack(&w, m, k);
        PackedWeights { w, m, k, panels }
    }

    /// The weights, `m × k` row-major.
    pub fn weights(&self) -> &[f32] {
        &self.w
    }

    /// Output width `m`.
    pub fn rows(&self) -> usize {
        self.m
    }

    /// Input width `k`.
    pub fn cols(&self) -> usize {
        self.k
    }

    /// `y[n×m] = x[n×k]·Wᵀ`, added to `y` when `accumulate`.
    ///
    /// # Panics
    /// When `x` or `y` is shorter than its shape.
    pub fn matmul(&self, x: &[f32], n: usize, y: &mut [f32], accumulate: bool) {
        self.matmul_strided(x, n, self.k, y, accumulate);
    }

    /// [`PackedWeights::matmul`] with row `i` of `x` at `x[i·stride..i·stride + k]`: rows may
    /// overlap, so a window of consecutive token vectors is read in place
    /// (`stride` = token width, `k` = window × width) instead of being copied out first.
    ///
    /// # Panics
    /// When `x` or `y` is shorter than its shape.
    pub fn matmul_strided(
        &self,
        x: &[f32],
        n: usize,
        stride: usize,
        y: &mut [f32],
        accumulate: bool,
    ) {
        let (m, k) = (self.m, self.k);
        assert!(
            (n == 0 || x.len() >= (n - 1) * stride + k) && y.len() >= n * m,
            "matrix shapes do not agree"
        );
        if n == 0 {
            return;
        }
        match &self.panels {
            // SAFETY: `y` is an exclusive slice of at least `n × m` values (checked above).
            Some(panels) => unsafe {
                panels.matmul_raw(x, n, stride, y.as_mut_ptr(), m, accumulate)
            },
            None => {
                super::linalg::matmul_transposed_strided(x, n, stride, k, &self.w, m, y, accumulate)
            }
        }
    }
}

/// `w` (`m × k`) as `ceil(m/16)` panels: panel `q` holds, for each `p < k`, the 16 weights
/// `w[q·16 + c][p]` (zero past `m`).
fn pack(w: &[f32], m: usize, k: usize) -> Vec<f32> {
    let n_panels = m.div_ceil(PANEL);
    let mut panels = vec![0.0; n_panels * k * PANEL];
    for (o, row) in w.chunks_exact(k).enumerate() {
        let (q, c) = (o / PANEL, o % PANEL);
        let panel = &mut panels[q * k * PANEL..(q + 1) * k * PANEL];
        for (p, &v) in row.iter().enumerate() {
            panel[p * PANEL + c] = v;
        }
    }
    panels
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    use super::{DEEP, DEPTH_SLICE, PANEL, ROWS, ROW_BLOCK};

    /// Whether this CPU runs the AVX-512 kernel.
    pub fn available() -> bool {
        std::is_x86_feature_detected!("avx512f")
    }

    /// `y = x·Wᵀ (+ y)` over packed panels.
    ///
    /// # Safety
    /// The CPU has AVX-512F; `x` holds `n` rows of `k` at row stride `lda`, `y` points to `n`
    /// rows of `m` at row stride `ldy`, `panels` is [`super::pack`]'s layout of an `m × k`
    /// matrix.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f")]
    pub unsafe fn matmul(
        x: &[f32],
        n: usize,
        lda: usize,
        k: usize,
        panels: &[f32],
        m: usize,
        y: *mut f32,
        ldy: usize,
        accumulate: bool,
    ) {
        let n_panels = m.div_ceil(PANEL);
        let panel_len = k * PANEL;
        debug_assert!(panels.len() >= n_panels * panel_len);
        let slice = if k >= DEEP { DEPTH_SLICE } else { k.max(1) };
        for block in (0..n).step_by(ROW_BLOCK) {
            let block_end = (block + ROW_BLOCK).min(n);
            for q in (0..n_panels).step_by(2) {
                let pair = (n_panels - q).min(2);
                let cols = (m - q * PANEL).min(pair * PANEL);
                for from in (0..k.max(1)).step_by(slice) {
                    let depth = (k - from).min(slice);
                    let b = panels.as_ptr().wrapping_add(q * panel_len + from * PANEL);
                    for i in (block..block_end).step_by(ROWS) {
                        let rows = (block_end - i).min(ROWS);
                        let a = x.as_ptr().wrapping_add(i * lda + from);
                        let c = y.wrapping_add(i * ldy + q * PANEL);
                        let t = Tile {
                            a,
                            lda,
                            k: depth,
                            b,
                            panel_len,
                            c,
                            ldc: ldy,
                            cols,
                            // Later slices add to what the earlier ones wrote.
                            accumulate: accumulate || from > 0,
                        };
                        // One monomorphised kernel per (rows, panels): the accumulators stay in
                        // registers.
                        match (rows, pair) {
                            (6, 2) => tile::<6, 2>(&t),
                            (5, 2) => tile::<5, 2>(&t),
                            (4, 2) => tile::<4, 2>(&t),
                            (3, 2) => tile::<3, 2>(&t),
                            (2, 2) => tile::<2, 2>(&t),
                            (1, 2) => tile::<1, 2>(&t),
                            (6, _) => tile::<6, 1>(&t),
                            (5, _) => tile::<5, 1>(&t),
                            (4, _) => tile::<4, 1>(&t),
                            (3, _) => tile::<3, 1>(&t),
                            (2, _) => tile::<2, 1>(&t),
                            _ => tile::<1, 1>(&t),
                        }
                    }
                }
            }
        }
    }

    /// One kernel call (pointers advance with `wrapping_add`, which carries no debug-build
    /// precondition check into the inner loop): `R` rows of `x` from `a` (row stride `k`) times `P` panels from `b`
    /// (panel stride `panel_len`), into `c` (row stride `ldc`), `cols` of its columns valid.
    struct Tile {
        a: *const f32,
        lda: usize,
        k: usize,
        b: *const f32,
        panel_len: usize,
        c: *mut f32,
        ldc: usize,
        cols: usize,
        accumulate: bool,
    }

    /// # Safety
    /// As [`matmul`]: every pointer of `t` covers what the tile reads and writes.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn tile<const R: usize, const P: usize>(t: &Tile) {
        let (a, lda, k, b, panel_len) = (t.a, t.lda, t.k, t.b, t.panel_len);
        let mut acc = [[_mm512_setzero_ps(); P]; R];
        for p in 0..k {
            let mut w = [_mm512_setzero_ps(); P];
            let mut j = 0;
            while j < P {
                w[j] = _mm512_loadu_ps(b.wrapping_add(j * panel_len + p * PANEL));
                j += 1;
            }
            let mut r = 0;
            while r < R {
                let x = _mm512_set1_ps(*a.wrapping_add(r * lda + p));
                let mut j = 0;
                while j < P {
                    acc[r][j] = _mm512_fmadd_ps(x, w[j], acc[r][j]);
                    j += 1;
                }
                r += 1;
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (j, acc) in acc.iter().enumerate() {
                let valid = t.cols.saturating_sub(j * PANEL).min(PANEL);
                if valid == 0 {
                    continue;
                }
                let mask: __mmask16 = if valid == PANEL {
                    u16::MAX
                } else {
                    (1u16 << valid) - 1
                };
                let dst = t.c.wrapping_add(r * t.ldc + j * PANEL);
                let v = if t.accumulate {
                    _mm512_add_ps(*acc, _mm512_maskz_loadu_ps(mask, dst))
                } else {
                    *acc
                };
                _mm512_mask_storeu_ps(dst, mask, v);
            }
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod avx512 {
    /// No AVX-512 outside x86-64.
    pub fn available() -> bool {
        false
    }

    /// Never called: [`available`] is false.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn matmul(
        _: &[f32],
        _: usize,
        _: usize,
        _: usize,
        _: &[f32],
        _: usize,
        _: *mut f32,
        _: usize,
        _: bool,
    ) {
        unreachable!("no AVX-512 kernel on this architecture")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x·wᵀ (+ y)` by the definition, in f64.
    fn reference(
        x: &[f32],
        n: usize,
        k: usize,
        w: &[f32],
        m: usize,
        y: &[f32],
        acc: bool,
    ) -> Vec<f64> {
        (0..n * m)
            .map(|idx| {
                let (i, o) = (idx / m, idx % m);
                let dot: f64 = (0..k)
                    .map(|p| x[i * k + p] as f64 * w[o * k + p] as f64)
                    .sum();
                dot + if acc { y[idx] as f64 } else { 0.0 }
            })
            .collect()
    }

    /// Deterministic values in [-1, 1).
    fn values(len: usize, seed: u32) -> Vec<f32> {
        let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                (s as f32 / u32::MAX as f32) * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn every_edge_shape_matches_the_definition() {
        // Row counts around the 6-row tile and the 96-row block, widths around the 16- and
        // 32-column panels, with and without accumulation.
        for &n in &[0, 1, 5, 6, 7, 13, 97, 200] {
            for &m in &[1, 15, 16, 17, 31, 32, 33, 100] {
                // Shallow ones, and deep ones sliced in depth (whole and partial slices).
                for &k in &[1, 3, 64, 96, 512, 700] {
                    for accumulate in [false, true] {
                        let x = values(n * k, 1 + n as u32);
                        let w = values(m * k, 2 + m as u32);
                        let y0 = values(n * m, 3 + k as u32);
                        let packed = PackedWeights::new(w.clone(), m, k);
                        let mut y = y0.clone();
                        packed.matmul(&x, n, &mut y, accumulate);
                        let want = reference(&x, n, k, &w, m, &y0, accumulate);
                        for (idx, (&got, &want)) in y.iter().zip(&want).enumerate() {
                            assert!(
                                (got as f64 - want).abs() <= 1e-4 * (1.0 + want.abs()),
                                "n={n} m={m} k={k} accumulate={accumulate} at {idx}: {got} vs {want}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn overlapping_rows_read_windows_in_place() {
        // Rows of width 3 read as windows of 3 consecutive rows: row i is x[3i..3i + 9].
        let (n, width, m) = (7, 3, 20);
        let k = 3 * width;
        let x = values((n + 2) * width, 9);
        let w = values(m * k, 10);
        let windows: Vec<f32> = (0..n)
            .flat_map(|i| x[i * width..i * width + k].to_vec())
            .collect();
        let packed = PackedWeights::new(w.clone(), m, k);
        let (mut strided, mut copied) = (vec![0.0; n * m], vec![0.0; n * m]);
        packed.matmul_strided(&x, n, width, &mut strided, false);
        packed.matmul(&windows, n, &mut copied, false);
        assert_eq!(strided, copied);
        let mut sgemm = vec![0.0; n * m];
        crate::spacy::linalg::matmul_transposed_strided(&x, n, width, k, &w, m, &mut sgemm, false);
        for (a, b) in sgemm.iter().zip(&copied) {
            assert!((a - b).abs() <= 1e-5 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }

    #[test]
    fn the_packed_layout_is_panel_major() {
        let w: Vec<f32> = (0..17 * 2).map(|v| v as f32).collect();
        let panels = pack(&w, 17, 2);
        assert_eq!(panels.len(), 2 * 2 * PANEL);
        // Panel 0, p = 1: w[c][1] for c in 0..16.
        assert_eq!(panels[PANEL], 1.0);
        assert_eq!(panels[PANEL + 3], w[3 * 2 + 1]);
        // Panel 1 holds row 16 and zeros.
        assert_eq!(panels[2 * PANEL], w[16 * 2]);
        assert_eq!(panels[2 * PANEL + 1], 0.0);
    }
}
