//! End-to-end parity of the pure-Rust en_core_web_sm with spaCy 3.8 (the version
//! `scripts/spacy_golden.py` pins) on the golden texts, and robustness of the whole pipeline on
//! hostile input.

use crate::common;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use metamorph_parse::spacy::pipeline::{Pipeline, TextError};
use metamorph_parse::spacy::Doc;
use proptest::prelude::*;

fn pipeline() -> &'static Pipeline {
    static PIPELINE: OnceLock<Pipeline> = OnceLock::new();
    PIPELINE.get_or_init(|| Pipeline::load(&common::en_core_web_sm()).expect("load en_core_web_sm"))
}

#[test]
fn full_pipeline_matches_spacy() {
    let golden = common::golden_docs();
    let texts: Vec<&str> = golden.iter().map(|g| g.text.as_str()).collect();
    let docs = pipeline().process(&texts).unwrap();
    let mut diffs: BTreeMap<&str, usize> = BTreeMap::new();
    let (mut tokens, mut sentences, mut chunk_sentences_wrong, mut shown) =
        (0usize, 0usize, 0usize, 0);
    for (doc, g) in docs.iter().zip(&golden) {
        let words: Vec<&str> = (0..doc.len()).map(|i| doc.token_text(i)).collect();
        let ws: Vec<bool> = doc.tokens.iter().map(|t| t.whitespace).collect();
        assert_eq!(words, g.words, "tokens of {:?}", g.text);
        assert_eq!(ws, g.ws, "whitespace of {:?}", g.text);
        let starts: Vec<bool> = doc.tokens.iter().map(|t| t.sent_start).collect();
        assert_eq!(starts, g.sent_start, "sentence starts of {:?}", g.text);
        tokens += doc.len();
        for (i, t) in doc.tokens.iter().enumerate() {
            let checks = [
                ("tag", t.tag == g.tag[i]),
                ("pos", t.pos == g.pos[i]),
                ("morph", t.morph == g.morph[i]),
                ("lemma", t.lemma == g.lemma[i]),
                ("dep", t.dep == g.dep[i]),
                ("head", t.head == g.head[i]),
                ("ent_iob", t.ent_iob.as_str() == g.ent_iob[i]),
                ("ent_type", t.ent_type == g.ent_type[i]),
                ("norm", pipeline().norm(doc, i) == g.norm[i]),
            ];
            for (name, ok) in checks {
                let count = diffs.entry(name).or_default();
                if !ok {
                    *count += 1;
                    if shown < 20 {
                        shown += 1;
                        eprintln!(
                            "{:?} token {i} {:?}: `{name}` differs",
                            g.source, g.words[i]
                        );
                    }
                }
            }
        }
        // Noun chunks, compared sentence by sentence.
        let chunks = metamorph_parse::noun_chunks::noun_chunks(doc);
        for sentence in doc.sentences() {
            sentences += 1;
            let ours: Vec<_> = chunks
                .iter()
                .filter(|c| sentence.contains(&c.start))
                .cloned()
                .collect();
            let theirs: Vec<_> = g
                .noun_chunks
                .iter()
                .filter(|c| sentence.contains(&c.0))
                .map(|&(s, e)| s..e)
                .collect();
            if ours != theirs {
                chunk_sentences_wrong += 1;
            }
        }
    }
    eprintln!(
        "en_core_web_sm parity on {} texts, {tokens} tokens, {sentences} sentences:",
        golden.len()
    );
    eprintln!("  tokens, whitespace, sentence starts: identical");
    for (name, n) in &diffs {
        eprintln!(
            "  {name:<9} {n} differ ({:.3}% identical)",
            100.0 * (tokens - n) as f64 / tokens as f64
        );
    }
    eprintln!("  noun chunks: {chunk_sentences_wrong} of {sentences} sentences differ");
    assert!(
        sentences >= 2000,
        "the golden file must hold at least 2,000 sentences"
    );
    for (name, n) in &diffs {
        assert!(
            n * 1000 <= tokens,
            "`{name}`: {n} of {tokens} tokens differ from spaCy (more than 0.1%)"
        );
    }
    assert!(
        chunk_sentences_wrong * 200 <= sentences,
        "noun chunks differ on {chunk_sentences_wrong} sentences"
    );
}

fn fingerprint(doc: &Doc) -> Vec<String> {
    doc.tokens
        .iter()
        .enumerate()
        .map(|(i, t)| {
            format!(
                "{}|{}|{}|{}|{}|{}|{}|{}|{}",
                doc.token_text(i),
                t.tag,
                t.pos,
                t.lemma,
                t.dep,
                t.head,
                t.ent_iob.as_str(),
                t.ent_type,
                t.sent_start
            )
        })
        .collect()
}

#[test]
fn output_does_not_depend_on_batching_or_threads() {
    let golden = common::golden_docs();
    let texts: Vec<&str> = golden.iter().take(200).map(|g| g.text.as_str()).collect();
    let parallel: Vec<_> = pipeline()
        .process(&texts)
        .unwrap()
        .iter()
        .map(fingerprint)
        .collect();
    let serial: Vec<_> = pipeline()
        .process_serial(&texts)
        .unwrap()
        .iter()
        .map(fingerprint)
        .collect();
    let one_by_one: Vec<_> = texts
        .iter()
        .map(|t| fingerprint(&pipeline().process(&[t]).unwrap()[0]))
        .collect();
    assert_eq!(parallel, serial);
    assert_eq!(parallel, one_by_one);
}

#[test]
fn hostile_texts_do_not_panic() {
    let megabyte: String = "The quick brown fox jumps over the lazy dog. ".repeat(1_000_000 / 45);
    let texts = [
        "",
        " ",
        "\n\n\t \u{a0}",
        "\u{0}\u{1}\u{7}\u{1b}[31m red \u{7f}",
        "🤖🚀👩‍👩‍👧‍👦 🇺🇸 ❤️",
        "Ελληνικά, русский, العربية, 中文, हिन्दी and English in one line.",
        "a\u{301}\u{302}\u{303} combining marks",
        "\u{feff}BOM and \u{200b}zero\u{200b}width",
        &megabyte,
    ];
    let docs = pipeline().process(&texts).unwrap();
    for (doc, text) in docs.iter().zip(texts) {
        let rebuilt: String = (0..doc.len())
            .map(|i| {
                format!(
                    "{}{}",
                    doc.token_text(i),
                    if doc.tokens[i].whitespace { " " } else { "" }
                )
            })
            .collect();
        assert_eq!(rebuilt, text);
        assert!(doc.tokens.iter().all(|t| t.head < doc.len()));
    }
    assert!(docs[8].len() > 200_000);
}

#[test]
fn over_long_texts_are_refused_with_their_position() {
    let mut small = Pipeline::load(&common::en_core_web_sm()).unwrap();
    small.max_length = 10;
    let err = small
        .process(&["short", "this text is longer than ten characters"])
        .unwrap_err();
    let TextError::TooLong { index, chars, max } = err;
    assert_eq!((index, chars, max), (1, 39, 10));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_is_annotated_consistently(text in "\\PC{0,80}") {
        let doc = &pipeline().process(&[text.as_str()]).unwrap()[0];
        let rebuilt: String = (0..doc.len())
            .map(|i| format!("{}{}", doc.token_text(i), if doc.tokens[i].whitespace { " " } else { "" }))
            .collect();
        prop_assert_eq!(rebuilt, text);
        for (i, t) in doc.tokens.iter().enumerate() {
            prop_assert!(t.head < doc.len());
            prop_assert!(!t.tag.is_empty() && !t.dep.is_empty(), "token {} unannotated", i);
        }
        if !doc.is_empty() {
            prop_assert!(doc.tokens[0].sent_start);
        }
    }
}
