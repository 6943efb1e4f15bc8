//! Parity of the attribute ruler and the rule lemmatizer with spaCy 3.8 on the golden
//! documents: each doc is rebuilt from its words with spaCy's own `tag`, `dep` and `head` (the
//! inputs these components read), both components run, and `pos`, `morph` and `lemma` are
//! compared with spaCy's.

use crate::common;

use metamorph_parse::spacy::attribute_ruler::AttributeRuler;
use metamorph_parse::spacy::lemmatizer::Lemmatizer;
use metamorph_parse::spacy::{Doc, Token};

/// The golden doc with the inputs of these components (tag, dep, head, sentence starts) and
/// without their outputs.
fn golden_input(g: &common::GoldenDoc) -> Doc {
    let mut doc = common::golden_annotated(g);
    for t in &mut doc.tokens {
        t.pos.clear();
        t.morph.clear();
        t.lemma.clear();
    }
    doc
}

#[test]
fn attribute_ruler_and_lemmatizer_match_spacy() {
    let dir = common::en_core_web_sm();
    let ruler = AttributeRuler::from_dir(&dir.join("attribute_ruler")).expect("attribute_ruler");
    let lemmatizer = Lemmatizer::from_dir(&dir.join("lemmatizer")).expect("lemmatizer");
    let docs = common::golden_docs();
    let (mut total, mut bad_pos, mut bad_morph, mut bad_lemma) = (0usize, 0usize, 0usize, 0usize);
    let mut diffs = Vec::new();
    for (d, g) in docs.iter().enumerate() {
        let mut doc = golden_input(g);
        ruler.apply(&mut doc);
        lemmatizer.apply(&mut doc);
        for (i, t) in doc.tokens.iter().enumerate() {
            total += 1;
            let mut record = |attr: &str, ours: &str, theirs: &str| {
                if diffs.len() < 20 {
                    diffs.push(format!(
                        "doc {d} token {i} {:?} (tag {}, dep {}): {attr} ours {ours:?} spaCy {theirs:?}",
                        g.words[i], g.tag[i], g.dep[i]
                    ));
                }
            };
            if t.pos != g.pos[i] {
                bad_pos += 1;
                record("pos", &t.pos, &g.pos[i]);
            }
            if t.morph != g.morph[i] {
                bad_morph += 1;
                record("morph", &t.morph, &g.morph[i]);
            }
            if t.lemma != g.lemma[i] {
                bad_lemma += 1;
                record("lemma", &t.lemma, &g.lemma[i]);
            }
        }
    }
    println!("{} docs, {total} tokens", docs.len());
    for (name, bad) in [("pos", bad_pos), ("morph", bad_morph), ("lemma", bad_lemma)] {
        println!(
            "{name}: {bad} mismatches, {:.4}% agreement",
            100.0 * (total - bad) as f64 / total as f64
        );
    }
    for diff in &diffs {
        println!("  {diff}");
    }
    assert!(total > 50_000, "golden data holds {total} tokens");
    for (name, bad) in [("pos", bad_pos), ("morph", bad_morph), ("lemma", bad_lemma)] {
        let agreement = (total - bad) as f64 / total as f64;
        assert!(
            agreement >= 0.999,
            "{name} agreement {agreement:.5} is below 99.9%"
        );
    }
}

/// `(text, POS, MORPH, spaCy 3.8.18's rule_lemmatize output)` for edge cases, taken from
/// `nlp.get_pipe("lemmatizer").rule_lemmatize(token)` on one-token docs.
const LEMMA_CASES: &[(&str, &str, &str, &[&str])] = &[
    ("Ponies", "NOUN", "Number=Plur", &["pony"]),
    ("Geese", "NOUN", "Number=Plur", &["goose"]),
    ("London", "PROPN", "Number=Sing", &["London"]),
    ("Londons", "PROPN", "Number=Plur", &["Londons"]),
    ("Running", "VERB", "VerbForm=Ger", &["run"]),
    ("ran", "VERB", "Tense=Past|VerbForm=Fin", &["run"]),
    ("Better", "ADJ", "Degree=Cmp", &["well", "good"]),
    ("BEST", "ADV", "Degree=Sup", &["well", "best"]),
    ("Cats", "X", "", &["cats"]),
    ("Cats", "", "", &["cats"]),
    ("“", "PUNCT", "PunctSide=Ini|PunctType=Quot", &["\""]),
    ("HELLO", "INTJ", "", &["hello"]),
    (
        "Does",
        "AUX",
        "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin",
        &["does"],
    ),
    ("Is", "VERB", "Tense=Pres|VerbForm=Fin", &["is"]),
    ("xyzzies", "NOUN", "Number=Plur", &["xyzzie", "xyzzy"]),
    ("B-52s", "NOUN", "Number=Plur", &["b-52"]),
    ("ΣΟΦΟΣ", "NOUN", "Number=Plur", &["ΣΟΦΟΣ"]),
    ("İstanbul", "NOUN", "Number=Plur", &["İstanbul"]),
    ("Cats", "SPACE", "", &["cats"]),
    ("Flies", "NOUN", "Number=Plur", &["fly"]),
    // Two indexed rule outputs: the later rule's comes first (spaCy ≥ 3.8.8).
    ("leaves", "NOUN", "Number=Plur", &["leaf", "leave"]),
    ("Marches", "NOUN", "Number=Plur", &["march", "marche"]),
    (
        "hopes",
        "VERB",
        "Number=Sing|Person=3|Tense=Pres|VerbForm=Fin",
        &["hop", "hope"],
    ),
    (
        "riding",
        "VERB",
        "Aspect=Prog|Tense=Pres|VerbForm=Part",
        &["rid", "ride"],
    ),
    (
        "leaves",
        "VERB",
        "Number=Sing|Person=3|Tense=Pres|VerbForm=Fin",
        &["leave"],
    ),
    ("Feet", "NOUN", "Number=Plur", &["foot"]),
    ("children", "NOUN", "Number=Plur", &["child"]),
    (
        "was",
        "AUX",
        "Mood=Ind|Number=Sing|Person=3|Tense=Past|VerbForm=Fin",
        &["was"],
    ),
    (
        "Him",
        "PRON",
        "Case=Acc|Gender=Masc|Number=Sing|Person=3|PronType=Prs",
        &["him"],
    ),
    ("s", "NOUN", "Number=Plur", &["s"]),
    ("ss", "NOUN", "Number=Plur", &["s"]),
    ("Biggest", "ADJ", "Degree=Sup", &["big"]),
    ("thirty", "NUM", "NumType=Card", &["thirty"]),
    ("Quickly", "ADV", "", &["quickly"]),
    (
        "done",
        "VERB",
        "Aspect=Perf|Tense=Past|VerbForm=Part",
        &["do"],
    ),
    ("Done", "VERB", "VerbForm=None", &["done"]),
];

#[test]
fn lemmatizer_edge_cases_match_spacy() {
    let lemmatizer =
        Lemmatizer::from_dir(&common::en_core_web_sm().join("lemmatizer")).expect("lemmatizer");
    let mut failures = Vec::new();
    for &(text, pos, morph, expected) in LEMMA_CASES {
        let ours = lemmatizer.lemmas(text, pos, morph);
        if ours != expected {
            failures.push(format!(
                "{text:?} {pos} {morph}: ours {ours:?} spaCy {expected:?}"
            ));
        }
        // Twice through `lemma`, the second time from the cache.
        for _ in 0..2 {
            assert_eq!(
                lemmatizer.lemma(text, pos, morph),
                expected[0],
                "{text:?} {pos} {morph}"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One line of `fixtures/spacy_lemma_ties.jsonl` (`scripts/spacy_lemma_ties.py`).
#[derive(serde::Deserialize)]
struct TieCase {
    text: String,
    pos: String,
    morph: String,
    lemma: String,
    forms: Vec<String>,
}

/// Every inflected form in the lemminflect tables whose rule outputs include two or more
/// indexed lemmas ("hopes": hop/hope, "axes": axis/ax/axe), with spaCy's own lemma and
/// candidate list: the port must agree on every one.
#[test]
fn lemma_ties_match_spacy_exactly() {
    let lemmatizer =
        Lemmatizer::from_dir(&common::en_core_web_sm().join("lemmatizer")).expect("lemmatizer");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/spacy_lemma_ties.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut failures = Vec::new();
    let mut total = 0;
    for line in text.lines() {
        let case: TieCase = serde_json::from_str(line).unwrap();
        total += 1;
        let forms = lemmatizer.lemmas(&case.text, &case.pos, &case.morph);
        let lemma = lemmatizer.lemma(&case.text, &case.pos, &case.morph);
        if forms != case.forms || lemma != case.lemma {
            failures.push(format!(
                "{:?} {} {}: ours {lemma:?} {forms:?}, spaCy {:?} {:?}",
                case.text, case.pos, case.morph, case.lemma, case.forms
            ));
        }
    }
    assert!(total > 500, "the tie corpus holds {total} cases");
    assert!(
        failures.is_empty(),
        "{} of {total} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn lemmatizer_keeps_lemmas_already_set() {
    let lemmatizer =
        Lemmatizer::from_dir(&common::en_core_web_sm().join("lemmatizer")).expect("lemmatizer");
    let mut doc = Doc {
        text: "gon na".into(),
        tokens: vec![
            Token {
                start: 0,
                end: 3,
                whitespace: true,
                pos: "VERB".into(),
                lemma: "go".into(),
                ..Token::default()
            },
            Token {
                start: 4,
                end: 6,
                pos: "PART".into(),
                ..Token::default()
            },
        ],
    };
    lemmatizer.apply(&mut doc);
    assert_eq!(doc.tokens[0].lemma, "go");
    assert_eq!(doc.tokens[1].lemma, "na");
}

#[test]
fn malformed_files_name_the_file_and_field() {
    let dir = std::env::temp_dir().join(format!("metamorph-spacy-rules-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("lookups")).unwrap();
    // {"lemma_rules": {hash("noun"): "oops"}} in msgpack.
    let noun: u64 = 16833663260455505849;
    let mut bytes = vec![0x81, 0xab];
    bytes.extend_from_slice(b"lemma_rules");
    bytes.extend_from_slice(&[0x81, 0xcf]);
    bytes.extend_from_slice(&noun.to_be_bytes());
    bytes.extend_from_slice(&[0xa4]);
    bytes.extend_from_slice(b"oops");
    std::fs::write(dir.join("lookups/lookups.bin"), &bytes).unwrap();
    let err = Lemmatizer::from_dir(&dir).unwrap_err().to_string();
    assert!(
        err.contains("lookups.bin") && err.contains("lemma_rules[noun]"),
        "{err}"
    );
    // An attribute ruler whose patterns file is not a list of rules.
    std::fs::write(dir.join("patterns"), [0xa4, b'o', b'o', b'p', b's']).unwrap();
    let err = AttributeRuler::from_dir(&dir).unwrap_err().to_string();
    assert!(err.contains("patterns") && err.contains("list"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
