//! Every SIT4RE relation over the real FewRel sample (`../shared/data/fewrel`, FewRel 1.0
//! validation, first 62 instances of each of its 16 relations) and over the bundled TACRED-schema
//! sample, each with an entity pool built from the dataset's own examples as `cargo xtask
//! pipeline` builds it: every case is valid, every argument span of every source and follow-up
//! points at tokens whose text equals the span's text, `text` is the tokens joined by spaces,
//! and each edit is exact (the source text at the edit's offsets is `before`, and applying it
//! gives the follow-up's text). The eligible sources and cases per relation are printed.

use std::collections::BTreeMap;
use std::path::Path;

use metamorph_data::{shared_data, Case, DatasetFormat, DatasetReader, Example, ReadOptions};
use metamorph_parse::spacy::pipeline::Pipeline;
use metamorph_perturb::lexicon::entity_pool::EntityPool;
use metamorph_perturb::{parse_examples, relations_by_name, PerturbConfig, Resources, Source};

fn pipeline() -> Pipeline {
    let dir = metamorph_data::assets::ensure("en_core_web_sm").expect("fetch en_core_web_sm");
    Pipeline::load(&dir).expect("load en_core_web_sm")
}

fn read(path: &Path, format: DatasetFormat) -> Vec<Example> {
    DatasetReader::open(path, format, ReadOptions::default())
        .unwrap()
        .examples()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The spans of `example` point at its tokens and `text` is the tokens joined by spaces.
fn check_example(example: &Example, context: &str) {
    let tokens = example.tokens.as_ref().expect("tokens");
    assert_eq!(
        example.text.as_deref(),
        Some(tokens.join(" ").as_str()),
        "{context}: text is the tokens joined"
    );
    for span in [&example.head, &example.tail] {
        let span = span.as_ref().expect("argument");
        assert!(
            span.start < span.end && span.end as usize <= tokens.len(),
            "{context}"
        );
        assert_eq!(
            tokens[span.start as usize..span.end as usize].join(" "),
            span.text,
            "{context}: span text"
        );
    }
    let (h, t) = (
        example.head.as_ref().unwrap(),
        example.tail.as_ref().unwrap(),
    );
    assert!(
        h.end <= t.start || t.end <= h.start,
        "{context}: arguments overlap"
    );
    if let (Some(clusters), Some(text)) = (&example.clusters, &example.text) {
        let chars = text.chars().count() as u32;
        assert!(clusters
            .iter()
            .flatten()
            .all(|m| m.start < m.end && m.end <= chars));
    }
}

/// Checks a case (see the module docs); returns its edits applied to the source text.
fn check_case(case: &Case) {
    case.validate().unwrap();
    for source in &case.sources {
        check_example(source, &case.case_id);
    }
    check_example(&case.followup, &case.case_id);
    assert!(
        case.followup.label.is_none(),
        "{}: no gold label",
        case.case_id
    );
    let source_text = case.sources[0].text.as_deref().unwrap();
    let followup_text = case.followup.text.as_deref().unwrap();
    if case.edits.is_empty() {
        assert_eq!(source_text, followup_text, "{}", case.case_id);
        return;
    }
    assert_eq!(case.edits.len(), 1);
    let edit = &case.edits[0];
    assert_eq!(edit.field, "text");
    let chars: Vec<char> = source_text.chars().collect();
    let before: String = chars[edit.start as usize..edit.end as usize]
        .iter()
        .collect();
    assert_eq!(before, edit.before, "{}: exact edit", case.case_id);
    let rebuilt: String = chars[..edit.start as usize]
        .iter()
        .copied()
        .chain(edit.after.chars())
        .chain(chars[edit.end as usize..].iter().copied())
        .collect();
    assert_eq!(
        rebuilt, followup_text,
        "{}: edit gives the follow-up",
        case.case_id
    );
}

/// Runs every SIT4RE relation over `examples` with a pool built from them; returns the cases by
/// relation and prints sources / eligible sources / cases.
fn run_all(name: &str, examples: &[Example]) -> BTreeMap<String, Vec<Case>> {
    let pipeline = pipeline();
    let dir = tempfile::tempdir().unwrap();
    let pool_path = dir.path().join("entity_pool.json");
    let pool = EntityPool::from_examples(examples, Some(&pipeline)).unwrap();
    pool.save_json(&pool_path).unwrap();
    let config = PerturbConfig {
        relations: vec!["sit4re".into()],
        seed: 0,
        entity_pool: Some(pool_path),
        ..PerturbConfig::default()
    };
    let resources = Resources::from_config(&config);
    let relations = relations_by_name(&config.relations, &resources).unwrap();
    assert_eq!(relations.len(), 8);
    let parses = parse_examples(&pipeline, examples, &["text"]).unwrap();
    let mut by_id: BTreeMap<&str, Vec<metamorph_data::ParsedText>> = BTreeMap::new();
    for p in &parses {
        by_id.entry(p.id.as_str()).or_default().push(p.clone());
    }
    let mut out = BTreeMap::new();
    eprintln!(
        "{name}: {} sources, pool of {} entries ({})",
        examples.len(),
        pool.len(),
        pool.source()
    );
    for relation in &relations {
        let mut cases = Vec::new();
        let mut eligible = 0;
        for example in examples {
            let own = by_id
                .get(example.id.as_str())
                .map_or(&[][..], Vec::as_slice);
            let found = relation.follow_ups(&Source::new(example, own)).unwrap();
            eligible += usize::from(!found.is_empty());
            cases.extend(found);
        }
        for case in &cases {
            check_case(case);
        }
        eprintln!(
            "{name}: {:6} eligible sources {:4}  cases {:5}",
            relation.name(),
            eligible,
            cases.len()
        );
        out.insert(relation.name().to_string(), cases);
    }
    out
}

#[test]
fn every_relation_over_the_fewrel_sample() {
    let Some(path) = shared_data::sample("fewrel/fewrel_val_wiki_first62_per_relation.json") else {
        return;
    };
    let examples = read(&path, DatasetFormat::Fewrel);
    assert_eq!(examples.len(), 16 * 62);
    let cases = run_all("fewrel", &examples);
    // FewRel has no coreference clusters (MR-R4) and no entity types (MR-R3 works on typed
    // data only).
    assert!(cases["MR-R4"].is_empty());
    assert!(cases["MR-R3"].is_empty());
    // Nor any relation with a city tail (place of birth, death, residence, headquarters, …),
    // so MR-R2 has no city to coarsen; its one former case read the Orkney islands
    // ("South Ronaldsay in Orkney , Scotland") as a South African town.
    let city_tails = ["P19", "P20", "P131", "P159", "P551", "P740", "P937"];
    assert!(examples
        .iter()
        .all(|e| !city_tails.contains(&e.label.as_deref().unwrap_or_default())));
    assert!(cases["MR-R2"].is_empty(), "{:#?}", cases["MR-R2"]);
    for mr in ["MR-R1", "MR-S1", "MR-S2", "MR-C1", "MR-C2"] {
        assert!(!cases[mr].is_empty(), "{mr} made no case on FewRel");
    }
    // Untyped data stays untyped.
    for case in cases.values().flatten() {
        assert!(case.followup.head.as_ref().unwrap().entity_type.is_none());
        assert!(case.followup.tail.as_ref().unwrap().entity_type.is_none());
    }
}

#[test]
fn every_relation_over_the_bundled_tacred_sample() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/samples/tacred.json");
    let examples = read(&path, DatasetFormat::Tacred);
    let cases = run_all("tacred-sample", &examples);
    for (mr, cases) in &cases {
        assert!(!cases.is_empty(), "{mr} made no case on the bundled sample");
    }
    // The paper's worked examples are in the sample; spot-check two of them end to end.
    let r2: Vec<&str> = cases["MR-R2"]
        .iter()
        .map(|c| c.followup.text.as_deref().unwrap())
        .collect();
    assert!(r2.contains(&"Richard Alvarez was born in the United States and studied law at Stanford University ."), "{r2:#?}");
    let s2 = cases["MR-S2"]
        .iter()
        .find(|c| c.source_ids[0] == "sample-re-26")
        .unwrap();
    assert_eq!(s2.followup.head.as_ref().unwrap().text, "Emily Carter");
}
