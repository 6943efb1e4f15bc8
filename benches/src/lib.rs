//! Benchmark helpers shared by the criterion benches in `benches/` (see `benches/README.md`).
#![deny(missing_docs)]

pub mod bart;
pub mod cli;
pub mod encoder;
pub mod gpu_kit;
pub mod lm;
pub mod parse_corpus;

use metamorph_data::{Example, Task};

/// Seeded uniform values in `[-scale, scale]` (splitmix64).
pub(crate) fn uniform(seed: &mut u64, n: usize, scale: f32) -> Vec<f32> {
    (0..n)
        .map(|_| {
            *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = *seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            ((z >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

/// `n` BoolQ examples shaped like the bundled sample: every fourth question has a "before".
pub fn boolq_examples(n: usize) -> Vec<Example> {
    (0..n)
        .map(|i| {
            let mut ex = Example::new(format!("bench-{i}"), Task::BoolQ);
            ex.question = Some(if i % 4 == 0 {
                format!("was event number {i} held before the final round")
            } else {
                format!("is item number {i} larger than the reference object")
            });
            ex.context = Some(format!(
                "Passage {i} -- The event took place in the spring, several weeks after the qualifying \
                 rounds had ended and well before the final round. Item {i} is described in detail."
            ));
            ex.label = Some("yes".into());
            ex
        })
        .collect()
}

use metamorph_data::{LabelProb, Prediction, Result};
use metamorph_execute::Model;

/// An in-process BoolQ model for benchmarks: "yes" when the question's last word occurs in the
/// passage. It keeps the model's cost out of the figures so that they measure the runner.
pub struct LastWordModel;

impl Model for LastWordModel {
    fn name(&self) -> &str {
        "last-word"
    }

    fn max_batch(&self) -> usize {
        1024
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        Ok(batch
            .iter()
            .map(|ex| {
                let last = ex
                    .question
                    .as_deref()
                    .and_then(|q| q.split_whitespace().last())
                    .unwrap_or("");
                let yes = ex.context.as_deref().is_some_and(|c| c.contains(last));
                Prediction {
                    label: Some(if yes { "yes" } else { "no" }.into()),
                    probabilities: Some(vec![
                        LabelProb {
                            label: "yes".into(),
                            prob: if yes { 1.0 } else { 0.0 },
                        },
                        LabelProb {
                            label: "no".into(),
                            prob: if yes { 0.0 } else { 1.0 },
                        },
                    ]),
                    ..Prediction::new(ex.id.clone(), self.name(), ex.task)
                }
            })
            .collect())
    }
}

/// Writes `examples` as a BoolQ JSON Lines file (the benchmark's "read" input).
pub fn write_boolq_jsonl(path: &std::path::Path, examples: &[Example]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for ex in examples {
        let line = serde_json::json!({
            "question": ex.question, "passage": ex.context, "idx": ex.id.trim_start_matches("bench-").parse::<u64>().unwrap_or(0), "label": true
        });
        writeln!(out, "{line}")?;
    }
    out.flush()
}
