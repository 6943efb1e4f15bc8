//! Side-by-side generation throughput: metamorph's BART (`metamorph_models::bart`) and
//! `transformers`' `generate()` (`scripts/bart_speed.py`) on the same random bart-base-shaped
//! checkpoint ([`metamorph_benches::bart`]), the same inputs and the same thread count.
//!
//! ```text
//! RAYON_NUM_THREADS=2 cargo run --release -p metamorph-benches --bin generate-vs-torch -- \
//!     [--batch 1,2,4,8,16,32] [--beams 1,4] [--new-tokens 32] [--input-len 32] [--reps 3]
//!     [--min-seconds 2] [--skip-torch]
//! ```
//!
//! Every output is forced to `--new-tokens` tokens (`min_new_tokens = max_new_tokens`), so both
//! sides do the same work; a figure is generated tokens (returned sequences × new tokens) per
//! second, over encoding and decoding, median of the timed runs after one short warm-up.
//! Output: JSON lines (Rust's, then PyTorch's), then a table of tokens/s and ratios.

use std::process::Command;
use std::time::Instant;

use metamorph_benches::bart::{default_dir, ensure_checkpoint, inputs};
use metamorph_benches::cli::{list, median};
use metamorph_generate::decoding::generate_ids;
use metamorph_generate::DecodingOptions;
use metamorph_models::bart::Bart;
use metamorph_models::ModelOptions;

struct Args {
    batch: Vec<usize>,
    beams: Vec<usize>,
    new_tokens: usize,
    input_len: usize,
    reps: usize,
    min_seconds: f64,
    skip_torch: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        batch: vec![1, 2, 4, 8, 16, 32],
        beams: vec![1, 4],
        new_tokens: 32,
        input_len: 32,
        reps: 3,
        min_seconds: 2.0,
        skip_torch: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--batch" => args.batch = list(&value()?)?,
            "--beams" => args.beams = list(&value()?)?,
            "--new-tokens" => args.new_tokens = number(value()?)?,
            "--input-len" => args.input_len = number(value()?)?,
            "--reps" => args.reps = number(value()?)?,
            "--min-seconds" => {
                args.min_seconds = value()?
                    .parse()
                    .map_err(|e| format!("--min-seconds: {e}"))?
            }
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
    let dir = ensure_checkpoint(&default_dir())?;
    let largest = args.batch.iter().copied().max().unwrap_or(1);
    let all_inputs = inputs(largest, args.input_len, 1);
    let ids_path = dir.join(format!("ids-{largest}x{}.json", args.input_len));
    std::fs::write(&ids_path, serde_json::to_string(&all_inputs)?)?;

    let model = Bart::load(&dir, "bart-base-random", ModelOptions::default())?;
    // (impl, batch, beams) → tokens/s
    let mut results: Vec<(String, usize, usize, f64)> = Vec::new();
    for &beams in &args.beams {
        for &batch in &args.batch {
            let options = DecodingOptions {
                num_beams: beams,
                max_new_tokens: args.new_tokens,
                min_new_tokens: args.new_tokens,
                ..DecodingOptions::default()
            };
            let warm = DecodingOptions {
                max_new_tokens: 2,
                min_new_tokens: 0,
                ..options.clone()
            };
            let batch_inputs = &all_inputs[..batch];
            generate_ids(&model, batch_inputs, &warm)?;
            let mut times = Vec::new();
            let started = Instant::now();
            while times.len() < args.reps || started.elapsed().as_secs_f64() < args.min_seconds {
                let t0 = Instant::now();
                let out = generate_ids(&model, batch_inputs, &options)?;
                times.push(t0.elapsed().as_secs_f64());
                // Start token + the forced new tokens.
                if out.iter().any(|row| row.len() != args.new_tokens + 1) {
                    return Err("an output does not have the forced length".into());
                }
            }
            let n = times.len();
            let seconds = median(times);
            let rate = (batch * args.new_tokens) as f64 / seconds;
            println!(
                "{{\"impl\": \"rust\", \"threads\": {threads}, \"batch\": {batch}, \
                 \"beams\": {beams}, \"new_tokens\": {}, \"reps\": {n}, \
                 \"seconds\": {seconds:.4}, \"tokens_per_s\": {rate:.2}}}",
                args.new_tokens
            );
            results.push(("rust".into(), batch, beams, rate));
        }
    }
    if !args.skip_torch {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .ok_or("no workspace root")?;
        let join = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        let output = Command::new("python3")
            .arg(root.join("scripts/bart_speed.py"))
            .arg("--model")
            .arg(&dir)
            .arg("--ids")
            .arg(&ids_path)
            .args(["--threads", &threads.to_string()])
            .args(["--batch", &join(&args.batch), "--beams", &join(&args.beams)])
            .args(["--new-tokens", &args.new_tokens.to_string()])
            .args(["--reps", &args.reps.to_string()])
            .args(["--min-seconds", &args.min_seconds.to_string()])
            .output()?;
        if !output.status.success() {
            return Err(format!(
                "bart_speed.py failed: {}",
                String::from_utf8_lossy(&output.stderr)
            )
            .into());
        }
        for line in String::from_utf8(output.stdout)?.lines() {
            let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
                continue; // set-up chatter of the script's virtualenv bootstrap
            };
            println!("{line}");
            let field = |k: &str| value[k].as_u64().unwrap_or(0) as usize;
            results.push((
                "torch".into(),
                field("batch"),
                field("beams"),
                value["tokens_per_s"].as_f64().unwrap_or(f64::NAN),
            ));
        }
    }
    println!(
        "\ngenerated tokens/s, {threads} threads, {} new tokens per output:\n\
         | beams | batch | rust | torch | rust / torch |\n|---|---|---|---|---|",
        args.new_tokens
    );
    for &beams in &args.beams {
        for &batch in &args.batch {
            let rate = |name: &str| {
                results
                    .iter()
                    .find(|r| r.0 == name && r.1 == batch && r.2 == beams)
                    .map(|r| r.3)
            };
            let cell = |r: Option<f64>| r.map_or("-".into(), |r| format!("{r:.1}"));
            let ratio = match (rate("rust"), rate("torch")) {
                (Some(a), Some(b)) => format!("{:.2}×", a / b),
                _ => "-".into(),
            };
            println!(
                "| {beams} | {batch} | {} | {} | {ratio} |",
                cell(rate("rust")),
                cell(rate("torch"))
            );
        }
    }
    Ok(())
}
