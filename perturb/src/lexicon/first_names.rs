//! Given names, their gender and where they are in use, from Jörg Michael's first-name
//! dictionary (`nam_dict.txt`, about 37,000 distinct names with their frequency in 54 countries and
//! regions), as packaged in PyPI `gender-guesser` (asset `first-names`).
//!
//! MR-R1 needs it (issue 17): a review found a person swapped for one of the other gender
//! ("the princesses of Kashi : Dasharatha and Ambalika", a man as someone's mother) or from
//! another culture ("Augustus' favourite niece, Kirstine Munk"). A swap is made only between
//! names of the same gender in use in a shared region ([`FirstNames::compatible`]).
//!
//! Design decisions, recorded here:
//! * **Reading the file.** One entry per line: a gender code in columns 0–1 (`M`, `1M`, `?M`,
//!   `F`, `1F`, `?F`, `?`), the name in columns 3–28, a `+` or `-` sort mark in column 29, and
//!   one hexadecimal frequency digit per country from column 30 (1 rare … D very common,
//!   blank absent). Lines with `+` in column 29 repeat a name with its umlauts expanded and are
//!   skipped, as the file's header asks, and so are names with a `+` inside (Arabic, Chinese,
//!   Korean compounds). `=` lines pair a short form with its full name ("Bob" "Robert"): their
//!   short forms are kept as such ([`FirstNames::is_short_form`]). A name may have several entries
//!   (`Sam`: `M` in Belgium, `?M` in Britain, `?` in Korea); they are merged.
//! * **Gender.** Each entry weighs `Σ 2^level` over its countries (the levels are roughly
//!   logarithmic); `?` entries count for both sexes. A name is male or female when that sex
//!   has at least three times the other's weight; otherwise it is unisex and has no gender
//!   here, like a name the dictionary lacks. The file's own data is kept as it is, errors
//!   included (it lists the Danish woman's name `Kirstine` as male).
//! * **Regions.** The countries are grouped into eleven regions (Britain, Ireland and the
//!   U.S.A.; Romance-speaking Europe; German-speaking Europe and the Netherlands; the Nordic
//!   countries; eastern Europe and the Caucasus; Turkey and the Middle East; China; the Indian
//!   subcontinent; Japan; Korea; Vietnam). Western Europe is split in three because one
//!   region for it let an English name stand for an Italian footballer's. A name is *in use* in a
//!   region where its highest level reaches 3, or, for a name rare everywhere, where it
//!   occurs at all, and *most frequent* in the regions of its highest level. Two names are of
//!   one culture when each is in use where the other is most frequent: "Mauro" and "Luigi"
//!   are; "Mauro" and "Elmore", "Antonia" and "Kirstine" are not, nor "Vladimir" and "John"
//!   (in use in eastern Europe, most frequent in Britain, Ireland and the U.S.A.).
//! * **The given name of a mention** ([`given_name`]) is its first word after titles
//!   ("Sir", "President", "Dr.") and initials; a gendered title ("King", "Lady") gives the
//!   gender by itself ([`super::gender`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use metamorph_data::{Error, Result};

use super::gender::{gender as noun_gender, Gender};

/// The regions the dictionary's countries are grouped into, in column order of
/// [`COUNTRY_REGION`].
const REGIONS: [&str; 11] = [
    "Britain, Ireland and the U.S.A.",
    "Romance-speaking Europe",
    "German-speaking Europe and the Netherlands",
    "Nordic countries",
    "eastern Europe and the Caucasus",
    "Turkey and the Middle East",
    "China",
    "India and Sri Lanka",
    "Japan",
    "Korea",
    "Vietnam",
];

/// The region (index into [`REGIONS`]) of each frequency column, in the file's order: Great
/// Britain, Ireland, U.S.A.; Italy, Malta, Portugal, Spain, France, Belgium, Luxembourg; the
/// Netherlands, East Frisia, Germany, Austria, Switzerland; Iceland, Denmark, Norway, Sweden,
/// Finland; Estonia … Kazakhstan/Uzbekistan; Turkey, Arabia/Persia, Israel; China; India/Sri
/// Lanka; Japan; Korea; Vietnam. The file's last column ("other countries") has no region.
const COUNTRY_REGION: [u8; 54] = [
    0, 0, 0, // Britain, Ireland, U.S.A.
    1, 1, 1, 1, 1, 1, 1, // Italy … Luxembourg
    2, 2, 2, 2, 2, // the Netherlands … Switzerland
    3, 3, 3, 3, 3, // Nordic
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, // Estonia … Kazakhstan
    5, 5, 5, // Turkey, Arabia/Persia, Israel
    6, 7, 8, 9, 10,
];

/// The column of the first country's frequency digit.
const FIRST_COUNTRY_COLUMN: usize = 30;

/// The level from which a name counts as in use in a region.
const IN_USE_LEVEL: u8 = 3;

/// What the dictionary says of one name, its entries merged.
#[derive(Clone, Debug, Default)]
struct NameRecord {
    male: f64,
    female: f64,
    /// Highest frequency level per region.
    region_levels: [u8; REGIONS.len()],
}

/// The first-name dictionary, indexed by lower-cased name.
#[derive(Debug)]
pub struct FirstNames {
    names: HashMap<String, NameRecord>,
    /// Lower-cased short forms (the file's `=` lines: "Bob" of "Robert", "Gaby" of "Gabriele").
    short_forms: std::collections::HashSet<String>,
}

impl FirstNames {
    /// Reads `nam_dict.txt`.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read; [`Error::Malformed`] naming the file and the
    /// line when an entry has an unknown gender code or frequency digit, or when the file has
    /// no entries at all.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let text = String::from_utf8_lossy(&bytes);
        let mut names: HashMap<String, NameRecord> = HashMap::new();
        let mut short_forms = std::collections::HashSet::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if let Some(pair) = line.strip_prefix('=') {
                if let Some(short) = pair.split_whitespace().next() {
                    short_forms.insert(short.to_lowercase());
                }
                continue;
            }
            let Some(entry) = parse_line(line).map_err(|why| {
                Error::malformed(path, format!("line {}", number + 1), "entry", why)
            })?
            else {
                continue;
            };
            let record = names.entry(entry.name.to_lowercase()).or_default();
            let weight: f64 = entry
                .levels
                .iter()
                .filter(|&&l| l > 0)
                .map(|&l| f64::from(1u32 << l))
                .sum();
            match entry.sex {
                Some(Gender::Male) => record.male += weight,
                Some(Gender::Female) => record.female += weight,
                None => {
                    record.male += weight;
                    record.female += weight;
                }
            }
            for (column, &level) in entry.levels.iter().enumerate() {
                if let Some(&region) = COUNTRY_REGION.get(column) {
                    let slot = &mut record.region_levels[region as usize];
                    *slot = (*slot).max(level);
                }
            }
        }
        if names.is_empty() {
            return Err(Error::malformed(path, "-", "-", "no first-name entries"));
        }
        tracing::debug!(path = %path.display(), names = names.len(), "first names loaded");
        Ok(FirstNames { names, short_forms })
    }

    /// The `first-names` asset's `nam_dict.txt` (fetched into `$METAMORPH_HOME` on first use).
    ///
    /// # Errors
    /// [`Error::Asset`] when the package cannot be fetched.
    pub fn asset_path() -> Result<PathBuf> {
        Ok(metamorph_data::assets::ensure("first-names")?.join("nam_dict.txt"))
    }

    /// A process-wide dictionary loaded from the asset on first call.
    ///
    /// # Errors
    /// As [`FirstNames::load`] and [`FirstNames::asset_path`] (a failed load is retried on
    /// the next call).
    pub fn shared() -> Result<&'static FirstNames> {
        static SHARED: OnceLock<FirstNames> = OnceLock::new();
        static LOADING: Mutex<()> = Mutex::new(());
        super::load_once(&SHARED, &LOADING, || Self::load(Self::asset_path()?))
    }

    /// Whether `name` is listed as a short form of another ("Bob", "Jim", "Gaby"): a pet name
    /// for a duchess or an emperor is out of register.
    pub fn is_short_form(&self, name: &str) -> bool {
        self.short_forms.contains(&name.to_lowercase())
    }

    /// Number of distinct names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether the dictionary is empty (never, once loaded).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The gender of a given name (any case); `None` when the name is unisex or unknown.
    pub fn gender(&self, name: &str) -> Option<Gender> {
        let record = self.names.get(&name.to_lowercase())?;
        if record.male >= 3.0 * record.female && record.male > 0.0 {
            Some(Gender::Male)
        } else if record.female >= 3.0 * record.male && record.female > 0.0 {
            Some(Gender::Female)
        } else {
            None
        }
    }

    /// The regions (of [`REGIONS`], by name) where a given name is in use; empty when unknown.
    pub fn regions(&self, name: &str) -> Vec<&'static str> {
        let mask = self.region_mask(name);
        (0..REGIONS.len())
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| REGIONS[i])
            .collect()
    }

    /// The regions where `name` is in use (bit `i` for [`REGIONS`]`[i]`), and those where it
    /// is most frequent; both empty when unknown.
    fn region_masks(&self, name: &str) -> (u16, u16) {
        let Some(record) = self.names.get(&name.to_lowercase()) else {
            return (0, 0);
        };
        let top = record.region_levels.iter().copied().max().unwrap_or(0);
        let floor = IN_USE_LEVEL.min(top).max(1);
        let mask = |keep: &dyn Fn(u8) -> bool| {
            record
                .region_levels
                .iter()
                .enumerate()
                .filter(|(_, &level)| keep(level))
                .fold(0, |mask, (i, _)| mask | (1 << i))
        };
        (
            mask(&|level| level >= floor),
            mask(&|level| level == top && level > 0),
        )
    }

    fn region_mask(&self, name: &str) -> u16 {
        self.region_masks(name).0
    }

    /// Whether two given names belong to one culture: each is in use in a region where the
    /// other is most frequent ("Mauro" and "Luigi"; not "Vladimir", most frequent in eastern
    /// Europe, and "John", in use there but most frequent in Britain, Ireland and the U.S.A.).
    /// Unknown names belong to none.
    pub fn same_culture(&self, a: &str, b: &str) -> bool {
        let (in_use_a, top_a) = self.region_masks(a);
        let (in_use_b, top_b) = self.region_masks(b);
        top_a & in_use_b != 0 && top_b & in_use_a != 0
    }

    /// The gender of a person's mention ("Sir Christopher Blount", "Queen Victoria", "Anna
    /// Kaufmann"): a gendered title's, else its given name's; `None` when neither tells.
    pub fn person_gender(&self, mention: &str) -> Option<Gender> {
        match given_name(mention)? {
            GivenName::Titled(gender) => Some(gender),
            GivenName::Name(name) => self.gender(name),
        }
    }

    /// Whether a person named `replacement` can stand where `original` stands: both of one
    /// known gender, and, when both have a given name, names in use in a shared region.
    pub fn compatible(&self, original: &str, replacement: &str) -> bool {
        let (Some(a), Some(b)) = (given_name(original), given_name(replacement)) else {
            return false;
        };
        let gender_of = |g: &GivenName| match g {
            GivenName::Titled(gender) => Some(*gender),
            GivenName::Name(name) => self.gender(name),
        };
        let (Some(ga), Some(gb)) = (gender_of(&a), gender_of(&b)) else {
            return false;
        };
        if ga != gb {
            return false;
        }
        match (a, b) {
            (GivenName::Name(x), GivenName::Name(y)) => self.same_culture(x, y),
            // A title alone ("King", "Lady") says nothing of where the person is from: the
            // other name's region cannot be compared, and the swap is refused.
            _ => false,
        }
    }
}

/// One parsed dictionary line.
struct Entry<'a> {
    sex: Option<Gender>,
    name: &'a str,
    levels: Vec<u8>,
}

/// A dictionary line's entry; `Ok(None)` for comments, short-form lines, umlaut-expanded
/// repeats and compound names.
fn parse_line(line: &str) -> std::result::Result<Option<Entry<'_>>, String> {
    if line.trim().is_empty() || line.starts_with('#') || line.starts_with('=') {
        return Ok(None);
    }
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    // Columns count characters (the file is UTF-8 and names carry accents).
    let column = |c: usize| chars.get(c).map(|&(_, ch)| ch);
    let slice = |from: usize, to: usize| {
        let start = chars.get(from).map_or(line.len(), |&(i, _)| i);
        let end = chars.get(to).map_or(line.len(), |&(i, _)| i);
        &line[start..end]
    };
    if column(29) == Some('+') {
        return Ok(None);
    }
    let sex = match slice(0, 2).trim() {
        "M" | "1M" | "?M" => Some(Gender::Male),
        "F" | "1F" | "?F" => Some(Gender::Female),
        "?" => None,
        other => return Err(format!("unknown gender code {other:?}")),
    };
    let name = slice(3, 29).trim();
    if name.is_empty() || name.contains('+') {
        return Ok(None);
    }
    let mut levels = Vec::new();
    for c in slice(
        FIRST_COUNTRY_COLUMN,
        FIRST_COUNTRY_COLUMN + COUNTRY_REGION.len(),
    )
    .chars()
    {
        levels.push(match c {
            ' ' => 0,
            c => c
                .to_digit(16)
                .map(|d| d as u8)
                .ok_or_else(|| format!("frequency digit {c:?} is not hexadecimal"))?,
        });
    }
    Ok(Some(Entry { sex, name, levels }))
}

/// What tells a person's gender in a mention: its given name, or a gendered title before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GivenName<'a> {
    /// The first word that is neither a title nor an initial ("Anna" in "Dr. Anna Kaufmann").
    Name(&'a str),
    /// A gendered title ("King Sigismund", "Lady Jane Grey").
    Titled(Gender),
}

/// Titles that tell no gender, skipped before the given name.
const NEUTRAL_TITLES: &[&str] = &[
    "admiral",
    "archbishop",
    "bishop",
    "captain",
    "cardinal",
    "chancellor",
    "colonel",
    "commander",
    "dr",
    "general",
    "governor",
    "judge",
    "justice",
    "lieutenant",
    "major",
    "minister",
    "president",
    "prof",
    "professor",
    "rabbi",
    "rev",
    "reverend",
    "saint",
    "senator",
    "sergeant",
    "st",
];

/// Whether `word` is a title that may stand before a person's name ("Sir", "Major", "General",
/// "Dr."), with or without a gender.
pub fn is_title(word: &str) -> bool {
    let bare = word.trim_end_matches('.');
    bare.chars().next().is_some_and(char::is_uppercase)
        && (NEUTRAL_TITLES.contains(&bare.to_lowercase().as_str()) || noun_gender(bare).is_some())
}

/// The given name or the gendered title of a person's mention; `None` when the mention is
/// empty or holds only titles and initials.
pub fn given_name(mention: &str) -> Option<GivenName<'_>> {
    for word in mention.split_whitespace() {
        let bare = word.trim_end_matches('.');
        if bare.is_empty() {
            continue;
        }
        let lower = bare.to_lowercase();
        if NEUTRAL_TITLES.contains(&lower.as_str()) {
            continue;
        }
        // "J." or "J" is an initial.
        if bare.chars().count() == 1 {
            continue;
        }
        // Only a capitalised word is a title ("King Sigismund"), not a common noun in a
        // mis-typed span.
        if bare.chars().next().is_some_and(char::is_uppercase) {
            if let Some(gender) = noun_gender(bare) {
                return Some(GivenName::Titled(gender));
            }
        }
        return Some(GivenName::Name(bare));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_by_column() {
        let line = "F  Abagail                      1                                                     ";
        let entry = parse_line(line).unwrap().unwrap();
        assert_eq!(entry.name, "Abagail");
        assert_eq!(entry.sex, Some(Gender::Female));
        // Column 32 is the third country's, the U.S.A.
        assert_eq!(entry.levels[2], 1);
        assert_eq!(entry.levels.iter().filter(|&&l| l > 0).count(), 1);
        assert!(parse_line("# comment").unwrap().is_none());
        assert!(parse_line("=  Sam Samuel                 1 1")
            .unwrap()
            .is_none());
        let expanded = format!("{:<29}+{:>9}", "F  Kaete", "4");
        assert!(parse_line(&expanded).unwrap().is_none());
        assert!(parse_line("X  Bad                          1").is_err());
        assert!(parse_line("M  Bad                          Z").is_err());
    }

    #[test]
    fn given_names_skip_titles_and_initials() {
        assert_eq!(
            given_name("Sir Christopher Blount"),
            Some(GivenName::Titled(Gender::Male))
        );
        assert_eq!(
            given_name("Dr. Anna Kaufmann"),
            Some(GivenName::Name("Anna"))
        );
        assert_eq!(
            given_name("J. R. R. Tolkien"),
            Some(GivenName::Name("Tolkien"))
        );
        assert_eq!(
            given_name("Queen Victoria"),
            Some(GivenName::Titled(Gender::Female))
        );
        assert_eq!(given_name("President"), None);
    }
}
