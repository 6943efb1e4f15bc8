//! Generated tokens per second of a BART checkpoint on CPU, for side-by-side comparison with
//! `transformers`' `generate()` on the same inputs.
//!
//! Usage: `cargo run --release -p metamorph-generate --example bart_speed -- DIR IDS.json`,
//! where `IDS.json` holds a list of input token-id lists (the first 1 and 8 are used). Every
//! output is forced to 32 new tokens (`min_new_tokens = max_new_tokens = 32`) so that both
//! sides generate the same number of tokens; the timing covers encoding and decoding.
//! `scripts/bart_speed.py` writes a bart-base-shaped random model and the ids, and times the
//! `transformers` side.

use std::time::Instant;

use metamorph_generate::bart::Bart;
use metamorph_generate::{DecodingOptions, ModelOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, ids] = args.as_slice() else {
        return Err("usage: bart_speed DIR IDS.json".into());
    };
    let model = Bart::load(dir.as_ref(), "speed", ModelOptions::default())?;
    let inputs: Vec<Vec<u32>> = serde_json::from_str(&std::fs::read_to_string(ids)?)?;
    for batch in [1usize, 8] {
        for beams in [1usize, 4] {
            let options = DecodingOptions {
                num_beams: beams,
                max_new_tokens: 32,
                min_new_tokens: 32,
                ..DecodingOptions::default()
            };
            let warm = DecodingOptions {
                max_new_tokens: 2,
                min_new_tokens: 0,
                ..options.clone()
            };
            model.generate_ids(&inputs[..batch], &warm)?;
            let started = Instant::now();
            let out = model.generate_ids(&inputs[..batch], &options)?;
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "candle batch {batch} beams {beams}: {:.1} tokens/s ({seconds:.2} s, out {}x{})",
                (batch * 32) as f64 / seconds,
                out.len(),
                out[0].len()
            );
        }
    }
    Ok(())
}
