//! BREAK QDMR CSV: `question_id,question_text,decomposition,operators,split`. Steps are split on
//! `;` with the leading `return ` removed; `#k` references are kept as they are.

use std::path::Path;

use super::table::Table;
use crate::record::{Example, Task};
use crate::Result;

pub(super) fn read(path: &Path) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let table = Table::csv(
        path,
        &[&["question_id"], &["question_text"], &["decomposition"]],
    )?;
    let has_operators = table.has("operators");
    Ok(table.map(move |row| {
        let mut ex = Example::new(row.text("question_id")?, Task::Qdmr);
        ex.question = Some(row.text("question_text")?);
        let steps = parse_steps(&row.text("decomposition")?);
        for (i, step) in steps.iter().enumerate() {
            for reference in references(step) {
                if reference == 0 || reference > i {
                    return Err(row.error(
                        "decomposition",
                        format!(
                            "step {} refers to #{reference}, which is not an earlier step",
                            i + 1
                        ),
                    ));
                }
            }
        }
        if has_operators {
            let ops = parse_operators(row.get("operators")?).ok_or_else(|| {
                row.error("operators", "expected a list like ['select', 'filter']")
            })?;
            if ops.len() != steps.len() {
                return Err(row.error(
                    "operators",
                    format!("{} operators for {} steps", ops.len(), steps.len()),
                ));
            }
            ex.operators = Some(ops);
        }
        ex.steps = Some(steps);
        ex.origin = Some(row.origin());
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
