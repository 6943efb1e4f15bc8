//! The device and dtype a candle model runs on, read from config text (`cpu`, `cuda:0`, `bf16`);
//! shared by the generate stage and `metamorph-execute`'s candle models. Also
//! [`with_cpu_f32`]: a CPU tensor's values read in place, for the kernels that run on the host.

use candle_core::{DType, Device, Storage, Tensor};
use metamorph_data::{Error, Result};

/// The device named by `spec`: `cpu`, `cuda` / `cuda:N` (feature `cuda`) or `metal` /
/// `metal:N` (feature `metal`).
///
/// # Errors
/// [`Error::Config`] for an unknown name, a backend this build lacks, or a device that does
/// not start.
pub fn device(spec: &str) -> Result<Device> {
    let (kind, ordinal) = match spec.split_once(':') {
        Some((kind, n)) => {
            let n = n.parse::<usize>().map_err(|_| {
                Error::Config(format!("device `{spec}`: `{n}` is not a device number"))
            })?;
            (kind, n)
        }
        None => (spec, 0),
    };
    let unavailable = |feature: &str| {
        Error::Config(format!(
            "device `{spec}`: this build has no {feature} support (rebuild with --features {feature})"
        ))
    };
    let failed = |e: candle_core::Error| Error::Config(format!("device `{spec}`: {e}"));
    match kind {
        "cpu" if ordinal == 0 => Ok(Device::Cpu),
        "cuda" if cfg!(feature = "cuda") => {
            let device = Device::new_cuda(ordinal).map_err(failed)?;
            keep_pool_memory(&device).map_err(failed)?;
            Ok(device)
        }
        "cuda" => Err(unavailable("cuda")),
        "metal" if cfg!(feature = "metal") => Device::new_metal(ordinal).map_err(failed),
        "metal" => Err(unavailable("metal")),
        _ => Err(Error::Config(format!(
            "unknown device `{spec}` (expected cpu, cuda, cuda:N, metal or metal:N)"
        ))),
    }
}

/// Makes the CUDA device's default memory pool keep what it has reserved.
///
/// candle allocates every tensor with `cuMemAllocAsync` from the device's default pool, whose
/// release threshold is 0: at each synchronisation (every copy of results to the host) the
/// pool hands its memory back to the driver, and the next batch maps it again, at a cost that
/// grows with the batch. PyTorch's caching allocator keeps it; so does this, by raising the
/// threshold to the maximum (the process keeps the memory its largest batch needed until it
/// exits, as PyTorch does).
#[cfg(feature = "cuda")]
fn keep_pool_memory(device: &Device) -> candle_core::Result<()> {
    use candle_core::cuda_backend::cudarc::driver::{result, sys};
    let stream = device.as_cuda_device()?.cuda_stream();
    let context = stream.context();
    let failed = |e: result::DriverError| candle_core::Error::Msg(format!("memory pool: {e}"));
    context.bind_to_thread().map_err(failed)?;
    let mut threshold = u64::MAX;
    // SAFETY: the device comes from a live context; the release threshold is a u64 attribute.
    unsafe {
        let pool = result::device::get_default_mem_pool(context.cu_device()).map_err(failed)?;
        result::mem_pool::set_attribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&mut threshold as *mut u64).cast(),
        )
        .map_err(failed)?;
    }
    Ok(())
}

#[cfg(not(feature = "cuda"))]
fn keep_pool_memory(_device: &Device) -> candle_core::Result<()> {
    Ok(())
}

/// The dtype named `name`: `f32`, `f16` or `bf16`.
///
/// # Errors
/// [`Error::Config`] for any other name.
pub fn parse_dtype(name: &str) -> Result<DType> {
    match name {
        "f32" => Ok(DType::F32),
        "f16" => Ok(DType::F16),
        "bf16" => Ok(DType::BF16),
        other => Err(Error::Config(format!(
            "unknown dtype `{other}` (expected f32, f16 or bf16)"
        ))),
    }
}

/// Runs `f` on the `f32` values of the contiguous CPU tensor `t`, in place (no copy).
///
/// # Errors
/// When `t` is not contiguous, not on the CPU, or not `f32`.
pub fn with_cpu_f32<R>(t: &Tensor, f: impl FnOnce(&[f32]) -> R) -> candle_core::Result<R> {
    if !t.is_contiguous() {
        candle_core::bail!("expected a contiguous tensor");
    }
    let (storage, layout) = t.storage_and_layout();
    let Storage::Cpu(cpu) = &*storage else {
        candle_core::bail!("expected a CPU tensor");
    };
    let values = cpu.as_slice::<f32>()?;
    let start = layout.start_offset();
    Ok(f(&values[start..start + t.elem_count()]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_dtypes_parse() {
        assert!(matches!(device("cpu"), Ok(Device::Cpu)));
        assert!(device("tpu")
            .unwrap_err()
            .to_string()
            .contains("unknown device"));
        assert!(device("cuda:x").is_err());
        if !cfg!(feature = "cuda") {
            assert!(device("cuda:0")
                .unwrap_err()
                .to_string()
                .contains("--features cuda"));
        }
        assert_eq!(parse_dtype("bf16").unwrap(), DType::BF16);
        assert!(parse_dtype("f64").is_err());
    }
}
