//! SIT4RE MR-R1, "Replacement with the same type of entity": replace the head (or the tail) with
//! another entity of the same type drawn at random from an entity pool; the relation must not
//! change (expectation `Equal`, no precondition: the paper states none).
//!
//! The paper pools entities by running Stanford CRF-NER over the corpus, whose 3/4/7-class
//! models do not emit TACRED's fine types; we pool the corpus's own gold typed spans (TACRED) or
//! the project NER's entities (untyped FewRel), as `metamorph-perturb pool` builds them
//! ([`crate::lexicon::entity_pool`]). Choices where the paper is silent:
//! * **Both arguments, one follow-up each**: the head's case first, then the tail's (each an
//!   independent seeded draw, `source_seed(seed, id, "MR-R1/head")` / `…/tail`), so a source
//!   gives up to two cases; case ids number the cases made, so a source whose head cannot be
//!   replaced has its tail's case as `:MR-R1:0` (the case's edit says which span changed).
//! * **`no_relation` sources count**: swapping a name for another of its type should not create
//!   a relation either, and the paper's Table 5 count (8,198, the largest) suggests it kept them.
//! * **Same type means same role** (issue 17): when the example's gold label names a relation
//!   and the pool holds at least [`MIN_ROLE_FORMS`] forms that filled the same argument role of
//!   that relation in the corpus, the replacement is drawn from those
//!   ([`crate::lexicon::entity_pool::role_key`]: "a Hindi song" takes another `P364/tail`, a
//!   language, where the NER pool once gave "a London song"); the form must also be typed in
//!   the pool and of the argument's kind (roles can mix kinds). Unlabelled data and TACRED's
//!   `no_relation` fall back to the type pool as below. The gold label only types the
//!   argument; the expectation stays the model's own source output.
//! * **Only name types** are replaced ([`super::NAME_TYPES`]); dates, numbers and other phrase
//!   types make ungrammatical text in another slot. The draw excludes both arguments' texts, and
//!   pool forms starting with a determiner or that are pronouns.
//! * An indefinite article in front of the mention is re-chosen ("a French" → "an American").
//! * Untyped data (FewRel) is typed by the parse NER: an argument is replaced only when the NER
//!   found an entity exactly there, and the follow-up stays untyped like its source. Since the
//!   pool is NER-typed too, a drawn form must be typed so in most of its mentions, and a PERSON
//!   form must have two tokens or more (one-word "persons" were mostly NER errors in review).
//!   Only PERSON, ORG and GPE mentions are replaced there, and no PERSON mention or form whose
//!   last word names a place or an organisation ("Monnow Bridge").
//! * A PERSON after "the" is not replaced ("the John Carter Cash"), nor a pronoun (TACRED-style
//!   data may type "he" PERSON; a name there breaks the coreference), nor a place followed by
//!   its region in apposition ("Hamburg , West Germany" would become "Redmond , West Germany").
//!   "the" before a place follows the new name ("in the US" → "in Iceland").
//!
//! Without a configured pool the relation yields nothing and logs one notice per run.

use std::sync::Arc;

use metamorph_data::{Case, Example, Expectation, Result, Task};

use super::labels::LabelSchema;
use super::span_edit::{rewrite_argument, tokenize, Role};
use super::{
    followup_of, has_appositive, is_pronoun, ner, pool_type, rewrite_with_article, takes_the,
    usable_name, well_formed, Notice, FAMILY, NAME_TYPES, PLACE_TYPES,
};
use crate::lexicon::entity_pool::EntityPool;
use crate::{source_seed, MetamorphicRelation, Resources, Source};

const NAME: &str = "MR-R1";

static NO_POOL: Notice = Notice::new();

/// SIT4RE MR-R1 (see the module docs).
#[derive(Debug)]
pub struct SameTypeReplacement {
    pool: Option<Arc<EntityPool>>,
    base_seed: u64,
}

impl SameTypeReplacement {
    /// The relation over `resources`' entity pool and seed.
    ///
    /// # Errors
    /// When the configured pool cannot be read.
    pub fn new(resources: &Resources) -> Result<Self> {
        Ok(Self::with_pool(resources.entity_pool()?, resources.seed()))
    }

    /// The relation over `pool` (none: no cases) with base seed `base_seed`.
    pub fn with_pool(pool: Option<Arc<EntityPool>>, base_seed: u64) -> Self {
        SameTypeReplacement { pool, base_seed }
    }
}

impl MetamorphicRelation for SameTypeReplacement {
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
        let Some(pool) = &self.pool else {
            NO_POOL.once(
                NAME,
                "MR-R1 needs an entity pool: set [perturb] entity_pool (metamorph-perturb pool writes one); no MR-R1 cases",
            );
            return Ok(Vec::new());
        };
        let example = source.example;
        if !well_formed(example) {
            return Ok(Vec::new());
        }
        let mentions = source
            .parse("text")
            .map(|p| ner::mentions(example, p, None));
        let mut cases = Vec::new();
        for role in Role::BOTH {
            let Some(entity_type) = pool_type(example, role, mentions.as_deref()) else {
                continue;
            };
            let span = role.of(example).expect("well formed");
            let by_role = role_label(example, pool, role);
            let allowed = match (by_role, &span.entity_type) {
                (_, Some(_)) => NAME_TYPES.contains(&entity_type.as_str()),
                // The role, not the NER, gives the kind: any name the NER found may be replaced.
                (Some(_), None) => {
                    NAME_TYPES.contains(&entity_type.as_str())
                        || ROLE_NAME_TYPES.contains(&entity_type.as_str())
                }
                (None, None) => UNTYPED_NAME_TYPES.contains(&entity_type.as_str()),
            };
            if !allowed || !fits_type(&entity_type, &span.text) {
                continue;
            }
            let other = role.other().of(example).expect("well formed");
            let tokens = example.tokens.as_ref().expect("well formed");
            if is_pronoun(&span.text)
                || (PLACE_TYPES.contains(&entity_type.as_str())
                    && has_appositive(tokens, span.end as usize))
            {
                continue;
            }
            let seed = source_seed(
                self.base_seed,
                &example.id,
                &format!("{NAME}/{}", role.as_str()),
            );
            let after_the =
                span.start > 0 && tokens[span.start as usize - 1].eq_ignore_ascii_case("the");
            if after_the && entity_type == "PERSON" {
                // "the Wda" typed PERSON is an NER error, and "the John Carter Cash" no English.
                continue;
            }
            // An NER pool's one-word PERSON forms are too often mistyped ("Graffiti", "AMD").
            let min_tokens = if span.entity_type.is_none() && entity_type == "PERSON" {
                2
            } else {
                1
            };
            let exclude = [span.text.as_str(), other.text.as_str()];
            let candidate = match by_role {
                Some(label) => sample_role_name(
                    pool,
                    (label, role.as_str()),
                    &entity_type,
                    &span.text,
                    &exclude,
                    seed,
                ),
                None => sample_name(pool, &entity_type, &span.text, &exclude, min_tokens, seed),
            };
            let Some(candidate) = candidate else {
                continue;
            };
            // A river or a sea takes "the" whatever the NER typed it ("over the River Tweed").
            let place = PLACE_TYPES.contains(&entity_type.as_str())
                || (by_role.is_some() && (takes_the(&span.text) || takes_the(&candidate)));
            let Some(rewrite) = rewrite_with_article(example, role, tokenize(&candidate), place)
            else {
                continue;
            };
            let Some((mut followup, edit)) =
                rewrite_argument(example, role, &rewrite, span.entity_type.clone())
            else {
                continue;
            };
            let k = cases.len();
            let id = followup_of(example, NAME, k).id;
            followup.id = id;
            followup.label = None;
            cases.push(
                Case::new(
                    FAMILY,
                    NAME,
                    vec![example.clone()],
                    followup,
                    &Expectation::Equal,
                )
                .with_edits(vec![edit])
                .with_seed(seed),
            );
        }
        Ok(cases)
    }
}

/// The kind of thing an entity type names, in either vocabulary, coarse enough that an NER's
/// confusions within a kind (a river typed LOC or GPE, a language NORP or LANGUAGE) do not
/// split it, fine enough that a league is no rower and a parliament no gulf.
fn kind(entity_type: &str) -> &str {
    match entity_type {
        "GPE" | "LOC" | "FAC" | "CITY" | "STATE_OR_PROVINCE" | "COUNTRY" | "LOCATION" => "place",
        "NORP" | "LANGUAGE" | "NATIONALITY" => "people or language",
        "ORG" | "ORGANIZATION" => "organization",
        other => other,
    }
}

/// The NER types of names, besides [`NAME_TYPES`], that R1 replaces in untyped data when the
/// argument's role types the replacement: film and book titles, languages, events, products.
const ROLE_NAME_TYPES: &[&str] = &["LANGUAGE", "WORK_OF_ART", "EVENT", "PRODUCT"];

/// The NER types R1 replaces in untyped data without a role pool: the reliable ones. In review, en_core_web_sm's
/// LOC, FAC and NORP on FewRel were mostly wrong (constellations, languages and rivers typed
/// into each other), so only PERSON, ORG and GPE mentions are replaced there.
const UNTYPED_NAME_TYPES: &[&str] = &["PERSON", "ORG", "GPE"];

/// Last words that name a place, a work or an organisation, not a person: a PERSON mention
/// or form ending so ("Monnow Bridge", "Cielo Drive", "Vignaharta Productions") is an NER error.
const NOT_PERSON_HEADS: &[&str] = &[
    "Airport",
    "Army",
    "Avenue",
    "Bank",
    "Bay",
    "Bridge",
    "Castle",
    "Church",
    "Club",
    "College",
    "Committee",
    "Company",
    "Corp",
    "Corp.",
    "Council",
    "Drive",
    "Festival",
    "Films",
    "Force",
    "Group",
    "Hall",
    "Highway",
    "Hospital",
    "Hotel",
    "Inc",
    "Inc.",
    "Island",
    "Islands",
    "Kill",
    "Lake",
    "League",
    "Line",
    "Ltd",
    "Ltd.",
    "Mountain",
    "Museum",
    "Overground",
    "Park",
    "Party",
    "Productions",
    "Railway",
    "Records",
    "River",
    "Road",
    "School",
    "Sea",
    "Square",
    "Station",
    "Street",
    "Studios",
    "Team",
    "Ulitsa",
    "University",
];

/// Whether `text` can be an entity of `entity_type` as far as its last word tells (see
/// [`NOT_PERSON_HEADS`]; other types are not checked).
fn fits_type(entity_type: &str, text: &str) -> bool {
    entity_type != "PERSON"
        || !text
            .split_whitespace()
            .last()
            .is_some_and(|w| NOT_PERSON_HEADS.contains(&w))
}

/// A seeded draw of a usable name (see [`usable_name`]) for the mention `like` of
/// `entity_type` from `pool`, excluding `exclude` (case-insensitive) and forms the pool has more
/// often under another type (an NER pool types "Egypt" NORP once and GPE many times; such a form
/// is no `entity_type` name) or that have fewer than `min_tokens` tokens. Redrawn from the
/// seed's stream up to 16 times past unfit forms.
pub(crate) fn sample_name(
    pool: &EntityPool,
    entity_type: &str,
    like: &str,
    exclude: &[&str],
    min_tokens: usize,
    seed: u64,
) -> Option<String> {
    redraw(
        exclude,
        seed,
        |refs, seed| pool.sample(entity_type, refs, seed),
        |form| {
            let own = pool.count(entity_type, form);
            let majority = pool
                .types_of(form)
                .into_iter()
                .all(|t| pool.count(t, form) <= own);
            let tokens = tokenize(form);
            majority
                && fits_type(entity_type, form)
                && tokens.len() >= min_tokens
                && usable_name(&tokens, like)
        },
    )
}

/// The first form `draw` gives (from the excluded forms and a seed of the stream seeded by
/// `seed`) that `fits`, redrawn past unfit forms up to 16 times, each unfit form excluded.
fn redraw<'p>(
    exclude: &[&str],
    seed: u64,
    draw: impl Fn(&[&str], u64) -> Option<&'p str>,
    fits: impl Fn(&str) -> bool,
) -> Option<String> {
    let mut rng = crate::lexicon::entity_pool::SplitMix64::new(seed);
    let mut excluded: Vec<String> = exclude.iter().map(|s| s.to_string()).collect();
    for _ in 0..16 {
        let refs: Vec<&str> = excluded.iter().map(String::as_str).collect();
        let form = draw(&refs, rng.next_u64())?;
        if fits(form) {
            return Some(form.to_string());
        }
        excluded.push(form.to_string());
    }
    None
}

/// The fewest distinct forms a role must have in the pool to be drawn from: with fewer, the
/// draw would mostly bring back the source's own argument's few companions, and the NER-typed
/// pool is the better fallback.
const MIN_ROLE_FORMS: usize = 4;

/// The gold label whose `role` forms the replacement is drawn from: the example's label when
/// it names a relation (not the schema's "no relation", whose arguments share no kind) and the
/// pool holds at least [`MIN_ROLE_FORMS`] forms of that role.
fn role_label<'a>(example: &'a Example, pool: &EntityPool, role: Role) -> Option<&'a str> {
    let label = example.label.as_deref()?;
    let schema = LabelSchema::of(example);
    (schema.no_relation.as_deref() != Some(label)
        && pool.role_entries(label, role.as_str()).len() >= MIN_ROLE_FORMS)
        .then_some(label)
}

/// A seeded draw of a usable name for the mention `like` among the forms that filled
/// `(label, role)` in the corpus, excluding `exclude`: same role means same kind ("Hindi" in
/// "P364/tail" is replaced by another language, never a city). Some roles mix kinds (FewRel's
/// "part of" joins gulfs to seas and episodes to series; a "member of" may be a person or a
/// country), so the form must also be typed in the pool, and of the argument's kind
/// (`entity_type`, gold or NER; [`kind`]). Redrawn from the seed's stream up to 16 times past unfit
/// forms.
pub(crate) fn sample_role_name(
    pool: &EntityPool,
    (label, role): (&str, &str),
    entity_type: &str,
    like: &str,
    exclude: &[&str],
    seed: u64,
) -> Option<String> {
    redraw(
        exclude,
        seed,
        |refs, seed| pool.sample_role(label, role, refs, seed),
        |form| {
            let same_kind = pool
                .majority_type(form)
                .is_some_and(|t| kind(t) == kind(entity_type));
            same_kind && fits_type(entity_type, form) && usable_name(&tokenize(form), like)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;
    use crate::testing::entity_pool as pool;

    #[test]
    fn table_2_french_filmmaker_becomes_american() {
        // "French[tail] filmmaker Claude[head] dies at 80." → per:origin, French → American.
        let (example, parses) = testing::relation(
            &[
                "A",
                "French",
                "filmmaker",
                "Claude",
                "Chabrol",
                "dies",
                "at",
                "80",
                ".",
            ],
            (3, 5, Some("PERSON")),
            (1, 2, Some("NATIONALITY")),
            Some("per:origin"),
        );
        let r1 = SameTypeReplacement::with_pool(
            pool(&[("NATIONALITY", "American"), ("NATIONALITY", "French")]),
            0,
        );
        let cases = r1.follow_ups(&Source::new(&example, &parses)).unwrap();
        // Only the tail can be replaced: the pool has no other PERSON.
        assert_eq!(cases.len(), 1);
        let case = &cases[0];
        assert_eq!(case.case_id, "r1:MR-R1:0");
        assert_eq!(case.expectation().unwrap(), Expectation::Equal);
        assert!(case.precondition().unwrap().is_none());
        let f = &case.followup;
        assert_eq!(
            f.text.as_deref(),
            Some("An American filmmaker Claude Chabrol dies at 80 .")
        );
        let tail = f.tail.as_ref().unwrap();
        assert_eq!(
            (tail.start, tail.end, tail.text.as_str()),
            (1, 2, "American")
        );
        assert_eq!(tail.entity_type.as_deref(), Some("NATIONALITY"));
        assert_eq!(f.head.as_ref().unwrap().text, "Claude Chabrol");
        assert_eq!(f.label, None);
        assert_eq!(case.edits[0].before, "A French");
        assert_eq!(case.edits[0].after, "An American");
    }

    #[test]
    fn both_arguments_are_replaced_in_two_cases_and_the_other_span_moves() {
        let (example, parses) = testing::relation(
            &["Tim", "Cook", "works", "for", "Apple", "."],
            (0, 2, Some("PERSON")),
            (4, 5, Some("ORGANIZATION")),
            Some("per:employee_of"),
        );
        let r1 = SameTypeReplacement::with_pool(
            pool(&[
                ("PERSON", "Ann"),
                ("PERSON", "the Pope"),
                ("ORGANIZATION", "General Electric Co."),
            ]),
            7,
        );
        let cases = r1.follow_ups(&Source::new(&example, &parses)).unwrap();
        assert_eq!(cases.len(), 2);
        let head = &cases[0].followup;
        assert_eq!(head.text.as_deref(), Some("Ann works for Apple ."));
        assert_eq!(head.tail.as_ref().unwrap().start, 3);
        let tail = &cases[1].followup;
        assert_eq!(
            tail.text.as_deref(),
            Some("Tim Cook works for General Electric Co. .")
        );
        assert_eq!(tail.tail.as_ref().unwrap().end, 7);
        // Same seed, same draws.
        assert_eq!(
            cases,
            r1.follow_ups(&Source::new(&example, &parses)).unwrap()
        );
    }

    #[test]
    fn untyped_arguments_are_typed_by_the_ner_and_stay_untyped() {
        let (example, parses) = testing::relation(
            &[
                "Barack", "Obama", "married", "Michelle", "Robinson", "in", "Chicago", ".",
            ],
            (0, 2, None),
            (3, 5, None),
            Some("P26"),
        );
        let r1 = SameTypeReplacement::with_pool(pool(&[("PERSON", "Laura Welch")]), 0);
        let cases = r1.follow_ups(&Source::new(&example, &parses)).unwrap();
        assert!(!cases.is_empty());
        for case in &cases {
            let f = &case.followup;
            assert!(f.text.as_deref().unwrap().contains("Laura Welch"));
            assert!(f.head.as_ref().unwrap().entity_type.is_none());
        }
    }

    #[test]
    fn a_labelled_argument_is_replaced_by_a_form_of_the_same_role() {
        // FewRel P364 "original language of work": the NER pool would offer a city for the
        // language; the role pool offers languages only.
        let (example, parses) = testing::relation(
            &[
                "Chaiyya", "Chaiyya", "is", "a", "Hindi", "song", "from", "the", "film", "Dil",
                "Se", ".",
            ],
            (0, 2, None),
            (4, 5, None),
            Some("P364"),
        );
        let mut builder = crate::lexicon::entity_pool::EntityPoolBuilder::new("gold");
        for form in ["London", "Paris", "Tokyo", "Madrid"] {
            builder.add("GPE", form);
            builder.add("NORP", form);
        }
        // The pool types the languages as the NER types "Hindi" here (en_core_web_sm says
        // GPE, as it does the cities: only the role keeps them apart).
        let hindi = ner::mentions(&example, &parses[0], None)
            .into_iter()
            .find(|m| m.text == "Hindi")
            .expect("the NER marks 'Hindi'");
        for form in ["Tamil", "Telugu", "Marathi", "English", "Hindi"] {
            builder.add_role("P364", "tail", form);
            builder.add(&hindi.ner_type, form);
        }
        // A role form the pool never typed is not drawn: its kind is unknown.
        builder.add_role("P364", "tail", "Bhojpuri");
        let pool = Some(Arc::new(builder.build()));
        let mut tails = Vec::new();
        for seed in 0..8 {
            let r1 = SameTypeReplacement::with_pool(pool.clone(), seed);
            let cases = r1.follow_ups(&Source::new(&example, &parses)).unwrap();
            let tail = cases.iter().find(|c| c.edits[0].before == "a Hindi");
            if let Some(case) = tail {
                tails.push(case.followup.tail.as_ref().unwrap().text.clone());
            }
        }
        assert!(!tails.is_empty());
        for tail in &tails {
            assert!(
                ["Tamil", "Telugu", "Marathi", "English"].contains(&tail.as_str()),
                "{tail}"
            );
        }
        // Without the label the role is unknown and the type pool is used.
        let mut unlabelled = example.clone();
        unlabelled.label = None;
        assert_eq!(
            role_label(&unlabelled, pool.as_deref().unwrap(), Role::Tail),
            None
        );
        assert_eq!(
            role_label(&example, pool.as_deref().unwrap(), Role::Tail),
            Some("P364")
        );
        assert_eq!(
            role_label(&example, pool.as_deref().unwrap(), Role::Head),
            None
        );
    }

    #[test]
    fn no_pool_or_no_candidate_gives_no_case() {
        let (example, parses) = testing::relation(
            &["Tim", "Cook", "works", "for", "Apple", "."],
            (0, 2, Some("PERSON")),
            (4, 5, Some("ORGANIZATION")),
            None,
        );
        let source = Source::new(&example, &parses);
        assert!(SameTypeReplacement::with_pool(None, 0)
            .follow_ups(&source)
            .unwrap()
            .is_empty());
        let only_self = pool(&[("PERSON", "Tim Cook"), ("ORGANIZATION", "apple")]);
        assert!(SameTypeReplacement::with_pool(only_self, 0)
            .follow_ups(&source)
            .unwrap()
            .is_empty());
    }
}
