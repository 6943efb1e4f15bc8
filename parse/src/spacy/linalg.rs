//! The dense layers of thinc models (Linear, Maxout, LayerNorm) over row-major `f32` matrices.
//!
//! Matrix products multiply by weights packed once at load ([`PackedWeights`]: an AVX-512 or
//! AVX2 kernel where the CPU has one, `matrixmultiply`'s SGEMM otherwise; no BLAS to install);
//! everything else is a plain loop. Rows are tokens (or parser states), so a whole batch of
//! documents is one product.

use super::msgpack::{NdArray, ThincNode};
use super::packed::PackedWeights;

pub use super::sgemm::{matmul_transposed, matmul_transposed_strided};

/// Checks a parameter's shape, naming the layer on mismatch.
pub fn expect_shape(node: &ThincNode, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
    let array: &NdArray = node.param(name)?;
    if array.shape != shape {
        return Err(format!(
            "layer #{} `{}` parameter `{name}` has shape {:?}, expected {shape:?}",
            node.index, node.name, array.shape
        ));
    }
    Ok(array.data.clone())
}

/// thinc `Linear`: `y = x·Wᵀ + b`.
#[derive(Clone, Debug)]
pub struct Linear {
    /// Weights, `n_out × n_in`.
    pub w: PackedWeights,
    /// Bias, `n_out`.
    pub b: Vec<f32>,
    /// Output width.
    pub n_out: usize,
    /// Input width.
    pub n_in: usize,
}

impl Linear {
    /// Reads a `linear` (or `softmax`) node.
    pub fn from_node(node: &ThincNode) -> Result<Self, String> {
        let shape = &node.param("W")?.shape;
        let [n_out, n_in] = shape[..] else {
            return Err(format!(
                "layer #{} `{}`: W must be 2-D, got {shape:?}",
                node.index, node.name
            ));
        };
        Ok(Self {
            w: PackedWeights::new(expect_shape(node, "W", &[n_out, n_in])?, n_out, n_in),
            b: expect_shape(node, "b", &[n_out])?,
            n_out,
            n_in,
        })
    }

    /// Applies the layer to `n` rows.
    pub fn forward(&self, x: &[f32], n: usize) -> Vec<f32> {
        let mut y = vec![0.0; n * self.n_out];
        for row in y.chunks_exact_mut(self.n_out) {
            row.copy_from_slice(&self.b);
        }
        self.w.matmul(x, n, &mut y, true);
        y
    }
}

/// thinc `Maxout`: `nP` affine pieces per output, keeping the largest.
///
/// The weights are stored piece-major (all outputs of piece 0, then piece 1, …) rather than
/// thinc's output-major `(nO, nP, nI)`, so that the max over pieces runs over contiguous rows
/// and vectorises; the arithmetic (each piece's dot product plus its bias) is unchanged.
#[derive(Clone, Debug)]
pub struct Maxout {
    /// Weights, `(n_pieces·n_out) × n_in`, piece-major.
    pub w: PackedWeights,
    /// Bias, `n_pieces·n_out`, piece-major.
    pub b: Vec<f32>,
    /// Output width.
    pub n_out: usize,
    /// Pieces per output.
    pub n_pieces: usize,
    /// Input width.
    pub n_in: usize,
}

impl Maxout {
    /// Reads a `maxout` node.
    pub fn from_node(node: &ThincNode) -> Result<Self, String> {
        let shape = &node.param("W")?.shape;
        let [n_out, n_pieces, n_in] = shape[..] else {
            return Err(format!(
                "layer #{} `{}`: W must be 3-D, got {shape:?}",
                node.index, node.name
            ));
        };
        let w = expect_shape(node, "W", &[n_out, n_pieces, n_in])?;
        let b = expect_shape(node, "b", &[n_out, n_pieces])?;
        let mut w_pm = vec![0.0; w.len()];
        let mut b_pm = vec![0.0; b.len()];
        for o in 0..n_out {
            for p in 0..n_pieces {
                let (from, to) = (o * n_pieces + p, p * n_out + o);
                w_pm[to * n_in..(to + 1) * n_in]
                    .copy_from_slice(&w[from * n_in..(from + 1) * n_in]);
                b_pm[to] = b[from];
            }
        }
        Ok(Self {
            w: PackedWeights::new(w_pm, n_pieces * n_out, n_in),
            b: b_pm,
            n_out,
            n_pieces,
            n_in,
        })
    }

    /// Applies the layer to `n` rows, using `scratch` for the un-maxed products.
    pub fn forward(&self, x: &[f32], n: usize, scratch: &mut Vec<f32>) -> Vec<f32> {
        self.forward_strided(x, n, self.n_in, scratch)
    }

    /// [`Maxout::forward`] with row `i` of the input at `x[i·stride..i·stride + n_in]`.
    pub fn forward_strided(
        &self,
        x: &[f32],
        n: usize,
        stride: usize,
        scratch: &mut Vec<f32>,
    ) -> Vec<f32> {
        let width = self.n_out * self.n_pieces;
        if scratch.len() < n * width {
            scratch.resize(n * width, 0.0);
        }
        self.w.matmul_strided(x, n, stride, scratch, false);
        let mut y = vec![0.0; n * self.n_out];
        for (row, out) in scratch
            .chunks_exact(width)
            .zip(y.chunks_exact_mut(self.n_out))
        {
            self.max_pieces(row, out);
        }
        y
    }

    /// `out[o] = max_p(row[p·n_out + o] + b[p·n_out + o])` for one row of piece-major products.
    pub fn max_pieces(&self, row: &[f32], out: &mut [f32]) {
        let n = self.n_out;
        for ((o, r), b) in out.iter_mut().zip(&row[..n]).zip(&self.b[..n]) {
            *o = r + b;
        }
        for p in 1..self.n_pieces {
            for ((o, r), b) in out
                .iter_mut()
                .zip(&row[p * n..(p + 1) * n])
                .zip(&self.b[p * n..(p + 1) * n])
            {
                let v = r + b;
                // An unconditional select (not a conditional store) vectorises to `maxps`.
                *o = if v > *o { v } else { *o };
            }
        }
    }
}

/// thinc `LayerNorm`: per-row standardisation (variance + 1e-8) then scale `G` and shift `b`.
#[derive(Clone, Debug)]
pub struct LayerNorm {
    /// Scale.
    pub g: Vec<f32>,
    /// Shift.
    pub b: Vec<f32>,
}

impl LayerNorm {
    /// Reads a `layernorm` node of width `n`.
    pub fn from_node(node: &ThincNode, n: usize) -> Result<Self, String> {
        Ok(Self {
            g: expect_shape(node, "G", &[n])?,
            b: expect_shape(node, "b", &[n])?,
        })
    }

    /// Normalises every row of `x` in place.
    pub fn forward_inplace(&self, x: &mut [f32]) {
        let n = self.g.len();
        for row in x.chunks_exact_mut(n) {
            let mean = row.iter().sum::<f32>() / n as f32;
            let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n as f32 + 1e-8;
            let inv = 1.0 / var.sqrt();
            for ((v, g), b) in row.iter_mut().zip(&self.g).zip(&self.b) {
                *v = (*v - mean) * inv * g + b;
            }
        }
    }
}

/// Index of the largest value (the first one on ties), as thinc's and spaCy's argmax.
pub fn argmax(values: &[f32]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate().skip(1) {
        if v > values[best] {
            best = i;
        }
    }
    best
}
