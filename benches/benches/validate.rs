//! Cases/s through the `validate` stage: the MT4MRC cases of the real BoolQ sample in
//! `../shared/data` (1,000 questions; the bundled `data/samples/boolq.jsonl` in a clone without
//! it), made once before timing, stream through a `ValidateStage` on the stage runner with the
//! default `[validate]` (all-MiniLM-L6-v2 on the CPU, en_core_web_sm for the re-parse). See
//! benches/README.md.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arrow::array::RecordBatch;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metamorph_data::{
    to_batch, Case, DatasetFormat, DatasetReader, Pipeline, ReadOptions, StageOptions,
};
use metamorph_parse::stage::{ParseConfig, ParseStage};
use metamorph_perturb::{parse_examples, relations_by_name, PerturbConfig, Resources, Source};
use metamorph_validate::{ValidateConfig, ValidateStage, Validator};

const BATCH: usize = 256;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// MT4MRC cases of the first BoolQ corpus found, and its path.
fn cases(spacy: &metamorph_parse::spacy::pipeline::Pipeline) -> (Vec<Case>, String) {
    let relative = [
        "../shared/data/boolq/superglue_boolq_val_first1000.jsonl",
        "data/samples/boolq.jsonl",
    ]
    .into_iter()
    .find(|r| workspace().join(r).is_file())
    .expect("a BoolQ corpus");
    let examples = DatasetReader::open(
        workspace().join(relative),
        DatasetFormat::Boolq,
        ReadOptions::default(),
    )
    .expect("open")
    .examples()
    .collect::<Result<Vec<_>, _>>()
    .expect("read");
    let parsed = parse_examples(spacy, &examples, &["question", "context"]).expect("parse");
    let config = PerturbConfig {
        relations: vec!["mt4mrc".into()],
        ..PerturbConfig::default()
    };
    let relations =
        relations_by_name(&config.relations, &Resources::from_config(&config)).expect("relations");
    let mut out = Vec::new();
    for example in &examples {
        let mine: Vec<_> = parsed
            .iter()
            .filter(|p| p.id == example.id)
            .cloned()
            .collect();
        for relation in &relations {
            out.extend(
                relation
                    .follow_ups(&Source::new(example, &mine))
                    .expect("follow-ups"),
            );
        }
    }
    (out, relative.to_string())
}

fn run(stage: Arc<ValidateStage>, input: &[RecordBatch]) -> usize {
    let rows = Arc::new(AtomicUsize::new(0));
    let counted = rows.clone();
    let owned: Vec<RecordBatch> = input.to_vec(); // batches share their buffers; cheap
    Pipeline::new(owned.into_iter().map(Ok))
        .progress(false)
        .stage(stage, StageOptions::default(), None)
        .sink(move |b| {
            counted.fetch_add(b.num_rows(), Ordering::Relaxed);
            Ok(())
        })
        .run()
        .expect("validate");
    rows.load(Ordering::Relaxed)
}

fn bench(c: &mut Criterion) {
    let parser = ParseStage::try_new(&ParseConfig::default())
        .expect("parser")
        .into_pipeline();
    let (cases, origin) = cases(&parser);
    println!("validate: {} MT4MRC cases from {origin}", cases.len());
    let input: Vec<RecordBatch> = cases
        .chunks(BATCH)
        .map(|c| to_batch(c).expect("batch"))
        .collect();
    let validator =
        Validator::load(&ValidateConfig::default(), Arc::new(parser)).expect("validator");
    let stage = Arc::new(ValidateStage::new(Arc::new(validator)));
    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("mt4mrc-boolq", |b| {
        b.iter(|| assert_eq!(run(stage.clone(), &input), cases.len()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
