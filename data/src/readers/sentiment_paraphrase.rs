//! Sentence-level classification: sentiment (DynaSent JSON Lines, SST-2 TSV) and paraphrase
//! pairs (PAWS and QQP TSV). Labels are optional (metamorphic testing needs none) but, when
//! present, must be known: sentiment `positive`/`negative`/`neutral`/`mixed` (SST-2's `1`/`0`
//! become `positive`/`negative`), paraphrase `1`/`0`.

use std::path::Path;

use serde_json::Value;

use super::table::Table;
use super::{json_lines, At};
use crate::record::{Example, Task};
use crate::Result;

const SENTIMENT_LABELS: [&str; 4] = ["positive", "negative", "neutral", "mixed"];

fn sentiment_label(raw: &str) -> Option<&'static str> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "1" => Some("positive"),
        "0" => Some("negative"),
        other => SENTIMENT_LABELS.into_iter().find(|l| *l == other),
    }
}

pub(super) fn read_sentiment_jsonl(
    path: &Path,
) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let p = path.to_path_buf();
    Ok(json_lines(path)?.map(move |item| {
        let (n, value) = item?;
        let at = At::new(&p, format!("line {n}"), &value);
        let text_field = if value.get("sentence").is_some() {
            "sentence"
        } else {
            "text"
        };
        let id = match (at.opt_str("text_id")?, value.get("id")) {
            (Some(id), _) => id,
            (None, Some(Value::String(s))) => s.clone(),
            (None, Some(Value::Number(n))) => n.to_string(),
            _ => format!("sentiment-line{n}"),
        };
        let mut ex = Example::new(id, Task::Sentiment);
        ex.text = Some(at.text(text_field)?);
        let label_field = if value.get("gold_label").is_some() {
            "gold_label"
        } else {
            "label"
        };
        ex.label = match value.get(label_field) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(Value::Number(n)) if n.as_u64().is_some_and(|v| v <= 1) => {
                Some(if n.as_u64() == Some(1) { "1" } else { "0" })
            }
            Some(other) => return Err(at.error(label_field, format!("unknown label {other}"))),
        }
        .map(|raw| {
            sentiment_label(raw)
                .map(str::to_string)
                .ok_or_else(|| at.error(label_field, format!("unknown label {raw:?}")))
        })
        .transpose()?;
        ex.origin = Some(at.origin());
        Ok(ex)
    }))
}

pub(super) fn read_sentiment_tsv(
    path: &Path,
) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let tsv = Table::tsv(path, &[&["sentence", "text"]])?;
    let text_col = if tsv.has("sentence") {
        "sentence"
    } else {
        "text"
    };
    let has_label = tsv.has("label");
    let has_id = tsv.has("id");
    Ok(tsv.map(move |row| {
        let id = if has_id {
            row.text("id")?
        } else {
            format!("sentiment-line{}", row.line)
        };
        let mut ex = Example::new(id, Task::Sentiment);
        ex.text = Some(row.text(text_col)?);
        if has_label {
            let raw = row.get("label")?;
            ex.label = Some(
                sentiment_label(raw)
                    .ok_or_else(|| row.error("label", format!("unknown label {raw:?}")))?
                    .to_string(),
            );
        }
        ex.origin = Some(row.origin());
        Ok(ex)
    }))
}

pub(super) fn read_paraphrase_tsv(
    path: &Path,
) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let tsv = Table::tsv(
        path,
        &[&["sentence1", "question1"], &["sentence2", "question2"]],
    )?;
    let (a, b) = if tsv.has("sentence1") {
        ("sentence1", "sentence2")
    } else {
        ("question1", "question2")
    };
    let label_col = ["label", "is_duplicate"].into_iter().find(|c| tsv.has(c));
    let has_id = tsv.has("id");
    Ok(tsv.map(move |row| {
        let id = if has_id {
            row.text("id")?
        } else {
            format!("pair-line{}", row.line)
        };
        let mut ex = Example::new(id, Task::Paraphrase);
        ex.text = Some(row.text(a)?);
        ex.text_b = Some(row.text(b)?);
        if let Some(col) = label_col {
            let raw = row.get(col)?.trim();
            if raw != "0" && raw != "1" {
                return Err(row.error(col, format!("unknown label {raw:?}: expected 0 or 1")));
            }
            ex.label = Some(raw.to_string());
        }
        ex.origin = Some(row.origin());
        Ok(ex)
    }))
}
