//! SIT4RE MR-R3, "Replacement with a co-related entity of a different type": the relation must
//! not change when the head (or tail) becomes a co-related entity of another type (expectation
//! `Equal`, no precondition).
//!
//! The paper's co-related entities are "the same entity mentions labeled with different entity
//! types" in different sentences of the corpus; its Table 7 failure keeps the text "US" and
//! changes only the type (NATIONALITY → COUNTRY), which type-masking models see as a new input.
//! From an entity pool ([`EntityPool`], one per dataset) we derive, for each type A, the surface
//! forms attested under A *and* under some other type B, and build per argument (head, then
//! tail):
//! * **type-only**: when the argument's own text is attested under another type B, the
//!   follow-up keeps the sentence and retypes the argument B (Table 7's "US");
//! * **replacement**: a seeded draw among the other forms attested under A and B (so the form
//!   fits the slot the way A mentions do), typed B; the text is edited as in MR-R1.
//!
//! **Typed data only** (TACRED): co-relation is the dataset annotators typing one mention two
//! ways. Untyped data (FewRel) gives no case: its model input has no types to change, and the
//! forms an NER pool holds under two types are NER errors ("Hindi" as PERSON), whose
//! replacements were nonsense in our review. Only name types are replaced
//! ([`super::NAME_TYPES`]; the paper's "46" → "46-years-old" NUMBER → DURATION example is a
//! rewrite a pool cannot supply), while a type-only change is made for any type since the text
//! does not move. Without a configured pool the relation yields nothing and logs one notice per
//! run.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use metamorph_data::{Case, Expectation, Result, Task};

use super::span_edit::{rewrite_argument, tokenize, Role};
use super::{
    followup_of, has_appositive, is_pronoun, rewrite_with_article, same_relation_case, usable_name,
    well_formed, Notice, FAMILY, NAME_TYPES, PLACE_TYPES,
};
use crate::lexicon::entity_pool::{EntityPool, SplitMix64};
use crate::{source_seed, MetamorphicRelation, Resources, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR-R3";

static NO_POOL: Notice = Notice::new();

/// For each type, its surface forms that are also attested under other types, with those types.
type Corelated = BTreeMap<String, Vec<(String, Vec<String>)>>;

/// SIT4RE MR-R3 (see the module docs).
#[derive(Debug)]
pub struct CorelatedEntity {
    corelated: Option<Corelated>,
    base_seed: u64,
}

/// The co-related forms of `pool` (see the module docs), in the pool's order.
fn corelated(pool: &EntityPool) -> Corelated {
    let mut types_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for t in pool.types() {
        for entry in pool.entries(t) {
            types_of.entry(entry.text.as_str()).or_default().insert(t);
        }
    }
    let mut out = Corelated::new();
    for t in pool.types() {
        let forms: Vec<(String, Vec<String>)> = pool
            .entries(t)
            .iter()
            .filter_map(|e| {
                let others: Vec<String> = types_of[e.text.as_str()]
                    .iter()
                    .filter(|o| **o != t)
                    .map(|o| o.to_string())
                    .collect();
                (!others.is_empty()).then(|| (e.text.clone(), others))
            })
            .collect();
        if !forms.is_empty() {
            out.insert(t.to_string(), forms);
        }
    }
    out
}

impl CorelatedEntity {
    /// The relation over `resources`' entity pool and seed.
    ///
    /// # Errors
    /// When the configured pool cannot be read.
    pub fn new(resources: &Resources) -> Result<Self> {
        Ok(Self::with_pool(resources.entity_pool()?, resources.seed()))
    }

    /// The relation over `pool` (none: no cases) with base seed `base_seed`.
    pub fn with_pool(pool: Option<Arc<EntityPool>>, base_seed: u64) -> Self {
        CorelatedEntity {
            corelated: pool.as_deref().map(corelated),
            base_seed,
        }
    }
}

impl MetamorphicRelation for CorelatedEntity {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::Relation]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let Some(corelated) = &self.corelated else {
            NO_POOL.once(
                NAME,
                "MR-R3 needs an entity pool: set [perturb] entity_pool (metamorph pool writes one); no MR-R3 cases",
            );
            return Ok(Vec::new());
        };
        let example = source.example;
        if !well_formed(example) {
            return Ok(Vec::new());
        }
        let mut cases = Vec::new();
        for role in Role::BOTH {
            let Some(entity_type) = role.of(example).and_then(|s| s.entity_type.clone()) else {
                continue;
            };
            let Some(forms) = corelated.get(&entity_type) else {
                continue;
            };
            let span = role.of(example).expect("well formed");
            let other = role.other().of(example).expect("well formed");
            let seed = source_seed(
                self.base_seed,
                &example.id,
                &format!("{NAME}/{}", role.as_str()),
            );
            let mut rng = SplitMix64::new(seed);
            // Type-only change: the argument's own text under another attested type.
            {
                if let Some((_, others)) = forms.iter().find(|(text, _)| *text == span.text) {
                    let new_type = others[rng.below(others.len())].clone();
                    let mut followup = followup_of(example, NAME, cases.len());
                    if let Some(s) = match role {
                        Role::Head => followup.head.as_mut(),
                        Role::Tail => followup.tail.as_mut(),
                    } {
                        s.entity_type = Some(new_type);
                    }
                    cases.push(
                        Case::new(
                            FAMILY,
                            NAME,
                            vec![example.clone()],
                            followup,
                            &Expectation::Equal,
                        )
                        .with_seed(seed),
                    );
                }
            }

            // Replacement by another co-related form (not of a pronoun, nor of a place pinned
            // by an appositive region: see MR-R1).
            let tokens = example.tokens.as_ref().expect("well formed");
            if !NAME_TYPES.contains(&entity_type.as_str())
                || is_pronoun(&span.text)
                || (PLACE_TYPES.contains(&entity_type.as_str())
                    && has_appositive(tokens, span.end as usize))
            {
                continue;
            }
            let same = |a: &str, b: &str| a.to_lowercase() == b.to_lowercase();
            let candidates: Vec<&(String, Vec<String>)> = forms
                .iter()
                .filter(|(text, _)| {
                    !same(text, &span.text)
                        && !same(text, &other.text)
                        && usable_name(&tokenize(text), &span.text)
                })
                .collect();
            if candidates.is_empty() {
                continue;
            }
            let (text, others) = candidates[rng.below(candidates.len())];
            let new_type = others[rng.below(others.len())].clone();
            let place = PLACE_TYPES.contains(&entity_type.as_str());
            let Some(rewrite) = rewrite_with_article(example, role, tokenize(text), place) else {
                continue;
            };
            let Some((followup, edit)) = rewrite_argument(example, role, &rewrite, Some(new_type))
            else {
                continue;
            };
            cases.push(same_relation_case(
                example,
                NAME,
                cases.len(),
                followup,
                edit,
                seed,
            ));
        }
        Ok(cases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;
    use crate::testing::entity_pool as pool;

    #[test]
    fn table_7_us_changes_only_its_type() {
        // "US actress Patricia Neal …": (Patricia Neal, US) per:origin; US NATIONALITY → COUNTRY.
        let (example, parses) = testing::relation(
            &[
                "US", "actress", "Patricia", "Neal", "died", "on", "Tuesday", ".",
            ],
            (2, 4, Some("PERSON")),
            (0, 1, Some("NATIONALITY")),
            Some("per:origin"),
        );
        let r3 = CorelatedEntity::with_pool(
            pool(&[("NATIONALITY", "US"), ("COUNTRY", "US"), ("PERSON", "Ann")]),
            0,
        );
        let cases = r3.follow_ups(&Source::new(&example, &parses)).unwrap();
        assert_eq!(cases.len(), 1, "{cases:#?}");
        let f = &cases[0].followup;
        assert_eq!(f.text, example.text);
        assert_eq!(f.tokens, example.tokens);
        assert_eq!(
            f.tail.as_ref().unwrap().entity_type.as_deref(),
            Some("COUNTRY")
        );
        assert_eq!(f.tail.as_ref().unwrap().text, "US");
        assert!(cases[0].edits.is_empty());
        assert_eq!(cases[0].expectation().unwrap(), Expectation::Equal);
    }

    #[test]
    fn a_corelated_form_replaces_the_mention_with_the_other_type() {
        let (example, parses) = testing::relation(
            &[
                "Jupp", ",", "a", "German", "engineer", ",", "works", "in", "the", "lab", ".",
            ],
            (0, 1, Some("PERSON")),
            (3, 4, Some("NATIONALITY")),
            Some("per:origin"),
        );
        let r3 = CorelatedEntity::with_pool(
            pool(&[
                ("NATIONALITY", "American"),
                ("COUNTRY", "American"),
                ("NATIONALITY", "German"),
            ]),
            0,
        );
        let cases = r3.follow_ups(&Source::new(&example, &parses)).unwrap();
        assert_eq!(cases.len(), 1);
        let f = &cases[0].followup;
        assert_eq!(
            f.text.as_deref(),
            Some("Jupp , an American engineer , works in the lab .")
        );
        let tail = f.tail.as_ref().unwrap();
        assert_eq!((tail.start, tail.end), (3, 4));
        assert_eq!(tail.entity_type.as_deref(), Some("COUNTRY"));
        assert_eq!(cases[0].edits[0].before, "a German");
    }

    #[test]
    fn without_corelated_forms_there_is_no_case() {
        let (example, parses) = testing::relation(
            &["Jupp", "works", "in", "Berlin", "."],
            (0, 1, Some("PERSON")),
            (3, 4, Some("CITY")),
            None,
        );
        let r3 = CorelatedEntity::with_pool(pool(&[("CITY", "Paris"), ("PERSON", "Ann")]), 0);
        assert!(r3
            .follow_ups(&Source::new(&example, &parses))
            .unwrap()
            .is_empty());
        assert!(CorelatedEntity::with_pool(None, 0)
            .follow_ups(&Source::new(&example, &parses))
            .unwrap()
            .is_empty());
    }
}
