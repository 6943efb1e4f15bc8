//! The grammatical gender English nouns for people carry ("son", "queen", "actress"): a
//! substitution that changes it breaks the pronouns that refer back ("his son … he" → "his
//! daughter … he"), which CREST's review found among its invalid follow-ups ("son" → "girl").
//!
//! WordNet does not mark gender, so the nouns are listed here: kinship terms, titles and
//! occupations with a gendered form, in singular and plural. A word not listed has no gender.

/// The gender a noun for a person carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gender {
    /// "man", "son", "king".
    Male,
    /// "woman", "daughter", "queen".
    Female,
}

/// Male and female nouns, pairwise where English has a pair.
const PAIRS: &[(&str, &str)] = &[
    ("man", "woman"),
    ("men", "women"),
    ("boy", "girl"),
    ("son", "daughter"),
    ("father", "mother"),
    ("dad", "mom"),
    ("daddy", "mommy"),
    ("papa", "mama"),
    ("husband", "wife"),
    ("husbands", "wives"),
    ("brother", "sister"),
    ("uncle", "aunt"),
    ("nephew", "niece"),
    ("grandfather", "grandmother"),
    ("grandson", "granddaughter"),
    ("stepfather", "stepmother"),
    ("stepson", "stepdaughter"),
    ("king", "queen"),
    ("prince", "princess"),
    ("duke", "duchess"),
    ("emperor", "empress"),
    ("lord", "lady"),
    ("gentleman", "lady"),
    ("gentlemen", "ladies"),
    ("sir", "madam"),
    ("mr", "mrs"),
    ("actor", "actress"),
    ("waiter", "waitress"),
    ("host", "hostess"),
    ("hero", "heroine"),
    ("heroes", "heroines"),
    ("widower", "widow"),
    ("bridegroom", "bride"),
    ("groom", "bride"),
    ("fiance", "fiancee"),
    ("boyfriend", "girlfriend"),
    ("monk", "nun"),
    ("god", "goddess"),
    ("male", "female"),
    ("lad", "lass"),
    ("chap", "gal"),
    ("guy", "gal"),
    ("bachelor", "spinster"),
    ("patriarch", "matriarch"),
    ("headmaster", "headmistress"),
    ("steward", "stewardess"),
    ("businessman", "businesswoman"),
    ("businessmen", "businesswomen"),
    ("chairman", "chairwoman"),
    ("spokesman", "spokeswoman"),
    ("sportsman", "sportswoman"),
    ("policeman", "policewoman"),
    ("congressman", "congresswoman"),
    ("fisherman", "fisherwoman"),
    ("horseman", "horsewoman"),
];

/// Female nouns without a listed male form, and the reverse.
const FEMALE_ONLY: &[&str] = &[
    "maid",
    "maiden",
    "mistress",
    "housewife",
    "lesbian",
    "ballerina",
];
const MALE_ONLY: &[&str] = &[
    "bloke", "fellow", "monsieur", "sultan", "pope", "earl", "baron",
];

/// The gender of `word` (any case; a regular plural is read as its singular), if it has one.
pub fn gender(word: &str) -> Option<Gender> {
    let lower = word.to_lowercase();
    // The word as written first ("mrs" is no plural of "mr"), then its singular.
    let forms = [
        Some(lower.as_str()),
        lower.strip_suffix("es"),
        lower.strip_suffix('s'),
    ];
    forms.iter().flatten().find_map(|w| listed(w))
}

/// The gender of a listed form.
fn listed(word: &str) -> Option<Gender> {
    if PAIRS.iter().any(|(m, _)| *m == word) || MALE_ONLY.contains(&word) {
        Some(Gender::Male)
    } else if PAIRS.iter().any(|(_, f)| *f == word) || FEMALE_ONLY.contains(&word) {
        Some(Gender::Female)
    } else {
        None
    }
}

/// Whether replacing `before` by `after` changes or adds or drops a gender ("son" → "girl",
/// "person" → "man", "wife" → "spouse"): the pronouns that refer back would no longer agree.
pub fn changes_gender(before: &str, after: &str) -> bool {
    gender(before) != gender(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genders_of_people_nouns() {
        assert_eq!(gender("son"), Some(Gender::Male));
        assert_eq!(gender("Daughters"), Some(Gender::Female));
        assert_eq!(gender("women"), Some(Gender::Female));
        assert_eq!(gender("princesses"), Some(Gender::Female));
        assert_eq!(gender("lady"), Some(Gender::Female));
        assert_eq!(gender("child"), None);
        assert_eq!(gender("mansion"), None);
        assert_eq!(gender("Mrs"), Some(Gender::Female));
        assert_eq!(gender("actresses"), Some(Gender::Female));
    }

    #[test]
    fn a_swap_across_genders_is_refused() {
        assert!(changes_gender("son", "girl"));
        assert!(changes_gender("son", "daughter"));
        assert!(changes_gender("person", "man"));
        assert!(changes_gender("wife", "spouse"));
        assert!(!changes_gender("son", "boy"));
        assert!(!changes_gender("car", "automobile"));
    }
}
