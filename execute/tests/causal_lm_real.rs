//! SmolLM2-135M-Instruct as a BoolQ model under test (`kind = "causal-lm"`) against
//! `transformers` in f32: on the first 20 questions of the bundled sample, the prompt ids are
//! identical and p(yes), p(no) agree within 1e-3 (goldens by
//! `scripts/causal_lm_yes_no_golden.py`). The GGUF is fetched like the other assets; where it
//! cannot be, the test says so and skips.

use std::path::Path;

use metamorph_data::{DatasetFormat, DatasetReader, ReadOptions, Task};
use metamorph_execute::causal_lm::{CausalLmConfig, CausalLmModel, PromptFormat};
use metamorph_execute::Model;
use metamorph_models::{CausalLm, LmOptions};

#[test]
fn smollm2_yes_no_probabilities_match_transformers() {
    let lm = match CausalLm::load("smollm2-135m", LmOptions::default()) {
        Ok(lm) => lm,
        Err(e) => {
            metamorph_data::shared_data::skipped(format_args!("SmolLM2 not available: {e}"));
            return;
        }
    };
    let model =
        CausalLmModel::try_new("smollm2", lm, &[Task::BoolQ], CausalLmConfig::default()).unwrap();
    assert_eq!(model.format(), &PromptFormat::ChatMl);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let golden: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/fixtures/causal-lm-yes-no-golden.json")).unwrap(),
    )
    .unwrap();
    let examples: Vec<_> = DatasetReader::open(
        root.join("../data/samples/boolq.jsonl"),
        DatasetFormat::Boolq,
        ReadOptions::default(),
    )
    .unwrap()
    .examples()
    .collect::<Result<_, _>>()
    .unwrap();
    let rows = golden["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 20);
    let mut worst = 0f64;
    for row in rows {
        let example = &examples[row["line"].as_u64().unwrap() as usize];
        let ids: Vec<u32> = row["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(model.prompt_for(example).unwrap(), ids, "{}", example.id);
        let p = model.predict(&[example]).unwrap().remove(0);
        for label in ["yes", "no"] {
            let ours = p
                .probabilities
                .as_ref()
                .unwrap()
                .iter()
                .find(|l| l.label == label)
                .unwrap()
                .prob;
            let diff = (f64::from(ours) - row[label].as_f64().unwrap()).abs();
            worst = worst.max(diff);
            assert!(
                diff < 1e-3,
                "{} p({label}): {ours} vs {}",
                example.id,
                row[label]
            );
        }
    }
    eprintln!("largest |Δp| over 20 prompts: {worst:.2e}");
}
