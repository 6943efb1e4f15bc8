//! Side by side: SmolLM2 (or another GGUF) as a BoolQ model under test — metamorph's
//! `kind = "causal-lm"` (`metamorph_execute::causal_lm::CausalLmModel`) against llama.cpp
//! (`llama-cpp-python`, `scripts/lm_yes_no_speed.py`) on the same GGUF, the same prompt ids
//! (metamorph's, passed to llama.cpp) and the same thread count; a figure is answered
//! questions per second, yes/no read as the two label tokens' probabilities.
//!
//! ```text
//! RAYON_NUM_THREADS=2 cargo run -p metamorph-benches --bin lm-under-test-vs-llama-cpp -- \
//!     [--questions 100] [--runs 3] [--model smollm2-135m] [--weights f32|quantized]
//! ```
//!
//! Questions come from `../shared/data/boolq/superglue_boolq_val_first1000.jsonl` when present,
//! else the bundled sample (repeated). Each side: a warm-up on the first 8 questions, then the
//! median of `--runs` timed runs over all of them (`--runs 1` for the 1,000-question figure).

use std::process::Command;
use std::time::Instant;

use metamorph_benches::cli::median;
use metamorph_data::{DatasetFormat, DatasetReader, Example, ReadOptions, Task};
use metamorph_execute::causal_lm::{CausalLmConfig, CausalLmModel};
use metamorph_models::causal_lm::{resolve_gguf, CausalLm, LmOptions, WeightFormat};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut questions = 100usize;
    let mut runs = 3usize;
    let mut model_spec = "smollm2-135m".to_string();
    let mut weights = WeightFormat::F32;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--questions" => questions = value()?.parse()?,
            "--runs" => runs = value()?.parse::<usize>()?.max(1),
            "--model" => model_spec = value()?,
            "--weights" => {
                weights = match value()?.as_str() {
                    "quantized" => WeightFormat::Quantized,
                    _ => WeightFormat::F32,
                }
            }
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let shared = root.join("../shared/data/boolq/superglue_boolq_val_first1000.jsonl");
    let (path, source) = if shared.is_file() {
        (shared, "shared SuperGLUE BoolQ validation")
    } else {
        (
            root.join("data/samples/boolq.jsonl"),
            "bundled sample, repeated",
        )
    };
    let all: Vec<Example> =
        DatasetReader::open(&path, DatasetFormat::Boolq, ReadOptions::default())?
            .examples()
            .collect::<Result<_, _>>()?;
    let examples: Vec<Example> = all.iter().cycle().take(questions).cloned().collect();
    let gguf = resolve_gguf(&model_spec)?;
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "2".into());
    let lm = CausalLm::load(
        &model_spec,
        LmOptions {
            weights,
            ..LmOptions::default()
        },
    )?;
    let yes = lm.encode("yes")?;
    let no = lm.encode("no")?;
    let model = CausalLmModel::try_new("lm", lm, &[Task::BoolQ], CausalLmConfig::default())?;
    let prompts = examples
        .iter()
        .map(|e| model.prompt_for(e))
        .collect::<Result<Vec<_>, _>>()?;
    let tokens: usize = prompts.iter().map(Vec::len).sum();
    let refs: Vec<&Example> = examples.iter().collect();
    let run = |refs: &[&Example]| metamorph_benches::lm::p_yes(&model, refs);
    run(&refs[..refs.len().min(8)])?;
    let mut times = Vec::new();
    let mut ours = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        ours = run(&refs)?;
        times.push(start.elapsed().as_secs_f64());
    }
    let t = median(times);
    let mine = questions as f64 / t;
    println!(
        "{}",
        json!({"impl": "metamorph", "weights": format!("{weights:?}"), "examples_per_s": mine,
               "prompt_tokens": tokens, "questions": questions, "source": source})
    );
    if yes.len() != 1 || no.len() != 1 {
        return Err(
            "the label words are not single tokens: llama.cpp's side reads one logit".into(),
        );
    }
    let ids_file = std::env::temp_dir().join(format!("lm-yes-no-{}.json", std::process::id()));
    std::fs::write(
        &ids_file,
        serde_json::to_vec(&json!({"prompts": prompts, "yes": yes[0], "no": no[0]}))?,
    )?;
    let python = root.join("target/venv-torch/bin/python");
    let output = Command::new(&python)
        .arg(root.join("scripts/lm_yes_no_speed.py"))
        .arg(&ids_file)
        .arg(&gguf)
        .arg(&threads)
        .arg(runs.to_string())
        .output()?;
    let _ = std::fs::remove_file(&ids_file);
    if !output.status.success() {
        return Err(format!(
            "llama.cpp side failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let peer: serde_json::Value = serde_json::from_slice(&output.stdout)?;
    let theirs = peer["examples_per_s"].as_f64().unwrap_or(f64::NAN);
    let agree = peer["p_yes"]
        .as_array()
        .map(|p| {
            p.iter()
                .zip(&ours)
                .filter(|(a, b)| (a.as_f64().unwrap_or(0.0) >= 0.5) == (**b >= 0.5))
                .count()
        })
        .unwrap_or(0);
    println!(
        "{}",
        json!({"impl": "llama.cpp", "examples_per_s": theirs, "same_answer": agree})
    );
    println!(
        "\n{questions} BoolQ questions ({source}, {tokens} prompt tokens), {threads} threads:\n\
         metamorph causal-lm ({weights:?}) {mine:.2} questions/s, llama.cpp {theirs:.2} \
         questions/s: {:.2}x; same yes/no answer on {agree} of {questions}",
        mine / theirs
    );
    Ok(())
}
