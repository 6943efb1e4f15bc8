//! MT4MRC (Chen, Jin, Xie, ESEC/FSE 2021; seed-000): metamorphic relations for yes/no machine
//! reading comprehension on BoolQ. Inversion relations (MR1-x) expect the answer to flip and
//! apply only when the model under test answered the source with Yes; consistency relations
//! (MR2-x) expect the same answer.

use metamorph_data::{Case, Example, Expectation, Precondition};

use crate::case_id;
use crate::edit::{apply, Replacement};

mod adjective_site;
pub mod mr1_1_antonymous_adjective;
pub mod mr1_2_tense_change;
pub mod mr1_3_order_change;
pub mod mr1_4_negation_tag_question;
pub mod mr2_1_synonymous_adjective;
pub mod mr2_2_adverbial_clause_movement;
pub mod mr2_3_voice_change;
mod sense_counts;

pub use mr1_1_antonymous_adjective::AntonymousAdjective;
pub use mr1_2_tense_change::TenseChange;
pub use mr1_3_order_change::OrderChange;
pub use mr1_4_negation_tag_question::NegationTagQuestion;
pub use mr2_1_synonymous_adjective::SynonymousAdjective;
pub use mr2_2_adverbial_clause_movement::AdverbialClauseMovement;
pub use mr2_3_voice_change::VoiceChange;

/// The family name shared by every MT4MRC relation.
pub const FAMILY: &str = "mt4mrc";

/// MT4MRC's settings (`[perturb.mt4mrc]`).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Mt4mrcConfig {
    /// A causal LM that *chooses* MR2-1's synonyms (issue 39): `smollm2-135m`, a GGUF file or
    /// an `hf:` spec; default none. With it, every lemma of every WordNet sense of the
    /// adjective is a candidate (not only a synonym in its dominant sense), and the LM keeps
    /// those whose question costs at most `lm_max_cost` nats against the original
    /// ([`crate::lexicon::lm_choice`]); see [`mr2_1_synonymous_adjective`].
    pub lm: Option<String>,
    /// The most a chosen synonym may cost (nats; default 7.95, the validity step's calibrated
    /// threshold for word substitutions).
    pub lm_max_cost: f32,
    /// At most this many synonyms chosen per adjective (default 2).
    pub lm_per_site: usize,
    /// MR2-3 with `lm`: where a phrase the parser hung on the verb follows the object, the
    /// passive takes it into the new subject ("The University of Texas at Austin was attended
    /// by …") instead of leaving it after the agent ("… by Elliot See at Austin") when the LM
    /// finds that sentence at least this many nats likelier (default 3.0); see
    /// [`mr2_3_voice_change`].
    pub voice_lm_margin: f32,
}

impl Default for Mt4mrcConfig {
    fn default() -> Self {
        Mt4mrcConfig {
            lm: None,
            lm_max_cost: crate::lexicon::lm_choice::DEFAULT_MAX_COST,
            lm_per_site: 2,
            voice_lm_margin: 3.0,
        }
    }
}

/// Whether a question asks to choose rather than yes or no ("are you married or single",
/// "were there more Burmese or Cambodian immigrants", "was either A or B born in Indiana"):
/// the inversion relations (MR1-1 … MR1-4) expect the yes/no answer to flip, which such a
/// question does not have, and negating "either" needs "neither". A reading of other questions
/// (WordNet's, BREAK's; 2026-11-30) found the relations' rewrites of them invalid.
pub(crate) fn asks_to_choose(tree: &crate::syntax::Tree<'_>) -> bool {
    (0..tree.len()).any(|i| matches!(tree.lower(i).as_str(), "or" | "either" | "whether"))
}

/// Whether a question asks about a supposed world ("Will Chick-fil-A hypothetically refuse
/// …?", "Could a dog hypothetically eat …?"), not a time or an event: moving it in time (MR1-2)
/// or swapping "before" and "after" in it (MR1-3) leaves its answer to the supposition
/// (StrategyQA's questions, 2026-12-01).
pub(crate) fn asks_hypothetically(tree: &crate::syntax::Tree<'_>) -> bool {
    (0..tree.len()).any(|i| tree.lower(i) == "hypothetically")
}

/// Whether `subject` names any member of a kind rather than one thing: a bare plural
/// ("rhinoceroses"), an indefinite or quantified noun ("a gladiator", "some people", "every
/// nurse") or a generic pronoun ("you", "someone", "people"). An event can happen again to a
/// kind's members, and a habit can fall on both sides of another event, so the tense (MR1-2)
/// and order (MR1-3) inversions do not flip such a question's answer (StrategyQA's questions
/// and CommonsenseQA 2.0's, 2026-12-01).
pub(crate) fn is_kind_level(tree: &crate::syntax::Tree<'_>, subject: usize) -> bool {
    let token = tree.token(subject);
    let determiners = || {
        tree.children(subject)
            .filter(|&c| tree.token(c).dep == "det")
    };
    matches!(
        tree.lower(subject).as_str(),
        "you"
            | "one"
            | "someone"
            | "somebody"
            | "anyone"
            | "anybody"
            | "everyone"
            | "everybody"
            | "people"
    ) && !determiners().any(|c| matches!(tree.lower(c).as_str(), "the" | "these" | "those"))
        || token.tag == "NNS"
            && !tree
                .children(subject)
                .any(|c| matches!(tree.token(c).dep.as_str(), "det" | "poss" | "nummod"))
        || determiners().any(|c| {
            matches!(
                tree.lower(c).as_str(),
                "a" | "an" | "some" | "any" | "every" | "each" | "all" | "most" | "many"
            )
        })
}

/// The `k`-th case of relation `mr` for `source`: the follow-up is the source with text field
/// `field` rewritten by `replacements` (character offsets), its gold label dropped (metamorphic
/// testing needs none) and the edits recorded. Inversion relations pass `yes_only` for the
/// paper's "the model answered the source with Yes" precondition. `None` when the replacements
/// overlap or fall outside the field (no case rather than a broken one).
pub(crate) fn edited_case(
    source: &Example,
    mr: &str,
    k: usize,
    field: &str,
    replacements: Vec<Replacement>,
    expectation: &Expectation,
    yes_only: bool,
) -> Option<Case> {
    let (text, edits) = apply(field, source.field(field)?, replacements)?;
    let mut followup = source.clone();
    followup.id = case_id(&source.id, mr, k);
    *followup.field_mut(field)? = Some(text);
    followup.label = None;
    let case = Case::new(FAMILY, mr, vec![source.clone()], followup, expectation).with_edits(edits);
    Some(if yes_only {
        case.with_precondition(&Precondition::SourceLabelIs {
            source: 0,
            label: "yes".into(),
        })
    } else {
        case
    })
}
