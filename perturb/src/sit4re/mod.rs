//! SIT4RE (Sun, Ding, Huang, Zou, Jiang, *Algorithms* 2023; seed-001): metamorphic relations for
//! sentence-level relation extraction, R: (sentence, head, tail) → relation. Names follow the
//! paper's Table 1 (the body text's "MR-R1/R2" for the swap and combination relations are typos):
//!
//! * replacement: [`SameTypeReplacement`] (MR-R1), [`CoarserGranularity`] (MR-R2),
//!   [`CorelatedEntity`] (MR-R3), [`CoreferentialMention`] (MR-R4);
//! * swap: [`SymmetricSwap`] (MR-S1), [`AntisymmetricSwap`] (MR-S2);
//! * combination, two sources: [`SharedHeadCombination`] (MR-C1), [`SharedTailCombination`]
//!   (MR-C2).
//!
//! Examples are `Task::Relation` with `tokens`, `text` (the tokens joined by single spaces) and
//! `head`/`tail` token spans. Preconditions always read the **predicted** source label (the
//! paper's MG sets are per model); the label maps they use are data files per label schema
//! ([`labels`]). R1–R3 edit the text through [`span_edit`], R4, S1, S2, C1 and C2 only move
//! argument spans.

pub mod c1_shared_head_combination;
pub mod c2_shared_tail_combination;
pub mod labels;
pub mod ner;
pub mod r1_same_type_replacement;
pub mod r2_coarser_granularity;
pub mod r3_corelated_entity;
pub mod r4_coreferential_mention;
pub mod s1_symmetric_swap;
pub mod s2_antisymmetric_swap;
pub mod span_edit;

pub use c1_shared_head_combination::SharedHeadCombination;
pub use c2_shared_tail_combination::SharedTailCombination;
pub use r1_same_type_replacement::SameTypeReplacement;
pub use r2_coarser_granularity::CoarserGranularity;
pub use r3_corelated_entity::CorelatedEntity;
pub use r4_coreferential_mention::CoreferentialMention;
pub use s1_symmetric_swap::SymmetricSwap;
pub use s2_antisymmetric_swap::AntisymmetricSwap;

use std::sync::atomic::{AtomicBool, Ordering};

use metamorph_data::{Case, Edit, EntitySpan, Example, Expectation};
use serde::Deserialize;

use crate::case_id;
use span_edit::Role;

/// The family name shared by every SIT4RE relation.
pub const FAMILY: &str = "sit4re";

/// The `[perturb.sit4re]` table.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Sit4reConfig {
    /// MR-R1: at most this many replacements per argument, each a case of its own (default
    /// [`r1_same_type_replacement::DEFAULT_REPLACEMENTS_PER_ARGUMENT`]; 1 is the paper's one
    /// draw). Every replacement passes the same rules; see the relation's docs.
    pub replacements_per_argument: usize,
}

impl Default for Sit4reConfig {
    fn default() -> Self {
        Sit4reConfig {
            replacements_per_argument: r1_same_type_replacement::DEFAULT_REPLACEMENTS_PER_ARGUMENT,
        }
    }
}

/// A warning logged once per process (one per run, however many stages and shards), not once
/// per example.
#[derive(Debug, Default)]
pub(crate) struct Notice(AtomicBool);

impl Notice {
    /// A notice not yet given.
    pub(crate) const fn new() -> Self {
        Notice(AtomicBool::new(false))
    }

    /// Logs `message` for relation `mr` the first time only.
    pub(crate) fn once(&self, mr: &str, message: &str) {
        if !self.0.swap(true, Ordering::Relaxed) {
            tracing::warn!(mr, "{message}");
        }
    }
}

/// The follow-up skeleton: the source with the `k`-th case id and no gold label (metamorphic
/// testing compares the model with itself).
pub(crate) fn followup_of(source: &Example, mr: &str, k: usize) -> Example {
    let mut followup = source.clone();
    followup.id = case_id(&source.id, mr, k);
    followup.label = None;
    followup
}

/// The `k`-th case of replacement relation `mr` (R1, R3): `followup`, the source with one
/// argument rewritten by `edit`, renumbered and unlabelled, must get the source's relation.
pub(crate) fn same_relation_case(
    source: &Example,
    mr: &str,
    k: usize,
    mut followup: Example,
    edit: Edit,
    seed: u64,
) -> Case {
    followup.id = case_id(&source.id, mr, k);
    followup.label = None;
    Case::new(
        FAMILY,
        mr,
        vec![source.clone()],
        followup,
        &Expectation::Equal,
    )
    .with_edits(vec![edit])
    .with_seed(seed)
}

/// Whether `example` is a well-formed relation example: tokens, `text` equal to the tokens
/// joined by spaces, and non-empty in-range head and tail spans that do not overlap.
pub(crate) fn well_formed(example: &Example) -> bool {
    let (Some(tokens), Some(text), Some(head), Some(tail)) = (
        example.tokens.as_ref(),
        example.text.as_deref(),
        example.head.as_ref(),
        example.tail.as_ref(),
    ) else {
        return false;
    };
    let ok = |s: &EntitySpan| s.start < s.end && s.end as usize <= tokens.len();
    ok(head)
        && ok(tail)
        && (head.end <= tail.start || tail.end <= head.start)
        && *text == tokens.join(" ")
}

/// The span `[start, end)` of `tokens` as an argument of type `entity_type`.
pub(crate) fn span(
    tokens: &[String],
    start: usize,
    end: usize,
    entity_type: Option<String>,
) -> EntitySpan {
    EntitySpan {
        text: tokens[start..end].join(" "),
        start: start as u32,
        end: end as u32,
        entity_type,
    }
}

/// The entity types R1 and R3 replace: names, for which a same-type swap keeps the sentence
/// grammatical. Dates, numbers, durations, causes of death, charges, URLs and MISC are left
/// out: their mentions are phrases whose syntax depends on the slot ("in 1954" vs "in last
/// year", "died of cancer" vs "died of a heart attack"). Both vocabularies are listed: TACRED's
/// gold types and the NER's OntoNotes types that untyped data (FewRel) is typed with.
pub(crate) const NAME_TYPES: &[&str] = &[
    // TACRED
    "PERSON",
    "ORGANIZATION",
    "LOCATION",
    "CITY",
    "STATE_OR_PROVINCE",
    "COUNTRY",
    "NATIONALITY",
    "RELIGION",
    "IDEOLOGY",
    "TITLE",
    // OntoNotes (spaCy)
    "ORG",
    "GPE",
    "LOC",
    "FAC",
    "NORP",
];

/// The type an argument has for the entity pool: its gold type when the data is typed, else the
/// NER type of the entity the parse found exactly there (see [`ner::mention_at`]).
pub(crate) fn pool_type(
    example: &Example,
    role: Role,
    mentions: Option<&[ner::Mention]>,
) -> Option<String> {
    let span = role.of(example)?;
    if let Some(t) = &span.entity_type {
        return Some(t.clone());
    }
    let tokens = example.tokens.as_ref()?;
    ner::mention_at(mentions?, tokens, span.start as usize, span.end as usize)
        .map(|m| m.ner_type.clone())
}

/// "a" or "an" before `word`, by its first sound as spelling suggests: vowels take "an" except
/// the "yoo"/"w" sounds (`European`, `University`, `one`); all-capital initialisms take "an"
/// when their first letter's name starts with a vowel sound (`an FBI agent`, `a NASA probe`
/// reads as a word and is rarer than initialisms in news text).
pub(crate) fn indefinite_article(word: &str) -> &'static str {
    let lower = word.to_lowercase();
    let letters: Vec<char> = word.chars().take_while(|c| c.is_alphanumeric()).collect();
    let initialism = letters.len() >= 2
        && letters.len() <= 5
        && letters
            .iter()
            .all(|c| c.is_uppercase() || c.is_ascii_digit());
    if initialism {
        return match letters[0] {
            'A' | 'E' | 'F' | 'H' | 'I' | 'L' | 'M' | 'N' | 'O' | 'R' | 'S' | 'X' => "an",
            '8' => "an",
            _ => "a",
        };
    }
    let yoo = [
        "uni", "use", "usu", "uti", "eu", "ewe", "one", "once", "uk", "ukr", "ura", "uru",
    ];
    if yoo.iter().any(|p| lower.starts_with(p)) {
        return "a";
    }
    if ["hour", "honest", "honor", "honour", "heir"]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return "an";
    }
    match lower.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        Some('8') => "an",
        _ => "a",
    }
}

/// A text rewrite of argument `role` by `new` tokens (all of them the new mention), widened to
/// the indefinite article in front of it when there is one ("a French filmmaker" → "an American
/// filmmaker"), which is re-chosen for the new first word. For a place (`place`), "the" is
/// dropped or added as the new name needs it ("lived in the US" → "lived in Iceland", "admitted
/// Iceland" → "admitted the US").
pub(crate) fn rewrite_with_article(
    example: &Example,
    role: Role,
    new: Vec<String>,
    place: bool,
) -> Option<span_edit::Rewrite> {
    let tokens = example.tokens.as_ref()?;
    let span = role.of(example)?;
    let other = role.other().of(example)?;
    let start = span.start as usize;
    let new_name = new.join(" ");
    let mut rewrite = span_edit::Rewrite::mention(span, new);
    let before_is_free =
        start > 0 && !((other.start as usize) < start && start - 1 < other.end as usize);
    let before = before_is_free.then(|| tokens[start - 1].as_str());
    let lower = before.map(str::to_lowercase);
    match lower.as_deref() {
        Some("a" | "an") => {
            let before = before.expect("some");
            let article = indefinite_article(&rewrite.tokens[0]);
            let article = crate::edit::match_case(before, article);
            rewrite.start -= 1;
            rewrite.tokens.insert(0, article);
            rewrite.mention = 1..rewrite.tokens.len();
        }
        Some("the") if place && takes_the(&span.text) && !takes_the(&new_name) => {
            // Drop "the"; a sentence-initial "The" leaves the (capitalised) name first.
            rewrite.start -= 1;
        }
        _ if place
            && !takes_the(&span.text)
            && takes_the(&new_name)
            && lower.as_deref() != Some("the") =>
        {
            let article = if start == 0 { "The" } else { "the" };
            rewrite.tokens.insert(0, article.to_string());
            rewrite.mention = 1..rewrite.tokens.len();
        }
        _ => {}
    }
    Some(rewrite)
}

/// Whether a place name is written with "the": countries and unions (the United States, the
/// US, the Netherlands, the Czech Republic, the District of Columbia) and bodies of water and
/// ranges (the Missouri River, the River Tyne, the Gulf of Mexico, the Water of Leith, the
/// Alps), but not lakes, mounts or bays named by a word ("Lake Champlain", "Hudson Bay").
pub(crate) fn takes_the(name: &str) -> bool {
    let words: Vec<&str> = name.split_whitespace().collect();
    let last_takes = [
        "River",
        "Ocean",
        "Sea",
        "Gulf",
        "Canal",
        "Channel",
        "Strait",
        "Straits",
        "Desert",
        "Mountains",
        "Alps",
        "Hills",
        "Highlands",
        "Peninsula",
        "Estuary",
        "Firth",
        "Delta",
    ];
    let first_takes = [
        "River", "Gulf", "Sea", "Strait", "Straits", "Firth", "Water",
    ];
    let first_of = ["Bay", "Cape", "Mouth", "Lake"];
    if let (Some(first), Some(last)) = (words.first(), words.last()) {
        let of_follows = words.get(1) == Some(&"of");
        if words.len() > 1
            && (last_takes.contains(last)
                || first_takes.contains(first)
                || (of_follows && first_of.contains(first)))
        {
            return true;
        }
    }
    country_takes_the(name)
}

/// Whether a country or union's name is written with "the" (see [`takes_the`]).
fn country_takes_the(name: &str) -> bool {
    let words = [
        "United",
        "Republic",
        "Kingdom",
        "Islands",
        "Emirates",
        "Federation",
        "States",
    ];
    let plural = [
        "Netherlands",
        "Philippines",
        "Bahamas",
        "Maldives",
        "Comoros",
        "Seychelles",
        "Gambia",
    ];
    let initials = [
        "US", "U.S.", "USA", "U.S.A.", "UK", "U.K.", "UAE", "DRC", "EU",
    ];
    initials.contains(&name)
        || name.starts_with("District of")
        || plural.contains(&name)
        || (name
            .split_whitespace()
            .any(|w| words.contains(&w) || plural.contains(&w))
            && !name.starts_with("Republic of"))
}

/// The number of tokens of a place in apposition after a comma at token `at` ("Redmond ,
/// Washington", "Hamburg , West Germany ,"): a US state or country name the gazetteer knows, or
/// a run of up to three capitalised tokens closed by a comma, a full stop or the end whose last
/// word is one of `also` (R2 passes the new place's last word, "Germany").
pub(crate) fn appositive_place(
    gazetteer: &crate::lexicon::geography::Gazetteer,
    tokens: &[String],
    at: usize,
    also: &[&str],
) -> Option<usize> {
    if tokens.get(at).map(String::as_str) != Some(",") {
        return None;
    }
    let capital = |t: &String| t.chars().next().is_some_and(char::is_uppercase);
    (1..=3).rev().find(|&len| {
        let end = at + 1 + len;
        if end > tokens.len() || !tokens[at + 1..end].iter().all(capital) {
            return false;
        }
        let name = tokens[at + 1..end].join(" ");
        let closed = tokens.get(end).is_none_or(|t| t == "," || t == ".");
        gazetteer.is_us_state(&name)
            || gazetteer.is_country(&name)
            || (closed && also.contains(&tokens[end - 1].as_str()))
    })
}

/// Whether the argument at `[start, end)` is followed by a capitalised appositive (", New York
/// ,", ", West Germany ."): a city there is pinned to its region, and replacing the city alone
/// gives "Redmond , West Germany".
pub(crate) fn has_appositive(tokens: &[String], end: usize) -> bool {
    if tokens.get(end).map(String::as_str) != Some(",") {
        return false;
    }
    let capital = |t: &String| t.chars().next().is_some_and(char::is_uppercase);
    (1..=3).any(|len| {
        let stop = end + 1 + len;
        stop <= tokens.len()
            && tokens[end + 1..stop].iter().all(capital)
            && tokens.get(stop).is_none_or(|t| t == "," || t == ".")
    })
}

/// The place types whose mentions are noun phrases that may take "the" (the US, the
/// Netherlands), in both type vocabularies.
pub(crate) const PLACE_TYPES: &[&str] = &[
    "COUNTRY",
    "STATE_OR_PROVINCE",
    "CITY",
    "LOCATION",
    "GPE",
    "LOC",
];

/// Whether `text` is a personal, possessive or demonstrative pronoun.
pub(crate) fn is_pronoun(text: &str) -> bool {
    let pronouns = [
        "he",
        "she",
        "it",
        "they",
        "his",
        "her",
        "hers",
        "its",
        "their",
        "theirs",
        "him",
        "them",
        "we",
        "us",
        "our",
        "i",
        "me",
        "my",
        "you",
        "your",
        "this",
        "that",
        "these",
        "those",
        "himself",
        "herself",
        "itself",
        "themselves",
        "who",
        "whom",
        "whose",
    ];
    // "US" is the country, not "us".
    let initialism = text.chars().count() > 1 && text.chars().all(char::is_uppercase);
    !initialism && pronouns.contains(&text.to_lowercase().as_str())
}

/// Whether a surface form can stand as a name in the slot of the mention `like`:
/// * not empty, not starting with a determiner (the pool keeps "the" where the NER included
///   it; in front of an existing "the" or after a preposition it would read twice or oddly),
///   not a lone pronoun;
/// * no possessive, bracket or quote token (NER spans such as "Queen Victoria 's" or "( 1914
///   )" do not fit another slot);
/// * when `like` is capitalised (a name), the form is a name too: its first and last tokens
///   start with a capital or a digit, and its lower-case tokens are name particles ("Bolesław
///   IV of", "Romanized as Jamāl Deh" are NER spans cut at the wrong place). Lower-case mentions
///   (TACRED's TITLE: "senator") take any form.
pub(crate) fn usable_name(tokens: &[String], like: &str) -> bool {
    let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
        return false;
    };
    let lower = first.to_lowercase();
    let determiners = ["the", "a", "an", "this", "that", "these", "those"];
    let pronoun = tokens.len() == 1 && is_pronoun(first);
    let determiner = determiners.contains(&lower.as_str());
    let odd = |t: &String| {
        matches!(
            t.as_str(),
            "'s" | "'" | "’s" | "(" | ")" | "-LRB-" | "-RRB-" | "\"" | "``" | "''"
        ) || !t.chars().any(char::is_alphanumeric) && t != "&" && t != "-"
    };
    if determiner || pronoun || tokens.iter().any(odd) {
        return false;
    }
    if !like.chars().next().is_some_and(char::is_uppercase) {
        return true;
    }
    let particles = [
        "of", "de", "del", "della", "der", "den", "di", "du", "da", "dos", "das", "van", "von",
        "la", "le", "al", "el", "bin", "ibn", "y", "and", "&", "-", "on", "upon", "zu",
    ];
    let capital = |t: &String| {
        t.chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    };
    capital(first)
        && capital(last)
        && tokens
            .iter()
            .all(|t| capital(t) || particles.contains(&t.to_lowercase().as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn country_articles() {
        assert!(takes_the("United States"));
        assert!(takes_the("US"));
        assert!(takes_the("Netherlands"));
        assert!(takes_the("Czech Republic"));
        assert!(takes_the("District of Columbia"));
        assert!(!takes_the("Germany"));
        assert!(!takes_the("Republic of the Congo"));
        assert!(takes_the("Missouri River"));
        assert!(takes_the("River Tyne"));
        assert!(takes_the("Gulf of Mexico"));
        assert!(takes_the("Water of Leith"));
        assert!(takes_the("Pacific Ocean"));
        assert!(!takes_the("Lake Champlain"));
        assert!(!takes_the("Hudson Bay"));
        assert!(!takes_the("Loch Etive"));
        assert!(!takes_the("River"));
    }

    #[test]
    fn appositives_after_a_city() {
        let t = |s: &str| span_edit::tokenize(s);
        assert!(has_appositive(
            &t("born in Hamburg , West Germany , in 1954"),
            3
        ));
        assert!(has_appositive(&t("lived in Annandale , New York ."), 3));
        assert!(!has_appositive(&t("in Paris , Obama said"), 2));
        assert!(!has_appositive(&t("in Paris on Sunday"), 2));
    }

    #[test]
    fn place_articles_follow_the_new_name() {
        let (e, _) = crate::testing::relation(
            &[
                "Ann", "has", "lived", "in", "the", "US", "since", "2004", ".",
            ],
            (0, 1, Some("PERSON")),
            (5, 6, Some("COUNTRY")),
            None,
        );
        let r = rewrite_with_article(&e, Role::Tail, span_edit::tokenize("Iceland"), true).unwrap();
        assert_eq!(
            (r.start, r.end, r.tokens.join(" ")),
            (4, 6, "Iceland".into())
        );
        let (e, _) = crate::testing::relation(
            &["The", "council", "admitted", "Iceland", "."],
            (0, 2, Some("ORGANIZATION")),
            (3, 4, Some("COUNTRY")),
            None,
        );
        let r = rewrite_with_article(&e, Role::Tail, span_edit::tokenize("US"), true).unwrap();
        assert_eq!(
            (r.start, r.tokens.join(" "), r.mention),
            (3, "the US".into(), 1..2)
        );
    }

    #[test]
    fn articles_follow_the_first_sound() {
        assert_eq!(indefinite_article("American"), "an");
        assert_eq!(indefinite_article("French"), "a");
        assert_eq!(indefinite_article("European"), "a");
        assert_eq!(indefinite_article("FBI"), "an");
        assert_eq!(indefinite_article("CIA"), "a");
        assert_eq!(indefinite_article("Italian"), "an");
        assert_eq!(indefinite_article("University"), "a");
        assert_eq!(indefinite_article("honorary"), "an");
    }

    #[test]
    fn names_exclude_determiners_and_pronouns() {
        let t = |s: &str| span_edit::tokenize(s);
        assert!(usable_name(&t("Tim Cook"), "Ann"));
        assert!(usable_name(&t("Charles de Gaulle"), "Ann"));
        assert!(usable_name(&t("Procter & Gamble"), "Apple"));
        assert!(!usable_name(&t("the Beatles"), "Ann"));
        assert!(!usable_name(&t("he"), "Ann"));
        assert!(!usable_name(&t("--"), "Ann"));
        assert!(!usable_name(&[], "Ann"));
        assert!(!usable_name(&t("Queen Victoria 's"), "Ann"));
        assert!(!usable_name(&t("Bolesław IV of"), "Ann"));
        assert!(!usable_name(&t("Romanized as Jamāl Deh"), "Ann"));
        assert!(!usable_name(&t("Le Grand Bridge ( 1914 )"), "Ann"));
        // Lower-case mentions (titles) take lower-case forms.
        assert!(usable_name(&t("chief executive"), "senator"));
        assert!(!usable_name(&t("chief executive"), "Ann"));
    }
}
