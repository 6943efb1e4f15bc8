//! Decompositions/s through Break-Perturb-Build's rule stages: parse the BREAK steps into a
//! typed QDMR, identify every step's operator (BREAK's rules) and run the six perturbations
//! (paper variant, and code variant with its per-dataset filters). See benches/README.md.
//!
//! Corpus: the real BREAK high-level dev sample in `../shared/data` (995 decompositions); a
//! clone without `../shared` uses the bundled `data/samples/break.csv` (the origin is printed).
//! BREAK carries no answers, so the paper's AppendBool (whose constants come from the gold
//! answer) does not fire here; the code variant's AppendBool (constants "two" and 17) does.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use metamorph_data::{DatasetFormat, DatasetReader, Example, ReadOptions};
use metamorph_perturb::bpb::{identify, perturb, BpbConfig, Dataset, PerturbInput, Qdmr, Variant};

fn read_first(candidates: &[&str]) -> (Vec<Example>, String) {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for relative in candidates {
        let path = workspace.join(relative);
        if path.is_file() {
            let examples = DatasetReader::open(&path, DatasetFormat::Break, ReadOptions::default())
                .expect("open")
                .examples()
                .collect::<Result<Vec<_>, _>>()
                .expect("read");
            return (examples, relative.to_string());
        }
    }
    panic!("no corpus found among {candidates:?}");
}

/// Identification and perturbation of every decomposition; returns the perturbations made.
fn run(examples: &[Example], config: &BpbConfig) -> usize {
    let mut made = 0;
    for ex in examples {
        let qdmr = Qdmr::from_example(ex).expect("valid QDMR");
        for step in qdmr.steps() {
            black_box(identify(&step.text()));
        }
        let input = PerturbInput {
            answer: None,
            dataset: Dataset::from_break_id(&ex.id),
            seed: 0,
        };
        made += perturb(&qdmr, &input, config).len();
    }
    made
}

fn bpb(c: &mut Criterion) {
    let (examples, origin) = read_first(&[
        "../shared/data/break/break_qdmr_high_level_dev_sample.csv",
        "data/samples/break.csv",
    ]);
    let code = BpbConfig {
        append_bool: Variant::Code,
        append_bool_limit: None,
        change_last: Variant::Code,
        replace_arith: Variant::Code,
        replace_bool: Variant::Code,
        replace_comp: Variant::Code,
        prune_step: Variant::Code,
    };
    let mut group = c.benchmark_group("bpb");
    group.throughput(Throughput::Elements(examples.len() as u64));
    for (name, config) in [("paper", BpbConfig::default()), ("code", code)] {
        eprintln!(
            "bpb/{name}: {} decompositions from {origin}, {} perturbations",
            examples.len(),
            run(&examples, &config)
        );
        group.bench_function(name, |b| b.iter(|| run(&examples, &config)));
    }
    group.finish();
}

criterion_group!(benches, bpb);
criterion_main!(benches);
