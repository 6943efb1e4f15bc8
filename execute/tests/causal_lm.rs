//! `kind = "causal-lm"`: a tiny random-weight Llama GGUF (SmolLM2's tokenizer and tensor
//! types, `models/tests/fixtures/causal-lm/`) answers every task kind; the predictions have
//! the right shape (labels from the label set, probabilities summing to 1, QA answers with the
//! generated text).

use std::path::{Path, PathBuf};

use metamorph_data::{EntitySpan, Example, Task};
use metamorph_execute::causal_lm::PromptFormat;
use metamorph_execute::ModelConfig;
use serde_json::json;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/tests/fixtures/causal-lm/llama-tiny.gguf")
}

fn config(extra: serde_json::Value) -> ModelConfig {
    let mut base = json!({
        "name": "tiny-lm",
        "kind": "causal-lm",
        "model": fixture().display().to_string(),
        "max_new_tokens": 6,
        "labels": {"relation": ["per:employee_of", "org:founded_by", "no_relation"]},
    });
    for (k, v) in extra.as_object().unwrap() {
        base[k] = v.clone();
    }
    serde_json::from_value(base).unwrap()
}

fn examples() -> Vec<Example> {
    let mut boolq = Example::new("b1", Task::BoolQ);
    boolq.question = Some("is the river longer than the canal".into());
    boolq.context = Some("The river runs for 300 km; the canal for 40 km.".into());
    let mut sentiment = Example::new("s1", Task::Sentiment);
    sentiment.text = Some("A warm, funny film.".into());
    let mut paraphrase = Example::new("p1", Task::Paraphrase);
    paraphrase.text = Some("The cat sat on the mat.".into());
    paraphrase.text_b = Some("A cat was sitting on the mat.".into());
    let mut relation = Example::new("r1", Task::Relation);
    relation.text = Some("Bill Gates founded Microsoft.".into());
    let span = |text: &str, start, end| EntitySpan {
        text: text.into(),
        start,
        end,
        entity_type: None,
    };
    relation.head = Some(span("Bill Gates", 0, 2));
    relation.tail = Some(span("Microsoft", 3, 4));
    let mut squad = Example::new("q1", Task::Squad);
    squad.question = Some("Where does the river run?".into());
    squad.context = Some("The river runs through the old town.".into());
    let mut drop = Example::new("d1", Task::Drop);
    drop.question = Some("How many km longer is the river?".into());
    drop.context = Some("The river runs for 300 km; the canal for 40 km.".into());
    vec![boolq, sentiment, paraphrase, relation, squad, drop]
}

#[test]
fn every_task_kind_gets_a_prediction_of_the_right_shape() {
    // The fixture carries SmolLM2's ChatML template; `chat = false` is the base-model format.
    for chat in [true, false] {
        every_task_in_format(chat);
    }
}

fn every_task_in_format(chat: bool) {
    let model = config(json!({ "chat": chat }))
        .start(Path::new("."))
        .unwrap();
    let examples = examples();
    let refs: Vec<&Example> = examples.iter().collect();
    let predictions = model.predict(&refs).unwrap();
    assert_eq!(predictions.len(), examples.len());
    for (example, p) in examples.iter().zip(&predictions) {
        assert_eq!(
            (p.example_id.as_str(), p.task),
            (example.id.as_str(), example.task)
        );
        assert_eq!(p.model, "tiny-lm");
        match example.task {
            Task::Squad | Task::Drop => {
                let answer = p.answer.as_ref().expect("an answer span");
                let generated = p.generated.as_deref().expect("the generated reply");
                // The span is the reply located in the context, or the reply itself.
                if let (Some(start), Some(end)) = (answer.start, answer.end) {
                    let context: Vec<char> = example.context.as_deref().unwrap().chars().collect();
                    let text: String = context[start as usize..end as usize].iter().collect();
                    assert_eq!(text, answer.text);
                } else {
                    assert!(generated.contains(answer.text.trim()) || answer.text.is_empty());
                }
            }
            _ => {
                let probabilities = p.probabilities.as_ref().expect("probabilities");
                let labels: Vec<&str> = probabilities.iter().map(|l| l.label.as_str()).collect();
                let expected: &[&str] = match example.task {
                    Task::BoolQ => &["yes", "no"],
                    Task::Paraphrase => &["1", "0"],
                    Task::Sentiment => &["positive", "negative", "neutral"],
                    _ => &["per:employee_of", "org:founded_by", "no_relation"],
                };
                assert_eq!(labels, expected, "{}", example.id);
                let total: f32 = probabilities.iter().map(|l| l.prob).sum();
                assert!((total - 1.0).abs() < 1e-4, "{}: {total}", example.id);
                assert!(probabilities
                    .iter()
                    .all(|l| l.prob.is_finite() && (0.0..=1.0).contains(&l.prob)));
                let best = probabilities
                    .iter()
                    .max_by(|a, b| a.prob.total_cmp(&b.prob))
                    .unwrap();
                assert_eq!(p.label.as_deref(), Some(best.label.as_str()));
            }
        }
    }
    // The same inputs give the same predictions (greedy, no sampling).
    let again = model.predict(&refs).unwrap();
    for (a, b) in predictions.iter().zip(&again) {
        assert_eq!(
            (&a.label, &a.probabilities, &a.answer),
            (&b.label, &b.probabilities, &b.answer)
        );
    }
}

#[test]
fn a_long_passage_is_cut_to_fit_and_still_answered() {
    let model = config(json!({"max_prompt_tokens": 80}))
        .start(Path::new("."))
        .unwrap();
    let mut long = Example::new("long", Task::BoolQ);
    long.question = Some("is the river long".into());
    long.context = Some("The river runs north through the old town and the hills. ".repeat(40));
    let p = model.predict(&[&long]).unwrap().remove(0);
    assert!(p.label.is_some());
}

#[test]
fn settings_are_checked_when_the_model_starts() {
    let fails = |extra: serde_json::Value| {
        config(extra)
            .start(Path::new("."))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let e = fails(json!({"labels": {}, "tasks": ["relation"]}));
    assert!(
        e.contains("relation classification needs its label set"),
        "{e}"
    );
    let e = fails(json!({"tasks": ["coref"]}));
    assert!(e.contains("not `coref`"), "{e}");
    let e = fails(json!({"weights": "q8"}));
    assert!(e.contains("`weights`"), "{e}");
    let e = fails(json!({"prompts": {"boolq": "{passage}?"}}));
    assert!(
        e.contains("prompts.boolq") && e.contains("{passage}"),
        "{e}"
    );
    let e = serde_json::from_value::<ModelConfig>(json!({
        "name": "m", "kind": "causal-lm", "base_url": "http://x"
    }))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("`base_url`") && e.contains("kind `causal-lm`"),
        "{e}"
    );
}

#[test]
fn chat_templates_are_recognised_by_their_turn_markers() {
    assert_eq!(
        PromptFormat::of_template(Some("{% for m in messages %}<|im_start|>{{ m.role }}")),
        PromptFormat::ChatMl
    );
    assert_eq!(
        PromptFormat::of_template(Some("{{ '<start_of_turn>user\n' }}")),
        PromptFormat::Gemma
    );
    assert_eq!(PromptFormat::of_template(None), PromptFormat::Plain);
}
