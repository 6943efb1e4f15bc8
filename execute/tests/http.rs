//! The plain HTTP adapter (`kind = "http"`): against the bundled coreference baseline serving
//! over HTTP, and against a recording server on 127.0.0.1 (`common`) for batching, id matching,
//! retries and errors.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use common::{model_config, model_error, predict, start, status, Received, Reply, Server};
use metamorph_data::{CharSpan, Error, Example, Task};
use metamorph_execute::ModelConfig;
use serde_json::{json, Value};

fn config(url: &str, extra: Value) -> ModelConfig {
    let value = json!({
        "name": "remote",
        "kind": "http",
        "url": url,
        "backoff_secs": 0.01,
        "timeout_secs": 5.0,
    });
    model_config(value, extra)
}

fn sentiment(id: &str) -> Example {
    let mut e = Example::new(id, Task::Sentiment);
    e.text = Some(format!("text of {id}"));
    e
}

/// Answers every request of the posted array, last first, labelling each by its text's length.
fn answer_reversed(request: &Received, _: usize) -> Reply {
    let mut responses: Vec<Value> = request
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let (label, other) = if r["text"].as_str().unwrap().len() % 2 == 0 {
                ("positive", "negative")
            } else {
                ("negative", "positive")
            };
            json!({"id": r["id"], "label": label, "probabilities": {label: 0.9, other: 0.1}})
        })
        .collect();
    responses.reverse();
    Reply::Http(200, vec![], Value::Array(responses).to_string())
}

#[test]
fn batches_are_posted_as_arrays_and_answers_matched_by_id() {
    let server = Server::start(None, answer_reversed);
    let url = format!("{}/predict", server.base_url);
    let model = start(&config(&url, json!({"batch_size": 2})));
    let examples: Vec<Example> = ["a", "bb", "c", "dd", "e"]
        .iter()
        .map(|id| sentiment(id))
        .collect();
    let predictions = predict(model.as_ref(), &examples).unwrap();
    let ids: Vec<&str> = predictions.iter().map(|p| p.example_id.as_str()).collect();
    assert_eq!(ids, ["a", "bb", "c", "dd", "e"]);
    // "text of a" has 9 characters, "text of bb" 10.
    assert_eq!(predictions[0].label.as_deref(), Some("negative"));
    assert_eq!(predictions[1].label.as_deref(), Some("positive"));
    assert!(predictions.iter().all(|p| p.model == "remote"));
    let received = server.received();
    assert_eq!(received.len(), 3);
    for request in &received {
        assert_eq!(
            (request.method.as_str(), request.path.as_str()),
            ("POST", "/v1/predict")
        );
        assert_eq!(request.header("authorization"), None);
    }
    let mut sizes: Vec<usize> = received
        .iter()
        .map(|r| r.body.as_array().unwrap().len())
        .collect();
    sizes.sort();
    assert_eq!(sizes, [1, 2, 2]);
    // The request objects are the subprocess protocol's.
    let first = received
        .iter()
        .flat_map(|r| r.body.as_array().unwrap())
        .find(|r| r["id"] == "a")
        .unwrap();
    assert_eq!(
        first,
        &json!({"id": "a", "task": "sentiment", "text": "text of a"})
    );
}

#[test]
fn batches_in_flight_never_exceed_the_concurrency() {
    let server = Server::start(
        Some((2, std::time::Duration::from_millis(500))),
        answer_reversed,
    );
    let url = format!("{}/predict", server.base_url);
    let model = start(&config(&url, json!({"batch_size": 1, "concurrency": 2})));
    let examples: Vec<Example> = (0..6).map(|i| sentiment(&format!("s{i}"))).collect();
    assert_eq!(predict(model.as_ref(), &examples).unwrap().len(), 6);
    assert_eq!(
        server
            .max_in_flight
            .load(std::sync::atomic::Ordering::SeqCst),
        2
    );
}

#[test]
fn unknown_repeated_or_missing_ids_fail_the_batch_naming_them() {
    let cases: [(Value, &str); 4] = [
        (
            json!([{"id": "a", "label": "positive"}, {"id": "zz", "label": "positive"}]),
            "answered unknown id `zz`",
        ),
        (
            json!([{"id": "a", "label": "positive"}, {"id": "a", "label": "negative"}]),
            "answered id `a` twice",
        ),
        (
            json!([{"id": "a", "label": "positive"}]),
            "1 of 2 requests unanswered (`b`)",
        ),
        (
            json!([{"id": "a", "label": "positive"}, {"id": "b", "error": "CUDA out of memory"}]),
            "the model reported an error for `b`: CUDA out of memory",
        ),
    ];
    for (reply, expected) in cases {
        let body = reply.to_string();
        let server = Server::start(None, move |_, _| Reply::Http(200, vec![], body.clone()));
        let model = start(&config(&format!("{}/p", server.base_url), json!({})));
        let message = model_error(predict(model.as_ref(), &[sentiment("a"), sentiment("b")]));
        assert!(
            message.contains(expected)
                && message.contains("model `remote`")
                && message.contains("batch of 2 examples from `a`"),
            "{expected}: {message}"
        );
    }
}

#[test]
fn server_errors_are_retried_and_bad_replies_are_clear_errors() {
    let server = Server::start(None, |request, index| {
        if index == 0 {
            status(503, "warming up")
        } else {
            answer_reversed(request, index)
        }
    });
    let model = start(&config(&server.base_url, json!({"retries": 1})));
    let p = predict(model.as_ref(), &[sentiment("x")]).unwrap();
    assert_eq!(p[0].example_id, "x");
    assert_eq!(server.received().len(), 2);

    let server = Server::start(None, |_, _| status(500, "model crashed"));
    let model = start(&config(&server.base_url, json!({"retries": 1})));
    let message = model_error(predict(model.as_ref(), &[sentiment("x")]));
    for part in [
        "example `x`",
        "HTTP 500: model crashed",
        "after 2 attempts",
        "/v1",
    ] {
        assert!(message.contains(part), "{part}: {message}");
    }

    let server = Server::start(None, |_, _| {
        Reply::Http(200, vec![], r#"{"predictions": []}"#.into())
    });
    let model = start(&config(&server.base_url, json!({})));
    let message = model_error(predict(model.as_ref(), &[sentiment("x")]));
    assert!(
        message.contains("not a JSON array of protocol responses")
            && message.contains("predictions"),
        "{message}"
    );
}

#[test]
fn settings_are_checked_at_start_up() {
    let message = |config: ModelConfig| match config.start(Path::new(".")) {
        Err(e @ Error::Config(_)) => e.to_string(),
        Err(other) => panic!("expected a config error, got {other}"),
        Ok(_) => panic!("expected a config error"),
    };
    let mut no_url = config("http://127.0.0.1:1/", json!({}));
    if let metamorph_execute::ModelKind::Http(c) = &mut no_url.kind {
        c.url = None;
    }
    assert!(message(no_url).contains("kind `http` needs `url`"));
    assert!(message(config("127.0.0.1:1/p", json!({}))).contains("http://"));
    assert!(
        message(config("http://127.0.0.1:1/", json!({"batch_size": 0}))).contains("batch_size")
    );
    assert!(
        message(config("http://127.0.0.1:1/", json!({"concurrency": 0}))).contains("concurrency")
    );
    assert!(
        message(config("http://127.0.0.1:1/", json!({"timeout_secs": -1.0})))
            .contains("timeout_secs")
    );
}

/// The bundled coreference baseline, serving over HTTP on a free port; stopped on drop.
struct CorefServer {
    child: Child,
    url: String,
}

impl CorefServer {
    fn start() -> Option<CorefServer> {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/models/coref_string_match.py");
        let mut child = Command::new("python3")
            .arg(script)
            .args(["--http", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("serving ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        Some(CorefServer { child, url })
    }
}

impl Drop for CorefServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_coreference_model_over_http_returns_its_clusters() {
    let Some(server) = CorefServer::start() else {
        metamorph_data::shared_data::skipped("python3 is not available on this machine");
        return;
    };
    let model = start(&config(
        &server.url,
        json!({"batch_size": 1, "concurrency": 2}),
    ));
    let mut first = Example::new("gap-1", Task::Coref);
    first.text = Some("Charles Babbage was born in London. He designed engines.".into());
    let mut second = Example::new("gap-2", Task::Coref);
    second.text = Some("Ada Lovelace met Babbage in 1833. She wrote the first program.".into());
    let predictions = predict(model.as_ref(), &[first, second]).unwrap();
    let span = |start, end| CharSpan { start, end };
    assert_eq!(
        predictions[0].clusters,
        Some(vec![vec![span(0, 15), span(36, 38)]])
    );
    assert_eq!(
        predictions[1].clusters,
        Some(vec![vec![span(0, 12), span(34, 37)]])
    );

    // The model's own error for a task it does not answer fails the batch, naming the example.
    let mut boolq = Example::new("q-1", Task::BoolQ);
    boolq.question = Some("is it".into());
    boolq.context = Some("It is.".into());
    let message = model_error(predict(model.as_ref(), &[boolq]));
    assert!(
        message.contains("`q-1`") && message.contains("only answers coref"),
        "{message}"
    );
}
