//! SIT4RE MR-S1, "Swap entities with a symmetric relation": the follow-up is the same sentence
//! with head and tail exchanged (their entity types travel with them); when the model predicted
//! a symmetric relation for the source, it must predict the same one for the swap ("Lily is
//! Mary's sister": `per:siblings` both ways). Precondition `SourceLabelIn` the schema's symmetric
//! set (`labels/*.toml`: the paper names spouse and siblings and treats `org:alternate_names` as
//! symmetric; the rest is ours); expectation `Equal`.
//!
//! Every source is swapped, since eligibility depends on the model's prediction, not on the gold
//! label; except that in typed TACRED data a pair is swapped only when both arguments are
//! PERSON or ORGANIZATION (TACRED subjects are never anything else, and no symmetric relation has
//! another tail type).

use metamorph_data::{Case, Example, Expectation, Precondition, Result, Task};

use super::labels::LabelSchema;
use super::{followup_of, well_formed, FAMILY};
use crate::{MetamorphicRelation, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR-S1";

/// SIT4RE MR-S1 (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct SymmetricSwap;

/// The follow-up of `example` with head and tail exchanged, id `case_id(.., mr, 0)`, or `None`
/// when the example is malformed or typed with a non-PERSON/ORGANIZATION argument.
pub(crate) fn swapped(example: &Example, mr: &str) -> Option<Example> {
    if !well_formed(example) {
        return None;
    }
    let subject_type = |t: Option<&str>| t.is_none_or(|t| t == "PERSON" || t == "ORGANIZATION");
    let (head, tail) = (example.head.as_ref()?, example.tail.as_ref()?);
    if !subject_type(head.entity_type.as_deref()) || !subject_type(tail.entity_type.as_deref()) {
        return None;
    }
    let mut followup = followup_of(example, mr, 0);
    std::mem::swap(&mut followup.head, &mut followup.tail);
    Some(followup)
}

impl MetamorphicRelation for SymmetricSwap {
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
        let schema = LabelSchema::of(example);
        if schema.symmetric.is_empty() {
            return Ok(Vec::new());
        }
        let Some(followup) = swapped(example, NAME) else {
            return Ok(Vec::new());
        };
        let symmetric = Precondition::SourceLabelIn {
            source: 0,
            labels: schema.symmetric.clone(),
        };
        Ok(vec![Case::new(
            FAMILY,
            NAME,
            vec![example.clone()],
            followup,
            &Expectation::Equal,
        )
        .with_precondition(&symmetric)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    #[test]
    fn table_2_lily_and_mary_swap() {
        // "Lily is Mary 's sister ." (h = Lily, t = Mary) → per:siblings.
        let (example, parses) = testing::relation(
            &["Lily", "is", "Mary", "'s", "sister", "."],
            (0, 1, Some("PERSON")),
            (2, 3, Some("PERSON")),
            Some("per:siblings"),
        );
        let cases = SymmetricSwap
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        assert_eq!(cases.len(), 1);
        let f = &cases[0].followup;
        assert_eq!(f.text, example.text);
        assert_eq!(f.head, example.tail);
        assert_eq!(f.tail, example.head);
        assert_eq!(cases[0].expectation().unwrap(), Expectation::Equal);
        let Some(Precondition::SourceLabelIn { source: 0, labels }) =
            cases[0].precondition().unwrap()
        else {
            panic!("label-set precondition");
        };
        assert!(labels.contains(&"per:siblings".to_string()));
        assert!(labels.contains(&"per:spouse".to_string()));
        assert!(!labels.contains(&"per:children".to_string()));
    }

    #[test]
    fn types_travel_and_non_subject_types_are_not_swapped() {
        let (example, parses) = testing::relation(
            &["Apple", "hired", "Tim", "Cook", "."],
            (0, 1, Some("ORGANIZATION")),
            (2, 4, Some("PERSON")),
            None,
        );
        let cases = SymmetricSwap
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        let f = &cases[0].followup;
        assert_eq!(
            f.head.as_ref().unwrap().entity_type.as_deref(),
            Some("PERSON")
        );
        assert_eq!(
            f.tail.as_ref().unwrap().entity_type.as_deref(),
            Some("ORGANIZATION")
        );
        let (example, parses) = testing::relation(
            &["Ann", "was", "born", "in", "Rome", "."],
            (0, 1, Some("PERSON")),
            (4, 5, Some("CITY")),
            Some("per:city_of_birth"),
        );
        assert!(SymmetricSwap
            .follow_ups(&Source::new(&example, &parses))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn wikidata_examples_use_the_wikidata_set() {
        let (example, parses) = testing::relation(
            &["Ann", "married", "Bob", "."],
            (0, 1, None),
            (2, 3, None),
            Some("P26"),
        );
        let cases = SymmetricSwap
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        let Some(Precondition::SourceLabelIn { labels, .. }) = cases[0].precondition().unwrap()
        else {
            panic!("label-set precondition");
        };
        assert!(labels.contains(&"P26".to_string()));
    }
}
