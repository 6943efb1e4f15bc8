//! SIT4RE MR-S2, "Swap entities with an antisymmetric relation": the follow-up exchanges head
//! and tail (with their types) and the model must predict the **inverse** relation ("John is
//! Mary's father": `per:children` → swapped `per:parents`). Precondition `SourceLabelIn` the
//! inverse map's keys (the predicted source relation has a defined opposite); expectation
//! `MapLabel` over the inverse map (`labels/*.toml`; only children ↔ parents is the paper's).
//!
//! As in MR-S1, every source is swapped (eligibility is the model's prediction), except typed
//! pairs with an argument that is neither PERSON nor ORGANIZATION.

use metamorph_data::{Case, Expectation, Precondition, Result, Task};

use super::labels::LabelSchema;
use super::s1_symmetric_swap::swapped;
use super::FAMILY;
use crate::{MetamorphicRelation, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR-S2";

/// SIT4RE MR-S2 (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct AntisymmetricSwap;

impl MetamorphicRelation for AntisymmetricSwap {
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
        let example = source.example;
        let map = LabelSchema::of(example).inverse_map();
        if map.is_empty() {
            return Ok(Vec::new());
        }
        let Some(followup) = swapped(example, NAME) else {
            return Ok(Vec::new());
        };
        let has_inverse = Precondition::SourceLabelIn {
            source: 0,
            labels: map.keys().cloned().collect(),
        };
        Ok(vec![Case::new(
            FAMILY,
            NAME,
            vec![example.clone()],
            followup,
            &Expectation::MapLabel { map },
        )
        .with_precondition(&has_inverse)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    #[test]
    fn table_2_john_is_marys_father() {
        // "John is Mary 's father ." (h = John, t = Mary) → per:children; swapped → per:parents.
        let (example, parses) = testing::relation(
            &["John", "is", "Mary", "'s", "father", "."],
            (0, 1, Some("PERSON")),
            (2, 3, Some("PERSON")),
            Some("per:children"),
        );
        let cases = AntisymmetricSwap
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        assert_eq!(cases.len(), 1);
        let f = &cases[0].followup;
        assert_eq!(f.head.as_ref().unwrap().text, "Mary");
        assert_eq!(f.tail.as_ref().unwrap().text, "John");
        assert_eq!(f.text, example.text);
        let Expectation::MapLabel { map } = cases[0].expectation().unwrap() else {
            panic!("map expectation");
        };
        assert_eq!(map["per:children"], "per:parents");
        assert_eq!(map["per:parents"], "per:children");
        assert!(!map.contains_key("per:spouse"));
        let Some(Precondition::SourceLabelIn { labels, .. }) = cases[0].precondition().unwrap()
        else {
            panic!("label-set precondition");
        };
        assert_eq!(labels, map.keys().cloned().collect::<Vec<_>>());
    }

    #[test]
    fn wikidata_mother_becomes_child() {
        let (example, parses) = testing::relation(
            &["Ann", "is", "the", "daughter", "of", "Eve", "."],
            (0, 1, None),
            (5, 6, None),
            Some("P25"),
        );
        let cases = AntisymmetricSwap
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        let Expectation::MapLabel { map } = cases[0].expectation().unwrap() else {
            panic!("map expectation");
        };
        assert_eq!(map["P25"], "P40");
    }
}
