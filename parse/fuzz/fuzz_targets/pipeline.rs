//! Fuzzes the whole en_core_web_sm port: any bytes (decoded lossily as UTF-8) must be annotated
//! without panicking, every token must have a tag, a dependency label and a head inside the
//! document, entities must be well formed (I only after B or I of the same type), and the first
//! token must start a sentence.
//!
//! The pipeline is `en_core_web_sm` from metamorph's asset cache, or the directory in
//! `METAMORPH_SPACY_PIPELINE`.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use metamorph_parse::spacy::pipeline::Pipeline;
use metamorph_parse::spacy::EntIob;

fn pipeline() -> &'static Pipeline {
    static PIPELINE: OnceLock<Pipeline> = OnceLock::new();
    PIPELINE.get_or_init(|| {
        let dir = match std::env::var_os("METAMORPH_SPACY_PIPELINE") {
            Some(dir) => PathBuf::from(dir),
            None => metamorph_data::assets::ensure("en_core_web_sm")
                .expect("en_core_web_sm in the asset cache"),
        };
        Pipeline::load(&dir).expect("a loadable pipeline")
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let docs = pipeline().process_serial(&[&text]).expect("fuzz inputs are below max_length");
    let doc = &docs[0];
    for (i, t) in doc.tokens.iter().enumerate() {
        assert!(t.head < doc.len(), "token {i}: head {} outside the document", t.head);
        assert!(!t.tag.is_empty() && !t.dep.is_empty(), "token {i} unannotated");
        if t.ent_iob == EntIob::I {
            let prev = &doc.tokens[i - 1];
            assert!(
                matches!(prev.ent_iob, EntIob::B | EntIob::I) && prev.ent_type == t.ent_type,
                "token {i}: I without an entity to continue"
            );
        }
    }
    if let Some(first) = doc.tokens.first() {
        assert!(first.sent_start);
    }
});
