//! Where WordNet puts a place name: for each of the name's location senses (noun synsets of
//! the `noun.location` lexicographer file, "Victoria: a state in southeastern Australia"), the
//! countries and US states it lies in, read from its part-holonym chain (Victoria → Australia)
//! and, where that chain stops short, from its definition ("a city in western Germany").
//!
//! Why: the GeoNames gazetteer knows a name's most populous city, which is not always the
//! place a text means. KBP37's news sentences put "Peterborough", "Victoria" and "Ontario" in
//! Canada, "Mansfield" in Australia, "Surrey" in England, where the gazetteer's namesakes are
//! in England, Hong Kong, California and Canada (2026-12-01/02). WordNet lists the places a
//! reader thinks of first; a gazetteer city none of whose senses WordNet puts in the same
//! country is a namesake, not the place meant.
//!
//! A sense whose country cannot be told (no holonym, and no country named in its definition
//! that the gazetteer knows: "the capital of the Czech Republic" where the gazetteer says
//! "Czechia") contradicts nothing: the caller asks [`PlaceSenses::contradict_country`], which
//! is true only when *every* sense has a known country and none is the one asked about.

use super::geography::Gazetteer;
use super::wordnet::{Pos, Relation, Synset, WordNet};

/// WordNet's lexicographer file of locations (`noun.location`).
const NOUN_LOCATION: u8 = 15;

/// How many part-holonym steps are followed (city → state → country → continent is three).
const MAX_HOLONYM_STEPS: usize = 6;

/// The longest run of words of a definition looked up as a place name ("United Arab
/// Emirates").
const MAX_NAME_WORDS: usize = 4;

/// Where one location sense of a name lies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenseRegions {
    /// ISO alpha-2 codes of the countries it lies in.
    pub countries: Vec<String>,
    /// Postal codes of the US states it lies in.
    pub us_states: Vec<String>,
}

/// Where each location sense of a name lies (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlaceSenses {
    /// One entry per location sense, in WordNet's sense order.
    pub senses: Vec<SenseRegions>,
}

impl PlaceSenses {
    /// The location senses of `name` (a place name as written: "Los Angeles").
    pub fn of(wordnet: &WordNet, gazetteer: &Gazetteer, name: &str) -> PlaceSenses {
        let senses = wordnet
            .synsets(name, Pos::Noun)
            .into_iter()
            .filter(|s| s.lex_filenum() == NOUN_LOCATION)
            .map(|s| regions_of(gazetteer, s))
            .collect();
        PlaceSenses { senses }
    }

    /// Whether WordNet knows the name as a place and puts none of its senses in the country
    /// `iso`, every sense having a known country.
    pub fn contradict_country(&self, iso: &str) -> bool {
        !self.senses.is_empty()
            && self
                .senses
                .iter()
                .all(|s| !s.countries.is_empty() && !s.countries.iter().any(|c| c == iso))
    }

    /// Whether WordNet knows the name as a place and puts none of its senses in the US state
    /// `code`, every sense lying in a known state or outside the United States.
    pub fn contradict_us_state(&self, code: &str) -> bool {
        !self.senses.is_empty()
            && self.senses.iter().all(|s| {
                let outside_the_us =
                    !s.countries.is_empty() && !s.countries.iter().any(|c| c == "US");
                outside_the_us
                    || (!s.us_states.is_empty() && !s.us_states.iter().any(|c| c == code))
            })
    }

    /// Whether some sense lies in the country `iso` (a namesake there, for a text that names
    /// that country's places).
    pub fn in_country(&self, iso: &str) -> bool {
        self.senses
            .iter()
            .any(|s| s.countries.iter().any(|c| c == iso))
    }

    /// Whether some sense lies in the US state `code`.
    pub fn in_us_state(&self, code: &str) -> bool {
        self.senses
            .iter()
            .any(|s| s.us_states.iter().any(|c| c == code))
    }
}

/// The countries and US states of one location sense: every name on its part-holonym chain,
/// then (when the chain gives no country) the place names of its definition.
fn regions_of(gazetteer: &Gazetteer, sense: Synset<'_>) -> SenseRegions {
    let mut regions = SenseRegions::default();
    let mut frontier = vec![sense];
    let mut seen = vec![sense.id()];
    for _ in 0..=MAX_HOLONYM_STEPS {
        let mut next = Vec::new();
        for synset in frontier {
            for lemma in synset.lemma_names() {
                note_place(gazetteer, &lemma.replace('_', " "), &mut regions);
            }
            for holonym in synset.related(Relation::PartHolonym) {
                if !seen.contains(&holonym.id()) {
                    seen.push(holonym.id());
                    next.push(holonym);
                }
            }
        }
        frontier = next;
    }
    if regions.countries.is_empty() {
        let definition = sense.definition();
        let words: Vec<&str> = definition
            .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.'))
            .filter(|w| !w.is_empty())
            .collect();
        for start in 0..words.len() {
            for len in 1..=MAX_NAME_WORDS.min(words.len() - start) {
                let run = &words[start..start + len];
                if run.iter().all(|w| w.starts_with(char::is_uppercase)) {
                    note_place(gazetteer, &run.join(" "), &mut regions);
                }
            }
        }
    }
    if !regions.us_states.is_empty() && regions.countries.is_empty() {
        regions.countries.push("US".to_string());
    }
    regions
}

/// Adds `name` to `regions` when the gazetteer knows it as a country or a US state.
fn note_place(gazetteer: &Gazetteer, name: &str, regions: &mut SenseRegions) {
    if let Some(country) = gazetteer.country_by_name(name) {
        if !regions.countries.contains(&country.iso) {
            regions.countries.push(country.iso.clone());
        }
    }
    if let Some(state) = gazetteer.us_state(name) {
        if !regions.us_states.contains(&state.code) {
            regions.us_states.push(state.code.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::resources;

    fn senses(name: &str) -> PlaceSenses {
        let wordnet = resources().wordnet().unwrap();
        PlaceSenses::of(&wordnet, Gazetteer::shared().unwrap(), name)
    }

    #[test]
    fn places_each_sense_through_its_holonyms() {
        let victoria = senses("Victoria");
        // Texas, Seychelles, Australia, British Columbia; never Hong Kong.
        assert_eq!(victoria.senses.len(), 4, "{victoria:?}");
        assert!(victoria.contradict_country("HK"));
        assert!(!victoria.contradict_country("CA"));
        assert!(senses("Ontario").contradict_country("US"));
        assert!(senses("Mansfield").contradict_country("GB"));
        assert!(senses("Surrey").contradict_country("CA"));
        // Both Cambridges and both Aberdeens are known.
        let cambridge = senses("Cambridge");
        assert!(!cambridge.contradict_country("GB") && cambridge.in_country("US"));
        assert!(cambridge.in_us_state("MA"));
        assert!(!senses("Aberdeen").contradict_country("GB"));
        assert!(!senses("Los Angeles").contradict_country("US"));
        assert!(!senses("Los Angeles").contradict_us_state("CA"));
    }

    #[test]
    fn states_contradict_only_where_every_sense_has_one() {
        assert!(senses("Peoria").contradict_us_state("AZ"));
        assert!(senses("Concord").contradict_us_state("CA"));
        assert!(!senses("Concord").contradict_country("US"));
        assert!(!senses("Seattle").contradict_us_state("WA"));
    }

    #[test]
    fn a_sense_without_a_known_country_contradicts_nothing() {
        // The gazetteer calls the country "Czechia"; WordNet, "the Czech Republic".
        assert!(!senses("Prague").contradict_country("CZ"));
        // Definitions fill in a chain that stops short ("a city in western Germany").
        assert!(!senses("Wiesbaden").contradict_country("DE"));
        // Names WordNet does not know as places.
        assert!(senses("Peterborough").senses.is_empty());
        assert!(!senses("Peterborough").contradict_country("GB"));
    }
}
