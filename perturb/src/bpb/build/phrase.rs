//! A QDMR step as a phrase a question can use: its text with every `#k` replaced by step k's
//! phrase, BREAK's stray spaces removed.
//!
//! A referenced step that is a question of its own ("when did X die", "if X happened") has no
//! phrase to stand in for it, so a step that refers to one has none either ([`phrase`] returns
//! `None`): writing "the sum of when did X die and …" would be no question at all.

use super::super::qdmr::{Part, Qdmr};

/// Words that open a step written as a question or a test rather than a noun phrase.
const CLAUSE_OPENERS: [&str; 20] = [
    "when", "where", "who", "whom", "whose", "what", "which", "why", "how", "if", "did", "was",
    "is", "are", "were", "does", "do", "has", "have", "can",
];

/// Whether `text` opens with a question word, a preposition and "which"/"what"/"whom" ("in
/// which state …"), or `if` (it is a clause, not a noun phrase).
pub fn is_clause(text: &str) -> bool {
    let mut words = text.split_whitespace().map(str::to_lowercase);
    let first = words.next().unwrap_or_default();
    let second = words.next().unwrap_or_default();
    CLAUSE_OPENERS.contains(&first.as_str())
        || ([
            "in", "at", "on", "from", "for", "of", "to", "by", "with", "during",
        ]
        .contains(&first.as_str())
            && ["which", "what", "whom", "whose"].contains(&second.as_str()))
}

/// The text of step `k` (1-based) with its references resolved, or `None` when a referenced
/// step is a clause (see the module docs) or `k` is out of range.
pub fn phrase(qdmr: &Qdmr, k: usize) -> Option<String> {
    resolve(qdmr, k, 0)
}

fn resolve(qdmr: &Qdmr, k: usize, depth: usize) -> Option<String> {
    if depth > qdmr.len() {
        return None;
    }
    let step = qdmr.step(k)?;
    // Set operations over the same step ("#1 in both #1 and #3", "#1 besides #2") read as
    // nonsense once written out.
    let refs = step.references();
    let lower = step.text().to_lowercase();
    if refs.iter().enumerate().any(|(i, r)| refs[..i].contains(r))
        || [" both ", " besides ", " excluding ", " except "]
            .iter()
            .any(|w| lower.contains(w))
    {
        return None;
    }
    // An aggregate reads as a modifier: "highest of #1" → "the highest <#1>".
    let text = step.text();
    let words: Vec<&str> = text.split_whitespace().collect();
    if let [first @ .., "of", only] = words.as_slice() {
        let lead = first.iter().map(|w| w.to_lowercase()).collect::<Vec<_>>();
        let lead: Vec<&str> = lead
            .iter()
            .map(String::as_str)
            .filter(|w| *w != "the")
            .collect();
        // "second longest of #1": the ordinal goes with the superlative.
        let (ordinal, lead) = match lead.as_slice() {
            [o, rest @ ..] if ORDINALS.contains(o) && rest.len() == 1 => (Some(*o), rest),
            _ => (None, lead.as_slice()),
        };
        if let ([word], Some(j)) = (
            lead,
            only.strip_prefix('#').and_then(|d| d.parse::<usize>().ok()),
        ) {
            if [
                "highest", "lowest", "largest", "smallest", "longest", "shortest", "first", "last",
                "second", "third",
            ]
            .contains(word)
            {
                let inner = resolve(qdmr, j, depth + 1)?;
                if is_clause(&inner) {
                    return None;
                }
                let inner = inner.strip_prefix("the ").unwrap_or(&inner).to_string();
                let word = match ordinal {
                    Some(o) => format!("{o} {word}"),
                    None => word.to_string(),
                };
                return Some(tidy(&format!("the {word} {inner}")));
            }
            if ordinal.is_some() {
                return None;
            }
            if ["sum", "total"].contains(word) {
                let inner = resolve(qdmr, j, depth + 1)?;
                if is_clause(&inner) {
                    return None;
                }
                let inner = inner.strip_prefix("the ").unwrap_or(&inner).to_string();
                return Some(tidy(&format!("the total {inner}")));
            }
        }
    }
    let mut out = String::new();
    for part in step.parts() {
        match part {
            Part::Text(t) => out.push_str(t),
            Part::Ref(j) => {
                let inner = resolve(qdmr, *j, depth + 1)?;
                if is_clause(&inner) {
                    return None;
                }
                out.push_str(&inner);
            }
        }
    }
    Some(filter_as_modifier(&tidy(&out)))
}

/// Ordinals that may precede a superlative ("the second longest").
const ORDINALS: [&str; 4] = ["second", "third", "fourth", "fifth"];

/// BREAK's filter "X where A of X is higher than N" as English: "X of more than N yards" for
/// lengths in yards, else "X whose A is higher than N".
fn filter_as_modifier(text: &str) -> String {
    let Some((x, rest)) = text.split_once(" where ") else {
        return text.to_string();
    };
    let Some((attribute, test)) = rest.split_once(&format!(" of {x} ")) else {
        return text.to_string();
    };
    // BREAK writes the test with its verb or without ("… of X at least 20000").
    let bare_comparison = [
        "at least ",
        "at most ",
        "higher than ",
        "lower than ",
        "more than ",
        "less than ",
        "over ",
        "under ",
        "equal to ",
    ]
    .iter()
    .any(|c| test.starts_with(c));
    let Some(test) = test
        .strip_prefix("is ")
        .or_else(|| test.strip_prefix("are "))
        .or(bare_comparison.then_some(test))
    else {
        return text.to_string();
    };
    if attribute.split_whitespace().count() > 3 || attribute.is_empty() {
        return text.to_string();
    }
    if attribute == "yards" {
        let yards = [
            ("higher than ", "more than "),
            ("more than ", "more than "),
            ("over ", "more than "),
            ("lower than ", "less than "),
            ("less than ", "less than "),
            ("under ", "less than "),
            ("at least ", "at least "),
            ("at most ", "at most "),
        ];
        for (from, to) in yards {
            if let Some(n) = test.strip_prefix(from) {
                let n = n.trim_end_matches("-yards").trim_end_matches(" yards");
                if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() {
                    return format!("{x} of {to}{n} yards");
                }
            }
        }
        return text.to_string();
    }
    format!("{x} whose {attribute} is {test}")
}

/// BREAK's spacing undone: one space between words, none before `'s`, `,` or `?`.
pub fn tidy(text: &str) -> String {
    let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for p in [
        " 's", " ,", " ?", " .", " n't", " 're", " 've", " 'll", " 'd", " 'm",
    ] {
        text = text.replace(p, &p[1..]);
    }
    text.trim_start_matches("return ").to_string()
}

/// `text` as a definite noun phrase: "the" added unless it opens with a determiner, a
/// possessive, a number or a proper name.
pub fn definite(text: &str) -> String {
    let first = text.split_whitespace().next().unwrap_or("");
    let lower = first.to_lowercase();
    let has_determiner = [
        "the", "a", "an", "his", "her", "its", "their", "our", "my", "your", "this", "that",
        "these", "those", "each", "every", "all", "both",
    ]
    .contains(&lower.as_str());
    // Capitalised words open a name ("Battle of Vienna", "Kwok Kin Pong", "Brady's passes")
    // unless a common noun follows them ("Albanian revolts", "Western African country").
    let words: Vec<&str> = text.split_whitespace().collect();
    let lead = words
        .iter()
        .take_while(|w| w.chars().next().is_some_and(char::is_uppercase))
        .count();
    let possessive = words[..lead]
        .iter()
        .any(|w| w.ends_with("'s") || w.ends_with("’s"));
    let common_noun_follows = lead > 0
        && words.get(lead).is_some_and(|w| {
            ![
                "'s", "’s", "of", "and", "de", "von", "van", "del", "da", "la", "le", "du",
            ]
            .contains(w)
                && w.chars().all(|c| c.is_alphabetic() || c == '-')
        });
    let starts_upper = lead > 0 && (possessive || !common_noun_follows);
    // A count ("two teams", "30 yards") takes no article; a year before a noun does ("the
    // 2004 American teen film").
    let year = first.len() == 4
        && first.chars().all(|c| c.is_ascii_digit())
        && (first.starts_with('1') || first.starts_with('2'))
        && words
            .get(1)
            .is_some_and(|w| w.chars().all(char::is_alphabetic));
    let number = first.chars().next().is_some_and(|c| c.is_ascii_digit()) && !year;
    if has_determiner || starts_upper || number {
        text.to_string()
    } else {
        format!("the {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_replaced_by_their_phrases_and_clauses_stop_it() {
        let q = Qdmr::from_texts(&[
            "touchdowns",
            "#1 by Rice",
            "number of #2",
            "when did Rice  retire",
            "#4 of #1",
        ])
        .unwrap();
        assert_eq!(
            phrase(&q, 3).as_deref(),
            Some("number of touchdowns by Rice")
        );
        assert_eq!(phrase(&q, 5), None);
        assert_eq!(
            definite("yards of Brady 's pass"),
            "the yards of Brady 's pass"
        );
        assert_eq!(definite("Brady 's passes"), "Brady 's passes");
        assert_eq!(
            definite("Kasay's shortest field goal"),
            "Kasay's shortest field goal"
        );
        assert_eq!(
            definite("Western African country that has Conakry"),
            "the Western African country that has Conakry"
        );
        assert_eq!(definite("Albanian revolts"), "the Albanian revolts");
        assert_eq!(definite("Battle of Vienna"), "Battle of Vienna");
        assert_eq!(definite("Kwok Kin Pong"), "Kwok Kin Pong");
        assert_eq!(
            tidy("yards of Brady 's  pass , again"),
            "yards of Brady's pass, again"
        );
        assert!(is_clause("when did Rice retire") && !is_clause("the touchdowns"));
        assert!(is_clause("in which state is the forest located"));
        assert!(!is_clause("in the first quarter"));
        assert_eq!(
            filter_as_modifier("field goals where yards of field goals is higher than 30"),
            "field goals of more than 30 yards"
        );
        assert_eq!(
            filter_as_modifier(
                "passing touchdowns where yards of passing touchdowns is higher than 20-yards"
            ),
            "passing touchdowns of more than 20 yards"
        );
        assert_eq!(
            filter_as_modifier("groups where size of groups is at most 5800"),
            "groups whose size is at most 5800"
        );
        assert_eq!(
            filter_as_modifier(
                "federal entities in 2000 where per capita GDP of federal entities in 2000 at least 20000"
            ),
            "federal entities in 2000 whose per capita GDP is at least 20000"
        );
        assert_eq!(
            filter_as_modifier("teams where the Bears won"),
            "teams where the Bears won"
        );
    }
}
