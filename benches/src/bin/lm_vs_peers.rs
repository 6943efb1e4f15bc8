//! Side-by-side causal-LM throughput: metamorph's GGUF models (`metamorph_models::causal_lm`)
//! against llama.cpp (`llama-cpp-python`) and `transformers` (f32), all on the same GGUF file,
//! the same token ids and the same thread count (`scripts/lm_speed.py` runs the peers).
//!
//! ```text
//! RAYON_NUM_THREADS=2 cargo run --release -p metamorph-benches --bin lm-vs-peers -- \
//!     [--model smollm2-135m] [--rows 32] [--len 48] [--batch 1,32] [--new-tokens 32]
//!     [--reps 3] [--weights f32,quantized] [--peers llama.cpp,transformers]
//! ```
//!
//! Scoring: `--rows` texts of `--len` tokens (sentences of the bundled samples, cut to length),
//! log-probabilities of every token after the first; a figure is scored tokens per second.
//! Generation: greedy, every row forced to `--new-tokens` new tokens (no stop token), prompts of
//! 16–24 tokens; a figure is generated tokens per second. Medians of `--reps` runs after a
//! warm-up. Output: JSON lines, then a table with the ratios to each peer.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Instant;

use metamorph_benches::cli::{list, median};
use metamorph_models::causal_lm::{CausalLm, GenerateOptions, LmOptions, WeightFormat};
use serde_json::json;

struct Args {
    model: String,
    rows: usize,
    len: usize,
    batch: Vec<usize>,
    new_tokens: usize,
    reps: usize,
    weights: Vec<WeightFormat>,
    peers: String,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        model: "smollm2-135m".into(),
        rows: 32,
        len: 48,
        batch: vec![1, 32],
        new_tokens: 32,
        reps: 3,
        weights: vec![WeightFormat::F32, WeightFormat::Quantized],
        peers: "llama.cpp,transformers".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--model" => args.model = value()?,
            "--rows" => args.rows = number(value()?)?,
            "--len" => args.len = number(value()?)?,
            "--batch" => args.batch = list(&value()?)?,
            "--new-tokens" => args.new_tokens = number(value()?)?,
            "--reps" => args.reps = number(value()?)?,
            "--peers" => args.peers = value()?,
            "--weights" => {
                args.weights = value()?
                    .split(',')
                    .map(|w| match w {
                        "f32" => Ok(WeightFormat::F32),
                        "quantized" => Ok(WeightFormat::Quantized),
                        other => Err(format!("--weights: `{other}` (f32 or quantized)")),
                    })
                    .collect::<Result<_, _>>()?
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(args)
}

/// Sentences of the bundled samples, joined and cut into rows of `len` tokens (start token
/// first), and prompts of 16–24 tokens.
fn token_rows(
    model: &CausalLm,
    rows: usize,
    len: usize,
    prompts: usize,
) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
    let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/samples");
    let mut text = String::new();
    let mut files: Vec<_> = std::fs::read_dir(&samples)
        .expect("data/samples")
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for f in files {
        if let Ok(t) = std::fs::read_to_string(&f) {
            text.push_str(&t.replace(['\t', '{', '}', '"'], " "));
        }
    }
    let ids = model.encode(&text).expect("tokenize the samples");
    let start = model.start_token().unwrap_or(0);
    let mut at = 0;
    let mut take = |n: usize| {
        let mut row = vec![start];
        row.extend_from_slice(&ids[at % (ids.len() - n)..at % (ids.len() - n) + n - 1]);
        at += 997;
        row
    };
    let score: Vec<Vec<u32>> = (0..rows).map(|_| take(len)).collect();
    let prompts: Vec<Vec<u32>> = (0..prompts).map(|i| take(16 + i % 9)).collect();
    (score, prompts)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    metamorph_data::memory::keep_freed_buffers();
    let args = parse_args()?;
    let threads = rayon::current_num_threads();
    let path = metamorph_models::causal_lm::resolve_gguf(&args.model)?;
    let largest = args.batch.iter().copied().max().unwrap_or(1);
    let mut figures: BTreeMap<(String, String, usize), f64> = BTreeMap::new();
    let mut ids_json = None;
    for &weights in &args.weights {
        let name = match weights {
            WeightFormat::F32 => "metamorph f32",
            WeightFormat::Quantized => "metamorph quantized",
        };
        let model = CausalLm::from_file(
            &path,
            LmOptions {
                weights,
                batch_tokens: args.rows * args.len,
                ..LmOptions::default()
            },
        )?;
        let (rows, prompts) = token_rows(&model, args.rows, args.len, largest);
        if ids_json.is_none() {
            ids_json = Some(json!({"score": rows, "prompts": prompts}));
        }
        let time = |f: &mut dyn FnMut()| {
            f();
            let mut t = Vec::new();
            for _ in 0..args.reps {
                let s = Instant::now();
                f();
                t.push(s.elapsed().as_secs_f64());
            }
            median(t)
        };
        let t = time(&mut || {
            model.score(&rows).unwrap();
        });
        let tokens = rows.iter().map(|r| r.len() - 1).sum::<usize>() as f64;
        let line =
            json!({"impl": name, "task": "score", "batch": rows.len(), "tokens_per_s": tokens / t});
        println!("{line}");
        figures.insert((name.into(), "score".into(), rows.len()), tokens / t);
        for &batch in &args.batch {
            let options = GenerateOptions {
                max_new_tokens: args.new_tokens,
                stop: vec![u32::MAX],
                ..GenerateOptions::default()
            };
            let p = &prompts[..batch];
            let t = time(&mut || {
                model.generate(p, &options).unwrap();
            });
            let rate = (batch * args.new_tokens) as f64 / t;
            println!(
                "{}",
                json!({"impl": name, "task": "generate", "batch": batch, "tokens_per_s": rate})
            );
            figures.insert((name.into(), "generate".into(), batch), rate);
        }
    }
    if !args.peers.is_empty() {
        let dir = std::env::temp_dir().join(format!("lm-vs-peers-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let ids_path = dir.join("ids.json");
        std::fs::write(&ids_path, serde_json::to_string(&ids_json)?)?;
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/lm_speed.py");
        let out = Command::new("python3")
            .arg(&script)
            .arg("--model")
            .arg(&path)
            .arg("--ids")
            .arg(&ids_path)
            .args(["--threads", &threads.to_string()])
            .args(["--impl", &args.peers])
            .args([
                "--batch",
                &args
                    .batch
                    .iter()
                    .map(|b| b.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            ])
            .args(["--new-tokens", &args.new_tokens.to_string()])
            .args(["--reps", &args.reps.to_string()])
            .output()?;
        let _ = std::fs::remove_dir_all(&dir);
        if !out.status.success() {
            eprintln!("{}", String::from_utf8_lossy(&out.stderr));
            return Err("scripts/lm_speed.py failed".into());
        }
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            println!("{line}");
            let v: serde_json::Value = serde_json::from_str(line)?;
            figures.insert(
                (
                    v["impl"].as_str().unwrap_or("?").into(),
                    v["task"].as_str().unwrap_or("?").into(),
                    v["batch"].as_u64().unwrap_or(0) as usize,
                ),
                v["tokens_per_s"].as_f64().unwrap_or(f64::NAN),
            );
        }
    }
    println!("\n{} threads, model {}", threads, args.model);
    println!(
        "{:<22} {:<9} {:>6} {:>10}   ratios",
        "impl", "task", "batch", "tokens/s"
    );
    for ((name, task, batch), rate) in &figures {
        let mut ratios = String::new();
        if name.starts_with("metamorph") {
            for peer in ["llama.cpp", "transformers"] {
                if let Some(p) = figures.get(&(peer.to_string(), task.clone(), *batch)) {
                    ratios.push_str(&format!("  {:.2}x {peer}", rate / p));
                }
            }
        }
        println!("{name:<22} {task:<9} {batch:>6} {rate:>10.1} {ratios}");
    }
    Ok(())
}
