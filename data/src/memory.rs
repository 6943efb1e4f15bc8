//! The process's allocator, set up for model inference.
//!
//! Why: every decoding step and encoder batch allocates and frees the same megabyte-sized
//! activation buffers (a BART step at batch 32 × 4 beams: 1.5 MB per feed-forward output, 26 MB
//! of logits). glibc's `malloc` serves large blocks with fresh `mmap`s and returns freed memory
//! to the system, so each step pays page faults and zeroing again. Keeping blocks of up to 32 MiB
//! on the heap and trimming it only above 1 GiB made BART generation at 32 × 4 beams 6–8% faster
//! on the development VM (2026-11-27; `benches/README.md`, "generate"). The cost: the process
//! keeps up to 1 GiB of freed memory for reuse instead of handing it back.

/// Largest block served from the heap rather than by its own `mmap` (glibc's maximum).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: i32 = 32 << 20;
/// Free memory at the top of the heap kept before it is returned to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: i32 = 1 << 30;
/// Extra memory asked of the system with each heap extension.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TOP_PAD: i32 = 64 << 20;

/// Sets glibc's `malloc` to keep freed large buffers for reuse (see the module doc); returns
/// whether every setting was accepted. Does nothing, and returns `false`, elsewhere. Call it at
/// the start of `main`, before threads allocate.
pub fn keep_freed_buffers() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        [
            (libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD),
            (libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD),
            (libc::M_TOP_PAD, TOP_PAD),
        ]
        .into_iter()
        // SAFETY: `mallopt` only changes the allocator's tuning parameters.
        .all(|(param, value)| unsafe { libc::mallopt(param, value) } == 1)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn glibc_accepts_every_setting() {
        let accepted = super::keep_freed_buffers();
        assert_eq!(accepted, cfg!(all(target_os = "linux", target_env = "gnu")));
        // Large buffers still allocate and free normally afterwards.
        let buffer = vec![1u8; 40 << 20];
        assert_eq!(buffer.iter().map(|&b| b as usize).sum::<usize>(), 40 << 20);
    }
}
