//! BoolQ JSON Lines, in Google's (`question`, `title`, `passage`, `answer`) and SuperGLUE's
//! (`question`, `passage`, `idx`, `label`) layouts; labels may be booleans or the strings
//! `"true"`/`"false"` (OpenCompass's copy) and become `yes`/`no`.

use std::path::Path;

use serde_json::Value;

use super::{json_lines, At};
use crate::record::{Example, Task};
use crate::Result;

pub(super) fn read(path: &Path) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let p = path.to_path_buf();
    Ok(json_lines(path)?.map(move |item| {
        let (n, value) = item?;
        let at = At::new(&p, format!("line {n}"), &value);
        let mut ex = Example::new(id(&at, n)?, Task::BoolQ);
        ex.question = Some(at.text("question")?);
        ex.context = Some(at.text("passage")?);
        ex.title = at.opt_str("title")?;
        ex.label = label(&at)?;
        ex.origin = Some(at.origin());
        Ok(ex)
    }))
}

fn id(at: &At<'_>, line: usize) -> Result<String> {
    match at.value.get("idx").or_else(|| at.value.get("id")) {
        None | Some(Value::Null) => Ok(format!("boolq-line{line}")),
        Some(Value::Number(n)) => Ok(format!("boolq-{n}")),
        Some(Value::String(s)) => Ok(format!("boolq-{s}")),
        Some(_) => Err(at.error("idx", "expected an integer or a string")),
    }
}

fn label(at: &At<'_>) -> Result<Option<String>> {
    let (field, value) = match (at.value.get("label"), at.value.get("answer")) {
        (Some(v), _) => ("label", v),
        (None, Some(v)) => ("answer", v),
        (None, None) => return Ok(None),
    };
    let yes = match value {
        Value::Null => return Ok(None),
        Value::Bool(b) => *b,
        Value::String(s) if s.eq_ignore_ascii_case("true") => true,
        Value::String(s) if s.eq_ignore_ascii_case("false") => false,
        other => {
            return Err(at.error(field, format!("unknown label {other}: expected true/false")));
        }
    };
    Ok(Some(if yes { "yes" } else { "no" }.to_string()))
}
