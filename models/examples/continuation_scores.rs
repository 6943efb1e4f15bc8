//! How likely a causal LM finds the same words after two different prefixes: for each line
//! `key \t prefix_a \t prefix_b \t words` on standard input, prints `key \t lp_a \t lp_b`,
//! where `lp_x = log p(words | prefix_x)` in nats (summed over the words' tokens). `words`
//! follow their prefix after a space, or glued to it when written `~words` (punctuation). A
//! line whose words do not tokenize apart from their prefix is left out.
//!
//! Used to measure a *seam* check for NLPLego's parents (docs/validity/calibration/seam.md):
//! how much less likely the words after a removed phrase become without it.
//!
//! ```text
//! printf 'k\tThe cat sat\tThe cat sat quietly\ton the mat\n' |
//!     cargo run --release -p metamorph-models --example continuation_scores -- smollm2-135m
//! ```
use std::io::BufRead;
use std::process::ExitCode;

use metamorph_models::causal_lm::{CausalLm, LmOptions};

/// The tokens of `prefix` then `words` and how many of them are the words', or `None` when
/// the words' tokens do not extend the prefix's.
fn continuation(lm: &CausalLm, prefix: &str, words: &str) -> Option<(Vec<u32>, usize)> {
    let text = match words.strip_prefix('~') {
        Some(glued) => format!("{prefix}{glued}"),
        None if prefix.is_empty() => words.to_string(),
        None => format!("{prefix} {words}"),
    };
    let head = lm.with_start(prefix).ok()?;
    let whole = lm.with_start(&text).ok()?;
    (whole.len() > head.len() && whole[..head.len()] == head[..]).then(|| {
        let tail = whole.len() - head.len();
        (whole, tail)
    })
}

fn main() -> ExitCode {
    let spec = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "smollm2-135m".into());
    let lm = match CausalLm::load(&spec, LmOptions::default()) {
        Ok(lm) => lm,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (mut keys, mut sequences, mut tails) = (Vec::new(), Vec::new(), Vec::new());
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                eprintln!("error: standard input line {}: {e}", n + 1);
                return ExitCode::FAILURE;
            }
        };
        let fields: Vec<&str> = line.split('\t').collect();
        let [key, prefix_a, prefix_b, words] = fields[..] else {
            eprintln!(
                "error: standard input line {}: {} fields, want 4 (key, prefix_a, prefix_b, words)",
                n + 1,
                fields.len()
            );
            return ExitCode::FAILURE;
        };
        let (Some(a), Some(b)) = (
            continuation(&lm, prefix_a, words),
            continuation(&lm, prefix_b, words),
        ) else {
            continue;
        };
        keys.push(key.to_string());
        for (sequence, tail) in [a, b] {
            sequences.push(sequence);
            tails.push(tail);
        }
    }
    let scores = match lm.score_last(&sequences, &tails) {
        Ok(scores) => scores,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    for (key, pair) in keys.iter().zip(scores.chunks(2)) {
        let sum = |lp: &Vec<f32>| lp.iter().sum::<f32>();
        println!("{key}\t{}\t{}", sum(&pair[0]), sum(&pair[1]));
    }
    ExitCode::SUCCESS
}
