//! Records/s through the stage runner: read (BoolQ JSONL) → perturb (MR1-3 case building) →
//! execute (in-process model) → judge (verdicts), over bounded channels.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metamorph_benches::{boolq_examples, write_boolq_jsonl, LastWordModel};
use metamorph_data::{DatasetFormat, DatasetReader, Pipeline, ReadOptions, StageOptions};
use metamorph_execute::ExecuteStage;
use metamorph_judge::JudgeStage;
use metamorph_perturb::{PerturbConfig, PerturbStage};

const RECORDS: usize = 20_000;

fn runner(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("metamorph-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join("boolq.jsonl");
    write_boolq_jsonl(&input, &boolq_examples(RECORDS)).expect("write input");

    let mut group = c.benchmark_group("runner");
    group.throughput(Throughput::Elements(RECORDS as u64));
    group.sample_size(10);
    for batch_size in [256, 2048] {
        group.bench_function(
            format!("read-perturb-execute-judge/batch{batch_size}"),
            |b| {
                b.iter(|| {
                    let reader = DatasetReader::open(
                        &input,
                        DatasetFormat::Boolq,
                        ReadOptions::default().with_batch_size(batch_size),
                    )
                    .expect("open");
                    let options = StageOptions::default();
                    let verdicts = Arc::new(AtomicUsize::new(0));
                    let counted = verdicts.clone();
                    Pipeline::new(reader.batches())
                        .progress(false)
                        .stage(
                            Arc::new(
                                PerturbStage::try_new(&PerturbConfig::default(), false)
                                    .expect("perturb"),
                            ),
                            options,
                            None,
                        )
                        .stage(
                            Arc::new(
                                ExecuteStage::try_new(vec![Arc::new(LastWordModel)])
                                    .expect("execute"),
                            ),
                            options,
                            None,
                        )
                        .stage(Arc::new(JudgeStage::new()), options, None)
                        .sink(move |batch| {
                            counted.fetch_add(batch.num_rows(), Ordering::Relaxed);
                            Ok(())
                        })
                        .run()
                        .expect("run");
                    // Every fourth question has a "before": one MR1-3 case, one verdict each.
                    assert_eq!(verdicts.load(Ordering::Relaxed), RECORDS / 4);
                })
            },
        );
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, runner);
criterion_main!(benches);
