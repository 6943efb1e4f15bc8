//! ReplaceBool (paper §3.4, "Replace Boolean op."): the last step, a logical test over two
//! sub-results ("if both #1 and #2 are true", "if either #1 or #2 are true"), is flipped from
//! true to false (or back): "if both #1 and #2 are true" → "if both #1 and #2 are false".
//!
//! Answer ([`AnswerRule::NegateOriginal`]): the paper states only "a = yes (both true) ⇒
//! â = no". The code generalises it: for `both … and` the original must be yes and â is no; for
//! `either … or` the original must be no (both false) and â is yes. Other originals have no
//! rule (the evaluator's business).
//!
//! Variants ([`Variant`]): the **paper** (default) flips true ↔ false; the **code** also swaps
//! and ↔ or. The code answers that swap with the original answer unconditionally; that holds
//! only one way round, so we record the condition ([`AnswerRule::SameAsOriginal`]): "both" =
//! yes ⇒ "either" = yes, and "either" = no ⇒ "both" = no.
//!
//! The new step is written with the code's template: `if {both|either} #a {and|or} #b are
//! {true|false}`.

use super::answer::{AnswerRule, YesNo};
use super::operator::{identify_with, logical, Logical, Operator, Rules};
use super::qdmr::{Qdmr, Step};
use super::types::{BpbConfig, Perturbation, PerturbationKind, Variant};

/// The ReplaceBool perturbations of `qdmr`.
pub fn perturb(qdmr: &Qdmr, config: &BpbConfig) -> Vec<Perturbation> {
    let text = qdmr.last().text();
    if identify_with(&text, Rules::Bpb) != Some(Operator::Boolean) {
        return Vec::new();
    }
    let Some(original) = logical(&text) else {
        return Vec::new();
    };
    let requires = if original.and { YesNo::Yes } else { YesNo::No };
    let mut out = vec![Perturbation {
        kind: PerturbationKind::ReplaceBool,
        detail: format!("{}->{}", truth(original.truth), truth(!original.truth)),
        qdmr: qdmr.with_last(render(Logical {
            truth: !original.truth,
            ..original
        })),
        answer: AnswerRule::NegateOriginal { requires },
        constraint: None,
    }];
    if config.replace_bool == Variant::Code {
        out.push(Perturbation {
            kind: PerturbationKind::ReplaceBool,
            detail: if original.and { "and->or" } else { "or->and" }.into(),
            qdmr: qdmr.with_last(render(Logical {
                and: !original.and,
                ..original
            })),
            answer: AnswerRule::SameAsOriginal { requires },
            constraint: None,
        });
    }
    out
}

fn truth(t: bool) -> &'static str {
    if t {
        "true"
    } else {
        "false"
    }
}

fn render(l: Logical) -> Step {
    let (prefix, join) = if l.and {
        ("if both", "and")
    } else {
        ("if either", "or")
    };
    Step::parse(&format!(
        "{prefix} #{} {join} #{} are {}",
        l.refs.0,
        l.refs.1,
        truth(l.truth)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stenocereus() -> Qdmr {
        Qdmr::from_texts(&[
            "if Stenocereus include tree like plants",
            "if Pachypodium include tree like plants",
            "if both #1 and #2 are true",
        ])
        .unwrap()
    }

    #[test]
    fn paper_example_stenocereus() {
        // Table 1: "(3) if both #1 and #2 are true" → "…are false"; a = yes ⇒ â = no.
        let out = perturb(&stenocereus(), &BpbConfig::default());
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].qdmr.last().text(), "if both #1 and #2 are false");
        assert_eq!(out[0].detail, "true->false");
        assert_eq!(out[0].answer.from_original("yes").as_deref(), Some("no"));
        assert_eq!(out[0].answer.from_original("no"), None);
    }

    #[test]
    fn code_variant_swaps_and_or() {
        let config = BpbConfig {
            replace_bool: Variant::Code,
            ..Default::default()
        };
        let out = perturb(&stenocereus(), &config);
        assert_eq!(out[1].qdmr.last().text(), "if either #1 or #2 are true");
        assert_eq!(out[1].answer.from_original("yes").as_deref(), Some("yes"));
        assert_eq!(out[1].answer.from_original("no"), None);
        // either … or: true ↔ false needs a = no and gives yes.
        let either = Qdmr::from_texts(&["if a", "if b", "if either #1 or #2 are true"]).unwrap();
        let out = perturb(&either, &config);
        assert_eq!(out[0].qdmr.last().text(), "if either #1 or #2 are false");
        assert_eq!(out[0].answer.from_original("no").as_deref(), Some("yes"));
        assert_eq!(out[1].qdmr.last().text(), "if both #1 and #2 are true");
        assert_eq!(out[1].answer.from_original("no").as_deref(), Some("no"));
        // A non-logical boolean step: nothing.
        let plain = Qdmr::from_texts(&["x", "if #1 is american"]).unwrap();
        assert!(perturb(&plain, &config).is_empty());
    }
}
