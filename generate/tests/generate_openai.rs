//! `metamorph-generate` with the shipped few-shot config (`examples/configs/generate_openai.toml`)
//! against a chat/completions server this test runs on 127.0.0.1: the requests carry the
//! system text, the few-shot turns and the filled template; replies are cleaned (fences,
//! quotes, numbered lines) and read; a malformed decomposition drops its case and is counted; a
//! 503 is retried.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

use common::{plain_text, read_cases, write_cases};
use metamorph_data::{Case, Example, Expectation, GenerationRequest, Task};
use serde_json::{json, Value};

/// Serves chat completions: the first request gets a 503 (with `Retry-After: 0`), the others
/// `answer(last user message)`. Returns the base URL and the request bodies received.
fn serve(answer: fn(&str) -> String) -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Vec::new()));
    let log = received.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let log = log.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    if let Some((name, value)) = line.split_once(':') {
                        if name.eq_ignore_ascii_case("content-length") {
                            length = value.trim().parse().unwrap_or(0);
                        }
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let first = {
                    let mut log = log.lock().unwrap();
                    log.push(body.clone());
                    log.len() == 1
                };
                let prompt = body["messages"]
                    .as_array()
                    .and_then(|m| m.last())
                    .and_then(|m| m["content"].as_str())
                    .unwrap_or("")
                    .to_string();
                let (status, extra, reply) = if first {
                    (
                        503,
                        "Retry-After: 0\r\n",
                        json!({"error": {"message": "warming up"}}),
                    )
                } else {
                    let content = answer(&prompt);
                    let reply = json!({"choices": [{"message": {"role": "assistant",
                        "content": content}, "finish_reason": "stop"}]});
                    (200, "", reply)
                };
                let text = reply.to_string();
                let head = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                     Connection: close\r\n{extra}\r\n",
                    text.len()
                );
                let mut stream = stream;
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(text.as_bytes());
            });
        }
    });
    (base_url, received)
}

fn answer(prompt: &str) -> String {
    if prompt.starts_with("Decomposition:") {
        "```\n\"How many yards did Rice run?\"\n```".into()
    } else if prompt.contains("Who won?") {
        "return #2 ;return winner".into()
    } else {
        "1. return yards\n2. return longest of #1".into()
    }
}

fn case(id: &str, question: &str, request: Option<GenerationRequest>) -> Case {
    let mut source = Example::new(id, Task::Drop);
    source.question = Some("How many touchdowns did Rice score?".into());
    let mut followup = source.clone();
    followup.id = format!("{id}:bpb:0");
    followup.question = Some(question.into());
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

#[test]
fn the_few_shot_config_completes_requests_through_a_chat_server() {
    let (base_url, received) = serve(answer);
    let dir = tempfile::tempdir().unwrap();
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/configs/generate_openai.toml");
    let text = std::fs::read_to_string(shipped).unwrap();
    assert_eq!(text.matches("http://127.0.0.1:8000/v1").count(), 2);
    let config = dir.path().join("generate.toml");
    std::fs::write(&config, text.replace("http://127.0.0.1:8000/v1", &base_url)).unwrap();

    let decompose = || GenerationRequest::Decomposition {
        field: "question".into(),
    };
    let plain = case("d", "How many touchdowns did Rice score?", None);
    write_cases(
        dir.path(),
        &[
            case(
                "a",
                "How many touchdowns did Rice score?",
                Some(GenerationRequest::Question {
                    steps: vec!["yards".into(), "#1 that Rice ran".into()],
                    field: "question".into(),
                    original: None,
                    detail: None,
                }),
            ),
            case("b", "How many yards did Rice run?", Some(decompose())),
            case("c", "Who won?", Some(decompose())),
            plain.clone(),
        ],
    );
    let out = Command::new(env!("CARGO_BIN_EXE_metamorph-generate"))
        .arg("--input")
        .arg(dir.path().join("in/case/*.parquet"))
        .arg("--output")
        .arg(dir.path().join("out"))
        .arg("--config")
        .arg(&config)
        .env("METAMORPH_LOG", "info")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stderr = plain_text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("dropped_malformed_decomposition=1"),
        "{stderr}"
    );
    assert!(
        stderr.contains("HTTP 503: warming up; retry 1/2"),
        "{stderr}"
    );

    let cases = read_cases(dir.path());
    let ids: Vec<&str> = cases.iter().map(|c| c.case_id.as_str()).collect();
    assert_eq!(ids, ["a:bpb:0", "b:bpb:0", "d:bpb:0"]);
    let a = &cases[0];
    assert_eq!(
        a.followup.question.as_deref(),
        Some("How many yards did Rice run?")
    );
    assert_eq!(a.generation_json, None);
    assert_eq!(a.edits.len(), 1);
    assert_eq!(
        (a.edits[0].before.as_str(), a.edits[0].after.as_str()),
        ("touchdowns did Rice score?", "yards did Rice run?")
    );
    let b = &cases[1];
    assert_eq!(
        b.followup.steps.as_deref(),
        Some(&["yards".to_string(), "longest of #1".to_string()][..])
    );
    assert_eq!(b.generation_json, None);
    assert_eq!(cases[2], plain);

    // 1 refused + 3 answered; the question request carries the few-shot conversation.
    let received = received.lock().unwrap();
    assert_eq!(received.len(), 4);
    let question = received
        .iter()
        .find(|r| r["max_tokens"] == 64)
        .expect("a question request");
    let messages = question["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1 + 2 * 6 + 1);
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(
        messages[1]["content"],
        "Decomposition: return touchdowns ;return #1 that Rice scored ;return number of #2"
    );
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(
        messages[13]["content"],
        "Decomposition: return yards ;return #1 that Rice ran"
    );
    assert_eq!(question["temperature"], 0.0);
    assert_eq!(question["model"], "Qwen/Qwen2.5-7B-Instruct");
}

#[test]
fn unknown_placeholders_fail_at_start_up() {
    let dir = tempfile::tempdir().unwrap();
    write_cases(dir.path(), &[case("d", "Who won?", None)]);
    let config = dir.path().join("generate.toml");
    std::fs::write(
        &config,
        "[generate.question]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\
         model = \"m\"\ntemplate = \"Steps: {step}\"\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_metamorph-generate"))
        .arg("--input")
        .arg(dir.path().join("in/case/*.parquet"))
        .arg("--output")
        .arg(dir.path().join("out"))
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap();
    let stderr = plain_text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("[generate.question]: `template`: unknown placeholder `{step}`"),
        "{stderr}"
    );
}
