//! Shared by the spaCy parity tests: the golden annotations written by
//! `scripts/spacy_golden.py` and the pipeline directory from the asset cache.
#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;

use serde::Deserialize;

/// One document as spaCy (the version `scripts/spacy_golden.py` pins) annotated it.
#[derive(Clone, Debug, Deserialize)]
pub struct GoldenDoc {
    pub source: String,
    pub text: String,
    pub words: Vec<String>,
    pub ws: Vec<bool>,
    pub sent_start: Vec<bool>,
    pub norm: Vec<String>,
    pub shape: Vec<String>,
    pub tag: Vec<String>,
    pub pos: Vec<String>,
    pub morph: Vec<String>,
    pub lemma: Vec<String>,
    pub dep: Vec<String>,
    pub head: Vec<usize>,
    pub ent_iob: Vec<String>,
    pub ent_type: Vec<String>,
    pub noun_chunks: Vec<(usize, usize)>,
}

/// All golden documents, in file order.
pub fn golden_docs() -> Vec<GoldenDoc> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spacy_golden.jsonl.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("golden file is gzip'd UTF-8");
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

/// The en_core_web_sm 3.8.0 pipeline directory, fetched into the asset cache if missing.
pub fn en_core_web_sm() -> PathBuf {
    metamorph_data::assets::ensure("en_core_web_sm")
        .expect("fetch en_core_web_sm (cargo xtask assets)")
}

/// A `Doc` with the golden document's tokens (offsets from its words and spaces), unannotated.
pub fn golden_tokens(g: &GoldenDoc) -> metamorph_parse::spacy::Doc {
    let mut doc = metamorph_parse::spacy::Doc {
        text: g.text.clone(),
        tokens: Vec::new(),
    };
    let mut offset = 0;
    for (word, &ws) in g.words.iter().zip(&g.ws) {
        let start = offset;
        offset += word.len();
        doc.tokens.push(metamorph_parse::spacy::Token {
            start,
            end: offset,
            whitespace: ws,
            ..Default::default()
        });
        if ws {
            offset += 1;
        }
    }
    assert_eq!(
        &g.text[..offset],
        g.text.as_str(),
        "golden words and spaces must tile the text"
    );
    doc
}

/// The golden document with spaCy's annotations copied onto its tokens (tag, pos, morph, lemma,
/// dep, head, sentence starts, entities), for tests of the components that read them.
pub fn golden_annotated(g: &GoldenDoc) -> metamorph_parse::spacy::Doc {
    use metamorph_parse::spacy::EntIob;
    let mut doc = golden_tokens(g);
    for (i, t) in doc.tokens.iter_mut().enumerate() {
        t.tag.clone_from(&g.tag[i]);
        t.pos.clone_from(&g.pos[i]);
        t.morph.clone_from(&g.morph[i]);
        t.lemma.clone_from(&g.lemma[i]);
        t.dep.clone_from(&g.dep[i]);
        t.head = g.head[i];
        t.sent_start = g.sent_start[i];
        t.ent_iob = match g.ent_iob[i].as_str() {
            "B" => EntIob::B,
            "I" => EntIob::I,
            "O" => EntIob::O,
            _ => EntIob::Missing,
        };
        t.ent_type.clone_from(&g.ent_type[i]);
    }
    doc
}
