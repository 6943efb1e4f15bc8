//! Parity of the tokenizer port with spaCy 3.8.7 (`en_core_web_sm` 3.8.0): the golden
//! documents and the targeted cases of `scripts/spacy_tokenizer_cases.py` must tokenize
//! identically (texts and trailing-space flags); arbitrary input must not panic and must be
//! tiled by the tokens.

use crate::common;

use std::path::PathBuf;
use std::sync::OnceLock;

use metamorph_parse::spacy::tokenizer::Tokenizer;
use metamorph_parse::spacy::Doc;
use proptest::prelude::*;
use serde::Deserialize;

fn tokenizer() -> &'static Tokenizer {
    static TOKENIZER: OnceLock<Tokenizer> = OnceLock::new();
    TOKENIZER.get_or_init(|| {
        let path = common::en_core_web_sm().join("tokenizer");
        Tokenizer::from_file(&path).unwrap_or_else(|e| panic!("{e}"))
    })
}

fn words_ws(doc: &Doc) -> (Vec<String>, Vec<bool>) {
    let words = (0..doc.len())
        .map(|i| doc.token_text(i).to_string())
        .collect();
    let ws = doc.tokens.iter().map(|t| t.whitespace).collect();
    (words, ws)
}

/// Compares every case, printing counts and the first differences; fails on any mismatch.
fn check_parity(label: &str, cases: &[(String, Vec<String>, Vec<bool>)]) {
    let tok = tokenizer();
    let mut tokens = 0;
    let mut bad = Vec::new();
    for (i, (text, words, ws)) in cases.iter().enumerate() {
        tokens += words.len();
        let doc = tok.tokenize(text);
        let (got_words, got_ws) = words_ws(&doc);
        if &got_words != words || &got_ws != ws {
            bad.push((i, text, words, ws, got_words, got_ws));
        }
    }
    println!(
        "{label}: {} docs, {tokens} tokens, {} mismatching docs",
        cases.len(),
        bad.len()
    );
    for (i, text, words, ws, got_words, got_ws) in bad.iter().take(8) {
        let first = (0..words.len().max(got_words.len()))
            .find(|&k| words.get(k) != got_words.get(k) || ws.get(k) != got_ws.get(k))
            .unwrap_or(0);
        let lo = first.saturating_sub(3);
        println!(
            "--- {label} #{i}: {:?}",
            text.chars().take(200).collect::<String>()
        );
        println!("    first difference at token {first}");
        let show = |w: &[String], s: &[bool]| {
            w.iter()
                .zip(s)
                .skip(lo)
                .take(8)
                .map(|(w, s)| format!("{w:?}{}", if *s { "␣" } else { "" }))
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!("    spaCy: {}", show(words, ws));
        println!("    port:  {}", show(got_words, got_ws));
    }
    assert!(
        bad.is_empty(),
        "{label}: {} of {} docs differ from spaCy",
        bad.len(),
        cases.len()
    );
}

#[test]
fn golden_parity() {
    let cases: Vec<_> = common::golden_docs()
        .into_iter()
        .map(|d| (d.text, d.words, d.ws))
        .collect();
    assert!(cases.len() > 1000, "golden file too small");
    check_parity("golden", &cases);
}

#[derive(Deserialize)]
struct Case {
    text: String,
    words: Vec<String>,
    ws: Vec<bool>,
    norms: Vec<Option<String>>,
}

fn cases() -> Vec<Case> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/spacy_tokenizer_cases.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1))
        })
        .collect()
}

#[test]
fn targeted_case_parity() {
    let cases = cases();
    assert!(cases.len() > 200, "cases file too small");
    let triples: Vec<_> = cases
        .iter()
        .map(|c| (c.text.clone(), c.words.clone(), c.ws.clone()))
        .collect();
    check_parity("cases", &triples);
}

#[test]
fn targeted_case_norm_exceptions() {
    let tok = tokenizer();
    let mut checked = 0;
    let mut bad = 0;
    for case in cases() {
        let doc = tok.tokenize(&case.text);
        if doc.len() != case.norms.len() {
            continue; // reported by targeted_case_parity
        }
        for (t, want) in doc.tokens.iter().zip(&case.norms) {
            checked += 1;
            if &t.norm_exception != want {
                bad += 1;
                if bad <= 5 {
                    println!(
                        "{:?}: norm {:?}, spaCy {want:?}",
                        &case.text[t.start..t.end],
                        t.norm_exception
                    );
                }
            }
        }
    }
    println!("norm exceptions: {checked} tokens checked, {bad} differ");
    assert!(checked > 500);
    assert_eq!(bad, 0);
}

#[test]
fn special_cases_and_norms() {
    let tok = tokenizer();
    let doc = tok.tokenize("I can't go, e.g. at 10am.");
    let (words, ws) = words_ws(&doc);
    assert_eq!(
        words,
        ["I", "ca", "n't", "go", ",", "e.g.", "at", "10", "am", "."]
    );
    assert_eq!(
        ws,
        [true, false, true, false, true, true, true, false, false, false]
    );
    assert_eq!(doc.tokens[2].norm_exception.as_deref(), Some("not"));
    assert_eq!(doc.tokens[8].norm_exception.as_deref(), Some("a.m."));
    assert_eq!(doc.tokens[3].norm_exception, None);
}

#[test]
fn load_errors_name_file_and_field() {
    let dir = std::env::temp_dir().join(format!("metamorph-tok-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tokenizer");
    let mut map = Vec::new();
    let value = rmpv::Value::Map(vec![(
        rmpv::Value::from("prefix_search"),
        rmpv::Value::from("^(unclosed"),
    )]);
    rmpv::encode::write_value(&mut map, &value).unwrap();
    std::fs::write(&path, &map).unwrap();
    let err = Tokenizer::from_file(&path).unwrap_err().to_string();
    assert!(
        err.contains("tokenizer") && err.contains("prefix_search"),
        "{err}"
    );
    std::fs::write(&path, b"\xc1").unwrap();
    assert!(Tokenizer::from_file(&path).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tokens tile the text: in order, separated only by nothing or by the one space they own.
fn assert_tiles(text: &str, doc: &Doc) {
    let mut at = 0;
    for (i, t) in doc.tokens.iter().enumerate() {
        assert_eq!(
            t.start, at,
            "token {i} of {text:?} does not start where the last ended"
        );
        assert!(t.end > t.start, "empty token {i} in {text:?}");
        assert!(text.is_char_boundary(t.start) && text.is_char_boundary(t.end));
        at = t.end;
        if t.whitespace {
            assert_eq!(
                &text[at..at + 1],
                " ",
                "token {i} of {text:?} claims a space"
            );
            at += 1;
        }
    }
    assert_eq!(at, text.len(), "tokens of {text:?} stop short");
}

#[test]
fn hostile_inputs_tile() {
    let tok = tokenizer();
    let mut big = String::new();
    let pieces = [
        "Hello, world!  ",
        "\t\n",
        "https://example.com/a?b=c ",
        "🙂🙂 ",
        "\u{0}\u{1b}[0m ",
        "can't ",
        "U.S.A. ",
        "((((x)))) ",
        "—–-- ",
        "\u{200b}\u{feff} ",
        "日本語テキスト ",
        "مرحبا ",
        "a\u{301}b ",
        "  ",
        "1,000.50$ ",
        "\r\n",
        "\u{85}\u{2028} ",
    ];
    while big.len() < 1 << 20 {
        for p in pieces {
            big.push_str(p);
        }
    }
    for text in [
        "",
        " ",
        "  ",
        "\n",
        " \n ",
        "\u{a0}",
        "x",
        "x ",
        " x",
        "''",
        "\u{1c}a\u{1f}",
    ] {
        assert_tiles(text, &tok.tokenize(text));
    }
    let doc = tok.tokenize(&big);
    assert_tiles(&big, &doc);
    assert!(doc.len() > 100_000);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_tiles(text in any::<String>()) {
        assert_tiles(&text, &tokenizer().tokenize(&text));
    }

    #[test]
    fn punctuation_heavy_text_tiles(text in "[a-z0-9 .,:;'\"()\\[\\]!?\\-–—…$%&/@#*+=<>_~`^|\n\t\u{a0}’“”«»é😀]{0,40}") {
        assert_tiles(&text, &tokenizer().tokenize(&text));
    }
}

/// Throughput on the golden texts, single-threaded: a cold pass (empty span cache) and a warm
/// one. Ad hoc: `cargo test --release -p metamorph-parse --test integration spacy_tokenizer:: -- --ignored
/// --nocapture throughput`.
#[test]
#[ignore = "timing; run explicitly with optimisations"]
fn throughput() {
    let path = common::en_core_web_sm().join("tokenizer");
    let texts: Vec<String> = common::golden_docs().into_iter().map(|d| d.text).collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let started = std::time::Instant::now();
    let tok = Tokenizer::from_file(&path).unwrap();
    println!("load: {:.3}s", started.elapsed().as_secs_f64());
    for pass in ["cold", "warm"] {
        let started = std::time::Instant::now();
        let tokens: usize = texts.iter().map(|t| tok.tokenize(t).len()).sum();
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{pass}: {tokens} tokens, {bytes} bytes in {secs:.3}s = {:.0} tokens/s, {:.1} MB/s",
            tokens as f64 / secs,
            bytes as f64 / secs / 1e6
        );
    }
}

/// Long unbroken spans, with spaCy 3.8.7's output (spaCy itself is quadratic on some of
/// these; the port must agree and stay fast).
#[test]
fn long_spans_match_spacy() {
    let tok = tokenizer();
    let words = |text: &str| words_ws(&tok.tokenize(text)).0;
    let started = std::time::Instant::now();

    let w = words(&"a.".repeat(100_000));
    assert_eq!(w.len(), 2);
    assert_eq!((w[0].len(), w[1].as_str()), (199_999, "."));

    let w = words(&")".repeat(20_000));
    assert_eq!(w.len(), 20_000);
    assert!(w.iter().all(|w| w == ")"));

    let w = words(&"1-".repeat(5000));
    assert_eq!(w.len(), 9999);
    assert_eq!(
        (w[0].as_str(), w[1].as_str(), w[9998].as_str()),
        ("1", "-", "1-")
    );

    let w = words(&"(x)".repeat(5000));
    assert_eq!(w.len(), 3);
    assert_eq!((w[0].as_str(), w[2].as_str()), ("(", ")"));

    for text in [
        format!("http://{}.com", "a".repeat(5000)),
        "a@".repeat(5000),
        "a".repeat(100_000),
    ] {
        assert_eq!(words(&text), std::slice::from_ref(&text));
    }
    let secs = started.elapsed().as_secs_f64();
    assert!(secs < 60.0, "long spans took {secs:.1}s");
}

/// One tokenizer shared by several threads (its span cache included) gives the sequential
/// results.
#[test]
fn shared_across_threads() {
    let tok = Tokenizer::from_file(&common::en_core_web_sm().join("tokenizer")).unwrap();
    let texts: Vec<String> = common::golden_docs().into_iter().map(|d| d.text).collect();
    let expected: Vec<_> = texts.iter().map(|t| words_ws(&tok.tokenize(t))).collect();
    let fresh = Tokenizer::from_file(&common::en_core_web_sm().join("tokenizer")).unwrap();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|k| {
                let (fresh, texts, expected) = (&fresh, &texts, &expected);
                scope.spawn(move || {
                    for i in (0..texts.len()).map(|i| (i * 7 + k * 131) % texts.len()) {
                        assert_eq!(words_ws(&fresh.tokenize(&texts[i])), expected[i], "doc {i}");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("a tokenizing thread panicked");
        }
    });
}
