//! Side by side: tokens/s of the pure-Rust en_core_web_sm and of spaCy 3.8 (`nlp.pipe`) on the
//! same 5,000 texts, on this machine.
//!
//! `cargo run --release -p metamorph-benches --bin parse-vs-spacy [-- --skip-spacy]`
//!
//! Writes the corpus to `target/bench/parse-corpus.jsonl`, times the Rust pipeline on one thread
//! and on all cores (best of three), then runs `scripts/bench_spacy.py` on the same file (which
//! sets up its own virtualenv with spaCy) and prints both figures and their ratio.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use metamorph_benches::parse_corpus::{parse_corpus, write_corpus};
use metamorph_parse::spacy::pipeline::Pipeline;

fn best_of_three(mut run: impl FnMut() -> usize) -> (usize, f64) {
    let mut best = f64::INFINITY;
    let mut tokens = 0;
    for _ in 0..3 {
        let start = Instant::now();
        tokens = run();
        best = best.min(start.elapsed().as_secs_f64());
    }
    (tokens, best)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let skip_spacy = std::env::args().any(|a| a == "--skip-spacy");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("no workspace root")?;
    let corpus = root.join("target/bench/parse-corpus.jsonl");
    let (texts, origin) = parse_corpus();
    write_corpus(&corpus, &texts)?;
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let pipeline = Pipeline::load(&metamorph_data::assets::ensure("en_core_web_sm")?)?;
    pipeline.process_serial(&texts[..200])?;
    let count =
        |docs: Vec<metamorph_parse::spacy::Doc>| docs.iter().map(|d| d.len()).sum::<usize>();
    let (tokens, serial) =
        best_of_three(|| count(pipeline.process_serial(&texts).expect("within max_length")));
    let (_, parallel) =
        best_of_three(|| count(pipeline.process(&texts).expect("within max_length")));
    // The best of three runs over the same texts with warm caches (spaCy's are warm too); the
    // embedding cache makes a first pass over new text slower, so time one from a fresh load.
    let fresh = Pipeline::load(&metamorph_data::assets::ensure("en_core_web_sm")?)?;
    fresh.process_serial(&texts[..200])?;
    let started = Instant::now();
    let first_pass = count(fresh.process_serial(&texts)?);
    let first_pass_seconds = started.elapsed().as_secs_f64();
    let threads = rayon::current_num_threads();
    println!(
        "corpus: {} texts ({origin}), {tokens} tokens, {}",
        texts.len(),
        corpus.display()
    );
    println!(
        "metamorph-parse, 1 thread:   {:>9.0} tokens/s ({serial:.2} s)",
        tokens as f64 / serial
    );
    println!(
        "metamorph-parse, 1 thread, one pass after a fresh load: {:>9.0} tokens/s ({first_pass_seconds:.2} s)",
        first_pass as f64 / first_pass_seconds
    );
    println!(
        "metamorph-parse, {threads} threads:  {:>9.0} tokens/s ({parallel:.2} s)",
        tokens as f64 / parallel
    );
    if skip_spacy {
        return Ok(());
    }
    let output = Command::new("python3")
        .arg(root.join("scripts/bench_spacy.py"))
        .arg("--corpus")
        .arg(&corpus)
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "bench_spacy.py failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let spacy = report["tokens_per_s"]
        .as_f64()
        .ok_or("bench_spacy.py printed no tokens_per_s")?;
    println!(
        "{}: {spacy:>9.0} tokens/s ({} tokens)",
        report["peer"].as_str().unwrap_or("spaCy"),
        report["tokens"]
    );
    println!(
        "ratio, 1 thread: {:.2}x (one pass after a fresh load: {:.2}x); {threads} threads: {:.2}x",
        tokens as f64 / serial / spacy,
        first_pass as f64 / first_pass_seconds / spacy,
        tokens as f64 / parallel / spacy
    );
    Ok(())
}
