//! Few-shot generation on an OpenAI-compatible chat/completions endpoint ([`OpenAiGenerator`]).
//!
//! # Design decisions
//! * **Transport**: [`metamorph_data::http::chat::ChatClient`] (retries, backoff, bounded
//!   concurrency), the same client `metamorph-execute`'s OpenAI adapter uses.
//! * **Few-shot generation** ([`OpenAiGenerator`]): a system message, then each example as a
//!   user turn (the model input) and an assistant turn (the output), then the input; greedy
//!   (temperature 0) by default. The reply is cleaned of reasoning blocks, code fences, labels
//!   and wrapping quotes; for decompositions, steps on separate (numbered) lines are joined
//!   into BREAK's one-line form.

use metamorph_data::http::chat::{ChatClient, ChatMessage};
use metamorph_data::Result;
use serde::Deserialize;

use crate::{DecodingOptions, Seq2Seq};

/// One few-shot example: a model input and the output it should give.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FewShot {
    /// The input (already in the form the user turn takes).
    pub input: String,
    /// The expected reply.
    pub output: String,
}

/// What a reply holds, which decides how it is cleaned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyShape {
    /// One line of text (a question).
    Line,
    /// A QDMR decomposition: steps on one line separated by `;`, or on separate lines.
    Steps,
}

/// A [`Seq2Seq`] behind a chat/completions endpoint, prompted with few-shot examples.
pub struct OpenAiGenerator {
    name: String,
    client: ChatClient,
    system: Option<String>,
    examples: Vec<FewShot>,
    shape: ReplyShape,
}

impl OpenAiGenerator {
    /// A generator named `name` talking to `client`, with an optional system message and
    /// few-shot `examples`; replies are cleaned as `shape` says.
    pub fn new(
        name: impl Into<String>,
        client: ChatClient,
        system: Option<String>,
        examples: Vec<FewShot>,
        shape: ReplyShape,
    ) -> Self {
        OpenAiGenerator {
            name: name.into(),
            client,
            system,
            examples,
            shape,
        }
    }

    /// The messages sent for `input`: system, then each example's user and assistant turns,
    /// then the input.
    pub fn messages(&self, input: &str) -> Vec<ChatMessage> {
        let mut messages = Vec::with_capacity(2 + 2 * self.examples.len());
        if let Some(system) = &self.system {
            messages.push(ChatMessage::new("system", system.clone()));
        }
        for example in &self.examples {
            messages.push(ChatMessage::new("user", example.input.clone()));
            messages.push(ChatMessage::new("assistant", example.output.clone()));
        }
        messages.push(ChatMessage::new("user", input));
        messages
    }
}

impl Seq2Seq for OpenAiGenerator {
    fn name(&self) -> &str {
        &self.name
    }

    /// Sends every input (decoding options do not apply: the server decodes, greedily at the
    /// default temperature 0, up to `max_tokens`).
    fn generate(&self, inputs: &[&str], _options: &DecodingOptions) -> Result<Vec<String>> {
        let indexed: Vec<(usize, &str)> = inputs.iter().copied().enumerate().collect();
        self.client.http().map_concurrent(&indexed, |(i, input)| {
            let reply = self
                .client
                .complete(&format!("input {i}"), &self.messages(input))?;
            Ok(clean_reply(&reply, self.shape))
        })
    }

    fn spent(&self) -> Option<metamorph_data::usage::Spent> {
        Some(self.client.spent())
    }
}

/// A chat reply as generated text: reasoning blocks, code fences, a leading label
/// (`Question:`, `Decomposition:`, `QDMR:`) and wrapping quotes removed; for
/// [`ReplyShape::Steps`], steps on separate lines (numbered or not) joined with ` ;`; for
/// [`ReplyShape::Line`], the first non-empty line.
pub fn clean_reply(reply: &str, shape: ReplyShape) -> String {
    let body = match reply.rfind("</think>") {
        Some(end) => &reply[end + "</think>".len()..],
        None if reply.trim_start().starts_with("<think>") => "",
        None => reply,
    };
    let lines: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("```"))
        .map(strip_label)
        .map(|l| {
            l.trim_matches(|c| matches!(c, '"' | '“' | '”' | '`'))
                .trim()
        })
        .filter(|l| !l.is_empty())
        .collect();
    match shape {
        ReplyShape::Line => lines.first().copied().unwrap_or("").to_string(),
        ReplyShape::Steps if lines.len() > 1 => lines
            .iter()
            .map(|l| strip_number(l).trim_end_matches(';').trim())
            .collect::<Vec<_>>()
            .join(" ;"),
        ReplyShape::Steps => lines.first().copied().unwrap_or("").to_string(),
    }
}

/// `Question: x` → `x` (the labels a few-shot prompt uses).
fn strip_label(line: &str) -> &str {
    for label in ["question:", "decomposition:", "qdmr:", "answer:"] {
        if line.len() >= label.len()
            && line.is_char_boundary(label.len())
            && line[..label.len()].eq_ignore_ascii_case(label)
        {
            return line[label.len()..].trim_start();
        }
    }
    line
}

/// `1. return x` / `2) return x` → `return x`.
fn strip_number(line: &str) -> &str {
    let rest = line.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() < line.len() {
        if let Some(r) = rest.strip_prefix('.').or_else(|| rest.strip_prefix(')')) {
            return r.trim_start();
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_cleaned_to_the_generated_text() {
        use ReplyShape::*;
        assert_eq!(
            clean_reply("\"How many yards did Rice run?\"", Line),
            "How many yards did Rice run?"
        );
        assert_eq!(
            clean_reply(
                "<think>hmm</think>\nQuestion: Who won?\nExplanation: …",
                Line
            ),
            "Who won?"
        );
        assert_eq!(
            clean_reply("```\nreturn yards ;return max of #1\n```", Steps),
            "return yards ;return max of #1"
        );
        assert_eq!(
            clean_reply("1. return yards;\n2) return max of @@1@@", Steps),
            "return yards ;return max of @@1@@"
        );
        assert_eq!(clean_reply("<think>unfinished", Line), "");
    }
}
