//! The OpenAI-compatible adapter against a chat/completions server this test runs on
//! 127.0.0.1 (`common`: a small HTTP/1.1 responder that records every request and answers
//! through a handler, one thread per connection).

use crate::common;

use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{model_config, model_error, predict, start, status, Received, Reply, Server};

use metamorph_data::{EntitySpan, Error, Example, Prediction, Task};
use metamorph_execute::ModelConfig;
use serde_json::{json, Value};

fn ok(content: &str) -> Reply {
    let body = json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop"
        }]
    });
    Reply::Http(200, vec![], body.to_string())
}

/// A model config for `server` (an unset key variable, tiny backoff), with `extra` keys.
fn config(base_url: &str, extra: Value) -> ModelConfig {
    let value = json!({
        "name": "llm",
        "kind": "openai",
        "base_url": base_url,
        "model": "test-model-7b",
        "api_key_env": "METAMORPH_TEST_OPENAI_KEY_NEVER_SET",
        "backoff_secs": 0.01,
        "timeout_secs": 5.0,
    });
    model_config(value, extra)
}

fn boolq(id: &str, question: &str) -> Example {
    let mut e = Example::new(id, Task::BoolQ);
    e.context = Some("The sky is blue on a clear day.".into());
    e.question = Some(question.into());
    e
}

/// A stand-in chat model: answers from the prompt's wording.
fn answer(request: &Received) -> Reply {
    let prompt = request.prompt();
    if prompt.contains("is the sky blue") {
        ok("**Yes**.")
    } else if prompt.contains("is the sky green") {
        ok("The answer is no.")
    } else if prompt.contains("Which river") {
        ok("\"the Volga\".")
    } else if prompt.contains("How many") {
        ok("3")
    } else if prompt.contains("Classify the sentiment") {
        ok("Sentiment: Positive")
    } else if prompt.contains("Sentence 1:") {
        ok("No, they differ.")
    } else if prompt.contains("Which relation") {
        ok("org:founded_by")
    } else {
        status(400, "unexpected prompt")
    }
}

#[test]
fn every_task_reads_its_reply_and_the_request_carries_the_settings() {
    let server = Server::start(None, |r, _| answer(r));
    let config = config(
        &server.base_url,
        json!({
            "system": "You are a careful annotator.",
            "max_tokens": 16,
            "labels": {"relation": ["org:founded_by", "per:title", "no_relation"]},
        }),
    );
    let model = start(&config);
    let mut squad = Example::new("sq", Task::Squad);
    squad.context = Some("Die Wolga. The Volga is Europe's longest river.".into());
    squad.question = Some("Which river is the longest?".into());
    let mut drop = Example::new("dr", Task::Drop);
    drop.context = Some("Two goals, then one more.".into());
    drop.question = Some("How many goals?".into());
    let mut sentiment = Example::new("se", Task::Sentiment);
    sentiment.text = Some("A delightful film.".into());
    let mut paraphrase = Example::new("pa", Task::Paraphrase);
    paraphrase.text = Some("He left.".into());
    paraphrase.text_b = Some("He stayed.".into());
    let mut relation = Example::new("re", Task::Relation);
    relation.text = Some("Jobs founded Apple".into());
    let span = |text: &str, start, end| EntitySpan {
        text: text.into(),
        start,
        end,
        entity_type: None,
    };
    relation.tail = Some(span("Jobs", 0, 1));
    relation.head = Some(span("Apple", 2, 3));
    let examples = [
        boolq("b-yes", "is the sky blue"),
        boolq("b-no", "is the sky green"),
        squad,
        drop,
        sentiment,
        paraphrase,
        relation,
    ];
    let predictions = predict(model.as_ref(), &examples).unwrap();
    let ids: Vec<&str> = predictions.iter().map(|p| p.example_id.as_str()).collect();
    assert_eq!(ids, ["b-yes", "b-no", "sq", "dr", "se", "pa", "re"]);
    let labels: Vec<Option<&str>> = predictions.iter().map(|p| p.label.as_deref()).collect();
    assert_eq!(
        labels,
        [
            Some("yes"),
            Some("no"),
            None,
            None,
            Some("positive"),
            Some("0"),
            Some("org:founded_by")
        ]
    );
    let answer = predictions[2].answer.as_ref().unwrap();
    assert_eq!(
        (answer.text.as_str(), answer.start, answer.end),
        ("The Volga", Some(11), Some(20))
    );
    let answer = predictions[3].answer.as_ref().unwrap();
    assert_eq!((answer.text.as_str(), answer.start), ("3", None));
    assert_eq!(predictions[0].generated.as_deref(), Some("**Yes**."));
    assert!(predictions
        .iter()
        .all(|p| p.model == "llm" && p.probabilities.is_none()));

    let received = server.received();
    assert_eq!(received.len(), examples.len());
    for r in &received {
        assert_eq!(
            (r.method.as_str(), r.path.as_str()),
            ("POST", "/v1/chat/completions")
        );
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.header("authorization"), None);
        assert_eq!(r.body["model"], "test-model-7b");
        assert_eq!(r.body["temperature"], 0.0);
        assert_eq!(r.body["max_tokens"], 16);
        let messages = r.body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0]["role"], "system");
        assert_eq!(messages[0]["content"], "You are a careful annotator.");
        assert_eq!(messages[1]["role"], "user");
    }
    let prompt_of = |needle: &str| {
        received
            .iter()
            .map(Received::prompt)
            .find(|p| p.contains(needle))
            .unwrap()
            .to_string()
    };
    let p = prompt_of("is the sky blue");
    assert!(
        p.contains("Passage: The sky is blue on a clear day."),
        "{p}"
    );
    let p = prompt_of("Classify the sentiment");
    assert!(p.contains("one of: positive, negative, neutral") && p.contains("A delightful film."));
    let p = prompt_of("Which relation");
    assert!(p.contains("Head: Apple\nTail: Jobs") && p.contains("org:founded_by, per:title"));
}

#[test]
fn configured_templates_replace_the_builtin_ones() {
    let server = Server::start(None, |r, _| {
        if r.prompt() == "Q: is the sky blue | {literal}" {
            ok("yes")
        } else {
            status(400, "unexpected prompt")
        }
    });
    let config = config(
        &server.base_url,
        json!({"prompts": {"boolq": "Q: {question} | {{literal}}"}, "temperature": 0.7}),
    );
    let model = start(&config);
    let p = predict(model.as_ref(), &[boolq("b", "is the sky blue")]).unwrap();
    assert_eq!(p[0].label.as_deref(), Some("yes"));
    let received = server.received();
    assert_eq!(
        received[0].body["temperature"].as_f64().unwrap() as f32,
        0.7
    );
    // No system message and no max_tokens unless configured.
    assert_eq!(received[0].body["messages"].as_array().unwrap().len(), 1);
    assert!(received[0].body.get("max_tokens").is_none());
}

#[test]
fn server_errors_and_rate_limits_are_retried() {
    let server = Server::start(None, |_, i| match i {
        0 => status(500, "boom"),
        1 => Reply::Http(
            429,
            vec![("Retry-After", "0".into())],
            json!({"error": {"message": "slow down"}}).to_string(),
        ),
        _ => ok("yes"),
    });
    let model = start(&config(&server.base_url, json!({"retries": 2})));
    let p = predict(model.as_ref(), &[boolq("b", "is it")]).unwrap();
    assert_eq!(p[0].label.as_deref(), Some("yes"));
    assert_eq!(server.received().len(), 3);
}

#[test]
fn retries_run_out_with_the_status_and_the_servers_message() {
    let server = Server::start(None, |_, _| status(503, "the engine is overloaded"));
    let model = start(&config(&server.base_url, json!({"retries": 1})));
    let message = model_error(predict(model.as_ref(), &[boolq("b-7", "is it")]));
    for part in [
        "model `llm`",
        "example `b-7`",
        "HTTP 503",
        "the engine is overloaded",
        "after 2 attempts",
        "test-model-7b",
    ] {
        assert!(message.contains(part), "{part}: {message}");
    }
    assert_eq!(server.received().len(), 2);
}

#[test]
fn client_errors_are_not_retried() {
    let server = Server::start(None, |_, _| status(404, "model `x` does not exist"));
    let model = start(&config(&server.base_url, json!({"retries": 3})));
    let message = model_error(predict(model.as_ref(), &[boolq("b", "is it")]));
    assert!(
        message.contains("HTTP 404: model `x` does not exist"),
        "{message}"
    );
    assert_eq!(server.received().len(), 1);
}

#[test]
fn a_silent_server_times_out_and_is_retried_then_reported() {
    let server = Server::start(None, |_, _| Reply::Hang(Duration::from_secs(3)));
    let model = start(&config(
        &server.base_url,
        json!({"retries": 1, "timeout_secs": 0.2}),
    ));
    let message = model_error(predict(model.as_ref(), &[boolq("slow-1", "is it")]));
    assert!(
        message.contains("example `slow-1`")
            && message.contains("timed out after 0.2s")
            && message.contains("after 2 attempts"),
        "{message}"
    );
    assert_eq!(server.received().len(), 2);
}

#[test]
fn an_unreachable_server_is_reported_after_the_retries() {
    // A port nobody listens on: bind one, then let it go.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let model = start(&config(
        &format!("http://127.0.0.1:{port}/v1"),
        json!({"retries": 1}),
    ));
    let message = model_error(predict(model.as_ref(), &[boolq("b", "is it")]));
    assert!(
        message.contains("example `b`")
            && message.contains("Connection Failed")
            && message.contains("after 2 attempts"),
        "{message}"
    );
    // https is built in (rustls): the same port over https fails to connect, not for an
    // unknown scheme.
    let model = start(&config(
        &format!("https://127.0.0.1:{port}/v1"),
        json!({"retries": 0}),
    ));
    let message = model_error(predict(model.as_ref(), &[boolq("b", "is it")]));
    assert!(message.contains("Connection Failed"), "{message}");
}

#[test]
fn requests_in_flight_never_exceed_the_concurrency() {
    // Each request is held until three are in flight, so a client keeping three in flight
    // reaches three, and one keeping more would show it.
    let server = Server::start(Some((3, Duration::from_secs(1))), |_, _| ok("no"));
    let model = start(&config(&server.base_url, json!({"concurrency": 3})));
    let examples: Vec<Example> = (0..12).map(|i| boolq(&format!("b{i}"), "is it")).collect();
    let predictions = predict(model.as_ref(), &examples).unwrap();
    assert_eq!(predictions.len(), 12);
    assert!(predictions
        .iter()
        .zip(&examples)
        .all(|(p, e)| p.example_id == e.id && p.label.as_deref() == Some("no")));
    assert_eq!(server.received().len(), 12);
    assert_eq!(server.max_in_flight.load(Ordering::SeqCst), 3);

    // One at a time when configured so, even with a server that would hold three.
    let server = Server::start(Some((3, Duration::from_millis(100))), |_, _| ok("yes"));
    let model = start(&config(&server.base_url, json!({"concurrency": 1})));
    predict(model.as_ref(), &examples[..3]).unwrap();
    assert_eq!(server.max_in_flight.load(Ordering::SeqCst), 1);
}

#[test]
fn malformed_or_empty_replies_are_clear_errors() {
    let server = Server::start(None, |_, _| {
        Reply::Http(200, vec![], "{\"choices\": [".into())
    });
    let model = start(&config(&server.base_url, json!({"retries": 2})));
    let message = model_error(predict(model.as_ref(), &[boolq("b-1", "is it")]));
    assert!(
        message.contains("example `b-1`") && message.contains("is not a chat completion"),
        "{message}"
    );
    assert_eq!(
        server.received().len(),
        1,
        "a malformed reply is not retried"
    );

    let server = Server::start(None, |_, _| {
        Reply::Http(200, vec![], r#"{"choices": []}"#.into())
    });
    let model = start(&config(&server.base_url, json!({})));
    let message = model_error(predict(model.as_ref(), &[boolq("b-2", "is it")]));
    assert!(message.contains("no `choices`"), "{message}");

    let server = Server::start(None, |_, _| ok("I would rather not say."));
    let model = start(&config(&server.base_url, json!({})));
    let message = model_error(predict(model.as_ref(), &[boolq("b-3", "is it")]));
    assert!(
        message.contains("example `b-3`")
            && message.contains("neither yes nor no")
            && message.contains("I would rather not say."),
        "{message}"
    );
}

#[test]
fn a_failed_example_fails_the_batch_naming_it() {
    let server = Server::start(None, |r, _| {
        if r.prompt().contains("is it blue") {
            ok("maybe")
        } else {
            ok("yes")
        }
    });
    let model = start(&config(&server.base_url, json!({"concurrency": 2})));
    let examples = [
        boolq("a", "is it red"),
        boolq("b", "is it blue"),
        boolq("c", "is it"),
    ];
    let message = model_error(predict(model.as_ref(), &examples));
    assert!(message.contains("example `b`"), "{message}");
}

/// Run in a child process with the key variable set (the variable is never set in the parent,
/// so no test races on the environment).
const KEY_VAR: &str = "METAMORPH_TEST_OPENAI_KEY";

#[test]
fn the_api_key_is_sent_only_when_its_variable_is_set() {
    let server = Server::start(None, |_, _| ok("yes"));
    let config = config(&server.base_url, json!({"api_key_env": KEY_VAR}));
    let model = start(&config);
    predict(model.as_ref(), &[boolq("b", "is it")]).unwrap();
    let received = server.received();
    match std::env::var(KEY_VAR) {
        Ok(key) => {
            assert_eq!(
                received[0].header("authorization"),
                Some(format!("Bearer {key}").as_str())
            );
        }
        Err(_) => {
            assert_eq!(received[0].header("authorization"), None);
            // The test's name within its binary: `openai::…` under tests/integration.rs.
            let module = module_path!().split_once("::").map_or("", |(_, rest)| rest);
            let name = format!("{module}::the_api_key_is_sent_only_when_its_variable_is_set");
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", name.as_str(), "--test-threads=1"])
                .env(KEY_VAR, "sk-test-123")
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && stdout.contains("1 passed"),
                "child run failed:\n{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn bad_settings_fail_at_start_up() {
    let fails = |extra: Value| match config("http://127.0.0.1:9/v1", extra).start(Path::new(".")) {
        Err(e @ Error::Config(_)) => e.to_string(),
        Err(other) => panic!("expected a config error, got {other}"),
        Ok(_) => panic!("expected a config error, got a model"),
    };
    let message = fails(json!({"prompts": {"sentiment": "Text: {txt}"}}));
    assert!(
        message.contains("template `prompts.sentiment`") && message.contains("`{txt}`"),
        "{message}"
    );
    let message = fails(json!({"prompts": {"boolq_v2": "{question}"}}));
    assert!(
        message.contains("`prompts.boolq_v2`: unknown task"),
        "{message}"
    );
    let message = fails(json!({"tasks": ["qdmr"]}));
    assert!(message.contains("no reply parser for `qdmr`"), "{message}");
    let message = fails(json!({"tasks": ["relation"]}));
    assert!(message.contains("labels.relation"), "{message}");
    let message = fails(json!({"timeout_secs": -1.0}));
    assert!(message.contains("`timeout_secs`"), "{message}");
    let mut no_url = config("http://127.0.0.1:9/v1", json!({}));
    if let metamorph_execute::ModelKind::OpenAi(c) = &mut no_url.kind {
        c.base_url = None;
    }
    assert!(no_url
        .start(Path::new("."))
        .err()
        .unwrap()
        .to_string()
        .contains("needs `base_url`"));
}

#[test]
fn the_worked_example_config_parses_and_starts_without_sending() {
    // Starting sends nothing, so no server is needed; the file is never run by the tests.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/configs/openai_boolq.toml");
    let file = metamorph_data::ConfigFile::load(&path).unwrap();
    let execute: metamorph_execute::ExecuteConfig = file.section("execute").unwrap();
    assert_eq!(execute.models.len(), 1);
    let model = execute.models[0].start(path.parent().unwrap()).unwrap();
    assert!(model.handles(Task::BoolQ) && !model.handles(Task::Squad));
    assert_eq!(model.max_batch(), 64);
}

#[test]
fn a_fallback_label_records_unreadable_replies_instead_of_failing() {
    let server = Server::start(None, |r, _| {
        if r.prompt().contains("is it blue") {
            ok("I cannot tell from the passage.")
        } else {
            ok("Yes")
        }
    });
    let model = start(&config(
        &server.base_url,
        json!({"fallback": {"boolq": "unreadable"}}),
    ));
    let p = predict(
        model.as_ref(),
        &[boolq("a", "is it red"), boolq("b", "is it blue")],
    )
    .unwrap();
    assert_eq!(p[0].label.as_deref(), Some("yes"));
    assert_eq!(p[1].label.as_deref(), Some("unreadable"));
    assert_eq!(
        p[1].generated.as_deref(),
        Some("I cannot tell from the passage.")
    );
}

#[test]
fn the_execute_stage_runs_cases_through_the_adapter_once_per_distinct_input() {
    use metamorph_data::{
        from_batch, to_batch, Case, ConfigFile, Expectation, Pipeline, RecordKind, StageOptions,
    };
    let server = Server::start(None, |r, _| {
        if r.prompt().contains("Question: is it blue") {
            ok("Yes.")
        } else {
            ok("No.")
        }
    });
    let file = ConfigFile::parse(
        &format!(
            r#"
            [[execute.models]]
            name = "llm"
            kind = "openai"
            base_url = "{}"
            model = "test-model-7b"
            api_key_env = "METAMORPH_TEST_OPENAI_KEY_NEVER_SET"
            tasks = ["boolq"]
            "#,
            server.base_url
        ),
        "test config",
    )
    .unwrap();
    let execute: metamorph_execute::ExecuteConfig = file.section("execute").unwrap();
    let stage =
        metamorph_execute::ExecuteStage::from_config(&execute, Path::new("."), true).unwrap();
    let source = boolq("s", "is it blue");
    let changed = boolq("s:MR:0", "is it red");
    // Same inputs as the source under another id: predicted once, copied.
    let same = boolq("s:MR:1", "is it blue");
    let cases: Vec<Case> = [changed, same]
        .into_iter()
        .map(|f| Case::new("f", "MR", vec![source.clone()], f, &Expectation::Equal))
        .collect();
    let predictions = Arc::new(Mutex::new(Vec::<Prediction>::new()));
    let sink = predictions.clone();
    Pipeline::new(std::iter::once(to_batch(&cases)))
        .progress(false)
        .stage(Arc::new(stage), StageOptions::default(), None)
        .sink(move |b| {
            if RecordKind::of_batch(&b)? == RecordKind::Prediction {
                sink.lock()
                    .unwrap()
                    .extend(from_batch::<Prediction>(&b, "sink")?);
            }
            Ok(())
        })
        .run()
        .unwrap();
    let mut got: Vec<(String, String, String)> = predictions
        .lock()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p.example_id.clone(),
                p.label.clone().unwrap(),
                p.generated.clone().unwrap(),
            )
        })
        .collect();
    got.sort();
    let row =
        |id: &str, label: &str, reply: &str| (id.to_string(), label.to_string(), reply.to_string());
    assert_eq!(
        got,
        [
            row("s", "yes", "Yes."),
            row("s:MR:0", "no", "No."),
            row("s:MR:1", "yes", "Yes.")
        ]
    );
    assert_eq!(server.received().len(), 2);
}
