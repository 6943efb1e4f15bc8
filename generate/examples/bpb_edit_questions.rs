//! Every BPB perturbation of a BREAK file's DROP questions, with the question the `edit`
//! builder writes for it (or why it writes none): the rows the builder's figures are judged on,
//! and its coverage per perturbation.
//!
//! ```text
//! cargo run -p metamorph-generate --example bpb_edit_questions -- \
//!     ../shared/data/break/break_qdmr_high_level_dev_sample.csv out.tsv \
//!     [--half tuning|held-out] [--source DROP|HOTPOT]
//! ```
//!
//! The BREAK file has no answers, so AppendBool uses the authors' code's constants ("two",
//! 17) and every other perturbation the paper's rules. `--source` picks the questions by
//! BREAK's id prefix (default `DROP`; `HOTPOT` for HotpotQA's, `CWQ` for ComplexWebQuestions'). `--half` keeps the rows of one half (by position among those rows: even =
//! tuning, odd = held-out), so that rules are written against one half and judged on the other. Prints coverage per perturbation; writes
//! one TSV row per perturbation: id, perturbation, detail, question, QDMR, perturbed QDMR,
//! built question (empty when none; SmolLM2 picks among several renderings, as in the
//! pipeline), reason.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use metamorph_data::{DatasetFormat, DatasetReader, ReadOptions};
use metamorph_generate::edit::EditBuilder;
use metamorph_parse::spacy::pipeline::Pipeline;
use metamorph_perturb::bpb::build::{build_question, BuildInput, Wording};
use metamorph_perturb::bpb::{perturb, BpbConfig, Dataset, PerturbInput, Qdmr, Variant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output, rest @ ..] = args.as_slice() else {
        return Err("usage: bpb_edit_questions BREAK.csv OUT.tsv [--half tuning|held-out]".into());
    };
    let mut half = None;
    let mut source = "DROP".to_string();
    let mut flags = rest.iter();
    while let Some(flag) = flags.next() {
        let value = flags.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--half" => half = Some(value == "tuning"),
            "--source" => source = value.clone(),
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    let examples: Vec<_> = DatasetReader::open(
        std::path::Path::new(input),
        DatasetFormat::Break,
        ReadOptions::default(),
    )?
    .examples()
    .collect::<Result<_, _>>()?;
    let drop: Vec<_> = examples
        .into_iter()
        .filter(|e| e.id.starts_with(source.as_str()))
        .enumerate()
        .filter(|(i, _)| half.is_none_or(|tuning| (i % 2 == 0) == tuning))
        .map(|(_, e)| e)
        .collect();
    let parser = Arc::new(Pipeline::load(&metamorph_data::assets::ensure(
        "en_core_web_sm",
    )?)?);
    // The pipeline's choice among renderings: SmolLM2's most fluent.
    let lm =
        metamorph_models::CausalLm::load("smollm2-135m", metamorph_models::LmOptions::default())?;
    let inflections = Arc::new(metamorph_perturb::lexicon::inflect::Inflections::from_assets()?);
    let wordnet = metamorph_perturb::lexicon::wordnet::WordNet::from_assets()?
        .with_exceptions(inflections.clone());
    let builder = EditBuilder::new(parser.clone(), Some(Arc::new(lm)));
    let config = BpbConfig {
        append_bool: Variant::Code,
        ..BpbConfig::default()
    };
    let mut out = std::fs::File::create(output)?;
    writeln!(
        out,
        "id\tperturbation\tdetail\tquestion\tqdmr\tperturbed\tbuilt\treason"
    )?;
    let mut coverage: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut reasons: BTreeMap<(&str, String), usize> = BTreeMap::new();
    for example in &drop {
        let (Some(question), Some(steps)) = (&example.question, &example.steps) else {
            continue;
        };
        let Ok(qdmr) = Qdmr::from_texts(steps) else {
            continue;
        };
        let doc = parser.process(&[question.as_str()])?.remove(0);
        let input = PerturbInput {
            answer: None,
            dataset: Dataset::from_break_id(&example.id),
            seed: 0,
        };
        for p in perturb(&qdmr, &input, &config) {
            let built = build_question(&BuildInput {
                question,
                parse: Some(&doc),
                original: &qdmr,
                perturbed: &p.qdmr,
                kind: p.kind,
                detail: &p.detail,
                wording: Some(Wording {
                    parser: &parser,
                    inflections: &inflections,
                    wordnet: Some(&wordnet),
                }),
            });
            let entry = coverage.entry(p.kind.name()).or_default();
            entry.1 += 1;
            let (text, reason) = match built {
                Ok(q) => {
                    entry.0 += 1;
                    (builder.choose(q)?, String::new())
                }
                Err(e) => {
                    *reasons
                        .entry((p.kind.name(), e.reason.clone()))
                        .or_default() += 1;
                    (String::new(), e.reason)
                }
            };
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                example.id,
                p.kind.name(),
                p.detail,
                question,
                qdmr.texts().join(" ; "),
                p.qdmr.texts().join(" ; "),
                text,
                reason
            )?;
        }
    }
    println!("{} {source} questions", drop.len());
    for (kind, (rendered, all)) in &coverage {
        println!(
            "{kind:<13} {rendered:>5} of {all:>5} written ({:.0}%)",
            100.0 * *rendered as f64 / (*all).max(1) as f64
        );
    }
    for ((kind, reason), n) in &reasons {
        println!("  {kind}: {reason}: {n}");
    }
    Ok(())
}
