//! The response cache and the budget of paid endpoints, end to end: a second run over the same
//! data asks the model nothing; a changed script, template or setting asks everything again;
//! a budget stops the run with exit status 3 and a larger one goes on where it stopped.

#[path = "../../execute/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Reply, Server};
use metamorph::{run_pipeline, PipelineOptions, PipelineReport};
use metamorph_data::usage::ModelUsage;
use serde_json::json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A model program that logs every request it gets to `calls.log` beside it and answers as
/// the keyword baseline.
const LOGGING_MODEL: &str = r#"
import json, os, sys
log = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.log"), "a")
for line in sys.stdin:
    request = json.loads(line)
    log.write(request["id"] + "\n"); log.flush()
    yes = "before" in (request.get("question") or "")
    print(json.dumps({"id": request["id"], "label": "yes" if yes else "no"}), flush=True)
"#;

fn write_config(dir: &Path, model_table: &str) -> PathBuf {
    let text = format!(
        "[pipeline]\noutput = \"out\"\nbatch_size = 8\n\n\
         [[pipeline.datasets]]\nname = \"boolq\"\npath = {:?}\nformat = \"boolq\"\n\n\
         [perturb]\nrelations = [\"MR1-3\"]\n\n[validate]\nenabled = false\n\n\
         [execute]\ncache_dir = \"cache\"\n\n[[execute.models]]\n{model_table}\n",
        root()
            .join("data/samples/boolq.jsonl")
            .display()
            .to_string()
    );
    let path = dir.join("metamorph.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(config: &Path, output: &str, no_cache: bool) -> PipelineReport {
    let options = PipelineOptions {
        output: Some(config.parent().unwrap().join(output)),
        no_cache,
        ..PipelineOptions::default()
    };
    run_pipeline(config, &options).unwrap()
}

fn model_usage(report: &PipelineReport) -> ModelUsage {
    let models: Vec<&ModelUsage> = report
        .summary
        .usage
        .iter()
        .filter(|u| u.role == "model")
        .collect();
    assert_eq!(models.len(), 1, "{:?}", report.summary.usage);
    models[0].clone()
}

fn calls(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("calls.log"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn a_second_run_asks_the_model_nothing_and_a_changed_script_asks_again() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("model.py");
    std::fs::write(&script, LOGGING_MODEL).unwrap();
    let config = write_config(
        dir.path(),
        "name = \"logging\"\ncommand = [\"python3\", \"model.py\"]\ntimeout_secs = 60",
    );

    let first = run(&config, "out1", false);
    let asked = calls(dir.path());
    let usage = model_usage(&first);
    assert!(asked > 0 && usage.predictions > 0, "{usage:?}");
    assert_eq!(usage.from_cache, 0);
    assert_eq!(usage.executed as usize, asked);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&first.summary_path).unwrap()).unwrap();
    assert_eq!(summary["usage"][0]["executed"], asked as u64);

    // Another output (a second config over the same data): every answer from the cache, the
    // same verdicts.
    let second = run(&config, "out2", false);
    assert_eq!(calls(dir.path()), asked, "the second run asked the model");
    let usage2 = model_usage(&second);
    assert_eq!(
        (usage2.predictions, usage2.from_cache, usage2.executed),
        (usage.predictions, usage.predictions, 0)
    );
    assert_eq!(second.summary.relations, first.summary.relations);

    // --no-cache asks again.
    run(&config, "out3", true);
    assert_eq!(calls(dir.path()), 2 * asked);

    // A changed script is another model: asked again, not answered from the old one's cache.
    std::fs::write(&script, format!("{LOGGING_MODEL}\n# retrained\n")).unwrap();
    let fourth = run(&config, "out4", false);
    assert_eq!(calls(dir.path()), 3 * asked);
    assert_eq!(model_usage(&fourth).from_cache, 0);
}

/// A chat/completions reply saying `answer`, with a usage of 10 prompt and 2 completion tokens.
fn chat_reply(answer: &str) -> Reply {
    let body = json!({
        "choices": [{"message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    });
    Reply::Http(200, vec![], body.to_string())
}

fn openai_table(server: &Server, template: &str, budget: &str) -> String {
    format!(
        "name = \"llm\"\nkind = \"openai\"\nbase_url = {:?}\nmodel = \"m\"\nconcurrency = 2\n\
         {budget}\n[execute.models.prompts]\nboolq = {template:?}",
        server.base_url
    )
}

#[test]
fn a_changed_template_asks_again_and_tokens_are_counted() {
    let server = Server::start(None, |request, _| {
        let yes = request.prompt().contains("before");
        chat_reply(if yes { "yes" } else { "no" })
    });
    let dir = tempfile::tempdir().unwrap();
    let template = "Passage: {context}\nQuestion: {question}\nAnswer yes or no.";
    let config = write_config(dir.path(), &openai_table(&server, template, ""));

    let first = run(&config, "out1", false);
    let sent = server.received().len();
    let usage = model_usage(&first);
    assert!(sent > 0);
    assert_eq!(
        (usage.requests, usage.prompt_tokens, usage.completion_tokens),
        (sent as u64, 10 * sent as u64, 2 * sent as u64)
    );

    let second = run(&config, "out2", false);
    assert_eq!(server.received().len(), sent, "answered from the cache");
    assert_eq!(model_usage(&second).requests, 0);

    let changed = template.replace("Answer yes or no.", "Reply with yes or no.");
    write_config(dir.path(), &openai_table(&server, &changed, ""));
    run(&config, "out3", false);
    assert_eq!(
        server.received().len(),
        2 * sent,
        "a new template asks everything again"
    );
}

#[test]
fn a_budget_stops_the_run_with_status_3_and_a_larger_one_goes_on() {
    let server = Server::start(None, |request, _| {
        let yes = request.prompt().contains("before");
        chat_reply(if yes { "yes" } else { "no" })
    });
    let dir = tempfile::tempdir().unwrap();
    let template = "{context}\n{question}? yes or no";
    // How many requests the whole run takes, with a cache of its own.
    let config = write_config(dir.path(), &openai_table(&server, template, ""));
    run(&config, "unbounded", true);
    let needed = server.received().len();
    assert!(needed >= 4, "too few requests to test a budget: {needed}");

    let metamorph = |budget: &str| {
        write_config(dir.path(), &openai_table(&server, template, budget));
        Command::new(env!("CARGO_BIN_EXE_metamorph"))
            .args(["run", "--quiet", "--config"])
            .arg(&config)
            .output()
            .unwrap()
    };
    let stopped = metamorph("max_requests = 3");
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(3), "{stderr}");
    assert!(
        stderr
            .contains("budget of `llm`: `max_requests` = 3 reached after 3 requests and 36 tokens")
            && stderr.contains("with 0 of 1 units complete")
            && stderr.contains("raise the budget and run again"),
        "{stderr}"
    );
    assert_eq!(
        server.received().len(),
        needed + 3,
        "never more than the budget"
    );
    assert!(!dir.path().join("out/summary.json").exists());

    // A larger budget goes on: the three answers already paid for come from the cache.
    let resumed = metamorph(&format!("max_requests = {needed}"));
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert_eq!(server.received().len(), 2 * needed);
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/summary.json")).unwrap(),
    )
    .unwrap();
    let usage = &summary["usage"][0];
    assert_eq!(usage["requests"], (needed - 3) as u64, "{usage}");
    assert!(usage["from_cache"].as_u64().unwrap() >= 3, "{usage}");
}
