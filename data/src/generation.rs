//! What a case asks of the `generate` stage before it can be executed.
//!
//! `perturb` writes a case whose follow-up still needs text from a generation model (a question
//! written back from a perturbed QDMR, a decomposition parsed from a question, a masked word
//! filled in) with a [`GenerationRequest`] in its `generation` column. The `generate` stage
//! completes the follow-up, clears the request and passes the case on; `execute` refuses cases
//! whose request is still open, so an unfinished follow-up never reaches a model under test.
//!
//! Requests are stored as tagged JSON (like expectations), so adding a kind changes no Arrow
//! schema.

use serde::{Deserialize, Serialize};

/// A piece of a case's follow-up that a generation model must produce.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum GenerationRequest {
    /// Break-Perturb-Build's *Build*: write a natural-language question for the QDMR `steps`
    /// (`#k` refers to step k, 1-based) into the follow-up's text field `field` (normally
    /// `question`).
    Question {
        /// The decomposition to verbalise.
        steps: Vec<String>,
        /// The follow-up text field that receives the question.
        field: String,
        /// The source question's own decomposition, for builders that edit the source question
        /// (`[generate.question] kind = "edit"`); absent in requests of older versions.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        original: Option<Vec<String>>,
        /// What the perturbation changed (`higher-than:5`, `comparison:highest->lowest`, …).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// Break-Perturb-Build's *Break*: parse the follow-up's text field `field` (normally
    /// `question`) into QDMR steps, written to the follow-up's `steps`.
    Decomposition {
        /// The follow-up text field holding the question.
        field: String,
    },
    /// Masked-LM word substitution: replace the characters `start..end` of the follow-up's text
    /// field `field` by the masked LM's best whole-word candidate that differs from the word
    /// there, has probability ≥ `min_prob` and (with `same_pos`) the same part of speech.
    Substitution {
        /// The follow-up text field to edit.
        field: String,
        /// Character offset where the replaced word starts (as in [`crate::Edit`]).
        start: usize,
        /// Character offset where it ends (exclusive).
        end: usize,
        /// How many candidates to consider.
        top_k: usize,
        /// The probability floor.
        min_prob: f32,
        /// Keep only candidates tagged with the replaced word's part of speech.
        same_pos: bool,
    },
}

impl GenerationRequest {
    /// The request's kind as written in its JSON `kind` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            GenerationRequest::Question { .. } => "question",
            GenerationRequest::Decomposition { .. } => "decomposition",
            GenerationRequest::Substitution { .. } => "substitution",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_through_tagged_json() {
        let requests = [
            GenerationRequest::Question {
                steps: vec!["return touchdowns".into(), "return number of #1".into()],
                field: "question".into(),
                original: None,
                detail: None,
            },
            GenerationRequest::Decomposition {
                field: "question".into(),
            },
            GenerationRequest::Substitution {
                field: "text".into(),
                start: 4,
                end: 9,
                top_k: 10,
                min_prob: 0.1,
                same_pos: true,
            },
        ];
        for request in requests {
            let json = serde_json::to_string(&request).unwrap();
            assert!(json.contains(&format!("\"kind\":\"{}\"", request.kind())));
            let back: GenerationRequest = serde_json::from_str(&json).unwrap();
            assert_eq!(back, request);
        }
    }

    #[test]
    fn unknown_kinds_and_fields_are_rejected() {
        assert!(serde_json::from_str::<GenerationRequest>(r#"{"kind":"poem"}"#).is_err());
        let extra = r#"{"kind":"decomposition","field":"question","beam":4}"#;
        assert!(serde_json::from_str::<GenerationRequest>(extra).is_err());
    }
}
