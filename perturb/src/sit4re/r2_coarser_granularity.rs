//! SIT4RE MR-R2, "Replacement with a coarser-grained type of entity": a city tail is replaced by
//! its state/province or its country, and the relation must move to the same granularity
//! ("Richard was born in San Francisco" `per:city_of_birth` → "… born in the United States"
//! `per:country_of_birth`). Expectation `MapLabel` over the schema's granularity map for the
//! chosen level; precondition: the *predicted* source label is one of the map's city-level keys.
//!
//! The paper resolves the city with the online Geopy geocoder; we use the offline GeoNames
//! gazetteer ([`Gazetteer::coarser`]), which knows first-level divisions only for US cities.
//! Choices where the paper is silent:
//! * **Which argument**: the tail only. Every granularity family has the place as its tail.
//! * **State or country**: both, one case each (state first, US cities only), each with its own
//!   map. Wikidata has no granularity split for most place properties: P19 "place of birth" stays
//!   P19 at any level (documented in `labels/wikidata.toml`); P131 becomes P17 at country level.
//! * **City detection**: TACRED's gold type `CITY`; for untyped data (FewRel) a mention the
//!   parse NER marks GPE exactly there and that the gazetteer knows as a city (and not as a
//!   country or state) whose primary GeoNames name it is, with at least 100,000 inhabitants. The gazetteer alone is not enough: it
//!   has towns called Alice, David and Hindi, and small towns share names with rivers and
//!   regions (Zambezi, Orkney) that the NER also calls GPE. The mention must also follow a
//!   place preposition ("in", "at", "from", …): "his wife Charlotte" and "the band Chicago" are
//!   NER GPEs too.
//! * **Grammar**: "the" is added before country names that take it (the United States, the
//!   Netherlands) unless "the" already precedes; an appositive place after the city ("Redmond ,
//!   Washington", "Hamburg , West Germany") is replaced together with it, since keeping it would
//!   give "Washington , Washington" or "Germany , West Germany". A capitalised appositive that
//!   names none of the city's coarser places ("Orkney , Scotland", "Cambridge , Massachusetts",
//!   "Toronto , Ontario") gives no case: the text's city is another place of that name, or sits
//!   in a region the gazetteer does not know ("born in Canada , Ontario").

use metamorph_data::{Case, Expectation, Precondition, Result, Task};

use super::labels::LabelSchema;
use super::span_edit::{rewrite_argument, tokenize, Rewrite, Role};
use super::{appositive_place, followup_of, has_appositive, ner, takes_the, well_formed, FAMILY};
use crate::lexicon::geography::{Gazetteer, PlaceKind};
use crate::{MetamorphicRelation, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR-R2";

/// The words a city follows when it is used as a place ("born in", "moved to"); untyped text
/// with a city name after anything else ("his wife Charlotte", "the band Chicago", "the Phoenix
/// constellation") is not taken as a city.
const PLACE_PREPOSITIONS: &[&str] = &[
    "in", "at", "near", "from", "to", "of", "outside", "into", "around", "inside",
];

/// The least population of a city recognised in untyped text: small towns share their names
/// with languages, rivers and regions that the NER calls GPE too (Hindi, Zambezi, Orkney,
/// Gallipoli).
const UNTYPED_MIN_POPULATION: u64 = 100_000;

/// SIT4RE MR-R2 (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct CoarserGranularity;

impl MetamorphicRelation for CoarserGranularity {
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
        let example = source.example;
        if !well_formed(example) {
            return Ok(Vec::new());
        }
        let schema = LabelSchema::of(example);
        if schema.granularity.is_empty() {
            return Ok(Vec::new());
        }
        let gazetteer = Gazetteer::shared()?;
        let tokens = example.tokens.as_ref().expect("well formed");
        let tail = example.tail.as_ref().expect("well formed");
        let head = example.head.as_ref().expect("well formed");
        let gpe = || {
            let parse = source.parse("text")?;
            let mentions = ner::mentions(example, parse, None);
            let m = ner::mention_at(&mentions, tokens, tail.start as usize, tail.end as usize)?;
            Some(m.ner_type == "GPE")
        };
        let is_city = match tail.entity_type.as_deref() {
            Some(t) => t == "CITY" && !gazetteer.coarser(&tail.text).is_empty(),
            None => {
                let after_preposition = tail.start > 0
                    && PLACE_PREPOSITIONS
                        .contains(&tokens[tail.start as usize - 1].to_lowercase().as_str());
                after_preposition
                    && gpe() == Some(true)
                    && gazetteer
                        .city_by_primary(&tail.text)
                        .is_some_and(|c| c.population >= UNTYPED_MIN_POPULATION)
                    && !gazetteer.is_country(&tail.text)
                    && !gazetteer.is_us_state(&tail.text)
            }
        };
        if !is_city {
            return Ok(Vec::new());
        }
        let places = gazetteer.coarser(&tail.text);
        if has_appositive(tokens, tail.end as usize)
            && !appositive_names_a_place_of(gazetteer, tokens, tail.end as usize, &places)
        {
            // "Orkney , Scotland", "Cambridge , Massachusetts", "Toronto , Ontario": the text
            // puts the city somewhere the gazetteer's place of that name is not, or names a
            // region it does not know; its coarser place would be wrong or left beside the
            // region ("in Canada , Ontario").
            return Ok(Vec::new());
        }
        let start = tail.start as usize;
        let mut cases = Vec::new();
        for place in places {
            let mut end = tail.end as usize;
            let new_last = place.name.split_whitespace().last().unwrap_or_default();
            if let Some(len) = appositive_place(gazetteer, tokens, end, &[new_last]) {
                let widened = end + 1 + len;
                if head.end as usize <= start || head.start as usize >= widened {
                    end = widened;
                }
            }
            let mut new = tokenize(&place.name);
            let mut mention = 0..new.len();
            let preceded_by_the = start > 0 && tokens[start - 1].eq_ignore_ascii_case("the");
            if takes_the(&place.name) && !preceded_by_the {
                new.insert(0, if start == 0 { "The" } else { "the" }.to_string());
                mention = 1..new.len();
            }
            let rewrite = Rewrite {
                start,
                end,
                tokens: new,
                mention,
            };
            let entity_type = tail.entity_type.as_ref().map(|_| {
                match place.kind {
                    PlaceKind::StateOrProvince => "STATE_OR_PROVINCE",
                    PlaceKind::Country => "COUNTRY",
                }
                .to_string()
            });
            let Some((mut followup, edit)) =
                rewrite_argument(example, Role::Tail, &rewrite, entity_type)
            else {
                continue;
            };
            followup.id = followup_of(example, NAME, cases.len()).id;
            followup.label = None;
            let map = schema.granularity_map(place.kind);
            let city_labels = map.keys().cloned().collect();
            cases.push(
                Case::new(
                    FAMILY,
                    NAME,
                    vec![example.clone()],
                    followup,
                    &Expectation::MapLabel { map },
                )
                .with_precondition(&Precondition::SourceLabelIn {
                    source: 0,
                    labels: city_labels,
                })
                .with_edits(vec![edit]),
            );
        }
        Ok(cases)
    }
}

/// Whether the capitalised appositive after the city (at token `at`, a comma) names one of
/// the gazetteer's coarser `places` of it: the state or country itself ("Redmond ,
/// Washington"), or a former name ending in the country's last word ("Hamburg , West
/// Germany").
fn appositive_names_a_place_of(
    gazetteer: &Gazetteer,
    tokens: &[String],
    at: usize,
    places: &[crate::lexicon::geography::Place],
) -> bool {
    places.iter().any(|place| {
        let last = place.name.split_whitespace().last().unwrap_or_default();
        // A name the appositive matches ends in the place's last word ("Washington",
        // "United States", "West Germany").
        appositive_place(gazetteer, tokens, at, &[last]).is_some_and(|len| tokens[at + len] == last)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing;

    fn run(example: &metamorph_data::Example, parses: &[metamorph_data::ParsedText]) -> Vec<Case> {
        CoarserGranularity
            .follow_ups(&Source::new(example, parses))
            .unwrap()
    }

    #[test]
    fn table_2_san_francisco_becomes_california_and_the_united_states() {
        let (example, parses) = testing::relation(
            &["Richard", "was", "born", "in", "San", "Francisco", "."],
            (0, 1, Some("PERSON")),
            (4, 6, Some("CITY")),
            Some("per:city_of_birth"),
        );
        let cases = run(&example, &parses);
        assert_eq!(cases.len(), 2);
        let state = &cases[0];
        assert_eq!(
            state.followup.text.as_deref(),
            Some("Richard was born in California .")
        );
        let country = &cases[1];
        assert_eq!(
            country.followup.text.as_deref(),
            Some("Richard was born in the United States .")
        );
        let tail = country.followup.tail.as_ref().unwrap();
        assert_eq!(
            (tail.start, tail.end, tail.text.as_str()),
            (5, 7, "United States")
        );
        assert_eq!(tail.entity_type.as_deref(), Some("COUNTRY"));
        let Expectation::MapLabel { map } = country.expectation().unwrap() else {
            panic!("map expectation");
        };
        assert_eq!(map["per:city_of_birth"], "per:country_of_birth");
        assert_eq!(
            map["org:city_of_headquarters"],
            "org:country_of_headquarters"
        );
        let Some(Precondition::SourceLabelIn { source: 0, labels }) =
            country.precondition().unwrap()
        else {
            panic!("label-set precondition");
        };
        assert_eq!(labels.len(), 4);
        assert!(labels.contains(&"per:cities_of_residence".to_string()));
        let Expectation::MapLabel { map } = state.expectation().unwrap() else {
            panic!("map expectation");
        };
        assert_eq!(map["per:city_of_birth"], "per:stateorprovince_of_birth");
    }

    #[test]
    fn an_appositive_place_goes_with_the_city() {
        let (example, parses) = testing::relation(
            &[
                "Microsoft",
                ",",
                "which",
                "is",
                "headquartered",
                "in",
                "Redmond",
                ",",
                "Washington",
                ",",
                "reported",
                "profits",
                ".",
            ],
            (0, 1, Some("ORGANIZATION")),
            (6, 7, Some("CITY")),
            Some("org:city_of_headquarters"),
        );
        let cases = run(&example, &parses);
        let texts: Vec<&str> = cases
            .iter()
            .map(|c| c.followup.text.as_deref().unwrap())
            .collect();
        assert_eq!(
            texts,
            [
                "Microsoft , which is headquartered in Washington , reported profits .",
                "Microsoft , which is headquartered in the United States , reported profits ."
            ]
        );
        assert_eq!(cases[1].edits[0].before, "Redmond , Washington");
    }

    #[test]
    fn untyped_cities_come_from_the_gazetteer_and_keep_the_wikidata_property() {
        let (example, parses) = testing::relation(
            &["Ada", "Lovelace", "was", "born", "in", "London", "."],
            (0, 2, None),
            (5, 6, None),
            Some("P19"),
        );
        let cases = run(&example, &parses);
        assert_eq!(cases.len(), 1);
        let f = &cases[0].followup;
        assert_eq!(
            f.text.as_deref(),
            Some("Ada Lovelace was born in the United Kingdom .")
        );
        assert!(f.tail.as_ref().unwrap().entity_type.is_none());
        let Expectation::MapLabel { map } = cases[0].expectation().unwrap() else {
            panic!("map expectation");
        };
        assert_eq!(map["P19"], "P19");
        assert_eq!(map["P131"], "P17");
    }

    #[test]
    fn non_cities_give_no_case() {
        let (example, parses) = testing::relation(
            &["Ada", "Lovelace", "was", "born", "in", "France", "."],
            (0, 2, Some("PERSON")),
            (5, 6, Some("COUNTRY")),
            Some("per:country_of_birth"),
        );
        assert!(run(&example, &parses).is_empty());
        let (example, parses) = testing::relation(
            &["Ada", "Lovelace", "was", "born", "in", "France", "."],
            (0, 2, None),
            (5, 6, None),
            Some("P19"),
        );
        assert!(run(&example, &parses).is_empty());
    }

    #[test]
    fn a_region_after_the_city_that_is_not_its_coarser_place_gives_no_case() {
        for (city, region) in [("Toronto", "Ontario"), ("Cambridge", "Massachusetts")] {
            let (example, parses) = testing::relation(
                &["Ada", "was", "born", "in", city, ",", region, "."],
                (0, 1, Some("PERSON")),
                (4, 5, Some("CITY")),
                Some("per:city_of_birth"),
            );
            let texts: Vec<String> = run(&example, &parses)
                .iter()
                .map(|c| c.followup.text.clone().unwrap())
                .collect();
            assert!(texts.is_empty(), "{city} , {region}: {texts:?}");
        }
    }

    #[test]
    fn a_former_country_after_the_city_goes_when_it_names_the_new_place() {
        let (example, parses) = testing::relation(
            &[
                "Angela", "Merkel", "was", "born", "in", "Hamburg", ",", "West", "Germany", ",",
                "in", "1954", ".",
            ],
            (0, 2, Some("PERSON")),
            (5, 6, Some("CITY")),
            Some("per:city_of_birth"),
        );
        let cases = run(&example, &parses);
        assert_eq!(cases.len(), 1);
        assert_eq!(
            cases[0].followup.text.as_deref(),
            Some("Angela Merkel was born in Germany , in 1954 .")
        );
    }
}
