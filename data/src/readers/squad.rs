//! SQuAD 1.1 / 2.0 JSON: one example per question, with its paragraph as `context`.

use std::path::Path;

use serde_json::Value;

use super::{char_len, char_slice, read_json_document, At};
use crate::record::{Answer, Example, Task};
use crate::{Error, Result};

pub(super) fn read(path: &Path) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let doc = read_json_document(path)?;
    let root = At::new(path, "$", &doc);
    let articles = root.array("data")?;
    let mut out = Vec::new();
    for (a, article) in articles.iter().enumerate() {
        let at = At::new(path, format!("data[{a}]"), article);
        let title = at.opt_str("title")?;
        let paragraphs = match at.array("paragraphs") {
            Ok(p) => p,
            Err(e) => {
                out.push(Err(e));
                continue;
            }
        };
        for (p, paragraph) in paragraphs.iter().enumerate() {
            let at = At::new(path, format!("data[{a}].paragraphs[{p}]"), paragraph);
            let context = match at.text("context") {
                Ok(c) => c,
                Err(e) => {
                    out.push(Err(e));
                    continue;
                }
            };
            match at.array("qas") {
                Ok(qas) => {
                    for (q, qa) in qas.iter().enumerate() {
                        let at = At::new(path, format!("data[{a}].paragraphs[{p}].qas[{q}]"), qa);
                        out.push(question(&at, &context, title.as_deref()));
                    }
                }
                Err(e) => out.push(Err(e)),
            }
        }
    }
    Ok(out.into_iter())
}

fn question(at: &At<'_>, context: &str, title: Option<&str>) -> Result<Example> {
    let mut ex = Example::new(at.str("id")?, Task::Squad);
    ex.question = Some(at.text("question")?);
    ex.context = Some(context.to_string());
    ex.title = title.map(str::to_string);
    let answers = at.array("answers")?;
    let answers = answers
        .iter()
        .enumerate()
        .map(|(i, v)| answer(at, &format!("answers[{i}]"), v, context))
        .collect::<Result<Vec<_>>>()?;
    let impossible = match at.value.get("is_impossible") {
        None | Some(Value::Null) => answers.is_empty(),
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(at.error("is_impossible", "expected a boolean")),
    };
    ex.is_impossible = Some(impossible);
    ex.answers = Some(answers);
    ex.origin = Some(at.origin());
    Ok(ex)
}

fn answer(at: &At<'_>, field: &str, v: &Value, context: &str) -> Result<Answer> {
    let a = At::new(at.path, format!("{}.{field}", at.location), v);
    let text = a.str("text")?;
    let start = a.uint("answer_start")? as usize;
    let end = start + char_len(&text) as usize;
    if char_slice(context, start, end) != Some(text.as_str()) {
        return Err(Error::malformed(
            at.path,
            a.location.clone(),
            "answer_start",
            format!("offset {start} does not point at the answer text {text:?} in the context"),
        ));
    }
    Ok(Answer {
        text,
        start: Some(start as u32),
    })
}
