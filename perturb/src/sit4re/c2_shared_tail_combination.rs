//! SIT4RE MR-C2, "Combine two pairs sharing the same tail": source 1 is the example (h1, t1);
//! source 2 is a second pair of the same sentence with the same tail, (h2, t1); the follow-up is
//! **(h2, h1)** (source 2's head becomes the head, source 1's head the tail; not a plain swap),
//! and it must get source 2's relation when the model predicted a combinable pair {R1, R2}
//! (R1 symmetric) ("Liu Mingkang, chairman of the China Banking Regulatory Commission (CBRC),
//! …": (CBRC, China Banking Regulatory Commission) `org:alternate_names`, (Liu Mingkang, China
//! Banking Regulatory Commission) `per:employee_of` ⇒ (Liu Mingkang, CBRC) `per:employee_of`).
//!
//! The paper describes only the shared-head construction; we mirror it (R2's *head* type,
//! candidates excluding h1 and t1), with the same encoding of the model's test as a precondition
//! on both sources and expectation `EqualToSource{source: 1}` (see MR-C1's docs).

use metamorph_data::{Case, Result, Task};

use super::c1_shared_head_combination::combinations;
use super::span_edit::Role;
use super::FAMILY;
use crate::{MetamorphicRelation, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR-C2";

/// SIT4RE MR-C2 (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct SharedTailCombination;

impl MetamorphicRelation for SharedTailCombination {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::Relation]
    }

    fn parsed_fields(&self) -> &'static [&'static str] {
        &["text"]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        combinations(source, NAME, Role::Tail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sit4re::c1_shared_head_combination::pair;
    use crate::testing;
    use metamorph_data::{Expectation, Precondition};

    #[test]
    fn table_3_liu_mingkang_and_the_cbrc() {
        let tokens = [
            "Liu",
            "Mingkang",
            ",",
            "chairman",
            "of",
            "the",
            "China",
            "Banking",
            "Regulatory",
            "Commission",
            "-LRB-",
            "CBRC",
            "-RRB-",
            ",",
            "was",
            "the",
            "representative",
            "of",
            "the",
            "mainland",
            "to",
            "host",
            "a",
            "meeting",
            ".",
        ];
        let (example, parses) = testing::relation(
            &tokens,
            (11, 12, Some("ORGANIZATION")),
            (6, 10, Some("ORGANIZATION")),
            Some("org:alternate_names"),
        );
        let cases = SharedTailCombination
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        let liu: Vec<&Case> = cases
            .iter()
            .filter(|c| c.followup.head.as_ref().unwrap().text == "Liu Mingkang")
            .collect();
        assert_eq!(liu.len(), 1, "{cases:#?}");
        let case = liu[0];
        assert_eq!(
            pair(&case.sources[1]),
            (
                "Liu Mingkang".into(),
                "China Banking Regulatory Commission".into()
            )
        );
        assert_eq!(pair(&case.followup), ("Liu Mingkang".into(), "CBRC".into()));
        assert_eq!(
            case.followup.head.as_ref().unwrap().entity_type.as_deref(),
            Some("PERSON")
        );
        assert_eq!(
            case.expectation().unwrap(),
            Expectation::EqualToSource { source: 1 }
        );
        let Some(Precondition::All { all }) = case.precondition().unwrap() else {
            panic!("conjunction");
        };
        assert_eq!(
            all[0],
            Precondition::SourceLabelIs {
                source: 0,
                label: "org:alternate_names".into()
            }
        );
        let Precondition::SourceLabelIn { source: 1, labels } = &all[1] else {
            panic!("label set on source 2");
        };
        assert!(labels.contains(&"per:employee_of".to_string()));
    }
}
