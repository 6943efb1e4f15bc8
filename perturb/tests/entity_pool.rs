//! Entity pools from the project's NER over the bundled and real samples, from TACRED's gold
//! spans, and the pool's ordering, sampling and JSON round trip.

use std::path::Path;
use std::sync::OnceLock;

use metamorph_data::{shared_data, DatasetFormat, DatasetReader, Example, ReadOptions};
use metamorph_parse::spacy::pipeline::Pipeline;
use metamorph_perturb::lexicon::entity_pool::{EntityPool, EntityPoolBuilder, SplitMix64};

fn pipeline() -> &'static Pipeline {
    static PIPELINE: OnceLock<Pipeline> = OnceLock::new();
    PIPELINE.get_or_init(|| {
        let dir = metamorph_data::assets::ensure("en_core_web_sm").expect("en_core_web_sm asset");
        Pipeline::load(&dir).expect("load en_core_web_sm")
    })
}

fn read(path: &Path, format: DatasetFormat) -> Vec<Example> {
    DatasetReader::open(path, format, ReadOptions::default())
        .unwrap()
        .examples()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn tacred_sample() -> Vec<Example> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/samples/tacred.json");
    read(&path, DatasetFormat::Tacred)
}

fn assert_sorted(pool: &EntityPool) {
    for t in pool.types() {
        let entries = pool.entries(t);
        for pair in entries.windows(2) {
            assert!(
                pair[0].count > pair[1].count
                    || (pair[0].count == pair[1].count && pair[0].text < pair[1].text),
                "{t}: {:?} before {:?}",
                pair[0],
                pair[1]
            );
        }
    }
}

#[test]
fn ner_pool_from_the_bundled_tacred_sentences() {
    let examples = tacred_sample();
    let texts: Vec<String> = examples
        .iter()
        .map(|e| e.tokens.as_ref().unwrap().join(" "))
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let pool = EntityPool::from_texts(pipeline(), &refs).unwrap();
    eprintln!("{}", serde_json::to_string(&pool).unwrap());
    assert!(
        pool.source().starts_with("ner:en_core_web_sm"),
        "{}",
        pool.source()
    );
    assert_eq!(pool.count("PERSON", "Tim Cook"), 1);
    assert_eq!(pool.count("ORG", "Apple"), 1);
    assert_eq!(pool.count("GPE", "Cupertino"), 1);
    assert_sorted(&pool);
}

#[test]
fn counts_follow_mentions_and_repeated_texts_count_once() {
    let texts = [
        "Tim Cook met Satya Nadella in Paris. Tim Cook then flew to London.",
        "Satya Nadella praised Microsoft and Microsoft's staff in London.",
        "Tim Cook met Satya Nadella in Paris. Tim Cook then flew to London.",
    ];
    let pool = EntityPool::from_texts(pipeline(), &texts).unwrap();
    assert_eq!(pool.count("PERSON", "Tim Cook"), 2, "{pool:?}");
    assert_eq!(pool.count("PERSON", "Satya Nadella"), 2, "{pool:?}");
    assert_eq!(pool.count("GPE", "London"), 2, "{pool:?}");
    assert_eq!(pool.count("GPE", "Paris"), 1, "{pool:?}");
    assert_eq!(pool.count("ORG", "Microsoft"), 2, "{pool:?}");
    assert_eq!(pool.entries("GPE")[0].text, "London");
    assert_sorted(&pool);
}

#[test]
fn ner_pool_from_real_fewrel_sentences() {
    let Some(path) = shared_data::sample("fewrel/fewrel_val_wiki_first62_per_relation.json") else {
        return;
    };
    let examples = read(&path, DatasetFormat::Fewrel);
    assert!(examples
        .iter()
        .all(|e| e.head.as_ref().unwrap().entity_type.is_none()));
    let started = std::time::Instant::now();
    let pool = EntityPool::from_examples(&examples, Some(pipeline())).unwrap();
    eprintln!(
        "fewrel pool: {} sentences, {} entries in {:?}",
        examples.len(),
        pool.len(),
        started.elapsed()
    );
    for t in ["PERSON", "ORG", "GPE"] {
        let entries = pool.entries(t);
        eprintln!(
            "{t}: {} forms, top {:?}",
            entries.len(),
            &entries[..5.min(entries.len())]
        );
        assert!(entries.len() >= 20, "{t}: {}", entries.len());
        assert!(
            entries[0].count >= 2,
            "{t}: the most frequent occurs more than once"
        );
    }
    assert!(
        pool.source().starts_with("ner:en_core_web_sm"),
        "{}",
        pool.source()
    );
    assert_sorted(&pool);
}

#[test]
fn gold_pool_from_tacred_spans() {
    let examples = tacred_sample();
    let pool = EntityPool::from_examples(&examples, Some(pipeline())).unwrap();
    assert_eq!(
        pool.source(),
        "gold",
        "every TACRED example has typed spans"
    );
    assert_eq!(pool.count("PERSON", "Tim Cook"), 1);
    assert_eq!(pool.count("ORGANIZATION", "Apple"), 1);
    let gold_mentions: u32 = pool
        .types()
        .flat_map(|t| pool.entries(t))
        .map(|e| e.count)
        .sum();
    assert_eq!(gold_mentions as usize, 2 * examples.len());
    assert!(pool.entries("ORG").is_empty(), "no NER types mixed in");
    // Every labelled example also files its arguments under its label's roles.
    let role_mentions: u32 = pool
        .roles()
        .map(|key| {
            let (label, role) = key.rsplit_once('/').unwrap();
            pool.role_entries(label, role)
                .iter()
                .map(|e| e.count)
                .sum::<u32>()
        })
        .sum();
    let labelled = examples.iter().filter(|e| e.label.is_some()).count();
    assert_eq!(role_mentions as usize, 2 * labelled);
    let employer = examples
        .iter()
        .find(|e| e.head.as_ref().is_some_and(|h| h.text == "Tim Cook"))
        .unwrap();
    let label = employer.label.as_deref().unwrap();
    assert!(pool
        .role_entries(label, "head")
        .iter()
        .any(|e| e.text == "Tim Cook"));
}

#[test]
fn roles_survive_the_json_round_trip() {
    let mut b = EntityPoolBuilder::new("test");
    b.add_role("P364", "tail", "Tamil");
    b.add_role("P364", "tail", "Tamil");
    b.add_role("P364", "tail", "Hindi");
    b.add("GPE", "Paris");
    let pool = b.build();
    let json = serde_json::to_string(&pool).unwrap();
    assert!(json.contains("\"P364/tail\""), "{json}");
    let back: EntityPool = serde_json::from_str(&json).unwrap();
    assert_eq!(back, pool);
    let tails: Vec<(&str, u32)> = back
        .role_entries("P364", "tail")
        .iter()
        .map(|e| (e.text.as_str(), e.count))
        .collect();
    assert_eq!(tails, [("Tamil", 2), ("Hindi", 1)]);
    assert_eq!(
        back.sample_role("P364", "tail", &["tamil"], 3),
        Some("Hindi")
    );
    assert!(back.role_entries("P364", "head").is_empty());
    // A pool without roles (written before they existed) still loads.
    let old: EntityPool = serde_json::from_str(r#"{"source": "gold", "types": {}}"#).unwrap();
    assert_eq!(old.roles().count(), 0);
}

fn small_pool() -> EntityPool {
    let mut b = EntityPoolBuilder::new("test");
    for (t, text, n) in [
        ("PERSON", "Tim Cook", 3),
        ("PERSON", "Ada Lovelace", 1),
        ("PERSON", "Alan Turing", 1),
        ("PERSON", "Grace Hopper", 2),
        ("PERSON", "Linus Torvalds", 1),
        ("GPE", "Paris", 4),
        ("NORP", "French", 1),
        ("GPE", "French", 1),
    ] {
        b.add_count(t, text, n);
    }
    b.add("PERSON", "  Tim \n Cook ");
    b.build()
}

#[test]
fn builder_orders_by_frequency_then_text() {
    let pool = small_pool();
    let texts: Vec<&str> = pool
        .entries("PERSON")
        .iter()
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(
        texts,
        [
            "Tim Cook",
            "Grace Hopper",
            "Ada Lovelace",
            "Alan Turing",
            "Linus Torvalds"
        ]
    );
    assert_eq!(pool.count("PERSON", "Tim Cook"), 4, "whitespace normalised");
    assert_eq!(pool.types().collect::<Vec<_>>(), ["GPE", "NORP", "PERSON"]);
    assert_eq!(pool.types_of("French"), ["GPE", "NORP"]);
    assert_eq!(pool.len(), 8);
    assert!(pool.entries("ORG").is_empty());
}

#[test]
fn sample_is_deterministic_and_covers_the_candidates() {
    let pool = small_pool();
    for seed in 0..50 {
        assert_eq!(
            pool.sample("PERSON", &[], seed),
            pool.sample("PERSON", &[], seed)
        );
    }
    let drawn: std::collections::BTreeSet<&str> = (0..200)
        .map(|seed| pool.sample("PERSON", &[], seed).unwrap())
        .collect();
    assert_eq!(
        drawn.len(),
        5,
        "uniform over forms reaches every one: {drawn:?}"
    );
    // The stream is fixed by the code: a regression check against the published SplitMix64
    // output for seed 1234567 (first value 6457827717110365317).
    assert_eq!(SplitMix64::new(1234567).next_u64(), 6457827717110365317);
    assert_eq!(pool.sample("ORG", &[], 7), None, "unknown type");
}

#[test]
fn sample_never_returns_an_excluded_form() {
    let pool = small_pool();
    for seed in 0..200 {
        let got = pool
            .sample("PERSON", &["tim cook", "Grace Hopper"], seed)
            .unwrap();
        assert!(got != "Tim Cook" && got != "Grace Hopper", "{got}");
    }
    let everyone: Vec<&str> = pool
        .entries("PERSON")
        .iter()
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(pool.sample("PERSON", &everyone, 3), None);
    assert_eq!(pool.sample("GPE", &["PARIS"], 3), Some("French"));
}

#[test]
fn json_round_trip_and_reordering_on_load() {
    let pool = small_pool();
    let dir = std::env::temp_dir().join(format!("metamorph-pool-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pool.json");
    pool.save_json(&path).unwrap();
    assert_eq!(EntityPool::load_json(&path).unwrap(), pool);

    let unsorted = r#"{"source": "hand", "types": {"GPE": [
        {"text": "Rome", "count": 1}, {"text": "Paris", "count": 1},
        {"text": "Oslo", "count": 5}, {"text": "Rome", "count": 1}]}}"#;
    let loaded: EntityPool = serde_json::from_str(unsorted).unwrap();
    let gpe: Vec<(&str, u32)> = loaded
        .entries("GPE")
        .iter()
        .map(|e| (e.text.as_str(), e.count))
        .collect();
    assert_eq!(gpe, [("Oslo", 5), ("Rome", 2), ("Paris", 1)]);

    std::fs::write(&path, "{\"types\": 3}").unwrap();
    let err = EntityPool::load_json(&path).unwrap_err().to_string();
    assert!(err.contains("pool.json") && err.contains("line 1"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
