//! Tokens/s of the pure-Rust en_core_web_sm on the 5,000-text parse corpus, on one thread and on
//! all cores (see benches/README.md; the spaCy side is `parse-vs-spacy`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metamorph_benches::parse_corpus::parse_corpus;
use metamorph_parse::spacy::pipeline::Pipeline;

fn parse(c: &mut Criterion) {
    let dir = metamorph_data::assets::ensure("en_core_web_sm")
        .expect("en_core_web_sm (cargo xtask assets)");
    let pipeline = Pipeline::load(&dir).expect("load en_core_web_sm");
    let (texts, origin) = parse_corpus();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let tokens: usize = pipeline
        .process(&texts)
        .expect("corpus within max_length")
        .iter()
        .map(|d| d.len())
        .sum();
    eprintln!(
        "parse corpus: {} texts from {origin}, {tokens} tokens",
        texts.len()
    );
    let mut group = c.benchmark_group("parse");
    group.sample_size(10);
    group.throughput(Throughput::Elements(tokens as u64));
    group.bench_function("en_core_web_sm/1-thread", |b| {
        b.iter(|| pipeline.process_serial(&texts).unwrap())
    });
    group.bench_function("en_core_web_sm/all-threads", |b| {
        b.iter(|| pipeline.process(&texts).unwrap())
    });
    group.bench_function("tokenizer/1-thread", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| pipeline.tokenizer().tokenize(t).len())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
