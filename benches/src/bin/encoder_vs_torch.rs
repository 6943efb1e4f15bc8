//! Side-by-side encoder throughput: BERT-base-shaped random-weight encoders on the CPU in f32,
//! metamorph's `FastBert` and candle-transformers' `BertModel`, then PyTorch `transformers`
//! (`scripts/bench_encoder_torch.py`, eager and sdpa attention) at the same thread count.
//!
//! ```text
//! RAYON_NUM_THREADS=2 cargo run --release -p metamorph-benches --bin encoder-vs-torch -- \
//!     [--seq 128,384] [--batch 1,8,32,64] [--backends fast,candle] [--reps 3]
//!     [--min-seconds 2] [--layers 12] [--skip-torch]
//! ```
//!
//! Every configuration gets one warm-up forward, then at least `--reps` timed forwards and at
//! least `--min-seconds`; the median time per forward is reported, as the Python script does.
//! Output: JSON lines (Rust's, then PyTorch's), then a table of examples/s and ratios.

use std::process::Command;
use std::time::Instant;

use metamorph_benches::cli::{list, median};
use metamorph_benches::encoder::{bert_base, inputs, random_weights, Encoder};

struct Args {
    seq: Vec<usize>,
    batch: Vec<usize>,
    backends: Vec<String>,
    reps: usize,
    min_seconds: f64,
    layers: usize,
    skip_torch: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        seq: vec![128, 384],
        batch: vec![1, 8, 32, 64],
        backends: vec!["fast".into(), "candle".into()],
        reps: 3,
        min_seconds: 2.0,
        layers: 12,
        skip_torch: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--seq" => args.seq = list(&value()?)?,
            "--batch" => args.batch = list(&value()?)?,
            "--backends" => args.backends = value()?.split(',').map(String::from).collect(),
            "--reps" => args.reps = value()?.parse().map_err(|e| format!("--reps: {e}"))?,
            "--min-seconds" => {
                args.min_seconds = value()?
                    .parse()
                    .map_err(|e| format!("--min-seconds: {e}"))?
            }
            "--layers" => args.layers = value()?.parse().map_err(|e| format!("--layers: {e}"))?,
            "--skip-torch" => args.skip_torch = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // As every stage binary does (`metamorph_data::stage_main`), so the figures are users'.
    metamorph_data::memory::keep_freed_buffers();
    let args = parse_args()?;
    let threads = rayon::current_num_threads();
    let config = bert_base(args.layers);
    // (impl, seq, batch) → examples/s
    let mut results: Vec<(String, usize, usize, f64)> = Vec::new();
    for backend in &args.backends {
        let model = Encoder::load(backend, random_weights(&config, 0), &config)?;
        for &seq in &args.seq {
            for &batch in &args.batch {
                let input = inputs(batch, seq, 1);
                model.forward(&input, batch, seq)?;
                let mut times = Vec::new();
                let started = Instant::now();
                while times.len() < args.reps || started.elapsed().as_secs_f64() < args.min_seconds
                {
                    let t0 = Instant::now();
                    std::hint::black_box(model.forward(&input, batch, seq)?);
                    times.push(t0.elapsed().as_secs_f64());
                }
                let n = times.len();
                let median = median(times);
                let rate = batch as f64 / median;
                println!(
                    "{{\"impl\": \"rust-{backend}\", \"threads\": {threads}, \"layers\": {}, \
                     \"seq\": {seq}, \"batch\": {batch}, \"reps\": {n}, \"seconds\": {median:.5}, \
                     \"examples_per_s\": {rate:.3}}}",
                    args.layers
                );
                results.push((format!("rust-{backend}"), seq, batch, rate));
            }
        }
    }
    if !args.skip_torch {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .ok_or("no workspace root")?;
        let join = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        let output = Command::new("python3")
            .arg(root.join("scripts/bench_encoder_torch.py"))
            .args(["--threads", &threads.to_string()])
            .args(["--seq", &join(&args.seq), "--batch", &join(&args.batch)])
            .args(["--reps", &args.reps.to_string()])
            .args(["--min-seconds", &args.min_seconds.to_string()])
            .args(["--layers", &args.layers.to_string()])
            .output()?;
        if !output.status.success() {
            return Err(format!(
                "bench_encoder_torch.py failed: {}",
                String::from_utf8_lossy(&output.stderr)
            )
            .into());
        }
        for line in String::from_utf8(output.stdout)?.lines() {
            println!("{line}");
            let value: serde_json::Value = serde_json::from_str(line)?;
            let field = |k: &str| value[k].as_u64().unwrap_or(0) as usize;
            results.push((
                format!("torch-{}", value["attn"].as_str().unwrap_or("?")),
                field("seq"),
                field("batch"),
                value["examples_per_s"].as_f64().unwrap_or(f64::NAN),
            ));
        }
    }
    let impls: Vec<String> = results.iter().fold(Vec::new(), |mut acc, r| {
        if !acc.contains(&r.0) {
            acc.push(r.0.clone());
        }
        acc
    });
    println!(
        "\nexamples/s, {threads} threads, {} layers:\n| seq | batch | {} | fast / best torch |",
        args.layers,
        impls.join(" | ")
    );
    for &seq in &args.seq {
        for &batch in &args.batch {
            let rate = |name: &str| {
                results
                    .iter()
                    .find(|r| r.0 == name && r.1 == seq && r.2 == batch)
                    .map(|r| r.3)
            };
            let cells: Vec<String> = impls
                .iter()
                .map(|i| rate(i).map_or("-".into(), |r| format!("{r:.2}")))
                .collect();
            let torch = ["torch-eager", "torch-sdpa"]
                .iter()
                .filter_map(|i| rate(i))
                .fold(f64::NAN, f64::max);
            let ratio = rate("rust-fast").map_or("-".into(), |f| format!("{:.2}×", f / torch));
            println!("| {seq} | {batch} | {} | {ratio} |", cells.join(" | "));
        }
    }
    Ok(())
}
