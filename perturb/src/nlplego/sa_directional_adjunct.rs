//! NLPLego's sentiment relation (seed-003 Eq. 4, `NLPLego-SA`): inserting an adjunct whose own
//! sentiment is `L` must not push the sentence away from `L`.
//!
//! One case per non-root node of the seed's derivation tree: its sources are the parent sentence
//! and the inserted adjunct alone (the model classifies both), its follow-up is the node. With
//! `L` the label the model gives the adjunct, the case fails when the probability of the other
//! classes rises by more than `max_opposite_rise` (0.1) from parent to child
//! ([`Expectation::Directional`]); for a binary model that is the paper's "the opposite class
//! gains more than 0.1". An adjunct labelled one of `neutral_labels` has no direction: the case
//! is not applicable ([`Precondition::SourceLabelNotIn`]).
//!
//! Mutation is by the masked LM when `[perturb.nlplego] masked_lm` is set (the paper's setting
//! for SA), by WordNet synonyms otherwise. A sentence without adjuncts yields no case.

use metamorph_data::{Case, Example, Expectation, Precondition, Result, Task};

use super::assembly::TreeBuilder;
use super::FAMILY;
use crate::edit::difference;
use crate::{case_id, MetamorphicRelation, Resources, Source};

/// The relation's name.
pub const NAME: &str = "NLPLego-SA";

/// The sentiment relation (see the module docs).
#[derive(Debug)]
pub struct DirectionalAdjunct {
    builder: TreeBuilder,
}

impl DirectionalAdjunct {
    /// The relation over the shared resources and `[perturb.nlplego]`.
    ///
    /// # Errors
    /// When a resource cannot be loaded or a setting is out of range.
    pub fn new(resources: &Resources) -> Result<Self> {
        Ok(DirectionalAdjunct {
            builder: TreeBuilder::for_parent_child_pairs(resources)?,
        })
    }
}

impl MetamorphicRelation for DirectionalAdjunct {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::Sentiment]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let example = source.example;
        let Some(text) = example.text.as_deref().filter(|t| !t.trim().is_empty()) else {
            return Ok(Vec::new());
        };
        let Some(tree) = self.builder.build(text, &|_, _| false)? else {
            return Ok(Vec::new());
        };
        let seed = self.builder.seed(&example.id, NAME);
        let input = |id: String, text: &str| {
            let mut e = Example::new(id, Task::Sentiment);
            e.origin = example.origin.clone();
            e.text = Some(text.to_string());
            e
        };
        let expectation = Expectation::Directional {
            parent: 0,
            part: 1,
            max_rise: self.builder.config().max_opposite_rise,
        };
        let precondition = (!self.builder.config().neutral_labels.is_empty()).then(|| {
            Precondition::SourceLabelNotIn {
                source: 1,
                labels: self.builder.config().neutral_labels.clone(),
            }
        });
        let mut cases = Vec::new();
        for (n, node) in tree.nodes.iter().enumerate().skip(1) {
            if cases.len() == self.builder.config().max_cases_per_source {
                break;
            }
            let (Some(p), Some(adjunct)) = (node.parent, tree.inserted_adjunct(n)) else {
                continue;
            };
            let parent_text = &tree.nodes[p].text;
            let parent = input(format!("{}:{NAME}:node{p}", example.id), parent_text);
            let part = input(format!("{}:{NAME}:adjunct{n}", example.id), &adjunct);
            let followup = input(case_id(&example.id, NAME, cases.len()), &node.text);
            let mut case = Case::new(FAMILY, NAME, vec![parent, part], followup, &expectation);
            if let Some(p) = &precondition {
                case = case.with_precondition(p);
            }
            case.edits = difference("text", parent_text, &node.text)
                .into_iter()
                .collect();
            case.seed = seed;
            case.built_from = Some(text.to_string());
            cases.push(case);
        }
        Ok(cases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::resources;

    fn sentiment(text: &str) -> Example {
        let mut e = Example::new("s1", Task::Sentiment);
        e.text = Some(text.into());
        e
    }

    #[test]
    fn the_papers_brave_attempt_becomes_a_directional_case() {
        // Table 4: "It's a attempt." + "brave": the adjunct is classified alone (the article
        // is repaired here).
        let relation = DirectionalAdjunct::new(resources()).unwrap();
        let example = sentiment("It's a brave attempt.");
        let cases = relation.follow_ups(&Source::unparsed(&example)).unwrap();
        assert!(!cases.is_empty());
        let unchanged = cases
            .iter()
            .find(|c| c.followup.text.as_deref() == Some("It's a brave attempt."))
            .expect("the unchanged insertion");
        assert_eq!(
            unchanged.sources[0].text.as_deref(),
            Some("It's an attempt.")
        );
        assert_eq!(unchanged.sources[1].text.as_deref(), Some("brave"));
        assert_eq!(
            unchanged.expectation().unwrap(),
            Expectation::Directional {
                parent: 0,
                part: 1,
                max_rise: 0.1
            }
        );
        assert!(matches!(
            unchanged.precondition().unwrap(),
            Some(Precondition::SourceLabelNotIn { source: 1, .. })
        ));
        let edit = &unchanged.edits[0];
        assert_eq!((edit.before.as_str(), edit.after.as_str()), ("n", " brave"));
        // Every other case inserts a one-word variant of "brave"; each carries the sentence it
        // was cut from, for the validity step's seam check.
        for c in &cases {
            assert_eq!(c.sources[0].id, "s1:NLPLego-SA:node0");
            assert_eq!(c.built_from.as_deref(), Some("It's a brave attempt."));
            let part = c.sources[1].text.as_deref().unwrap();
            assert_eq!(part.split_whitespace().count(), 1, "{part}");
        }
    }

    #[test]
    fn a_sentence_without_adjuncts_yields_nothing() {
        let relation = DirectionalAdjunct::new(resources()).unwrap();
        let example = sentiment("It works.");
        assert!(relation
            .follow_ups(&Source::unparsed(&example))
            .unwrap()
            .is_empty());
    }
}
