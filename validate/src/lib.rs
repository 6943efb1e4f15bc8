//! `metamorph-validate`: the validity step. Every follow-up gets a [`Validity`] — a score per
//! check, whether it passed, and a reason per failed check — and, by default, a case that fails
//! goes to the `rejected` output instead of being executed, so no alarm rests on a follow-up
//! that is not natural English or whose expected output is not what a reader would give.
//!
//! # The checks
//! Each reads only what a follow-up *changed*: every text field is compared with the text its
//! edits were made to ([`window`]), the sentences of the two are aligned, and each run of
//! changed sentences (with `context_sentences` more around it) is one window:
//! 1. **meaning** — the cosine of the window before and after under the sentence encoder
//!    (all-MiniLM-L6-v2 by default, any BERT-family encoder allowed);
//! 2. **sense** — the cosine of a substituted word's in-context embedding before and after,
//!    from the same encoder pass;
//! 3. **fluency** ([`word_fit`]) — a substituted word fits its neighbours about as well as the
//!    word it replaced, by the encoder's static word-piece vectors; or, with `[validate]
//!    masked_lm` set, the new words are about as likely to that masked LM as the old ones
//!    (pseudo-log-likelihood per word piece, [`MASKED_LM_FLUENCY`]);
//! 4. **structure** ([`structure`]) — the changed sentences re-parsed with the `[parse]`
//!    pipeline (loaded on first need) keep each sentence's root part of speech and the root's
//!    core arguments;
//! 5. **lm**, **lm_sentence** and **lm_ending** ([`language_model`]) — the causal LM's
//!    (SmolLM2-135M by default, `[validate] lm`) log-probability of the changed window after
//!    minus before, a constructed sentence's mean log-probability per token read whole, and
//!    the log-probability that each sentence of a source the relation built ends where it does
//!    (NLPLego's parents: one cut short ends where more is expected); and **lm_seam**
//!    ([`seam`]), where such a relation cut a phrase from the middle of the dataset text, how
//!    much less likely the words after the gap become than after the text's own words; and
//!    **lm_end_cut** ([`seam::end_cut`]), where a sentence of it ends at a cut, how much more
//!    the LM expects the dataset text's next word than the end;
//! 6. **spans** ([`spans`]) — every answer, argument and mention span covers whole words, takes
//!    in no possessive clitic, and a re-parsed mention is not headed by a verb;
//!
//! plus an empty follow-up text, which always fails. Thresholds are built in per kind of
//! relation ([`config::builtin_thresholds`], chosen on half of a labelled set and measured on
//! the other half with [`calibration`]; see `docs/validity/calibration`) and can be set for all
//! relations or one in `[validate]`. On the held-out half of the 3,610 judged follow-ups the
//! built-in LM checks reject 23% of the bad follow-ups while keeping 97% of the good ones: a
//! filter for gross breakage and a record of scores, not a guarantee.
//!
//! # Design
//! * **Its own crate, above `data`, `parse` and `models`, below every stage that writes text.**
//!   It needs the encoder (`models`) and the parser (`parse`) and nothing of the relations, so
//!   it depends on neither `perturb` nor `generate`; that lets `perturb`'s `preview` mark the
//!   follow-ups it would reject, and the pipeline run it after the last step that writes
//!   follow-up text (perturb, or generate when configured) and before execute.
//! * **Rejected, never dropped.** Failing cases are written as the `rejected` record kind (a
//!   case with its validity), so a run's outputs account for every case generated; `mode =
//!   "flag"` keeps every case and only records the scores.
//! * **Checks read the change, not the passage.** A one-word edit in a 300-word passage moves a
//!   whole-passage embedding by almost nothing; the changed sentence moves it measurably.
//! * **The masked LM is optional and uncalibrated.** No masked LM is packaged, so the default
//!   fluency check is the word-vector one; the pseudo-log-likelihood path runs when a user
//!   configures a checkpoint, with a conservative threshold to calibrate on their own labels.
//!
//! [`Validity`]: metamorph_data::Validity
#![deny(missing_docs)]

pub mod calibration;
pub mod config;
pub mod language_model;
pub mod seam;
pub mod spans;
pub mod stage;
pub mod structure;
pub mod validator;
pub mod window;
pub mod word_fit;

pub use config::{Mode, Thresholds, ValidateConfig, MASKED_LM_FLUENCY};
pub use stage::ValidateStage;
pub use validator::Validator;
