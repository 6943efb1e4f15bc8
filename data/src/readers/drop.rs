//! DROP JSON: an object keyed by passage id; one example per question. Number, date and span
//! answers are all rendered as answer texts (a date as its non-empty parts joined by spaces).

use std::path::Path;

use serde_json::Value;

use super::{read_json_document, At};
use crate::record::{Answer, Example, Task};
use crate::Result;

pub(super) fn read(path: &Path) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let doc = read_json_document(path)?;
    let Value::Object(passages) = &doc else {
        return Err(At::new(path, "$", &doc).error("-", "expected an object keyed by passage id"));
    };
    let mut out = Vec::new();
    for (pid, passage) in passages {
        let at = At::new(path, pid.clone(), passage);
        let context = match at.text("passage") {
            Ok(c) => c,
            Err(e) => {
                out.push(Err(e));
                continue;
            }
        };
        match at.array("qa_pairs") {
            Ok(pairs) => {
                for (q, qa) in pairs.iter().enumerate() {
                    let at = At::new(path, format!("{pid}.qa_pairs[{q}]"), qa);
                    out.push(question(&at, &context));
                }
            }
            Err(e) => out.push(Err(e)),
        }
    }
    Ok(out.into_iter())
}

fn question(at: &At<'_>, context: &str) -> Result<Example> {
    let mut ex = Example::new(at.str("query_id")?, Task::Drop);
    ex.question = Some(at.text("question")?);
    ex.context = Some(context.to_string());
    let mut answers = Vec::new();
    let primary = at
        .value
        .get("answer")
        .ok_or_else(|| at.error("answer", "missing"))?;
    answers.extend(answer_texts(at, "answer", primary)?);
    if answers.is_empty() {
        return Err(at.error("answer", "has no number, span or date"));
    }
    if let Some(Value::Array(validated)) = at.value.get("validated_answers") {
        for (i, v) in validated.iter().enumerate() {
            for text in answer_texts(at, &format!("validated_answers[{i}]"), v)? {
                if !answers.contains(&text) {
                    answers.push(text);
                }
            }
        }
    }
    ex.answers = Some(
        answers
            .into_iter()
            .map(|text| Answer { text, start: None })
            .collect(),
    );
    ex.origin = Some(at.origin());
    Ok(ex)
}

fn answer_texts(at: &At<'_>, field: &str, v: &Value) -> Result<Vec<String>> {
    let a = At::new(at.path, format!("{}.{field}", at.location), v);
    if let Some(number) = a.opt_str("number")?.filter(|s| !s.is_empty()) {
        return Ok(vec![number]);
    }
    let spans = match v.get("spans") {
        Some(Value::Array(_)) => a.strings("spans")?,
        _ => Vec::new(),
    };
    if !spans.is_empty() {
        return Ok(spans);
    }
    if let Some(date @ Value::Object(_)) = v.get("date") {
        let d = At::new(at.path, format!("{}.{field}.date", at.location), date);
        let parts: Vec<String> = ["day", "month", "year"]
            .iter()
            .map(|k| d.opt_str(k).map(Option::unwrap_or_default))
            .collect::<Result<_>>()?;
        let text = parts
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if !text.is_empty() {
            return Ok(vec![text]);
        }
    }
    Ok(Vec::new())
}
