//! The additive attention bias of padded batches, shared by every encoder (BERT, DistilBERT,
//! ModernBERT). A leaf module: the encoders and the backbone that dispatches to them import it,
//! and it imports none of them.

use candle_core::Tensor;

/// The additive attention bias `[rows, 1, 1, width]` for `mask` (u32, 1 = token): 0 at tokens,
/// the dtype's most negative finite value (`torch.finfo(dtype).min`) at padding keys.
pub fn padding_bias(mask: &Tensor, dtype: candle_core::DType) -> candle_core::Result<Tensor> {
    let (rows, width) = mask.dims2()?;
    let min = match dtype {
        candle_core::DType::F16 => -65504.0,
        candle_core::DType::BF16 => -3.389_531_4e38,
        _ => f32::MIN,
    };
    ((mask.to_dtype(candle_core::DType::F32)?.affine(-1.0, 1.0)? * f64::from(min))?
        .to_dtype(dtype)?)
    .reshape((rows, 1, 1, width))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_bias_is_finite_in_every_dtype() {
        let mask = Tensor::new(&[[1u32, 1, 0]], &candle_core::Device::Cpu).unwrap();
        for dtype in [
            candle_core::DType::F32,
            candle_core::DType::F16,
            candle_core::DType::BF16,
        ] {
            let bias: Vec<f32> = padding_bias(&mask, dtype)
                .unwrap()
                .to_dtype(candle_core::DType::F32)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1()
                .unwrap();
            assert_eq!(&bias[..2], [0.0, 0.0], "{dtype:?}");
            assert!(
                bias[2].is_finite() && bias[2] < -6e4,
                "{dtype:?}: {}",
                bias[2]
            );
        }
    }
}
