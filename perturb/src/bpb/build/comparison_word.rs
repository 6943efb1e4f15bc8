//! ReplaceComp's question: the original question with its comparison word swapped for the
//! opposite one ("What happened first: A or B?" → "What happened last: A or B?", "Which team
//! scored more points, …?" → "… fewer points, …?").
//!
//! The perturbation flips a comparison between the question's candidates (highest ↔ lowest),
//! so its answer is the other candidate; whichever word the question uses for the comparison,
//! its opposite asks for the other candidate. Words inside the candidates' names (capitalised
//! mid-sentence, like "First Battle of Bull Run") are not comparison words. Exactly one
//! comparison word must be found: with none or several the question is not written.
//! "more"/"most" become "fewer"/"fewest" before a plural noun, "less"/"least" otherwise
//! (before an adjective, an adverb or a mass noun), as the parse tags the next word; without a
//! parse both are offered.

use super::{BuildInput, Unrendered};

/// Comparison words and their opposites (lower case).
const OPPOSITES: [(&str, &str); 51] = [
    ("first", "last"),
    ("last", "first"),
    ("second", "first"),
    ("earlier", "later"),
    ("later", "earlier"),
    ("earliest", "latest"),
    ("latest", "earliest"),
    ("longer", "shorter"),
    ("shorter", "longer"),
    ("longest", "shortest"),
    ("shortest", "longest"),
    ("larger", "smaller"),
    ("smaller", "larger"),
    ("largest", "smallest"),
    ("smallest", "largest"),
    ("bigger", "smaller"),
    ("biggest", "smallest"),
    ("higher", "lower"),
    ("lower", "higher"),
    ("highest", "lowest"),
    ("lowest", "highest"),
    ("older", "younger"),
    ("younger", "older"),
    ("oldest", "youngest"),
    ("youngest", "oldest"),
    ("greater", "smaller"),
    ("greatest", "smallest"),
    ("heavier", "lighter"),
    ("lighter", "heavier"),
    ("taller", "shorter"),
    ("tallest", "shortest"),
    ("wider", "narrower"),
    ("narrower", "wider"),
    ("closer", "farther"),
    ("farther", "closer"),
    ("further", "closer"),
    ("nearer", "farther"),
    ("faster", "slower"),
    ("slower", "faster"),
    ("fastest", "slowest"),
    ("slowest", "fastest"),
    ("better", "worse"),
    ("worse", "better"),
    ("best", "worst"),
    ("worst", "best"),
    ("fewer", "more"),
    ("less", "more"),
    ("fewest", "most"),
    ("least", "most"),
    ("more", ""),
    ("most", ""),
];

/// Verb forms after which "longer"/"longest" measure time ("Who lived longer, …?").
const DURATION_VERBS: [&str; 24] = [
    "live", "lives", "lived", "living", "last", "lasts", "lasted", "lasting", "serve", "serves",
    "served", "serving", "reign", "reigns", "reigned", "rule", "ruled", "survive", "survived",
    "stay", "stayed", "exist", "existed", "run",
];

/// One word of the question: its text and where it is.
struct Word<'a> {
    text: &'a str,
    start: usize,
    end: usize,
    /// What follows, as [`following`] says, when parsed.
    next_tag: Option<&'a str>,
}

fn words<'a>(input: &'a BuildInput<'a>) -> Vec<Word<'a>> {
    match input.parse {
        Some(doc) => doc
            .tokens
            .iter()
            .enumerate()
            .map(|(i, t)| Word {
                text: &doc.text[t.start..t.end],
                start: t.start,
                end: t.end,
                next_tag: following(doc, i),
            })
            .collect(),
        None => {
            let q = input.question;
            let mut out = Vec::new();
            let mut start = None;
            for (i, c) in q.char_indices().chain(std::iter::once((q.len(), ' '))) {
                let inside = c.is_alphanumeric() || c == '-';
                match (inside, start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        out.push(Word {
                            text: &q[s..i],
                            start: s,
                            end: i,
                            next_tag: None,
                        });
                        start = None;
                    }
                    _ => {}
                }
            }
            out
        }
    }
}

/// What follows token `i` as "more" would see it: `NNS` when a plural noun comes (after any
/// adjectives or name words: "more Native Americans"), `NN` for a singular noun, `JJ` for an
/// adjective or adverb with no noun after it ("more common"); `None` when unclear.
fn following(doc: &metamorph_parse::spacy::Doc, i: usize) -> Option<&'static str> {
    let mut j = i + 1;
    let mut saw_modifier = false;
    while let Some(t) = doc.tokens.get(j) {
        let word = &doc.text[t.start..t.end];
        match t.tag.as_str() {
            "NNS" | "NNPS" => return Some("NNS"),
            "NNP" if word.ends_with('s') && !word.ends_with("ss") => return Some("NNS"),
            "NNP" | "JJ" | "JJR" | "JJS" | "RB" | "VBN" => {
                saw_modifier = true;
                j += 1;
            }
            "NN" => return Some("NN"),
            _ => return saw_modifier.then_some("JJ"),
        }
    }
    saw_modifier.then_some("JJ")
}

/// The opposites of `word` (as written) before what [`following`] found.
fn opposites(word: &str, next_tag: Option<&str>) -> Vec<String> {
    let lower = word.to_lowercase();
    let Some((_, opposite)) = OPPOSITES.iter().find(|(w, _)| *w == lower) else {
        return Vec::new();
    };
    let choices: Vec<&str> = match (lower.as_str(), next_tag) {
        ("more", Some("NNS" | "NNPS")) => vec!["fewer"],
        ("more", Some(_)) => vec!["less"],
        ("more", None) => vec!["fewer", "less"],
        ("most", Some("NNS" | "NNPS")) => vec!["fewest"],
        ("most", Some(_)) => vec!["least"],
        ("most", None) => vec!["fewest", "least"],
        _ => vec![opposite],
    };
    let capital = word.chars().next().is_some_and(char::is_uppercase);
    choices
        .into_iter()
        .map(|c| {
            if capital {
                let mut cs = c.chars();
                cs.next()
                    .map(|f| f.to_uppercase().collect::<String>() + cs.as_str())
                    .unwrap_or_default()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `before` with a final "a"/"an" agreeing with `word` ("an earlier" → "a later").
fn with_article_for(before: &str, word: &str) -> String {
    let vowel = word
        .chars()
        .next()
        .is_some_and(|c| "aeiouAEIOU".contains(c));
    let trimmed = before.trim_end();
    let gap = &before[trimmed.len()..];
    for (article, other) in [("an", "a"), ("a", "an"), ("An", "A"), ("A", "An")] {
        let Some(stem) = trimmed.strip_suffix(article) else {
            continue;
        };
        if !stem.is_empty() && !stem.ends_with(' ') {
            continue;
        }
        let right = if vowel {
            article.len() == 2
        } else {
            article.len() == 1
        };
        return if right {
            before.to_string()
        } else {
            format!("{stem}{other}{gap}")
        };
    }
    before.to_string()
}

/// The ReplaceComp question (see the module docs).
pub fn replace_comp(input: &BuildInput<'_>) -> Result<Vec<String>, Unrendered> {
    let words = words(input);
    let sites: Vec<&Word<'_>> = words
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            // A capitalised word after the first is part of a name.
            let in_name = *i > 0 && w.text.chars().next().is_some_and(char::is_uppercase);
            !in_name && !opposites(w.text, w.next_tag).is_empty()
        })
        .map(|(_, w)| w)
        .collect();
    let site = match sites.as_slice() {
        [one] => one,
        [] => return Err(Unrendered::new("no comparison word in the question")),
        _ => {
            // "more … than" inside one phrase counts once; otherwise the choice is unclear.
            return Err(Unrendered::new("several comparison words in the question"));
        }
    };
    // "farther west" has no opposite in "closer west" (it would be "farther east", which
    // asks of the other end); a compass direction after a distance word is not swapped.
    let after = input.question[site.end..]
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphabetic())
        .to_lowercase();
    if ["farther", "further", "closer", "nearer"].contains(&site.text.to_lowercase().as_str())
        && [
            "north",
            "south",
            "east",
            "west",
            "northward",
            "southward",
            "eastward",
            "westward",
        ]
        .contains(&after.as_str())
    {
        return Err(Unrendered::new(
            "a distance word before a compass direction",
        ));
    }
    // "lived longer" asks how long; its opposite is "lived for a shorter time", not "lived
    // shorter".
    let before = input.question[..site.start].trim_end();
    // "lasted the longest": the article goes with the word.
    let (before, article) = match before.rsplit_once(' ') {
        Some((rest, "the")) => (rest.trim_end(), true),
        _ => (before, false),
    };
    // As written: a capitalised word is a name's ("the First Battle of Bull Run longer").
    let previous = before.rsplit(' ').next().unwrap_or("");
    if DURATION_VERBS.contains(&previous) {
        let opposite = match (site.text.to_lowercase().as_str(), article) {
            ("longer", false) => Some("for a shorter time"),
            ("longest", _) => Some("for the shortest time"),
            _ => None,
        };
        if let Some(opposite) = opposite {
            return Ok(vec![format!(
                "{before} {opposite}{}",
                &input.question[site.end..]
            )]);
        }
    }
    Ok(opposites(site.text, site.next_tag)
        .into_iter()
        .map(|o| {
            let before = with_article_for(&input.question[..site.start], &o);
            format!("{before}{o}{}", &input.question[site.end..])
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::super::qdmr::Qdmr;
    use super::super::super::types::PerturbationKind;
    use super::*;

    fn build(question: &str) -> Result<Vec<String>, Unrendered> {
        let q = Qdmr::from_texts(&["a", "b", "which is highest of #1 , #2"]).unwrap();
        replace_comp(&BuildInput {
            question,
            parse: None,
            original: &q,
            perturbed: &q,
            kind: PerturbationKind::ReplaceComp,
            detail: "comparison:highest->lowest",
            wording: None,
        })
    }

    #[test]
    fn the_one_comparison_word_is_swapped_and_names_are_left_alone() {
        assert_eq!(
            build("What happened first: Battle of Carrizal or prisoners were repatriated?")
                .unwrap(),
            ["What happened last: Battle of Carrizal or prisoners were repatriated?"]
        );
        assert_eq!(
            build("Who died first, Edward or John?").unwrap(),
            ["Who died last, Edward or John?"]
        );
        assert_eq!(
            build("Which team scored more points, the Bears or the Lions?").unwrap(),
            [
                "Which team scored fewer points, the Bears or the Lions?",
                "Which team scored less points, the Bears or the Lions?"
            ]
        );
        assert_eq!(
            build("Was the First Battle of Bull Run longer or the siege?").unwrap(),
            ["Was the First Battle of Bull Run shorter or the siege?"]
        );
        assert_eq!(
            build("Which mine was operated at an earlier date, Kemess or Colomac?").unwrap(),
            ["Which mine was operated at a later date, Kemess or Colomac?"]
        );
        // From the tuning half of BREAK's other dev questions ("Who lived shorter, …?").
        assert_eq!(
            build("Who lived longer, American author Owen Wister or Lucy Maud Montgomery?")
                .unwrap(),
            ["Who lived for a shorter time, American author Owen Wister or Lucy Maud Montgomery?"]
        );
        assert_eq!(
            build("Which war lasted the longest, A or B?").unwrap(),
            ["Which war lasted for the shortest time, A or B?"]
        );
        assert!(build("Who won, Edward or John?").is_err());
        assert!(build("Which is longer and older, A or B?").is_err());
        assert!(build("Which is located farther West, the Locks or the Lagoon?").is_err());
    }
}
