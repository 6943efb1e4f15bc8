//! Relation extraction: TACRED-style JSON (also Re-TACRED and TACREV, which share the schema)
//! and FewRel JSON. Both become token lists with `head` (subject) and `tail` (object) spans,
//! end-exclusive, and the relation as `label`.
//!
//! A TACRED record may carry an optional `clusters` field, not part of TACRED itself: coreference
//! clusters of the sentence as lists of `[start, end]` token spans, end inclusive like
//! `subj_end` (`[[[0, 0], [5, 5]]]`). They become the example's `clusters`, character spans into
//! `text` (SIT4RE's MR-R4 moves an argument to a coreferent mention).

use std::path::Path;

use serde_json::Value;

use super::{read_json_document, At};
use crate::record::{CharSpan, EntitySpan, Example, Task};
use crate::{Error, Result};

pub(super) fn read_tacred(path: &Path) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let doc = read_json_document(path)?;
    let Value::Array(items) = doc else {
        return Err(Error::malformed(
            path,
            "$",
            "-",
            "expected a JSON array of TACRED instances",
        ));
    };
    let p = path.to_path_buf();
    Ok(items.into_iter().enumerate().map(move |(i, item)| {
        let at = At::new(&p, format!("[{i}]"), &item);
        let tokens = at.strings("token")?;
        if tokens.is_empty() {
            return Err(at.error("token", "empty token list"));
        }
        let mut ex = Example::new(at.str("id")?, Task::Relation);
        ex.head = Some(span(&at, &tokens, "subj")?);
        ex.tail = Some(span(&at, &tokens, "obj")?);
        ex.label = Some(at.text("relation")?);
        ex.clusters = token_clusters(&at, &tokens)?;
        ex.text = Some(tokens.join(" "));
        ex.tokens = Some(tokens);
        ex.origin = Some(at.origin());
        Ok(ex)
    }))
}

/// The optional `clusters` field: clusters of `[start, end]` token spans (end inclusive), as
/// character spans into the tokens joined by single spaces.
fn token_clusters(at: &At<'_>, tokens: &[String]) -> Result<Option<Vec<Vec<CharSpan>>>> {
    if at.is_missing("clusters") {
        return Ok(None);
    }
    let mut starts = Vec::with_capacity(tokens.len());
    let mut at_char = 0u32;
    for t in tokens {
        starts.push(at_char);
        at_char += t.chars().count() as u32 + 1;
    }
    let end_of = |i: usize| starts[i] + tokens[i].chars().count() as u32;
    let bad = || {
        at.error(
            "clusters",
            "expected [[[start, end], …], …] token spans (end inclusive) inside the tokens",
        )
    };
    let mut clusters = Vec::new();
    for cluster in at.array("clusters")? {
        let mut mentions = Vec::new();
        for mention in cluster.as_array().ok_or_else(bad)? {
            let pair = mention
                .as_array()
                .filter(|p| p.len() == 2)
                .ok_or_else(bad)?;
            let (Some(start), Some(end)) = (pair[0].as_u64(), pair[1].as_u64()) else {
                return Err(bad());
            };
            let (start, end) = (start as usize, end as usize);
            if start > end || end >= tokens.len() {
                return Err(bad());
            }
            mentions.push(CharSpan {
                start: starts[start],
                end: end_of(end),
            });
        }
        clusters.push(mentions);
    }
    Ok(Some(clusters))
}

/// `<role>_start`, `<role>_end` (inclusive) and `<role>_type`.
fn span(at: &At<'_>, tokens: &[String], role: &str) -> Result<EntitySpan> {
    let start = at.uint(&format!("{role}_start"))? as usize;
    let end = at.uint(&format!("{role}_end"))? as usize + 1;
    if start >= end || end > tokens.len() {
        return Err(at.error(
            &format!("{role}_end"),
            format!(
                "span {start}..{} is outside the {} tokens",
                end - 1,
                tokens.len()
            ),
        ));
    }
    Ok(EntitySpan {
        text: tokens[start..end].join(" "),
        start: start as u32,
        end: end as u32,
        entity_type: at.opt_str(&format!("{role}_type"))?,
    })
}

pub(super) fn read_fewrel(path: &Path) -> Result<impl Iterator<Item = Result<Example>> + Send> {
    let doc = read_json_document(path)?;
    let Value::Object(relations) = doc else {
        return Err(Error::malformed(
            path,
            "$",
            "-",
            "expected an object keyed by relation id",
        ));
    };
    let mut out = Vec::new();
    for (relation, instances) in &relations {
        let Value::Array(instances) = instances else {
            out.push(Err(Error::malformed(
                path,
                relation.clone(),
                "-",
                "expected a list of instances",
            )));
            continue;
        };
        for (i, item) in instances.iter().enumerate() {
            let at = At::new(path, format!("{relation}[{i}]"), item);
            out.push(fewrel_instance(&at, relation, i));
        }
    }
    Ok(out.into_iter())
}

fn fewrel_instance(at: &At<'_>, relation: &str, i: usize) -> Result<Example> {
    let tokens = at.strings("tokens")?;
    if tokens.is_empty() {
        return Err(at.error("tokens", "empty token list"));
    }
    let mut ex = Example::new(format!("{relation}-{i}"), Task::Relation);
    ex.head = Some(fewrel_entity(at, &tokens, "h")?);
    ex.tail = Some(fewrel_entity(at, &tokens, "t")?);
    ex.label = Some(relation.to_string());
    ex.text = Some(tokens.join(" "));
    ex.tokens = Some(tokens);
    ex.origin = Some(at.origin());
    Ok(ex)
}

/// `[surface, wikidata id, [[token indices of mention 1], …]]`; the first mention is used and
/// must be a contiguous run of tokens.
fn fewrel_entity(at: &At<'_>, tokens: &[String], field: &str) -> Result<EntitySpan> {
    let bad = |msg: &str| at.error(field, msg.to_string());
    let parts = at.array(field)?;
    let mentions = parts
        .get(2)
        .and_then(Value::as_array)
        .ok_or_else(|| bad("expected [name, id, [[indices]]]"))?;
    let first = mentions
        .first()
        .and_then(Value::as_array)
        .ok_or_else(|| bad("has no mention"))?;
    let indices: Vec<usize> = first
        .iter()
        .map(|v| v.as_u64().map(|n| n as usize))
        .collect::<Option<_>>()
        .ok_or_else(|| bad("mention indices must be integers"))?;
    let (Some(&start), Some(&last)) = (indices.first(), indices.last()) else {
        return Err(bad("empty mention"));
    };
    let contiguous = indices.windows(2).all(|w| w[1] == w[0] + 1);
    if !contiguous || last >= tokens.len() {
        return Err(bad(&format!(
            "mention {indices:?} is not a contiguous span of the {} tokens",
            tokens.len()
        )));
    }
    Ok(EntitySpan {
        text: tokens[start..=last].join(" "),
        start: start as u32,
        end: last as u32 + 1,
        entity_type: None,
    })
}
