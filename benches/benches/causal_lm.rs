//! Tokens/s of the GGUF causal LM (`metamorph_models::causal_lm`): scoring a batch of 32 rows
//! of 48 tokens and greedy generation at batch 1 and 32, with SmolLM2-135M (fetched like the
//! other assets) in f32 and with its quantized blocks. The side-by-side figures against
//! llama.cpp and `transformers` come from the `lm-vs-peers` binary; see benches/README.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metamorph_models::causal_lm::{CausalLm, GenerateOptions, LmOptions, WeightFormat};

const ROWS: usize = 32;
const LEN: usize = 48;
const NEW_TOKENS: usize = 16;

fn rows(model: &CausalLm, n: usize, len: usize) -> Vec<Vec<u32>> {
    let text = "The committee met on Tuesday to discuss the new bridge over the river, which \
                the city council had approved in March after a long debate about its cost. \
                Several residents said they were worried about traffic during construction.";
    let ids = model.encode(text).expect("tokenize");
    let start = model.start_token().unwrap_or(0);
    (0..n)
        .map(|i| {
            let mut row = vec![start];
            row.extend(ids.iter().cycle().skip(i).take(len - 1));
            row
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    for (weights, name) in [
        (WeightFormat::F32, "f32"),
        (WeightFormat::Quantized, "quantized"),
    ] {
        let model = CausalLm::load(
            "smollm2-135m",
            LmOptions {
                weights,
                batch_tokens: ROWS * LEN,
                ..LmOptions::default()
            },
        )
        .expect("load SmolLM2-135M");
        let score_rows = rows(&model, ROWS, LEN);
        let mut group = c.benchmark_group(format!("causal_lm/smollm2-135m/{name}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements((ROWS * (LEN - 1)) as u64));
        group.bench_function("score 32x48", |b| {
            b.iter(|| model.score(&score_rows).expect("score"))
        });
        let options = GenerateOptions {
            max_new_tokens: NEW_TOKENS,
            stop: vec![u32::MAX],
            ..GenerateOptions::default()
        };
        for batch in [1, 32] {
            let prompts = rows(&model, batch, 20);
            group.throughput(Throughput::Elements((batch * NEW_TOKENS) as u64));
            group.bench_function(format!("generate batch {batch}"), |b| {
                b.iter(|| model.generate(&prompts, &options).expect("generate"))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
