//! Fuzzes the spaCy tokenizer port: any bytes (decoded lossily as UTF-8) must tokenize without
//! panicking into tokens that tile the text (token texts plus their single trailing spaces
//! rebuild it exactly, at character boundaries).
//!
//! The pipeline is `en_core_web_sm` from metamorph's asset cache, or the directory in
//! `METAMORPH_SPACY_PIPELINE`.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use metamorph_parse::spacy::tokenizer::Tokenizer;

fn tokenizer() -> &'static Tokenizer {
    static TOKENIZER: OnceLock<Tokenizer> = OnceLock::new();
    TOKENIZER.get_or_init(|| {
        let dir = match std::env::var_os("METAMORPH_SPACY_PIPELINE") {
            Some(dir) => PathBuf::from(dir),
            None => metamorph_data::assets::ensure("en_core_web_sm")
                .expect("en_core_web_sm in the asset cache"),
        };
        Tokenizer::from_file(&dir.join("tokenizer")).expect("a loadable tokenizer")
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let doc = tokenizer().tokenize(&text);
    let mut at = 0;
    for t in &doc.tokens {
        assert_eq!(t.start, at, "tokens must be contiguous");
        assert!(t.end > t.start, "tokens must not be empty");
        assert!(text.is_char_boundary(t.start) && text.is_char_boundary(t.end));
        at = t.end;
        if t.whitespace {
            assert_eq!(
                &text[at..at + 1],
                " ",
                "a trailing-space flag needs a space"
            );
            at += 1;
        }
    }
    assert_eq!(at, text.len(), "tokens must cover the text");
});
