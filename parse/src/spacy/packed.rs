//! Constant weights packed once, at load, for the pipeline's dense products.
//!
//! Every matrix product of the parse pipeline multiplies activations by a constant weight
//! matrix (`y = x·Wᵀ`). A general SGEMM (`matrixmultiply`) repacks both operands on every call:
//! a profile of the one-thread parse showed 15% of the time in packing next to 41% in the
//! product itself. [`PackedWeights`] lays `W` out once as 16-column panels (`k × 16`, zero
//! padded), and a register-blocked kernel reads them directly, with the activations broadcast
//! from their rows in place (no packing at all at call time): AVX-512 (a panel is one
//! register) or AVX2 with FMA (a panel is two), picked once per CPU. Other CPUs keep
//! `matrixmultiply` on the row-major weights.
//!
//! Each output is the same sequential sum over `k` of `x·w` products (fused multiply-adds)
//! as before, so results agree with the SGEMM path to rounding; the spaCy parity tests run
//! on whichever path the machine takes. Products 512 deep or more (BART's, not the parse
//! pipeline's) are summed in slices of 256 (see [`DEPTH_SLICE`]), each slice's partial sum
//! added to the output.

/// Columns per panel: one AVX-512 register of `f32`, two AVX2 ones.
const PANEL: usize = 16;
/// Rows of `x` per kernel call (12 accumulators: two AVX-512 panels, or one AVX2 panel).
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
    /// The panels, when a packed kernel runs on this CPU.
    panels: Option<Panels>,
}

/// An `m × k` weight matrix as `ceil(m/16)` panels of `k × 16` for the packed kernel, without
/// the row-major copy: what a caller keeps when it has the weights elsewhere (the models
/// crate's decoder layers, whose weights stay in their tensors).
#[derive(Clone, Debug)]
pub struct Panels {
    panels: Vec<f32>,
    m: usize,
    k: usize,
    kernel: Kernel,
}

impl Panels {
    /// Packs `w` (`m × k`, row-major), or `None` when this CPU runs no packed kernel (neither
    /// AVX-512 nor AVX2 with FMA).
    ///
    /// # Panics
    /// When `w` is not `m × k`.
    pub fn pack(w: &[f32], m: usize, k: usize) -> Option<Panels> {
        Kernel::detect().map(|kernel| Panels::pack_for(w, m, k, kernel))
    }

    /// Packs `w` for `kernel`, which this CPU runs.
    fn pack_for(w: &[f32], m: usize, k: usize, kernel: Kernel) -> Panels {
        assert_eq!(w.len(), m * k, "weights are not {m}×{k}");
        Panels {
            panels: pack(w, m, k),
            m,
            k,
            kernel,
        }
    }

    /// Whether this CPU runs a packed kernel, so that [`Panels::pack`] gives `Some`.
    pub fn available() -> bool {
        Kernel::detect().is_some()
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
        // SAFETY: panels exist only for a kernel this CPU runs; shapes checked above, `y`
        // guaranteed by the caller.
        unsafe {
            matmul(
                self.kernel,
                x,
                n,
                lda,
                self.k,
                &self.panels,
                self.m,
                y,
                ldy,
                accumulate,
            )
        }
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
                super::sgemm::matmul_transposed_strided(x, n, stride, k, &self.w, m, y, accumulate)
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

/// Which register-blocked kernel multiplies by the panels on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// One panel is one 16-lane register; tiles of up to 6 rows × 2 panels (12 accumulators).
    Avx512,
    /// One panel is two 8-lane registers; tiles of up to 6 rows × 1 panel (12 accumulators
    /// of 16), or of 1–2 rows × 2 panels, so that a single row still keeps 4 sums in flight.
    Avx2,
}

impl Kernel {
    /// Every kernel this CPU runs, widest first (AVX-512F; AVX2 with FMA); empty off x86-64.
    fn every_available() -> Vec<Kernel> {
        let mut kernels = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                kernels.push(Kernel::Avx512);
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                kernels.push(Kernel::Avx2);
            }
        }
        kernels
    }

    /// The widest kernel this CPU runs.
    fn detect() -> Option<Kernel> {
        Kernel::every_available().first().copied()
    }

    /// Panels per tile for a cache block of `block_rows` rows: as many as the registers hold.
    fn panels_per_tile(self, block_rows: usize) -> usize {
        match self {
            Kernel::Avx512 => 2,
            Kernel::Avx2 if block_rows <= 2 => 2,
            Kernel::Avx2 => 1,
        }
    }

    /// Runs one tile of `rows` rows × `pair` panels.
    ///
    /// # Safety
    /// This CPU runs `self` (it came from [`Kernel::detect`]); every pointer of `t` covers what
    /// the tile reads and writes; `rows ≤ ROWS`, and `pair ≤ self.panels_per_tile(rows)`.
    unsafe fn tile(self, t: &Tile, rows: usize, pair: usize) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: guaranteed by the caller.
        unsafe {
            match self {
                Kernel::Avx512 => x86::avx512_tile(t, rows, pair),
                Kernel::Avx2 => x86::avx2_tile(t, rows, pair),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (t, rows, pair);
            unreachable!("no packed kernel on this architecture")
        }
    }
}

/// `y = x·Wᵀ (+ y)` over packed panels, in cache blocks of rows and depth slices, one tile
/// call per (rows, panels) tile.
///
/// # Safety
/// This CPU runs `kernel`; `x` holds `n` rows of `k` at row stride `lda`, `y` points to `n`
/// rows of `m` at row stride `ldy`, `panels` is [`pack`]'s layout of an `m × k` matrix.
#[allow(clippy::too_many_arguments)]
unsafe fn matmul(
    kernel: Kernel,
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
        let per_tile = kernel.panels_per_tile(block_end - block);
        for q in (0..n_panels).step_by(per_tile) {
            let pair = (n_panels - q).min(per_tile);
            let cols = (m - q * PANEL).min(pair * PANEL);
            for from in (0..k.max(1)).step_by(slice) {
                let depth = (k - from).min(slice);
                let b = panels.as_ptr().wrapping_add(q * panel_len + from * PANEL);
                for i in (block..block_end).step_by(ROWS) {
                    let rows = (block_end - i).min(ROWS);
                    let t = Tile {
                        a: x.as_ptr().wrapping_add(i * lda + from),
                        lda,
                        k: depth,
                        b,
                        panel_len,
                        c: y.wrapping_add(i * ldy + q * PANEL),
                        ldc: ldy,
                        cols,
                        // Later slices add to what the earlier ones wrote.
                        accumulate: accumulate || from > 0,
                    };
                    // SAFETY: the tile lies inside `x`, `panels` and `y` (caller's shapes);
                    // `pair` came from `panels_per_tile` of a block at least `rows` long.
                    unsafe { kernel.tile(&t, rows, pair) };
                }
            }
        }
    }
}

/// One kernel call (pointers advance with `wrapping_add`, which carries no debug-build
/// precondition check into the inner loop): rows of `x` from `a` (row stride `lda`) times
/// panels from `b` (panel stride `panel_len`), into `c` (row stride `ldc`), `cols` of its
/// columns valid.
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

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::{Tile, PANEL};

    /// One AVX-512 tile of `rows` × `pair` panels, monomorphised so that the accumulators
    /// stay in registers.
    ///
    /// # Safety
    /// As [`super::Kernel::tile`], with AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn avx512_tile(t: &Tile, rows: usize, pair: usize) {
        // SAFETY: guaranteed by the caller.
        unsafe {
            match (rows, pair) {
                (6, 2) => tile512::<6, 2>(t),
                (5, 2) => tile512::<5, 2>(t),
                (4, 2) => tile512::<4, 2>(t),
                (3, 2) => tile512::<3, 2>(t),
                (2, 2) => tile512::<2, 2>(t),
                (1, 2) => tile512::<1, 2>(t),
                (6, _) => tile512::<6, 1>(t),
                (5, _) => tile512::<5, 1>(t),
                (4, _) => tile512::<4, 1>(t),
                (3, _) => tile512::<3, 1>(t),
                (2, _) => tile512::<2, 1>(t),
                _ => tile512::<1, 1>(t),
            }
        }
    }

    /// `R` rows × `P` panels.
    ///
    /// # Safety
    /// As [`avx512_tile`].
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn tile512<const R: usize, const P: usize>(t: &Tile) {
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

    /// Lanes per AVX2 register: half a panel.
    const HALF: usize = PANEL / 2;

    /// One AVX2 tile of `rows` × `pair` panels (`pair` 2 only for 1–2 rows), monomorphised
    /// over the number of half-panel registers per row.
    ///
    /// # Safety
    /// As [`super::Kernel::tile`], with AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn avx2_tile(t: &Tile, rows: usize, pair: usize) {
        // SAFETY: guaranteed by the caller.
        unsafe {
            match (rows, pair) {
                (1, 2) => tile256::<1, 4>(t),
                (2, 2) => tile256::<2, 4>(t),
                (_, 2) => unreachable!("two-panel AVX2 tiles have at most 2 rows"),
                (6, _) => tile256::<6, 2>(t),
                (5, _) => tile256::<5, 2>(t),
                (4, _) => tile256::<4, 2>(t),
                (3, _) => tile256::<3, 2>(t),
                (2, _) => tile256::<2, 2>(t),
                _ => tile256::<1, 2>(t),
            }
        }
    }

    /// `R` rows × `H` half panels (`H / 2` panels).
    ///
    /// # Safety
    /// As [`avx2_tile`].
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn tile256<const R: usize, const H: usize>(t: &Tile) {
        let (a, lda, k, b, panel_len) = (t.a, t.lda, t.k, t.b, t.panel_len);
        // Half `h` is lanes `(h % 2) · 8..` of panel `h / 2`.
        let half =
            |h: usize, p: usize| b.wrapping_add((h / 2) * panel_len + p * PANEL + (h % 2) * HALF);
        let mut acc = [[_mm256_setzero_ps(); H]; R];
        for p in 0..k {
            let mut w = [_mm256_setzero_ps(); H];
            let mut h = 0;
            while h < H {
                w[h] = _mm256_loadu_ps(half(h, p));
                h += 1;
            }
            let mut r = 0;
            while r < R {
                let x = _mm256_broadcast_ss(&*a.wrapping_add(r * lda + p));
                let mut h = 0;
                while h < H {
                    acc[r][h] = _mm256_fmadd_ps(x, w[h], acc[r][h]);
                    h += 1;
                }
                r += 1;
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (h, acc) in acc.iter().enumerate() {
                // Output columns `h · 8..` of the tile (panels are consecutive columns).
                let valid = t.cols.saturating_sub(h * HALF).min(HALF);
                if valid == 0 {
                    continue;
                }
                let dst = t.c.wrapping_add(r * t.ldc + h * HALF);
                if valid == HALF {
                    let v = if t.accumulate {
                        _mm256_add_ps(*acc, _mm256_loadu_ps(dst))
                    } else {
                        *acc
                    };
                    _mm256_storeu_ps(dst, v);
                } else {
                    let mut lanes = [0f32; HALF];
                    _mm256_storeu_ps(lanes.as_mut_ptr(), *acc);
                    for (c, &v) in lanes[..valid].iter().enumerate() {
                        let d = dst.wrapping_add(c);
                        *d = if t.accumulate { *d + v } else { v };
                    }
                }
            }
        }
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
    fn every_kernel_of_this_cpu_matches_the_definition() {
        // Each kernel, not only the widest: an AVX-512 machine also checks the AVX2 tiles
        // (1–2 row blocks take two panels per tile there).
        for kernel in Kernel::every_available() {
            for &n in &[1, 2, 3, 6, 7, 97] {
                for &m in &[1, 9, 16, 17, 33, 40] {
                    for &k in &[1, 5, 600] {
                        for accumulate in [false, true] {
                            let x = values(n * k, 11 + n as u32);
                            let w = values(m * k, 12 + m as u32);
                            let y0 = values(n * m, 13 + k as u32);
                            let panels = Panels::pack_for(&w, m, k, kernel);
                            let mut y = y0.clone();
                            // SAFETY: `y` holds `n × m` values; `x` holds `n × k`.
                            unsafe { panels.matmul_raw(&x, n, k, y.as_mut_ptr(), m, accumulate) };
                            let want = reference(&x, n, k, &w, m, &y0, accumulate);
                            for (idx, (&got, &want)) in y.iter().zip(&want).enumerate() {
                                assert!(
                                    (got as f64 - want).abs() <= 1e-4 * (1.0 + want.abs()),
                                    "{kernel:?} n={n} m={m} k={k} accumulate={accumulate} at {idx}: {got} vs {want}"
                                );
                            }
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
        crate::spacy::sgemm::matmul_transposed_strided(&x, n, width, k, &w, m, &mut sgemm, false);
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
