//! The plain matrix product every dense layer falls back to: `matrixmultiply`'s SGEMM over
//! row-major `f32` slices. A leaf module: [`super::packed`] calls it where the CPU has no
//! packed kernel, and [`super::linalg`] re-exports it for the layers.

/// `y[n×m] = x[n×k] · w[m×k]ᵀ (+ y if `accumulate`)`, all row-major.
pub fn matmul_transposed(
    x: &[f32],
    n: usize,
    k: usize,
    w: &[f32],
    m: usize,
    y: &mut [f32],
    accumulate: bool,
) {
    matmul_transposed_strided(x, n, k, k, w, m, y, accumulate);
}

/// [`matmul_transposed`] with row `i` of `x` at `x[i·stride..i·stride + k]` (rows may overlap).
#[allow(clippy::too_many_arguments)]
pub fn matmul_transposed_strided(
    x: &[f32],
    n: usize,
    stride: usize,
    k: usize,
    w: &[f32],
    m: usize,
    y: &mut [f32],
    accumulate: bool,
) {
    assert!(
        (n == 0 || x.len() >= (n - 1) * stride + k) && w.len() >= m * k && y.len() >= n * m,
        "matrix shapes do not agree"
    );
    if n == 0 || m == 0 {
        return;
    }
    let beta = if accumulate { 1.0 } else { 0.0 };
    // SAFETY: the assertion above guarantees every index sgemm touches is in bounds: row i of x
    // is x[i·stride..i·stride + k], wᵀ is k×m read through w's row stride k, y is n×m with row
    // stride m.
    unsafe {
        matrixmultiply::sgemm(
            n,
            k,
            m,
            1.0,
            x.as_ptr(),
            stride as isize,
            1,
            w.as_ptr(),
            1,
            k as isize,
            beta,
            y.as_mut_ptr(),
            m as isize,
            1,
        );
    }
}
