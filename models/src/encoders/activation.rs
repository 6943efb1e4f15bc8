//! Activations by their `transformers` names, shared by the encoders and the task heads.

use candle_core::{Result, Tensor};

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
            Activation::Gelu => xs.gelu_erf(),
            Activation::GeluTanh => xs.gelu(),
            Activation::Silu => xs.silu(),
        }
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
}
