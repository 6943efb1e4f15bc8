//! Activations by their `transformers` names, shared by the encoders and the task heads.

use candle_core::{CpuStorage, CustomOp1, DType, Layout, Result, Shape, Tensor};

/// An activation by its `transformers` name (`ACT2FN`), as encoder layers and heads use them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// `tanh`.
    Tanh,
    /// `relu`.
    Relu,
    /// `gelu`: the exact, erf-based GELU.
    Gelu,
    /// `gelu_new`, `gelu_pytorch_tanh`, `gelu_fast`: the tanh approximation.
    GeluTanh,
    /// `silu` / `swish`.
    Silu,
}

impl Activation {
    /// The activation `transformers` calls `name`, if this crate has it.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "tanh" => Activation::Tanh,
            "relu" => Activation::Relu,
            "gelu" => Activation::Gelu,
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Activation::GeluTanh,
            "silu" | "swish" => Activation::Silu,
            _ => return None,
        })
    }

    /// The activation applied elementwise.
    pub fn apply(self, xs: &Tensor) -> Result<Tensor> {
        match self {
            Activation::Tanh => xs.tanh(),
            Activation::Relu => xs.relu(),
            Activation::Gelu => gelu_erf(xs),
            Activation::GeluTanh => xs.gelu(),
            Activation::Silu => xs.silu(),
        }
    }
}

/// The exact (erf) GELU. On the CPU in f32 it runs FastBert's vectorised kernel (a rational
/// erf approximation, branch-free, multiversioned for AVX-512 and AVX2, over parallel chunks)
/// in one pass; candle's `gelu_erf` evaluates a scalar erf per element, which profiled at 3%
/// of BART generation. Other devices and dtypes keep candle's.
pub fn gelu_erf(xs: &Tensor) -> Result<Tensor> {
    if xs.device().is_cpu() && xs.dtype() == DType::F32 {
        xs.contiguous()?.apply_op1_no_bwd(&VectorisedGeluErf)
    } else {
        xs.gelu_erf()
    }
}

/// [`gelu_erf`]'s CPU kernel as a candle op.
struct VectorisedGeluErf;

impl CustomOp1 for VectorisedGeluErf {
    fn name(&self) -> &'static str {
        "gelu-erf-vectorised"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let (CpuStorage::F32(data), Some((start, end))) = (storage, layout.contiguous_offsets())
        else {
            candle_core::bail!("gelu-erf-vectorised: expects a contiguous f32 tensor")
        };
        let mut out = data[start..end].to_vec();
        super::fast_bert::gelu_erf_in_place(&mut out);
        Ok((CpuStorage::F32(out), layout.shape().clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activations_follow_transformers_names() {
        assert_eq!(Activation::from_name("gelu"), Some(Activation::Gelu));
        assert_eq!(
            Activation::from_name("gelu_pytorch_tanh"),
            Some(Activation::GeluTanh)
        );
        assert_eq!(Activation::from_name("mish"), None);
        let xs = Tensor::new(&[-1.0f32, 0.0, 2.0], &candle_core::Device::Cpu).unwrap();
        let relu: Vec<f32> = Activation::Relu.apply(&xs).unwrap().to_vec1().unwrap();
        assert_eq!(relu, [0.0, 0.0, 2.0]);
        // Exact GELU at 2: 2·Φ(2) = 1.9544997; the tanh form gives 1.9545977.
        let gelu: Vec<f32> = Activation::Gelu.apply(&xs).unwrap().to_vec1().unwrap();
        assert!((gelu[2] - 1.954_499_7).abs() < 1e-6, "{gelu:?}");
    }

    #[test]
    fn the_vectorised_gelu_matches_candles_on_contiguous_and_strided_tensors() {
        let values: Vec<f32> = (0..6000).map(|i| (i as f32 - 3000.0) / 400.0).collect();
        let xs = Tensor::from_vec(values, (60, 100), &candle_core::Device::Cpu).unwrap();
        for xs in [xs.clone(), xs.t().unwrap()] {
            let ours: Vec<f32> = gelu_erf(&xs)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1()
                .unwrap();
            let theirs: Vec<f32> = xs
                .gelu_erf()
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1()
                .unwrap();
            assert_eq!(ours.len(), theirs.len());
            for (a, b) in ours.iter().zip(&theirs) {
                assert!((a - b).abs() <= 1e-6 * (1.0 + b.abs()), "{a} vs {b}");
            }
        }
    }
}
