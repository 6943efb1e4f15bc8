//! The GPU kit never rots: assemble it with this build's (CPU) `gpu-kit` binary and run its
//! script with `--device cpu --quick`, as a GPU machine runs it with `--device cuda`
//! (`cargo xtask gpu-kit`, `scripts/gpu_kit/run.py`).
//!
//! Without PyTorch the script skips the steps that compare with it and says so; f32 parity
//! against the fixtures' PyTorch goldens, the candle benches and the pipeline still run.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn the_kit_runs_on_the_cpu_and_its_parity_checks_pass() {
    let dir = tempfile::tempdir().unwrap();
    let cases = metamorph_benches::gpu_kit::perturb_cases(
        &workspace().join("data/samples/boolq.jsonl"),
        2,
        &dir.path().join("cases"),
    )
    .unwrap();
    let sources = metamorph_benches::gpu_kit::KitSources {
        workspace: workspace(),
        cases,
        tokenizer: metamorph_data::assets::ensure("all-MiniLM-L6-v2").expect("fetch MiniLM"),
    };
    let kit = dir.path().join("kit");
    let binary = Path::new(env!("CARGO_BIN_EXE_gpu-kit"));
    let bytes = metamorph_benches::gpu_kit::assemble(binary, &sources, &kit, false).unwrap();
    assert!(bytes > 1 << 20, "kit of {bytes} bytes");
    for file in [
        "run.py",
        "README.md",
        "bin/gpu-kit",
        "data/cases/cases.json",
    ] {
        assert!(kit.join(file).is_file(), "{file} missing from the kit");
    }

    let out = dir.path().join("out");
    let run = Command::new("python3")
        .arg(kit.join("run.py"))
        .args(["--device", "cpu", "--quick", "--out"])
        .arg(&out)
        .arg("--work")
        .arg(dir.path().join("work"))
        .output()
        .expect("python3 runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    if stderr.contains("PyTorch is not installed") {
        eprintln!("gpu-kit test: PyTorch is not installed here, so its comparisons were skipped");
    }
    assert!(run.status.success(), "run.py failed:\n{stderr}");

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let f32 = &results["parity"]["f32"];
    assert_eq!(f32["all_ok"], true, "{f32}");
    // 18 encoders × heads, 4 variants, 4 masked LMs, BART and T5.
    assert_eq!(f32["models"].as_array().unwrap().len(), 28);
    assert!(f32["worst"].as_f64().unwrap() <= 1e-3);
    let rows = |step: &str| {
        results[step]["rows"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let candle = |step: &str| {
        rows(step)
            .into_iter()
            .filter(|r| r["impl"] == "candle")
            .count()
    };
    assert_eq!(candle("encoder"), 4, "f32 and bf16 × two batch sizes");
    assert_eq!(
        candle("generate"),
        8,
        "f32 and bf16 × two batches × two beam widths"
    );
    for row in rows("encoder") {
        assert!(row["sequences_per_s"].as_f64().unwrap() > 0.0, "{row}");
    }
    // Every case the kit carries went through execute and judge.
    let pipeline = &results["pipeline"];
    let made: Value =
        serde_json::from_str(&std::fs::read_to_string(kit.join("data/cases/cases.json")).unwrap())
            .unwrap();
    assert!(made["cases"].as_u64().unwrap() > 0, "{made}");
    assert_eq!(pipeline["cases"], made["cases"], "{pipeline}");
    // The language model under test answered the kit's BoolQ questions, f32 and quantized.
    let lm: Vec<Value> = rows("lm")
        .into_iter()
        .filter(|r| r["impl"] == "metamorph")
        .collect();
    assert_eq!(lm.len(), 2, "{}", results["lm"]);
    assert!(lm
        .iter()
        .all(|r| r["examples_per_s"].as_f64().unwrap() > 0.0));
    let markdown = std::fs::read_to_string(out.join("results.md")).unwrap();
    assert!(markdown.contains("## Parity") && markdown.contains("## Pipeline"));
    assert!(markdown.contains("## Language model under test"));
}
