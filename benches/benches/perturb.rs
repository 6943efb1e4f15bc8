//! Source examples/s through the `perturb` stage, per relation family, parse excluded: the
//! examples and their `parsed` rows (made once, before timing) stream through a `PerturbStage`
//! on the stage runner, and every case is counted at the sink. See benches/README.md.
//!
//! Corpora: for `mt4mrc`, the real BoolQ sample in `../shared/data` (1,000 questions and
//! passages); for `sit4re`, the real FewRel sample there (992 sentences, entity pool built from
//! it with the NER, as the pipeline does); for `crest`, the first 100 texts of the real GAP
//! validation sample there (CREST re-parses every candidate follow-up, so its figure includes
//! those parses); for the NLPLego relations, the first 100 DynaSent sentences (`nlplego-sa`),
//! the first 100 PAWS pairs (`nlplego-ssm`, 200 seed sentences) and the first 40 SQuAD 2.0
//! questions (`nlplego-mrc`) there (every adjunct candidate is re-parsed by the keep-test, so
//! those parses are included). A clone without `../shared` uses the bundled
//! `data/samples/boolq.jsonl`, `tacred.json`, `gap.tsv`, `sentiment.tsv`, `paraphrase.tsv` and
//! `squad.json` instead (the origin is printed).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arrow::array::RecordBatch;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metamorph_data::{
    to_batch, DatasetFormat, DatasetReader, Example, Pipeline, ReadOptions, StageOptions,
};
use metamorph_parse::spacy::pipeline::Pipeline as Spacy;
use metamorph_perturb::lexicon::entity_pool::EntityPool;
use metamorph_perturb::{parse_examples, PerturbConfig, PerturbStage, Resources};

const BATCH: usize = 256;
/// CREST texts per iteration: it re-parses every candidate follow-up, so the whole GAP sample
/// would make a single iteration last minutes.
const CREST_TEXTS: usize = 100;
/// NLPLego sources per iteration (SQuAD: questions; their paragraphs repeat).
const NLPLEGO_SOURCES: usize = 100;
const NLPLEGO_QUESTIONS: usize = 40;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The examples of the first file of `candidates` that exists, and its path.
fn read_first(candidates: &[(&str, DatasetFormat)]) -> (Vec<Example>, String) {
    for (relative, format) in candidates {
        let path = workspace().join(relative);
        if path.is_file() {
            let examples = DatasetReader::open(&path, *format, ReadOptions::default())
                .expect("open")
                .examples()
                .collect::<Result<Vec<_>, _>>()
                .expect("read");
            return (examples, relative.to_string());
        }
    }
    panic!("no corpus found among {candidates:?}");
}

/// Parsed rows then examples, batch by batch, as the parse stage emits them.
fn batches(spacy: &Spacy, examples: &[Example], fields: &[&str]) -> Vec<RecordBatch> {
    let mut out = Vec::new();
    for chunk in examples.chunks(BATCH) {
        let parsed = parse_examples(spacy, chunk, fields).expect("parse");
        if !parsed.is_empty() {
            out.push(to_batch(&parsed).expect("parsed batch"));
        }
        out.push(to_batch(chunk).expect("example batch"));
    }
    out
}

fn run(stage: PerturbStage, input: &[RecordBatch]) -> usize {
    let cases = Arc::new(AtomicUsize::new(0));
    let counted = cases.clone();
    let owned: Vec<RecordBatch> = input.to_vec(); // batches share their buffers; cheap
    Pipeline::new(owned.into_iter().map(Ok))
        .progress(false)
        .stage(Arc::new(stage), StageOptions::default(), None)
        .sink(move |b| {
            counted.fetch_add(b.num_rows(), Ordering::Relaxed);
            Ok(())
        })
        .run()
        .expect("perturb");
    cases.load(Ordering::Relaxed)
}

fn perturb(c: &mut Criterion) {
    let dir = metamorph_data::assets::ensure("en_core_web_sm").expect("en_core_web_sm");
    let spacy = Spacy::load(&dir).expect("load en_core_web_sm");
    let (boolq, origin) = read_first(&[
        (
            "../shared/data/boolq/superglue_boolq_val_first1000.jsonl",
            DatasetFormat::Boolq,
        ),
        ("data/samples/boolq.jsonl", DatasetFormat::Boolq),
    ]);
    let (relation, relation_origin) = read_first(&[
        (
            "../shared/data/fewrel/fewrel_val_wiki_first62_per_relation.json",
            DatasetFormat::Fewrel,
        ),
        ("data/samples/tacred.json", DatasetFormat::Tacred),
    ]);
    let pool_dir = std::env::temp_dir().join(format!("metamorph-bench-{}", std::process::id()));
    std::fs::create_dir_all(&pool_dir).expect("temp dir");
    let pool_path = pool_dir.join("entity_pool.json");
    EntityPool::from_examples(&relation, Some(&spacy))
        .expect("entity pool")
        .save_json(&pool_path)
        .expect("save entity pool");
    let (mut coref, coref_origin) = read_first(&[
        (
            "../shared/data/coref/gap/gap-validation.tsv",
            DatasetFormat::Gap,
        ),
        ("data/samples/gap.tsv", DatasetFormat::Gap),
    ]);
    coref.truncate(CREST_TEXTS);
    let (mut sentiment, sentiment_origin) = read_first(&[
        (
            "../shared/data/sentiment/dynasent-v1.1-round02-dynabench-dev.jsonl",
            DatasetFormat::SentimentJsonl,
        ),
        ("data/samples/sentiment.tsv", DatasetFormat::SentimentTsv),
    ]);
    sentiment.truncate(NLPLEGO_SOURCES);
    let (mut paraphrase, paraphrase_origin) = read_first(&[
        (
            "../shared/data/paraphrase/paws_wiki_labeled_final_dev_first1000.tsv",
            DatasetFormat::ParaphraseTsv,
        ),
        ("data/samples/paraphrase.tsv", DatasetFormat::ParaphraseTsv),
    ]);
    paraphrase.truncate(NLPLEGO_SOURCES);
    let (mut squad, squad_origin) = read_first(&[
        (
            "../shared/data/squad_v2/dev-v2.0_Normans_Rhine.json",
            DatasetFormat::Squad,
        ),
        ("data/samples/squad.json", DatasetFormat::Squad),
    ]);
    squad.truncate(NLPLEGO_QUESTIONS);
    // (benchmark name, relations, examples, origin, parsed fields, entity pool)
    let families = [
        (
            "mt4mrc",
            "mt4mrc",
            &boolq,
            origin,
            &["question", "context"][..],
            None,
        ),
        ("crest", "crest", &coref, coref_origin, &["text"][..], None),
        (
            "sit4re",
            "sit4re",
            &relation,
            relation_origin,
            &["text"][..],
            Some(pool_path),
        ),
        (
            "nlplego-sa",
            "NLPLego-SA",
            &sentiment,
            sentiment_origin,
            &["text"][..],
            None,
        ),
        (
            "nlplego-ssm",
            "NLPLego-SSM",
            &paraphrase,
            paraphrase_origin,
            &["text", "text_b"][..],
            None,
        ),
        (
            "nlplego-mrc",
            "NLPLego-MRC",
            &squad,
            squad_origin,
            &["context", "question"][..],
            None,
        ),
    ];
    let mut group = c.benchmark_group("perturb");
    group.sample_size(10);
    for (family, relations, examples, origin, fields, pool) in families {
        let input = batches(&spacy, examples, fields);
        let config = PerturbConfig {
            relations: vec![relations.into()],
            entity_pool: pool,
            ..PerturbConfig::default()
        };
        // Lexicons load once, as in `cargo xtask pipeline`; each iteration builds a fresh stage.
        let resources = Resources::from_config(&config);
        let stage = || PerturbStage::with_resources(&config, &resources, true).expect("stage");
        let cases = run(stage(), &input);
        eprintln!(
            "perturb/{family}: {} source examples from {origin}, {cases} cases",
            examples.len()
        );
        group.throughput(Throughput::Elements(examples.len() as u64));
        group.bench_function(family, |b| b.iter(|| run(stage(), &input)));
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&pool_dir);
}

criterion_group!(benches, perturb);
criterion_main!(benches);
