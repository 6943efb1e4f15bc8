//! Examples/s of a BERT-base-shaped encoder forward pass on the CPU (random weights, f32):
//! metamorph's `FastBert` (what `SentenceEncoder` runs on the CPU) next to candle-transformers'
//! `BertModel`, per sequence length and batch size. See benches/README.md; the PyTorch side is
//! `scripts/bench_encoder_torch.py`, and `cargo run --release -p metamorph-benches --bin
//! encoder-vs-torch` runs both back to back over the full grid.
//!
//! Threads: rayon's (`RAYON_NUM_THREADS`, default all cores); candle reads the same variable.
//! The default grid keeps the run to minutes on 2 cores; `METAMORPH_BENCH_GRID` (e.g.
//! `128x1,128x64,384x64`) and `METAMORPH_BENCH_BACKENDS` (`fast,candle`) choose others.

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use metamorph_benches::encoder::{bert_base, inputs, random_weights, Encoder};
use std::time::Duration;

const DEFAULT_GRID: &str = "128x1,128x8,128x32,384x8";

fn grid() -> Vec<(usize, usize)> {
    std::env::var("METAMORPH_BENCH_GRID")
        .unwrap_or_else(|_| DEFAULT_GRID.to_string())
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (seq, batch) = s
                .split_once('x')
                .unwrap_or_else(|| panic!("grid entry `{s}` is not SEQxBATCH"));
            (
                seq.parse().expect("sequence length"),
                batch.parse().expect("batch size"),
            )
        })
        .collect()
}

fn encoder(c: &mut Criterion) {
    let config = bert_base(12);
    let backends = std::env::var("METAMORPH_BENCH_BACKENDS").unwrap_or("fast,candle".into());
    let mut group = c.benchmark_group(format!(
        "execute/bert-base-f32/{}-threads",
        rayon::current_num_threads()
    ));
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for backend in backends.split(',').filter(|s| !s.is_empty()) {
        let model = Encoder::load(backend, random_weights(&config, 0), &config).expect("load");
        for (seq, batch) in grid() {
            let input = inputs(batch, seq, 1);
            group.throughput(Throughput::Elements(batch as u64));
            group.bench_function(format!("{backend}/seq{seq}/batch{batch}"), |b| {
                b.iter(|| model.forward(&input, batch, seq).expect("forward"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, encoder);
criterion_main!(benches);
