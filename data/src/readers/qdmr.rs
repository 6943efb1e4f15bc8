//! BREAK QDMR CSV: `question_id,question_text,decomposition,operators,split`. Steps are split on
//! `;` with the leading `return ` removed; `#k` references are kept as they are.

use std::path::Path;

use crate::record::{Example, Task};
use crate::{Error, Result};

pub(super) fn read(path: &Path) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .from_path(path)
        .map_err(|e| Error::malformed(path, "line 1", "-", e.to_string()))?;
    let headers = reader
        .headers()
        .map_err(|e| Error::malformed(path, "line 1", "-", e.to_string()))?
        .clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| Error::malformed(path, "line 1", name, "missing column in the header"))
    };
    let (qid, text, decomposition) = (
        column("question_id")?,
        column("question_text")?,
        column("decomposition")?,
    );
    let operators = headers.iter().position(|h| h == "operators");
    let p = path.to_path_buf();
    Ok(reader.into_records().map(move |record| {
        let record = record.map_err(|e| {
            let line = e.position().map(|pos| pos.line()).unwrap_or(0);
            Error::malformed(&p, format!("line {line}"), "-", e.to_string())
        })?;
        let line = record.position().map(|pos| pos.line()).unwrap_or(0);
        let at =
            |field: &str, msg: String| Error::malformed(&p, format!("line {line}"), field, msg);
        let get = |i: usize, name: &str| -> Result<String> {
            let v = record.get(i).unwrap_or_default();
            if v.trim().is_empty() {
                return Err(at(name, "empty".into()));
            }
            Ok(v.to_string())
        };
        let mut ex = Example::new(get(qid, "question_id")?, Task::Qdmr);
        ex.question = Some(get(text, "question_text")?);
        let steps = parse_steps(&get(decomposition, "decomposition")?);
        for (i, step) in steps.iter().enumerate() {
            for reference in references(step) {
                if reference == 0 || reference > i {
                    return Err(at(
                        "decomposition",
                        format!(
                            "step {} refers to #{reference}, which is not an earlier step",
                            i + 1
                        ),
                    ));
                }
            }
        }
        if let Some(op) = operators {
            let ops = parse_operators(record.get(op).unwrap_or_default()).ok_or_else(|| {
                at(
                    "operators",
                    "expected a list like ['select', 'filter']".into(),
                )
            })?;
            if ops.len() != steps.len() {
                return Err(at(
                    "operators",
                    format!("{} operators for {} steps", ops.len(), steps.len()),
                ));
            }
            ex.operators = Some(ops);
        }
        ex.steps = Some(steps);
        ex.origin = Some(format!("{}:line {line}", p.display()));
        Ok(ex)
    }))
}

/// Splits a QDMR string into steps without the `return ` keyword.
pub(crate) fn parse_steps(decomposition: &str) -> Vec<String> {
    decomposition
        .split(';')
        .map(|s| {
            let s = s.trim();
            s.strip_prefix("return ").unwrap_or(s).trim().to_string()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// The step numbers `#k` referenced in a step.
fn references(step: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = step;
    while let Some(i) = rest.find('#') {
        rest = &rest[i + 1..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(k) = digits.parse() {
            out.push(k);
        }
        rest = &rest[digits.len()..];
    }
    out
}

/// Parses a Python-list-style operator string: `"['select', 'filter']"`.
fn parse_operators(s: &str) -> Option<Vec<String>> {
    let inner = s.trim().strip_prefix('[')?.strip_suffix(']')?;
    if inner.trim().is_empty() {
        return Some(Vec::new());
    }
    inner
        .split(',')
        .map(|op| {
            let op = op.trim();
            let unquoted = op
                .strip_prefix('\'')
                .and_then(|o| o.strip_suffix('\''))
                .or_else(|| op.strip_prefix('"').and_then(|o| o.strip_suffix('"')))?;
            Some(unquoted.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_operators() {
        assert_eq!(
            parse_steps("return Tibetan speaking countries ;return #1 that have a population"),
            vec!["Tibetan speaking countries", "#1 that have a population"]
        );
        assert_eq!(
            parse_operators("['select', 'filter']").unwrap(),
            vec!["select", "filter"]
        );
        assert_eq!(references("#1 and #12"), vec![1, 12]);
        assert!(parse_operators("select").is_none());
    }
}
