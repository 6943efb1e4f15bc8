//! The 5,000 texts the `parse` benchmark and its spaCy side-by-side script both annotate.
//!
//! Texts come from the real samples in `../shared/data` (BoolQ passages and questions, SQuAD
//! contexts and questions, PAWS and DynaSent sentences, GAP and DROP passages), read with the
//! project's own dataset readers, in a fixed order, first 5,000 distinct. Without
//! `../shared/data` (a user's clone) they are the texts of the parse crate's golden fixture,
//! cycled to 5,000, so the benchmark still runs, on a note.

use std::collections::HashSet;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use metamorph_data::{DatasetFormat, DatasetReader, ReadOptions};

/// Number of texts in the benchmark corpus.
pub const CORPUS_SIZE: usize = 5_000;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("benches/ is inside the workspace")
        .to_path_buf()
}

/// The texts and where they came from (`"shared data"` or `"golden fixture (cycled)"`).
pub fn parse_corpus() -> (Vec<String>, &'static str) {
    let shared = workspace_root().join("../shared/data");
    if shared.is_dir() {
        let texts = shared_texts(&shared);
        if texts.len() >= CORPUS_SIZE {
            return (texts, "shared data");
        }
    }
    (golden_texts(), "golden fixture (cycled)")
}

fn shared_texts(dir: &Path) -> Vec<String> {
    let sources = [
        (
            "boolq/superglue_boolq_val_first1000.jsonl",
            DatasetFormat::Boolq,
        ),
        ("squad_v2/dev-v2.0_Normans_Rhine.json", DatasetFormat::Squad),
        (
            "paraphrase/paws_wiki_labeled_final_dev_first1000.tsv",
            DatasetFormat::ParaphraseTsv,
        ),
        (
            "sentiment/dynasent-v1.1-round02-dynabench-dev.jsonl",
            DatasetFormat::SentimentJsonl,
        ),
        ("coref/gap/gap-validation.tsv", DatasetFormat::Gap),
        ("drop/drop_dataset_dev_sample.json", DatasetFormat::Drop),
    ];
    let mut seen = HashSet::new();
    let mut texts = Vec::new();
    for (file, format) in sources {
        let Ok(reader) = DatasetReader::open(dir.join(file), format, ReadOptions::default()) else {
            continue;
        };
        for example in reader.examples().flatten() {
            for text in [
                example.context,
                example.question,
                example.text,
                example.text_b,
            ]
            .into_iter()
            .flatten()
            {
                if texts.len() < CORPUS_SIZE && seen.insert(text.clone()) {
                    texts.push(text);
                }
            }
        }
    }
    texts
}

fn golden_texts() -> Vec<String> {
    let path = workspace_root().join("parse/tests/fixtures/spacy_golden.jsonl.gz");
    let mut raw = String::new();
    std::fs::File::open(&path)
        .map(flate2::read::GzDecoder::new)
        .and_then(|mut gz| gz.read_to_string(&mut raw))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let texts: Vec<String> = raw
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|v| v.get("text").and_then(|t| t.as_str()).map(str::to_string))
        .filter(|t| !t.trim().is_empty())
        .collect();
    texts.iter().cycle().take(CORPUS_SIZE).cloned().collect()
}

/// Writes the corpus as JSON Lines (`{"text": …}`), the input of `scripts/bench_spacy.py`.
pub fn write_corpus(path: &Path, texts: &[String]) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension("jsonl.tmp");
    let mut out = BufWriter::new(std::fs::File::create(&tmp)?);
    for text in texts {
        serde_json::to_writer(&mut out, &serde_json::json!({ "text": text }))?;
        out.write_all(b"\n")?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(tmp, path)
}
