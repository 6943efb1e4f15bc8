//! SIT4RE MR-C1, "Combine two pairs sharing the same head": source 1 is the example (h1, t1);
//! source 2 is a second pair of the same sentence with the same head, (h1, t2); the follow-up is
//! (t1, t2), and when the model predicted a combinable pair {R1, R2} (R1 symmetric) for the two
//! sources, it must predict source 2's relation for the follow-up ("Peterson leaves behind his
//! wife, Kelly, and their daughter Celine": (Peterson, Kelly) `per:spouse`, (Peterson, Celine)
//! `per:children` ⇒ (Kelly, Celine) `per:children`).
//!
//! The paper mines t2 by running NER over the sentence for entities of R2's tail type
//! (excluding h1 and t1) and **querying the model under test**, keeping a candidate only if the
//! model predicts R2. We keep that test without a feedback loop between stages: every candidate
//! becomes a case whose two sources are [the example, the candidate pair `<id>:MR-C1:src:<c>`],
//! and the model's verdict on both is a **precondition** the judge checks:
//! `All[SourceLabelIs{0, R1}, SourceLabelIn{1, the R2s combinable with R1 for this candidate's
//! type}]`, with expectation `EqualToSource{source: 1}`. A case holds one precondition, so a
//! candidate gives one case per R1 (grouping that R1's R2s); at most one of them applies to a
//! model's predictions. Combinable pairs and candidate types are data (`labels/*.toml`).
//!
//! Candidates are the parse NER's entities over `text` ([`super::ner`]), mapped to token spans
//! and to TACRED types (GPEs split by the gazetteer). On typed data an R1 applies only when the
//! arguments' types fit its namespace (`per:` PERSON, `org:` ORGANIZATION), and the
//! candidate is typed with its mapped type; untyped data stays untyped. Candidates equal in text
//! to h1 or t1 (another mention of the same entity) are left out with them. R1 is symmetric, so
//! on typed data both of source 1's arguments must fit its namespace.

use metamorph_data::{Case, EntitySpan, Expectation, Precondition, Result, Task};

use super::labels::LabelSchema;
use super::ner::{self, Mention};
use super::span_edit::Role;
use super::{followup_of, span, well_formed, FAMILY};
use crate::lexicon::geography::Gazetteer;
use crate::{case_id, MetamorphicRelation, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR-C1";

/// SIT4RE MR-C1 (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct SharedHeadCombination;

impl MetamorphicRelation for SharedHeadCombination {
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
        combinations(source, NAME, Role::Head)
    }
}

/// Whether relation `label` can have an argument typed `entity_type` in the position its
/// namespace types (`per:` → PERSON, `org:` → ORGANIZATION); untyped arguments always fit.
fn fits(label: &str, entity_type: Option<&str>) -> bool {
    match (label.split_once(':'), entity_type) {
        (Some(("per", _)), Some(t)) => t == "PERSON",
        (Some(("org", _)), Some(t)) => t == "ORGANIZATION",
        _ => true,
    }
}

/// MR-C1 (`shared` = head) and MR-C2 (`shared` = tail): see the module docs.
pub(crate) fn combinations(source: &Source<'_>, mr: &str, shared: Role) -> Result<Vec<Case>> {
    let example = source.example;
    if !well_formed(example) {
        return Ok(Vec::new());
    }
    let schema = LabelSchema::of(example);
    if schema.combinable(mr).next().is_none() {
        return Ok(Vec::new());
    }
    let Some(parse) = source.parse("text") else {
        return Ok(Vec::new());
    };
    let gazetteer = Gazetteer::shared()?;
    let tokens = example.tokens.as_ref().expect("well formed");
    let h1 = example.head.as_ref().expect("well formed");
    let t1 = example.tail.as_ref().expect("well formed");
    let typed = h1.entity_type.is_some() || t1.entity_type.is_some();

    // R1s in file order, each with its entries.
    let mut firsts: Vec<&str> = Vec::new();
    for c in schema.combinable(mr) {
        if !firsts.contains(&c.first.as_str())
            && fits(&c.first, h1.entity_type.as_deref())
            && fits(&c.first, t1.entity_type.as_deref())
        {
            firsts.push(&c.first);
        }
    }

    let overlaps =
        |m: &Mention, s: &EntitySpan| m.start < s.end as usize && m.end > s.start as usize;
    let same_text = |m: &Mention, s: &EntitySpan| m.text.eq_ignore_ascii_case(&s.text);
    let candidates: Vec<Mention> = ner::mentions(example, parse, Some(gazetteer))
        .into_iter()
        .filter(|m| m.tacred_type.is_some())
        .filter(|m| !overlaps(m, h1) && !overlaps(m, t1) && !same_text(m, h1) && !same_text(m, t1))
        .collect();

    let mut cases = Vec::new();
    for (c, candidate) in candidates.iter().enumerate() {
        let candidate_type = candidate.tacred_type.as_deref().expect("filtered");
        let new_type = typed.then(|| candidate_type.to_string());
        let new_span = span(tokens, candidate.start, candidate.end, new_type);
        // Source 2: the candidate pair, sharing source 1's head (C1) or tail (C2).
        let mut second = example.clone();
        second.id = format!("{}:{mr}:src:{c}", example.id);
        second.label = None;
        // The follow-up: (t1, t2) for C1, (h2, h1) for C2.
        let mut followup = followup_of(example, mr, 0);
        match shared {
            Role::Head => {
                second.tail = Some(new_span.clone());
                followup.head = Some(t1.clone());
                followup.tail = Some(new_span);
            }
            Role::Tail => {
                second.head = Some(new_span.clone());
                followup.head = Some(new_span);
                followup.tail = Some(h1.clone());
            }
        }
        for first in &firsts {
            let mut seconds: Vec<String> = Vec::new();
            for entry in schema.combinable(mr).filter(|e| e.first == *first) {
                if entry.candidate_types.iter().any(|t| t == candidate_type) {
                    for r2 in &entry.second {
                        if !seconds.contains(r2) {
                            seconds.push(r2.clone());
                        }
                    }
                }
            }
            if seconds.is_empty() {
                continue;
            }
            let mut followup = followup.clone();
            followup.id = case_id(&example.id, mr, cases.len());
            let precondition = Precondition::All {
                all: vec![
                    Precondition::SourceLabelIs {
                        source: 0,
                        label: first.to_string(),
                    },
                    Precondition::SourceLabelIn {
                        source: 1,
                        labels: seconds,
                    },
                ],
            };
            cases.push(
                Case::new(
                    FAMILY,
                    mr,
                    vec![example.clone(), second.clone()],
                    followup,
                    &Expectation::EqualToSource { source: 1 },
                )
                .with_precondition(&precondition),
            );
        }
    }
    Ok(cases)
}

/// Test helper: the (head, tail) texts of an example.
#[cfg(test)]
pub(crate) fn pair(e: &metamorph_data::Example) -> (String, String) {
    (
        e.head.as_ref().unwrap().text.clone(),
        e.tail.as_ref().unwrap().text.clone(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    #[test]
    fn table_3_peterson_kelly_celine() {
        // The paper's sentence with "Mary" for "Celine", which en_core_web_sm tags ORG.
        let (example, parses) = testing::relation(
            &[
                "Peterson", "leaves", "behind", "his", "wife", ",", "Kelly", ",", "and", "their",
                "daughter", "Mary", ".",
            ],
            (0, 1, Some("PERSON")),
            (6, 7, Some("PERSON")),
            Some("per:spouse"),
        );
        let cases = SharedHeadCombination
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        // Mary is the only other PERSON; R1 ∈ {spouse, siblings, alternate_names} each make a
        // case (org:alternate_names does not fit a PERSON head).
        assert_eq!(cases.len(), 3, "{cases:#?}");
        let spouse = &cases[0];
        assert_eq!(spouse.case_id, "r1:MR-C1:0");
        assert_eq!(spouse.source_ids, ["r1", "r1:MR-C1:src:0"]);
        assert_eq!(pair(&spouse.sources[1]), ("Peterson".into(), "Mary".into()));
        assert_eq!(spouse.sources[1].label, None);
        assert_eq!(pair(&spouse.followup), ("Kelly".into(), "Mary".into()));
        assert_eq!(spouse.followup.text, example.text);
        assert_eq!(
            spouse
                .followup
                .tail
                .as_ref()
                .unwrap()
                .entity_type
                .as_deref(),
            Some("PERSON")
        );
        assert_eq!(
            spouse.expectation().unwrap(),
            Expectation::EqualToSource { source: 1 }
        );
        assert_eq!(
            spouse.precondition().unwrap(),
            Some(Precondition::All {
                all: vec![
                    Precondition::SourceLabelIs {
                        source: 0,
                        label: "per:spouse".into()
                    },
                    Precondition::SourceLabelIn {
                        source: 1,
                        labels: vec!["per:children".into()]
                    },
                ]
            })
        );
        let Some(Precondition::All { all }) = cases[1].precondition().unwrap() else {
            panic!("conjunction");
        };
        assert_eq!(
            all[0],
            Precondition::SourceLabelIs {
                source: 0,
                label: "per:siblings".into()
            }
        );
    }

    #[test]
    fn no_parse_or_no_candidate_gives_no_case() {
        let (example, parses) = testing::relation(
            &["Peterson", "married", "Kelly", "."],
            (0, 1, Some("PERSON")),
            (2, 3, Some("PERSON")),
            None,
        );
        assert!(SharedHeadCombination
            .follow_ups(&Source::new(&example, &parses))
            .unwrap()
            .is_empty());
        assert!(SharedHeadCombination
            .follow_ups(&Source::unparsed(&example))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn wikidata_spouse_and_child() {
        let (example, parses) = testing::relation(
            &[
                "Peterson", "leaves", "behind", "his", "wife", ",", "Kelly", ",", "and", "their",
                "daughter", "Mary", ".",
            ],
            (0, 1, None),
            (6, 7, None),
            Some("P26"),
        );
        let cases = SharedHeadCombination
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        // R1 = P26 (spouse) or P3373 (sibling): untyped heads fit both.
        assert_eq!(cases.len(), 2);
        assert!(cases[0]
            .followup
            .tail
            .as_ref()
            .unwrap()
            .entity_type
            .is_none());
        let Some(Precondition::All { all }) = cases[0].precondition().unwrap() else {
            panic!("conjunction");
        };
        assert_eq!(
            all[1],
            Precondition::SourceLabelIn {
                source: 1,
                labels: vec!["P40".into()]
            }
        );
    }
}
