//! Every architecture × head on candle against PyTorch `transformers`: tiny random-weight
//! checkpoints and their reference logits (`scripts/encoder_fixtures.py`,
//! `cargo xtask fixtures encoders`) in `tests/fixtures/encoders/<arch>-<head>/`, plus config
//! variants in `tests/fixtures/encoder-variants/`.
//!
//! Per fixture: the tokenizer from `tokenizer.json` must give the reference ids, type ids and
//! mask; the logits of each padded batch must match within 1e-4 (f32); `head()` and `labels()`
//! must be what the checkpoint's class and `id2label` say. Per-token logits are compared at
//! real tokens only: values at padding positions are unspecified (see `TaskEncoder::logits`).

use std::path::{Path, PathBuf};

use metamorph_data::assets::ModelSource;
use metamorph_models::{Architecture, Checkpoint, Head, LoadOptions, TaskEncoder};
use serde::Deserialize;
use tokenizers::{EncodeInput, Encoding};

const TOLERANCE: f32 = 1e-4;

#[derive(Deserialize)]
struct Golden {
    model: String,
    architecture: String,
    labels: Vec<String>,
    inputs: Vec<Batch>,
}

#[derive(Deserialize)]
struct Batch {
    #[serde(default)]
    texts: Vec<String>,
    #[serde(default)]
    pairs: Vec<(String, String)>,
    input_ids: Vec<Vec<u32>>,
    token_type_ids: Vec<Vec<u32>>,
    attention_mask: Vec<Vec<u32>>,
    logits: serde_json::Value,
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/encoders")
}

fn load(dir: &Path) -> (TaskEncoder, Golden) {
    let golden: Golden =
        serde_json::from_str(&std::fs::read_to_string(dir.join("golden.json")).unwrap()).unwrap();
    let checkpoint =
        Checkpoint::try_resolve(&ModelSource::Local(dir.to_path_buf()), &Default::default())
            .unwrap();
    let encoder =
        TaskEncoder::try_load(&golden.model, &checkpoint, None, &LoadOptions::default()).unwrap();
    (encoder, golden)
}

/// Flattens nested JSON numbers in row-major order.
fn flatten(value: &serde_json::Value, out: &mut Vec<f32>) {
    match value {
        serde_json::Value::Array(items) => items.iter().for_each(|v| flatten(v, out)),
        v => out.push(v.as_f64().expect("a number") as f32),
    }
}

/// Tokenizes the batch with the encoder's tokenizer and pads it like `transformers`.
fn tokenize(encoder: &TaskEncoder, batch: &Batch) -> (Vec<u32>, Vec<u32>, Vec<u32>, usize, usize) {
    let inputs: Vec<EncodeInput> = if batch.texts.is_empty() {
        batch
            .pairs
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()).into())
            .collect()
    } else {
        batch.texts.iter().map(|t| t.as_str().into()).collect()
    };
    let encodings: Vec<Encoding> = encoder.tokenizer().encode_batch(inputs, true).unwrap();
    let width = encodings.iter().map(Encoding::len).max().unwrap();
    let (mut ids, mut types, mut mask) = (Vec::new(), Vec::new(), Vec::new());
    for e in &encodings {
        let pad = width - e.len();
        ids.extend(
            e.get_ids()
                .iter()
                .copied()
                .chain(std::iter::repeat_n(encoder.pad_id(), pad)),
        );
        types.extend(
            e.get_type_ids()
                .iter()
                .copied()
                .chain(std::iter::repeat_n(0, pad)),
        );
        mask.extend(
            e.get_attention_mask()
                .iter()
                .copied()
                .chain(std::iter::repeat_n(0, pad)),
        );
    }
    (ids, types, mask, encodings.len(), width)
}

/// Checks one fixture directory (tokenization, head, labels, shapes) and returns the largest
/// |Δlogit| against the reference.
fn max_logit_diff(dir: &Path) -> f32 {
    let (encoder, golden) = load(dir);
    let expected_head = [
        ("ForQuestionAnswering", Head::QuestionAnswering),
        ("ForSequenceClassification", Head::SequenceClassification),
        ("ForTokenClassification", Head::TokenClassification),
    ]
    .into_iter()
    .find(|(suffix, _)| golden.architecture.ends_with(suffix))
    .map(|(_, head)| head)
    .unwrap();
    assert_eq!(encoder.head(), expected_head, "{}", golden.model);
    assert_eq!(encoder.labels(), golden.labels, "{}", golden.model);
    let mut worst = 0.0f32;
    for (b, batch) in golden.inputs.iter().enumerate() {
        let (ids, types, mask, rows, width) = tokenize(&encoder, batch);
        let flat = |rows: &[Vec<u32>]| rows.concat();
        assert_eq!(
            ids,
            flat(&batch.input_ids),
            "{} batch {b}: input_ids",
            golden.model
        );
        assert_eq!(
            mask,
            flat(&batch.attention_mask),
            "{} batch {b}: mask",
            golden.model
        );
        if encoder.uses_token_type_ids() {
            assert_eq!(
                types,
                flat(&batch.token_type_ids),
                "{} batch {b}",
                golden.model
            );
        }
        let logits = encoder.logits(&ids, &types, &mask, rows, width).unwrap();
        let mut expected = Vec::new();
        flatten(&batch.logits, &mut expected);
        let dims = logits.dims().to_vec();
        let ours: Vec<f32> = logits.flatten_all().unwrap().to_vec1().unwrap();
        assert_eq!(
            ours.len(),
            expected.len(),
            "{} batch {b}: shape {dims:?}",
            golden.model
        );
        let expected_dims = match encoder.head() {
            Head::QuestionAnswering => vec![rows, width, 2],
            Head::SequenceClassification => vec![rows, golden.labels.len()],
            Head::TokenClassification => vec![rows, width, golden.labels.len()],
        };
        assert_eq!(dims, expected_dims, "{} batch {b}", golden.model);
        assert!(
            ours.iter().all(|x| x.is_finite()),
            "{} batch {b}",
            golden.model
        );
        // Per-token heads: the logits at padding positions are unspecified (DeBERTa-v2's
        // and ModernBERT's differ from transformers' there; nothing reads them).
        let per_cell = ours.len() / mask.len();
        for (i, (a, e)) in ours.iter().zip(&expected).enumerate() {
            let padding = encoder.head() != Head::SequenceClassification && mask[i / per_cell] == 0;
            if !padding {
                worst = worst.max((a - e).abs());
            }
        }
    }
    eprintln!(
        "{:<28} {:?} {:?}: max |Δlogit| = {worst:.2e}",
        golden.model,
        encoder.architecture(),
        encoder.head()
    );
    worst
}

/// The fixture directories under `root` (those with a golden.json), sorted.
fn fixture_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("golden.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn assert_within_tolerance(dirs: &[PathBuf]) {
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|dir| {
            let worst = max_logit_diff(dir);
            (worst > TOLERANCE).then(|| format!("{}: {worst:.3e}", dir.display()))
        })
        .collect();
    assert!(failures.is_empty(), "beyond {TOLERANCE}: {failures:?}");
}

#[test]
fn every_architecture_and_head_matches_transformers_within_1e_4() {
    let dirs = fixture_dirs(&fixtures());
    assert_eq!(dirs.len(), 18, "6 architectures × 3 heads");
    assert_within_tolerance(&dirs);
}

/// Config variants real checkpoints use (biases, activations, layer patterns, relative
/// attention kinds): `tests/fixtures/encoder-variants/`.
#[test]
fn config_variants_match_transformers_within_1e_4() {
    let dirs = fixture_dirs(&fixtures().with_file_name("encoder-variants"));
    assert_eq!(dirs.len(), 4);
    assert_within_tolerance(&dirs);
}

#[test]
fn architectures_come_from_the_fixtures_configs() {
    let expected = [
        ("bert", Architecture::Bert),
        ("distilbert", Architecture::DistilBert),
        ("roberta", Architecture::Roberta),
        ("xlm-roberta", Architecture::XlmRoberta),
        ("deberta-v2", Architecture::DebertaV2),
        ("modernbert", Architecture::ModernBert),
    ];
    for (arch, architecture) in expected {
        let dir = fixtures().join(format!("{arch}-token"));
        let (encoder, _) = load(&dir);
        assert_eq!(encoder.architecture(), architecture, "{arch}");
        assert!(
            encoder.max_positions() >= 96,
            "{arch}: {}",
            encoder.max_positions()
        );
    }
}

#[test]
fn a_head_can_be_asked_for_and_a_missing_one_is_named() {
    let dir = fixtures().join("bert-token");
    let checkpoint =
        Checkpoint::try_resolve(&ModelSource::Local(dir.clone()), &Default::default()).unwrap();
    // The token classifier's `classifier` has 3 outputs; QA wants `qa_outputs`.
    let message = TaskEncoder::try_load(
        "m",
        &checkpoint,
        Some(Head::QuestionAnswering),
        &LoadOptions::default(),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(message.contains("qa_outputs"), "{message}");
    assert!(message.contains("model.safetensors"), "{message}");
}

#[test]
fn a_config_without_a_head_class_is_refused() {
    let source = fixtures().join("bert-sequence");
    let dir = tempfile::tempdir().unwrap();
    for file in ["model.safetensors", "tokenizer.json"] {
        std::fs::copy(source.join(file), dir.path().join(file)).unwrap();
    }
    let config = std::fs::read_to_string(source.join("config.json"))
        .unwrap()
        .replace("BertForSequenceClassification", "BertModel");
    std::fs::write(dir.path().join("config.json"), config).unwrap();
    let checkpoint = Checkpoint::try_resolve(
        &ModelSource::Local(dir.path().to_path_buf()),
        &Default::default(),
    )
    .unwrap();
    let message = TaskEncoder::try_load("m", &checkpoint, None, &LoadOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        message.contains("config.json") && message.contains("no task head"),
        "{message}"
    );
    // Asking for the head the weights hold works.
    let encoder = TaskEncoder::try_load(
        "m",
        &checkpoint,
        Some(Head::SequenceClassification),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(encoder.labels(), ["negative", "neutral", "positive"]);
}

#[test]
fn bad_inputs_to_logits_are_model_errors() {
    let (encoder, _) = load(&fixtures().join("bert-qa"));
    let message = encoder
        .logits(&[1, 2, 3], &[0; 3], &[1; 3], 2, 2)
        .unwrap_err()
        .to_string();
    assert!(message.contains("ids holds 3 values"), "{message}");
    let n = encoder.max_positions() + 1;
    let message = encoder
        .logits(&vec![1; n], &vec![0; n], &vec![1; n], 1, n)
        .unwrap_err()
        .to_string();
    assert!(message.contains("positions"), "{message}");
}

/// Half precision: BERT, DistilBERT, RoBERTa, XLM-R and ModernBERT run in f16 and bf16 with
/// finite logits near the f32 reference (a guard against NaN masks and dtype mix-ups, not a
/// parity claim); DeBERTa-v2 refuses them with a config error.
#[test]
fn half_precision_runs_or_is_refused() {
    use candle_core::DType;
    for (dtype, bound) in [(DType::F16, 0.02f32), (DType::BF16, 0.1)] {
        for arch in [
            "bert",
            "distilbert",
            "roberta",
            "xlm-roberta",
            "deberta-v2",
            "modernbert",
        ] {
            let dir = fixtures().join(format!("{arch}-token"));
            let golden: Golden =
                serde_json::from_str(&std::fs::read_to_string(dir.join("golden.json")).unwrap())
                    .unwrap();
            let checkpoint =
                Checkpoint::try_resolve(&ModelSource::Local(dir.clone()), &Default::default())
                    .unwrap();
            let options = LoadOptions {
                device: candle_core::Device::Cpu,
                dtype,
            };
            let loaded = TaskEncoder::try_load(arch, &checkpoint, None, &options);
            if arch == "deberta-v2" {
                let message = loaded.err().unwrap().to_string();
                assert!(message.contains("use dtype = \"f32\""), "{message}");
                continue;
            }
            let encoder = loaded.unwrap();
            let batch = &golden.inputs[0];
            let (ids, types, mask, rows, width) = tokenize(&encoder, batch);
            let logits = encoder.logits(&ids, &types, &mask, rows, width).unwrap();
            assert_eq!(logits.dtype(), DType::F32);
            let ours: Vec<f32> = logits.flatten_all().unwrap().to_vec1().unwrap();
            let mut expected = Vec::new();
            flatten(&batch.logits, &mut expected);
            let per_cell = ours.len() / mask.len();
            let mut worst = 0.0f32;
            for (i, (a, e)) in ours.iter().zip(&expected).enumerate() {
                assert!(a.is_finite(), "{arch} {dtype:?}: logit {i} is {a}");
                if mask[i / per_cell] == 1 {
                    worst = worst.max((a - e).abs());
                }
            }
            eprintln!("{arch:<12} {dtype:?}: max |Δlogit| vs f32 reference = {worst:.2e}");
            assert!(worst <= bound, "{arch} {dtype:?}: {worst}");
        }
    }
}

/// Fixture `name` copied with its config.json edited by `edit`, loaded with the named head.
fn load_edited(name: &str, edit: impl Fn(String) -> String) -> Result<TaskEncoder, String> {
    let source = fixtures().join(name);
    let dir = tempfile::tempdir().unwrap();
    for file in ["model.safetensors", "tokenizer.json"] {
        std::fs::copy(source.join(file), dir.path().join(file)).unwrap();
    }
    let config = edit(std::fs::read_to_string(source.join("config.json")).unwrap());
    std::fs::write(dir.path().join("config.json"), config).unwrap();
    let checkpoint = Checkpoint::try_resolve(
        &ModelSource::Local(dir.path().to_path_buf()),
        &Default::default(),
    )
    .map_err(|e| e.to_string())?;
    TaskEncoder::try_load("m", &checkpoint, None, &LoadOptions::default())
        .map_err(|e| e.to_string())
}

#[test]
fn bad_labels_are_named_with_their_file() {
    let with_labels = |labels: &'static str| {
        move |config: String| {
            let mut value: serde_json::Value = serde_json::from_str(&config).unwrap();
            value["id2label"] = serde_json::from_str(labels).unwrap();
            value.to_string()
        }
    };
    let gap = load_edited(
        "bert-sequence",
        with_labels(r#"{"0": "a", "2": "c", "3": "d"}"#),
    )
    .err()
    .unwrap();
    assert!(
        gap.contains("config.json") && gap.contains("id2label"),
        "{gap}"
    );
    // Two labels, but the classifier has three rows: the weights are named.
    let short = load_edited("bert-sequence", with_labels(r#"{"0": "a", "1": "b"}"#))
        .err()
        .unwrap();
    assert!(
        short.contains("model.safetensors") && short.contains("classifier"),
        "{short}"
    );
    let unsupported = load_edited("bert-sequence", |c| c.replace("\"bert\"", "\"electra\""))
        .err()
        .unwrap();
    assert!(
        unsupported.contains("unsupported architecture"),
        "{unsupported}"
    );
}

#[test]
fn deberta_variants_candle_gets_wrong_are_refused() {
    let set = |key: &'static str, value: serde_json::Value| {
        move |config: String| {
            let mut parsed: serde_json::Value = serde_json::from_str(&config).unwrap();
            parsed[key] = value.clone();
            parsed.to_string()
        }
    };
    let conv = load_edited("deberta-v2-token", set("conv_kernel_size", 3.into()))
        .err()
        .unwrap();
    assert!(
        conv.contains("config.json") && conv.contains("conv_kernel_size"),
        "{conv}"
    );
    let absolute = load_edited(
        "deberta-v2-token",
        set("position_biased_input", true.into()),
    )
    .err()
    .unwrap();
    assert!(absolute.contains("position_biased_input"), "{absolute}");
    // The unedited config loads.
    load_edited("deberta-v2-token", |c| c).unwrap();
}
