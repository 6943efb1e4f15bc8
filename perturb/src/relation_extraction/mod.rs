//! SIT4RE (Sun, Ding, Huang, Zou, Jiang, *Algorithms* 2023; seed-001): metamorphic relations for
//! sentence-level relation extraction, R: (sentence, head, tail) → relation. Names follow the
//! paper's Table 1 (the body text's "MR-R1/R2" for the swap and combination relations are typos):
//!
//! * replacement: [`SameTypeReplacement`] (MR-R1), [`CoarserGranularity`] (MR-R2),
//!   [`CorelatedEntity`] (MR-R3), [`CoreferentialMention`] (MR-R4);
//! * swap: [`SymmetricSwap`] (MR-S1), [`AntisymmetricSwap`] (MR-S2);
//! * combination, two sources: [`SharedHeadCombination`] (MR-C1), [`SharedTailCombination`]
//!   (MR-C2).
//!
//! Examples are `Task::Relation` with `tokens`, `text` (the tokens joined by single spaces) and
//! `head`/`tail` token spans. Preconditions always read the **predicted** source label (the
//! paper's MG sets are per model); the label maps they use are data files per label schema
//! ([`labels`]). R1–R3 edit the text through [`span_edit`], R4, S1, S2, C1 and C2 only move
//! argument spans.

mod c1_shared_head_combination;
mod c2_shared_tail_combination;
pub mod labels;
pub mod ner;
mod r1_same_type_replacement;
mod r2_coarser_granularity;
mod r3_corelated_entity;
mod r4_coreferential_mention;
mod s1_symmetric_swap;
mod s2_antisymmetric_swap;
pub mod span_edit;

pub use c1_shared_head_combination::SharedHeadCombination;
pub use c2_shared_tail_combination::SharedTailCombination;
pub use r1_same_type_replacement::SameTypeReplacement;
pub use r2_coarser_granularity::CoarserGranularity;
pub use r3_corelated_entity::CorelatedEntity;
pub use r4_coreferential_mention::CoreferentialMention;
pub use s1_symmetric_swap::SymmetricSwap;
pub use s2_antisymmetric_swap::AntisymmetricSwap;

use std::sync::atomic::{AtomicBool, Ordering};

use metamorph_data::{EntitySpan, Example};

use crate::case_id;
use span_edit::Role;

/// The family name shared by every SIT4RE relation.
pub const FAMILY: &str = "sit4re";

/// A warning logged once per relation instance (one per run), not once per example.
#[derive(Debug, Default)]
pub(crate) struct Notice(AtomicBool);

impl Notice {
    /// Logs `message` for relation `mr` the first time only.
    pub(crate) fn once(&self, mr: &str, message: &str) {
        if !self.0.swap(true, Ordering::Relaxed) {
            tracing::warn!(mr, "{message}");
        }
    }
}

/// The follow-up skeleton: the source with the `k`-th case id and no gold label (metamorphic
/// testing compares the model with itself).
pub(crate) fn followup_of(source: &Example, mr: &str, k: usize) -> Example {
    let mut followup = source.clone();
    followup.id = case_id(&source.id, mr, k);
    followup.label = None;
    followup
}

/// Whether `example` is a well-formed relation example: tokens, `text` equal to the tokens
/// joined by spaces, and non-empty in-range head and tail spans that do not overlap.
pub(crate) fn well_formed(example: &Example) -> bool {
    let (Some(tokens), Some(text), Some(head), Some(tail)) = (
        example.tokens.as_ref(),
        example.text.as_deref(),
        example.head.as_ref(),
        example.tail.as_ref(),
    ) else {
        return false;
    };
    let ok = |s: &EntitySpan| s.start < s.end && s.end as usize <= tokens.len();
    ok(head)
        && ok(tail)
        && (head.end <= tail.start || tail.end <= head.start)
        && *text == tokens.join(" ")
}

/// The span `[start, end)` of `tokens` as an argument of type `entity_type`.
pub(crate) fn span(
    tokens: &[String],
    start: usize,
    end: usize,
    entity_type: Option<String>,
) -> EntitySpan {
    EntitySpan {
        text: tokens[start..end].join(" "),
        start: start as u32,
        end: end as u32,
        entity_type,
    }
}

/// The entity types R1 and R3 replace: names, for which a same-type swap keeps the sentence
/// grammatical. Dates, numbers, durations, causes of death, charges, URLs and MISC are left
/// out: their mentions are phrases whose syntax depends on the slot ("in 1954" vs "in last
/// year", "died of cancer" vs "died of a heart attack"). Both vocabularies are listed: TACRED's
/// gold types and the NER's OntoNotes types that untyped data (FewRel) is typed with.
pub(crate) const NAME_TYPES: &[&str] = &[
    // TACRED
    "PERSON",
    "ORGANIZATION",
    "LOCATION",
    "CITY",
    "STATE_OR_PROVINCE",
    "COUNTRY",
    "NATIONALITY",
    "RELIGION",
    "IDEOLOGY",
    "TITLE",
    // OntoNotes (spaCy)
    "ORG",
    "GPE",
    "LOC",
    "FAC",
    "NORP",
];

/// The type an argument has for the entity pool: its gold type when the data is typed, else the
/// NER type of the entity the parse found exactly there (see [`ner::mention_at`]).
pub(crate) fn pool_type(
    example: &Example,
    role: Role,
    mentions: Option<&[ner::Mention]>,
) -> Option<String> {
    let span = role.of(example)?;
    if let Some(t) = &span.entity_type {
        return Some(t.clone());
    }
    let tokens = example.tokens.as_ref()?;
    ner::mention_at(mentions?, tokens, span.start as usize, span.end as usize)
        .map(|m| m.ner_type.clone())
}

/// "a" or "an" before `word`, by its first sound as spelling suggests: vowels take "an" except
/// the "yoo"/"w" sounds (`European`, `University`, `one`); all-capital initialisms take "an"
/// when their first letter's name starts with a vowel sound (`an FBI agent`, `a NASA probe`
/// reads as a word and is rarer than initialisms in news text).
pub(crate) fn indefinite_article(word: &str) -> &'static str {
    let lower = word.to_lowercase();
    let letters: Vec<char> = word.chars().take_while(|c| c.is_alphanumeric()).collect();
    let initialism = letters.len() >= 2
        && letters.len() <= 5
        && letters
            .iter()
            .all(|c| c.is_uppercase() || c.is_ascii_digit());
    if initialism {
        return match letters[0] {
            'A' | 'E' | 'F' | 'H' | 'I' | 'L' | 'M' | 'N' | 'O' | 'R' | 'S' | 'X' => "an",
            '8' => "an",
            _ => "a",
        };
    }
    let yoo = [
        "uni", "use", "usu", "uti", "eu", "ewe", "one", "once", "uk", "ukr", "ura", "uru",
    ];
    if yoo.iter().any(|p| lower.starts_with(p)) {
        return "a";
    }
    if ["hour", "honest", "honor", "honour", "heir"]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return "an";
    }
    match lower.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        Some('8') => "an",
        _ => "a",
    }
}

/// A text rewrite of argument `role` by `new` tokens (all of them the new mention), widened to
/// the indefinite article in front of it when there is one ("a French filmmaker" → "an American
/// filmmaker"), which is re-chosen for the new first word.
pub(crate) fn rewrite_with_article(
    example: &Example,
    role: Role,
    new: Vec<String>,
) -> Option<span_edit::Rewrite> {
    let tokens = example.tokens.as_ref()?;
    let span = role.of(example)?;
    let other = role.other().of(example)?;
    let start = span.start as usize;
    let mut rewrite = span_edit::Rewrite::mention(span, new);
    if start > 0 && !((other.start as usize) < start && start - 1 < other.end as usize) {
        let before = &tokens[start - 1];
        let lower = before.to_lowercase();
        if lower == "a" || lower == "an" {
            let article = indefinite_article(&rewrite.tokens[0]);
            let article = crate::edit::match_case(before, article);
            rewrite.start -= 1;
            rewrite.tokens.insert(0, article);
            rewrite.mention = 1..rewrite.tokens.len();
        }
    }
    Some(rewrite)
}

/// Whether a surface form can stand as a name in the slot of another: not empty, not starting
/// with a determiner (the pool keeps "the" where the NER included it; in front of an existing
/// "the" or after a preposition it would read twice or oddly) and not a pronoun.
pub(crate) fn usable_name(tokens: &[String]) -> bool {
    let Some(first) = tokens.first() else {
        return false;
    };
    let first = first.to_lowercase();
    let determiners = ["the", "a", "an", "this", "that", "these", "those"];
    let pronouns = [
        "he", "she", "it", "they", "his", "her", "its", "their", "him", "them", "we", "i", "you",
    ];
    let pronoun = tokens.len() == 1 && pronouns.contains(&first.as_str());
    let determiner = determiners.contains(&first.as_str());
    !determiner
        && !pronoun
        && tokens
            .iter()
            .all(|t| t.chars().any(char::is_alphanumeric) || t == ",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_follow_the_first_sound() {
        assert_eq!(indefinite_article("American"), "an");
        assert_eq!(indefinite_article("French"), "a");
        assert_eq!(indefinite_article("European"), "a");
        assert_eq!(indefinite_article("FBI"), "an");
        assert_eq!(indefinite_article("CIA"), "a");
        assert_eq!(indefinite_article("Italian"), "an");
        assert_eq!(indefinite_article("University"), "a");
        assert_eq!(indefinite_article("honorary"), "an");
    }

    #[test]
    fn names_exclude_determiners_and_pronouns() {
        let t = |s: &str| span_edit::tokenize(s);
        assert!(usable_name(&t("Tim Cook")));
        assert!(!usable_name(&t("the Beatles")));
        assert!(!usable_name(&t("he")));
        assert!(!usable_name(&t("--")));
        assert!(!usable_name(&[]));
    }
}
