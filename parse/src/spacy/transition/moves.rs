//! The `moves` file of a parser or NER component: which (move, label) actions exist, in the
//! order that indexes the model's output layer.
//!
//! spaCy stores `{move: {label: frequency}}` as JSON inside msgpack and rebuilds the action list
//! in `TransitionSystem.initialize_actions`: moves in key order; within a move, labels by
//! descending (frequency, label); labels with negative frequency after all others.

use std::path::Path;

use super::super::msgpack;
use super::super::LoadError;

/// One action: a move code (system-specific) and its label (`""` for none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    /// The move code, e.g. arc-eager `2` = LEFT.
    pub move_code: u8,
    /// The label.
    pub label: String,
}

/// Reads a `moves` file into the ordered action list. `keep(move, label)` filters actions a
/// system does not create (the NER system drops MISSING and labelled OUT moves).
pub fn read_actions(
    path: &Path,
    keep: impl Fn(u8, &str) -> bool,
) -> Result<Vec<Action>, LoadError> {
    let value = msgpack::read_file(path)?;
    let json = msgpack::get(&value, "moves")
        .and_then(msgpack::key_str)
        .ok_or_else(|| LoadError::new(path, "no `moves` JSON string"))?;
    let moves: serde_json::Map<String, serde_json::Value> = serde_json::from_str(json)
        .map_err(|e| LoadError::new(path, format!("field `moves`: invalid JSON: {e}")))?;
    let mut keys: Vec<&String> = moves.keys().collect();
    keys.sort();
    let mut actions = Vec::new();
    let mut deferred: Vec<(i64, String, u8)> = Vec::new();
    for key in keys {
        let move_code: u8 = key.parse().map_err(|_| {
            LoadError::new(path, format!("field `moves`: move {key:?} is not a number"))
        })?;
        let labels = moves[key]
            .as_object()
            .ok_or_else(|| LoadError::new(path, format!("field `moves.{key}` is not an object")))?;
        let mut sorted: Vec<(i64, &str)> = Vec::new();
        for (label, freq) in labels {
            let freq = freq.as_i64().ok_or_else(|| {
                LoadError::new(
                    path,
                    format!("field `moves.{key}.{label}`: frequency is not an integer"),
                )
            })?;
            sorted.push((freq, label));
        }
        sorted.sort_by(|a, b| b.cmp(a));
        for (freq, label) in sorted {
            if freq < 0 {
                deferred.push((freq, label.to_string(), move_code));
            } else if keep(move_code, label)
                && !actions
                    .iter()
                    .any(|a: &Action| a.move_code == move_code && a.label == label)
            {
                actions.push(Action {
                    move_code,
                    label: label.to_string(),
                });
            }
        }
    }
    deferred.sort_by(|a, b| (b.0, &b.1).cmp(&(a.0, &a.1)));
    for (_, label, move_code) in deferred {
        if keep(move_code, &label)
            && !actions
                .iter()
                .any(|a| a.move_code == move_code && a.label == label)
        {
            actions.push(Action { move_code, label });
        }
    }
    Ok(actions)
}
