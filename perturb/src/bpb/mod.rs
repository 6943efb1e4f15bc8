//! Break-Perturb-Build (BPB, seed-002; Geva, Wolfson & Berant, TACL 2022): contrast sets for
//! reading comprehension made by perturbing a question's QDMR decomposition.
//!
//! The four stages are Break (question → QDMR, a seq2seq parser; BREAK's own QDMR is used when
//! present), Perturb (rule-based edits of the QDMR), Build (perturbed QDMR → question, a seq2seq
//! generator) and Answer (per-perturbation rules, else a step-by-step evaluator). This module
//! holds the rule parts:
//!
//! * [`qdmr`]: decompositions with typed `#k` references, BREAK's string form, removal of a step
//!   with re-pointing, orphan pruning and renumbering;
//! * [`operator`]: the 14 operators and BREAK's identification rules with their tie-break
//!   order;
//! * the six perturbations, one module each — [`append_bool`], [`change_last`],
//!   [`replace_arith`], [`replace_bool`], [`replace_comp`], [`prune_step`] — and
//!   [`perturbation::perturb`], which runs them all (each result is one edit of the original);
//! * [`answer`]: the answer rules and constraints each perturbation produces;
//! * [`evaluator`]: the step-by-step QDMR evaluator (symbolic steps computed here, context
//!   questions through a [`evaluator::StepAnswerer`]).
//!
//! Where the paper and the authors' code differ, each perturbation has a
//! [`perturbation::Variant`] in [`perturbation::BpbConfig`]; the default is the paper.
//!
//! [`relation`] registers them as metamorphic relations (family `bpb`: `ORIG` and one relation
//! per perturbation); their follow-up questions are written by the `generate` stage (*Build*):
//! by a trained generator, or by the rules of [`build`] (`[generate.question] kind = "edit"`).

pub mod answer;
pub mod append_bool;
pub mod build;
pub mod change_last;
pub mod evaluator;
pub mod operator;
pub mod perturbation;
pub mod prune_step;
pub mod qdmr;
pub mod relation;
pub mod replace_arith;
pub mod replace_bool;
pub mod replace_comp;
pub mod types;

pub use answer::{AnswerRule, Comparator, Constraint, YesNo};
pub use operator::{identify, identify_with, Operator, Rules};
pub use perturbation::{
    perturb, BpbConfig, Dataset, PerturbInput, Perturbation, PerturbationKind, Variant,
};
pub use qdmr::{Part, Qdmr, QdmrError, Step};
pub use relation::{BpbRelationConfig, ContrastSetRelation};

/// The family name of BPB relations (the judge's consistency metric knows it).
pub const FAMILY: &str = "bpb";
