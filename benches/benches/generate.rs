//! Generated tokens/s of BART conditional generation on the CPU (a random bart-base-shaped
//! checkpoint, f32, every output forced to 32 new tokens), per batch size and beam count. See
//! benches/README.md; `cargo run --release -p metamorph-benches --bin generate-vs-torch` runs the
//! full grid (batch 1–32, beams 1 and 4) side by side with `transformers`' `generate()`.
//!
//! Threads: rayon's (`RAYON_NUM_THREADS`, default all cores); candle reads the same variable.
//! The default grid keeps the run to minutes on 2 cores; `METAMORPH_BENCH_GRID` (e.g.
//! `1x1,32x4`, BATCHxBEAMS) chooses others. The checkpoint is written once under
//! `target/bench-models/` (about 560 MB).

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use metamorph_benches::bart::{default_dir, ensure_checkpoint, inputs};
use metamorph_generate::decoding::generate_ids;
use metamorph_generate::DecodingOptions;
use metamorph_models::bart::Bart;
use metamorph_models::ModelOptions;
use std::time::Duration;

const DEFAULT_GRID: &str = "1x1,8x1,32x1,1x4,8x4";
const NEW_TOKENS: usize = 32;

fn grid() -> Vec<(usize, usize)> {
    std::env::var("METAMORPH_BENCH_GRID")
        .unwrap_or_else(|_| DEFAULT_GRID.to_string())
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (batch, beams) = s
                .split_once('x')
                .unwrap_or_else(|| panic!("grid entry `{s}` is not BATCHxBEAMS"));
            (
                batch.parse().expect("batch size"),
                beams.parse().expect("beam count"),
            )
        })
        .collect()
}

fn generation(c: &mut Criterion) {
    let dir = ensure_checkpoint(&default_dir()).expect("write the bench checkpoint");
    let model = Bart::load(&dir, "bart-base-random", ModelOptions::default()).expect("load");
    let mut group = c.benchmark_group(format!(
        "generate/bart-base-f32/{}-threads",
        rayon::current_num_threads()
    ));
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    for (batch, beams) in grid() {
        let input = inputs(batch, 32, 1);
        let options = DecodingOptions {
            num_beams: beams,
            max_new_tokens: NEW_TOKENS,
            min_new_tokens: NEW_TOKENS,
            ..DecodingOptions::default()
        };
        group.throughput(Throughput::Elements((batch * NEW_TOKENS) as u64));
        group.bench_function(format!("batch{batch}/beams{beams}"), |b| {
            b.iter(|| generate_ids(&model, &input, &options).expect("generate"))
        });
    }
    group.finish();
}

criterion_group!(benches, generation);
criterion_main!(benches);
