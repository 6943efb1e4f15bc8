//! `metamorph-generate` on a shard of cases with the tiny random BART of
//! `scripts/bart_fixtures.py`: requests are completed with exactly the text the library
//! produces for the same model input, identical inputs run once, cases without a request pass
//! through unchanged, and a rerun resumes (skips the finished shard).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

use common::{plain_text, read_cases, write_cases};
use metamorph_data::{Case, Example, Expectation, GenerationRequest, Task};
use metamorph_generate::qdmr;
use metamorph_generate::{DecodingOptions, Seq2Seq};
use metamorph_models::bart::Bart;
use metamorph_models::ModelOptions;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bart-tiny")
}

fn case(id: &str, request: Option<GenerationRequest>) -> Case {
    let mut source = Example::new(id, Task::Drop);
    source.question = Some(format!("How many touchdowns did player {id} score?"));
    source.context = Some("Rice scored two touchdowns.".into());
    let mut followup = source.clone();
    followup.id = format!("{id}:bpb:0");
    let case = Case::new(
        "bpb",
        "ChangeLast",
        vec![source],
        followup,
        &Expectation::Equal,
    );
    match request {
        Some(r) => case.with_generation(&r),
        None => case,
    }
}

fn question(steps: &[&str]) -> GenerationRequest {
    GenerationRequest::Question {
        steps: steps.iter().map(|s| s.to_string()).collect(),
        field: "question".into(),
        original: None,
        detail: None,
    }
}

fn generate(dir: &Path, config: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_metamorph-generate"))
        .arg("--input")
        .arg(dir.join("in/case/*.parquet"))
        .arg("--output")
        .arg(dir.join("out"))
        .arg("--config")
        .arg(config)
        .env("METAMORPH_LOG", "info")
        .output()
        .unwrap()
}

#[test]
fn the_binary_completes_requests_as_the_library_does() {
    let dir = tempfile::tempdir().unwrap();
    let steps = ["touchdowns", "#1 of Rice", "number of #2"];
    let mut parse_me = case(
        "c",
        Some(GenerationRequest::Decomposition {
            field: "question".into(),
        }),
    );
    parse_me.followup.question = Some("Which team scored first?".into());
    let plain = case("d", None);
    write_cases(
        dir.path(),
        &[
            case("a", Some(question(&steps))),
            case("b", Some(question(&steps))),
            parse_me,
            plain.clone(),
        ],
    );
    // The fixture is named relative to the config file's folder, as a user would.
    let config = dir.path().join("metamorph.toml");
    let model = pathdiff(dir.path(), &fixture());
    std::fs::write(
        &config,
        format!(
            "[generate.question]\nkind = \"bart\"\nmodel = {model:?}\nnum_beams = 2\n\
             max_new_tokens = 12\n\n[generate.decomposition]\nkind = \"candle\"\n\
             model = {model:?}\nmax_new_tokens = 12\nnum_beams = 1\n"
        ),
    )
    .unwrap();
    let out = generate(dir.path(), &config);
    let stderr = plain_text(&out.stderr);
    assert!(out.status.success(), "{stderr}");

    let bart = Bart::load(&fixture(), "bart-tiny", ModelOptions::default()).unwrap();
    let q_options = DecodingOptions {
        num_beams: 2,
        max_new_tokens: 12,
        repetition_penalty: 2.5,
        ..DecodingOptions::default()
    };
    let q_input = qdmr::to_reference_tokens(&qdmr::join_steps(&steps.map(String::from)));
    assert_eq!(
        q_input,
        "return touchdowns ;return @@1@@ of Rice ;return number of @@2@@"
    );
    let q_text = qdmr::clean_question(&bart.generate(&[&q_input], &q_options).unwrap()[0]);
    let d_options = DecodingOptions {
        num_beams: 1,
        max_new_tokens: 12,
        ..DecodingOptions::default()
    };
    let d_out = bart
        .generate(&["Which team scored first?"], &d_options)
        .unwrap()
        .remove(0);

    let cases = read_cases(dir.path());
    let by_id = |id: &str| cases.iter().find(|c| c.case_id == id);
    for id in ["a:bpb:0", "b:bpb:0"] {
        match (q_text.is_empty(), by_id(id)) {
            (true, None) => {}
            (false, Some(c)) => {
                assert_eq!(
                    c.followup.question.as_deref(),
                    Some(q_text.as_str()),
                    "{id}"
                );
                assert_eq!(c.generation_json, None);
                assert!(c.edits.iter().all(|e| e.field == "question"));
            }
            other => panic!("{id}: {other:?} for the question {q_text:?}"),
        }
    }
    match (qdmr::parse_decomposition(&d_out), by_id("c:bpb:0")) {
        (Ok(steps), Some(c)) => {
            assert_eq!(c.followup.steps.as_ref(), Some(&steps));
            assert_eq!(c.generation_json, None);
        }
        (Err(_), None) => assert!(stderr.contains("dropped_malformed_decomposition=1")),
        other => panic!("decomposition {d_out:?}: {other:?}"),
    }
    assert_eq!(by_id("d:bpb:0"), Some(&plain));

    // Resume: the shard is complete, so a rerun starts no model and changes nothing.
    let again = generate(dir.path(), &config);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already complete"));
}

#[test]
fn a_substitution_request_is_a_config_error_naming_the_case() {
    let dir = tempfile::tempdir().unwrap();
    let substitution = GenerationRequest::Substitution {
        field: "question".into(),
        start: 0,
        end: 3,
        top_k: 5,
        min_prob: 0.0,
        same_pos: false,
    };
    write_cases(dir.path(), &[case("s", Some(substitution))]);
    let config = dir.path().join("metamorph.toml");
    std::fs::write(
        &config,
        format!(
            "[generate.question]\nkind = \"bart\"\nmodel = {:?}\n",
            fixture().display().to_string()
        ),
    )
    .unwrap();
    let out = generate(dir.path(), &config);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("case `s:bpb:0`") && stderr.contains("[generate.masked_lm]"),
        "{stderr}"
    );
    assert!(!dir.path().join("out/case").exists() || read_cases(dir.path()).is_empty());
}

/// `to` relative to `from` (both absolute), with `..` components.
fn pathdiff(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to[common..] {
        out.push(c);
    }
    out.display().to_string()
}
