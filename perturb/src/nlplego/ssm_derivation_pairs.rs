//! NLPLego's paraphrase relation (seed-003 Eq. 5, `NLPLego-SSM`): a sentence and a sentence
//! derived from it by inserting an adjunct do not mean the same, so a paraphrase model must
//! judge the pair *not duplicate* (label `0`).
//!
//! **Pairs.** The paper says "all sentence pairs with the derivation relation" (any ancestor and
//! descendant); the authors' code writes parent→child pairs only. This relation follows the
//! code: one case per tree edge, `(parent, child)` in that order. Ancestor pairs add many more
//! cases (a path of `n + 1` nodes has `n(n+1)/2` of them) whose difference is only larger.
//!
//! **Seeds.** Each text of a paraphrase pair (`text`, `text_b`, e.g. QQP's two questions) is a
//! seed sentence of its own, as in the authors' code; the case's source is the pair it came
//! from. Mutation is by the masked LM when `[perturb.nlplego] masked_lm` is set (the paper's
//! setting), by WordNet synonyms otherwise.
//!
//! **Where the premise fails** (review of seed 20261219, 41 of 50 natural, 44 valid):
//! * A pair labelled *not duplicate* whose second text has (almost) the first's words is a
//!   word-scrambled adversary (PAWS builds its non-paraphrases so: "Gavin Carr of the Associate
//!   Conductor", "his mother , Samuel Adams , married …"), often no English; its second text
//!   is no seed ([`scrambled`]).
//! * An inserted adjunct without a noun, proper noun or number ("specific terms", "the new
//!   government", "many places in between") seldom changes what the sentence says, so the
//!   pair may well be a paraphrase; such edges make no case ([`brings_content`]).
//! * Nor do insertions that restate what the sentence says (held-out review of seed
//!   20261229, 6 of 50 invalid): a place's state or country after the place ("died in
//!   Tiburon[, California]"), a bracketed alias or abbreviation ("Somatherapy[ (or Soma)]"),
//!   a phrase whose only noun is "time" ("[At the time,] it comprised ships"), and a phrase
//!   whose nouns the sentence already has ("Papua Province, Indonesia" … "[in Indonesia]",
//!   seed 20270102).
//! * On news (MSRP's pairs, read blind 2026-12-02, 6 of 60 invalid): a hyphenated epithet whose
//!   only noun opens the compound ("the [tech-heavy] Nasdaq", "[technology-laced]") and a move
//!   given again in other units ("fell 50 cents[, or 1.2 percent]") restate too.

use metamorph_data::{Case, Example, Expectation, Result, Task};

use super::assembly::TreeBuilder;
use super::disassembly::{Adjunct, AdjunctKind};
use super::FAMILY;
use crate::edit::difference;
use crate::{case_id, MetamorphicRelation, Resources, Source};

/// The relation's name (the paper's SSM: sentence semantic matching).
pub const NAME: &str = "NLPLego-SSM";

/// The label a paraphrase model gives a pair that is not a paraphrase.
pub const NOT_DUPLICATE: &str = "0";

/// The paraphrase relation (see the module docs).
#[derive(Debug)]
pub struct DerivationPairs {
    builder: TreeBuilder,
}

impl DerivationPairs {
    /// The relation over the shared resources and `[perturb.nlplego]`.
    ///
    /// # Errors
    /// When a resource cannot be loaded or a setting is out of range.
    pub fn new(resources: &Resources) -> Result<Self> {
        Ok(DerivationPairs {
            builder: TreeBuilder::for_parent_child_pairs(resources)?,
        })
    }
}

impl MetamorphicRelation for DerivationPairs {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::Paraphrase]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let example = source.example;
        let seed = self.builder.seed(&example.id, NAME);
        let expectation = Expectation::LabelIs {
            label: NOT_DUPLICATE.into(),
        };
        let mut cases = Vec::new();
        let skip_b = scrambled(example);
        for (k, text) in [&example.text, &example.text_b].into_iter().enumerate() {
            let Some(text) = text.as_deref().filter(|t| !t.trim().is_empty()) else {
                continue;
            };
            if k == 1 && skip_b {
                continue;
            }
            let Some(tree) = self.builder.build(text, &|_, _| false)? else {
                continue;
            };
            for node in tree.nodes.iter().skip(1) {
                if cases.len() == self.builder.config().max_cases_per_source {
                    return Ok(cases);
                }
                let Some(p) = node.parent else { continue };
                let Some(edit) = &node.edit else { continue };
                let adjunct = &tree.disassembly.adjuncts[edit.adjunct];
                if !brings_content(&tree.disassembly.parsed.tokens, adjunct) {
                    continue;
                }
                let parent = &tree.nodes[p].text;
                let mut followup =
                    Example::new(case_id(&example.id, NAME, cases.len()), Task::Paraphrase);
                followup.origin = example.origin.clone();
                followup.text = Some(parent.clone());
                followup.text_b = Some(node.text.clone());
                let mut case =
                    Case::new(FAMILY, NAME, vec![example.clone()], followup, &expectation);
                case.edits = difference("text_b", parent, &node.text)
                    .into_iter()
                    .collect();
                case.seed = seed;
                case.built_from = Some(text.to_string());
                cases.push(case);
            }
        }
        Ok(cases)
    }
}

/// The share of word types two texts must have in common for a *not duplicate* pair to read
/// as a word-scrambled adversary.
const SCRAMBLED_OVERLAP: f64 = 0.8;

/// Whether `example` is a pair labelled not duplicate whose texts share at least
/// [`SCRAMBLED_OVERLAP`] of their (lower-cased) word types: the second text is then a
/// scrambled copy of the first (see the module docs).
fn scrambled(example: &Example) -> bool {
    let (Some(a), Some(b)) = (example.text.as_deref(), example.text_b.as_deref()) else {
        return false;
    };
    if example.label.as_deref() != Some(NOT_DUPLICATE) {
        return false;
    }
    let words = |t: &str| -> std::collections::BTreeSet<String> {
        t.split_whitespace().map(str::to_lowercase).collect()
    };
    let (a, b) = (words(a), words(b));
    let union = a.union(&b).count();
    union > 0 && a.intersection(&b).count() as f64 >= SCRAMBLED_OVERLAP * union as f64
}

/// Whether an inserted adjunct's words hold a noun, a proper noun or a number: something the
/// sentence did not say before, unless the adjunct only restates it (see the module docs).
fn brings_content(tokens: &[metamorph_data::Token], adjunct: &Adjunct) -> bool {
    let words = &tokens[adjunct.core.clone()];
    // A common noun that only opens a hyphenated adjective ("the tech-heavy Nasdaq", "the
    // technology-laced index") is an epithet's, not news.
    let opens_a_compound = |k: usize| {
        adjunct.core.contains(&(k + 1))
            && tokens[k + 1].text == "-"
            && tokens[k].whitespace.is_empty()
    };
    let content = adjunct.core.clone().any(|k| {
        let t = &tokens[k];
        match t.pos.as_str() {
            "NOUN" => {
                !TIME_NOUNS.contains(&t.lemma.to_lowercase().as_str()) && !opens_a_compound(k)
            }
            "PROPN" | "NUM" => true,
            _ => false,
        }
    });
    let restates = qualifies_a_place(tokens, adjunct)
        || (adjunct.kind == AdjunctKind::Parenthetical && is_alias(words))
        || repeats_the_sentence(tokens, adjunct)
        || restates_a_measure(tokens, adjunct);
    content && !restates
}

/// Whether every noun, name and number of the adjunct is also in the rest of its sentence ("in
/// Indonesia" in "… in Papua Province , Indonesia", seed 20270102): it says nothing new.
fn repeats_the_sentence(tokens: &[metamorph_data::Token], adjunct: &Adjunct) -> bool {
    let content = |t: &metamorph_data::Token| matches!(t.pos.as_str(), "NOUN" | "PROPN" | "NUM");
    let rest: std::collections::HashSet<String> = tokens
        .iter()
        .enumerate()
        .filter(|(j, t)| !adjunct.tokens.contains(j) && content(t))
        .map(|(_, t)| t.lemma.to_lowercase())
        .collect();
    tokens[adjunct.core.clone()]
        .iter()
        .filter(|t| content(t))
        .all(|t| rest.contains(&t.lemma.to_lowercase()))
}

/// Whether the adjunct gives a measure just given in other units ("rose 17.26 points[, or
/// 1.06 percent]"): "or" and a number right after a number and its unit.
fn restates_a_measure(tokens: &[metamorph_data::Token], adjunct: &Adjunct) -> bool {
    let mut words = adjunct.tokens.clone().filter(|&k| tokens[k].pos != "PUNCT");
    let opens_with_or = words
        .next()
        .is_some_and(|k| tokens[k].text.eq_ignore_ascii_case("or"));
    let number_follows = words.next().is_some_and(|k| tokens[k].pos == "NUM");
    let mut before = (0..adjunct.tokens.start)
        .rev()
        .filter(|&k| tokens[k].pos != "PUNCT");
    let unit = before
        .next()
        .is_some_and(|k| matches!(tokens[k].pos.as_str(), "NOUN" | "SYM"));
    let number = before.next().is_some_and(|k| tokens[k].pos == "NUM");
    opens_with_or && number_follows && unit && number
}

/// Nouns that say when without saying anything new ("At the time, it comprised ships").
const TIME_NOUNS: [&str; 4] = ["time", "moment", "point", "period"];

/// Whether the adjunct is a place name right after a place name, its state or country
/// ("Tiburon, California", "Blauvelt, New York").
fn qualifies_a_place(tokens: &[metamorph_data::Token], adjunct: &Adjunct) -> bool {
    let place = |t: &metamorph_data::Token| matches!(t.ent_type.as_str(), "GPE" | "LOC");
    adjunct.tokens.start > 0
        && place(&tokens[adjunct.tokens.start - 1])
        && tokens[adjunct.core.clone()]
            .iter()
            .all(|t| place(t) || t.pos == "PUNCT")
}

/// Words that introduce another name for the same thing.
const ALIAS_WORDS: [&str; 8] = [
    "or", "also", "aka", "known", "as", "formerly", "short", "for",
];

/// Whether bracketed `words` are another name or an abbreviation for what precedes them
/// ("(or Soma)", "(ICM)").
fn is_alias(words: &[metamorph_data::Token]) -> bool {
    let names: Vec<&metamorph_data::Token> = words
        .iter()
        .filter(|t| t.pos != "PUNCT" && !ALIAS_WORDS.contains(&t.text.to_lowercase().as_str()))
        .collect();
    !names.is_empty()
        && names.len() <= 4
        && names.iter().all(|t| {
            matches!(t.pos.as_str(), "PROPN" | "X")
                || (t.text.len() > 1 && t.text.chars().all(|c| c.is_ascii_uppercase()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::resources;

    #[test]
    fn the_papers_quora_pair_is_a_parent_child_case_labelled_not_duplicate() {
        // Table 4: "Why did Trump purge members ?" vs "…members of his cabinet ?".
        let relation = DerivationPairs::new(resources()).unwrap();
        let mut example = Example::new("q1", Task::Paraphrase);
        example.text = Some("Why did Trump purge members of his cabinet?".into());
        example.text_b = Some("Why did Trump fire so many people?".into());
        let cases = relation.follow_ups(&Source::unparsed(&example)).unwrap();
        let pair = cases
            .iter()
            .find(|c| {
                c.followup.text_b.as_deref() == Some("Why did Trump purge members of his cabinet?")
            })
            .expect("the unchanged insertion of `of his cabinet`");
        assert_eq!(
            pair.followup.text.as_deref(),
            Some("Why did Trump purge members?")
        );
        assert_eq!(
            pair.built_from.as_deref(),
            Some("Why did Trump purge members of his cabinet?")
        );
        assert_eq!(
            pair.expectation().unwrap(),
            Expectation::LabelIs { label: "0".into() }
        );
        assert_eq!(pair.source_ids, ["q1"]);
        for c in &cases {
            let (a, b) = (
                c.followup.text.as_deref().unwrap(),
                c.followup.text_b.as_deref().unwrap(),
            );
            assert!(
                b.split_whitespace().count() > a.split_whitespace().count(),
                "{a} / {b}"
            );
        }
    }

    #[test]
    fn insertions_that_restate_make_no_case() {
        let relation = DerivationPairs::new(resources()).unwrap();
        for (text, restated) in [
            (
                "He was born in Brooklyn and died in Tiburon, California, in 1950.",
                ", California",
            ),
            (
                "Somatherapy (or Soma) was founded in Paris in the 1970s.",
                "(or Soma)",
            ),
            (
                "The village lies in Papua Province, Indonesia, near the coast in Indonesia.",
                " in Indonesia",
            ),
            // MSRP's news pairs (read blind): a stock epithet, the same move in other units.
            (
                "The technology-laced Nasdaq Composite Index rose 17.26 points, or 1.06 percent, to 1,640.06, based on the latest data.",
                "technology-laced ",
            ),
            (
                "The technology-laced Nasdaq Composite Index rose 17.26 points, or 1.06 percent, to 1,640.06, based on the latest data.",
                ", or 1.06 percent",
            ),
        ] {
            let mut example = Example::new("restates", Task::Paraphrase);
            example.text = Some(text.into());
            let cases = relation.follow_ups(&Source::unparsed(&example)).unwrap();
            assert!(!cases.is_empty(), "{text}: no case at all");
            for case in &cases {
                let (parent, child) = (
                    case.followup.text.as_deref().unwrap(),
                    case.followup.text_b.as_deref().unwrap(),
                );
                assert_ne!(child.replacen(restated, "", 1), parent, "{text}");
            }
        }
    }

    #[test]
    fn scrambled_adversaries_and_content_free_adjuncts_make_no_case() {
        let relation = DerivationPairs::new(resources()).unwrap();
        let mut example = Example::new("paws", Task::Paraphrase);
        example.text = Some("His father died in 1990 in the small town of Lyon .".into());
        example.text_b = Some("His father died in 1990 in the small Lyon of town .".into());
        example.label = Some("0".into());
        assert!(scrambled(&example));
        let cases = relation.follow_ups(&Source::unparsed(&example)).unwrap();
        assert!(!cases.is_empty());
        for case in &cases {
            let child = case.followup.text_b.as_deref().unwrap();
            assert!(!child.contains("Lyon of town"), "{child}");
        }
        example.label = Some("1".into());
        assert!(!scrambled(&example));
        // "Mandarin Chinese has specific terms": an adjective alone adds nothing checkable.
        let mut plain = Example::new("p", Task::Paraphrase);
        plain.text = Some("Mandarin Chinese has specific terms , and some slurs .".into());
        let cases = relation.follow_ups(&Source::unparsed(&plain)).unwrap();
        assert!(
            cases.iter().all(|c| c.followup.text.as_deref()
                != Some("Mandarin Chinese has terms , and some slurs .")),
            "{cases:?}"
        );
    }

    #[test]
    fn the_papers_other_quora_examples_are_derivation_pairs() {
        // Table 4: an adverbial clause and a relative clause are adjuncts of a question (the
        // relative clause with "which": en_core_web_sm reads the paper's "that" as a complement
        // clause of "ask", a basic element).
        let relation = DerivationPairs::new(resources()).unwrap();
        for (full, basic) in [
            (
                "How can I delete my Instagram account if I don't know my own password?",
                "How can I delete my Instagram account?",
            ),
            (
                "Why do people ask questions on Quora which a Google search could answer faster?",
                "Why do people ask questions on Quora?",
            ),
        ] {
            let mut example = Example::new("q", Task::Paraphrase);
            example.text = Some(full.into());
            let cases = relation.follow_ups(&Source::unparsed(&example)).unwrap();
            assert!(
                cases
                    .iter()
                    .any(|c| c.followup.text.as_deref() == Some(basic)
                        && c.followup.text_b.as_deref() == Some(full)),
                "{full}: {:?}",
                cases
                    .iter()
                    .map(|c| (c.followup.text.clone(), c.followup.text_b.clone()))
                    .collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn cases_stop_at_the_configured_cap() {
        let config = crate::PerturbConfig {
            nlplego: crate::nlplego::NlpLegoConfig {
                max_cases_per_source: 1,
                ..Default::default()
            },
            ..Default::default()
        };
        let relation = DerivationPairs::new(&Resources::from_config(&config)).unwrap();
        let mut example = Example::new("q1", Task::Paraphrase);
        example.text = Some("How can I quickly learn the old songs in Spain?".into());
        let cases = relation.follow_ups(&Source::unparsed(&example)).unwrap();
        assert_eq!(cases.len(), 1);
    }
}
