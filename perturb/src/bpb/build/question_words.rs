//! The question's own words, written back where a decomposition step retyped them.
//!
//! BREAK's annotators copied the question's words into their steps and changed some on the
//! way: titles lower-cased ("that Darn Cat" for *That Darn Cat!*, "what are Little Girls Made
//! of"), a possessive's apostrophe dropped ("Vladislaus son" for "Vladislaus' son"), an
//! abbreviation's period dropped ("Monsters, Inc Laughing Floor"), an article dropped after a
//! preposition ("of town that …" for "in a town that …"). A question built from the steps
//! inherits those slips; [`restore`] aligns its words with the question's (longest common
//! subsequence of the words compared without case or punctuation) and writes each aligned word
//! as the question writes it, where that is safe without a parse:
//!
//! * **Capitals** come back only from a word that is not the question's first (whose capital is
//!   the sentence's); a function word ("the", "of", "are") takes a capital only inside a run of
//!   aligned capitalised words (a title), so "the company" never becomes "The company" because a
//!   title elsewhere begins with "The". A word the step SHOUTS takes the question's case.
//! * **A possessive or an abbreviation's period** comes back only when the next word is aligned
//!   too ("Vladislaus son" → "Vladislaus' son", never "the son of Vladislaus'"); a possessive
//!   the question writes after "the" comes back with it ("the Broncos' 2008 starting QB").
//! * **An article** comes back only after a preposition, before a word that stands with the
//!   step's next word in the question right after an article ("of town that" → "of a town
//!   that", from "in a town that"), and never before a common noun that titles a name ("with
//!   crew member Stephe Regelous").
//!
//! Misspellings the question itself has are the data's, in source and follow-up alike, and stay.

use metamorph_data::alignment::longest_common_subsequence;

/// Words that take a capital only inside a title.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or",
    "but", "is", "are", "was", "were", "be", "what", "who", "where", "when", "why", "how", "that",
    "this", "these", "those", "it", "its", "as", "into", "before", "after", "do", "does", "did",
    "not", "no",
];

/// Prepositions after which a dropped article is restored.
const PREPOSITIONS: &[&str] = &[
    "of", "in", "from", "for", "at", "on", "with", "by", "to", "into", "about", "under", "over",
];

const ARTICLES: &[&str] = &["a", "an", "the"];

/// One word of a text: what it is written as (trailing punctuation apart) and its key for the
/// alignment (letters and digits, lower case, a possessive's `'s`/`'` dropped).
struct Word<'a> {
    /// The punctuation before `core` (an opening quote or bracket).
    lead: &'a str,
    /// The word with its trailing punctuation (`,`, `?`, `!`, quotes) removed.
    core: &'a str,
    /// The punctuation after `core`.
    tail: &'a str,
    key: String,
}

fn words(text: &str) -> Vec<Word<'_>> {
    text.split_whitespace()
        .map(|whole| {
            let token = whole.trim_start_matches(['"', '\'', '(', '“']);
            let lead = &whole[..whole.len() - token.len()];
            let core = token.trim_end_matches([',', '?', '!', ';', ':', '"', ')', '”', '.']);
            // An abbreviation's period belongs to the word ("Inc.", "Co."), a sentence's does
            // not; only a period directly after a capitalised short word is kept.
            let core = if token[core.len()..].starts_with('.')
                && core.len() <= 4
                && core.chars().next().is_some_and(char::is_uppercase)
            {
                &token[..core.len() + 1]
            } else {
                core
            };
            let key = split_possessive(core)
                .0
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            Word {
                lead,
                core,
                tail: &token[core.len()..],
                key,
            }
        })
        .collect()
}

/// Pairs (built index, question index) of a longest common subsequence of the keys.
fn align(built: &[Word<'_>], question: &[Word<'_>]) -> Vec<(usize, usize)> {
    longest_common_subsequence(built.len(), question.len(), |i, j| {
        !built[i].key.is_empty() && built[i].key == question[j].key
    })
}

fn has_capital(word: &str) -> bool {
    word.chars().any(char::is_uppercase)
}

fn shouted(word: &str) -> bool {
    word.chars().filter(|c| c.is_alphabetic()).count() > 1 && !word.chars().any(char::is_lowercase)
}

fn possessive(word: &str) -> bool {
    !split_possessive(word).1.is_empty()
}

/// `word` and its possessive mark (`'s`, `'`, or nothing).
fn split_possessive(word: &str) -> (&str, &str) {
    for mark in ["'s", "’s", "'", "’"] {
        if let Some(bare) = word.strip_suffix(mark) {
            return (bare, &word[bare.len()..]);
        }
    }
    (word, "")
}

/// `built` with the words it shares with `question` written as the question writes them (see
/// the module docs); unchanged where nothing is safe to restore.
pub fn restore(built: &str, question: &str) -> String {
    let b = words(built);
    let q = words(question);
    if b.is_empty() || q.is_empty() || b.len() * q.len() > 40_000 {
        return built.to_string();
    }
    let pairs = align(&b, &q);
    // A question written in capitals has no case to give.
    let question_shouts = q.iter().filter(|w| shouted(w.core)).count() * 2 > q.len();
    let mut partners = vec![None; b.len()];
    for &(i, j) in &pairs {
        partners[i] = Some(j);
    }
    let partner = |i: usize| partners.get(i).copied().flatten();
    // Whether built word `i` (aligned to question word `j`) lies in a run of aligned words
    // that reaches a capitalised content word of the question (not its first) across function
    // words only: a title.
    let in_title = |i: usize, j: usize| {
        [1isize, -1].into_iter().any(|dir| {
            for d in 1..=4isize {
                let (Some(bi), Some(qj)) =
                    (i.checked_add_signed(d * dir), j.checked_add_signed(d * dir))
                else {
                    return false;
                };
                if bi >= b.len() || partner(bi) != Some(qj) {
                    return false;
                }
                let content = !FUNCTION_WORDS.contains(&q[qj].key.as_str());
                if content {
                    return qj > 0 && has_capital(q[qj].core);
                }
            }
            false
        })
    };
    let mut out: Vec<String> = Vec::with_capacity(b.len() + 2);
    for (i, word) in b.iter().enumerate() {
        // An article the step dropped after a preposition: the word and the next are
        // together in the question, after an article.
        let function = FUNCTION_WORDS.contains(&word.key.as_str());
        // Not before a common noun used as a title of a name ("with crew member Stephe
        // Regelous", "with actor Tom Hanks").
        let capital = |k: usize| b.get(k).is_some_and(|w| has_capital(w.core));
        let titles_a_name = !capital(i)
            && (capital(i + 1)
                || (!FUNCTION_WORDS.contains(&b.get(i + 1).map_or("", |w| w.key.as_str()))
                    && capital(i + 2)));
        if i > 0
            && i + 1 < b.len()
            && !function
            && !titles_a_name
            && PREPOSITIONS.contains(&b[i - 1].key.as_str())
        {
            if let Some(j) = (1..q.len().saturating_sub(1)).find(|&j| {
                q[j].key == word.key
                    && q[j + 1].key == b[i + 1].key
                    && ARTICLES.contains(&q[j - 1].key.as_str())
            }) {
                out.push(q[j - 1].core.to_lowercase());
            }
        }
        let mut core = word.core.to_string();
        if let Some(j) = partner(i) {
            let theirs = q[j].core;
            let next_aligned = partner(i + 1) == Some(j + 1);
            // Case: the question's, where it is not a sentence capital; a shouted step word
            // takes the question's case whatever it is.
            let (own_bare, own_mark) = split_possessive(&core);
            let (their_bare, _) = split_possessive(theirs);
            let case_ok = j > 0 && (!function || in_title(i, j));
            if own_bare != their_bare
                && own_bare.to_lowercase() == their_bare.to_lowercase()
                && ((case_ok
                    && has_capital(their_bare)
                    && !has_capital(own_bare)
                    && !question_shouts)
                    || (j > 0 && shouted(own_bare) && !shouted(their_bare)))
            {
                core = format!("{their_bare}{own_mark}");
            }
            // A possessive or an abbreviation's period the step dropped, before an aligned word.
            if next_aligned {
                if possessive(theirs) && !possessive(&core) {
                    core.push_str(split_possessive(theirs).1);
                    // With its article, where the question has one and the step dropped it
                    // ("Broncos 2008 starting QB" → "the Broncos' 2008 starting QB").
                    let article_dropped = j > 0
                        && q[j - 1].key == "the"
                        && (i == 0 || !ARTICLES.contains(&b[i - 1].key.as_str()))
                        && out.last().is_none_or(|w| !ARTICLES.contains(&w.as_str()));
                    if article_dropped {
                        out.push("the".to_string());
                    }
                } else if theirs.ends_with('.') && !core.ends_with('.') && word.tail.is_empty() {
                    core.push('.');
                }
            }
        }
        let tail = if core.ends_with('.') {
            word.tail.trim_start_matches('.')
        } else {
            word.tail
        };
        out.push(format!("{}{core}{tail}", word.lead));
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::restore;

    /// Round 15's read rows: "What was Broncos' 2008 starting QB?".
    #[test]
    fn a_possessive_comes_back_with_its_article() {
        assert_eq!(
            restore(
                "What was Broncos 2008 starting QB?",
                "Where was the Broncos' 2008 starting QB born?"
            ),
            "What was the Broncos' 2008 starting QB?"
        );
        assert_eq!(
            restore(
                "What was Warriors 52nd season?",
                "Which NBA team won the championship in the Warriors' 52nd season?"
            ),
            "What was the Warriors' 52nd season?"
        );
        // An article there already stays the only one.
        let kept = "What was the Broncos' 2008 starting QB?";
        assert_eq!(
            restore(kept, "Where was the Broncos' 2008 starting QB born?"),
            kept
        );
    }

    #[test]
    fn the_questions_capitals_possessives_and_articles_come_back() {
        let cases = [
            // A title the step lower-cased.
            (
                "Did that Darn Cat appear later than Perri?",
                "Which animal-themed Disney classic film appeared first: That Darn Cat! or Perri?",
                "Did That Darn Cat appear later than Perri?",
            ),
            (
                "What was the nursery rhyme inspiring what are Little Girls Made of?",
                "What was the Roud Folk Song Index of the nursery rhyme inspiring What Are Little Girls Made Of?",
                "What was the nursery rhyme inspiring What Are Little Girls Made Of?",
            ),
            (
                "Who was the music producer who produced before the Flood?",
                "Where did the music producer who produced \"Before the Flood\" live?",
                "Who was the music producer who produced Before the Flood?",
            ),
            // A possessive's apostrophe.
            (
                "What was the year that Vladislaus son was born?",
                "How many years after Peace of Pressburg was Vladislaus' son born?",
                "What was the year that Vladislaus' son was born?",
            ),
            // An abbreviation's period.
            (
                "What was the attraction that was replaced by Monsters, Inc Laughing Floor?",
                "What was unique about the attraction that was replaced by Monsters, Inc. Laughing Floor on April 2,2007?",
                "What was the attraction that was replaced by Monsters, Inc. Laughing Floor?",
            ),
            // An article after a preposition.
            (
                "What were the inhabitants in 2011 of town that St Anne's Academy is located in?",
                "St Anne's Academy is located in a town that had how many inhabitants in 2011?",
                "What were the inhabitants in 2011 of a town that St Anne's Academy is located in?",
            ),
            // A shouted step.
            (
                "What was the BOOK that was MADE INTO the film?",
                "What was the name of the book made into the film?",
                "What was the book that was made into the film?",
            ),
        ];
        for (built, question, expected) in cases {
            assert_eq!(restore(built, question), expected, "{built}");
        }
    }

    #[test]
    fn a_sentence_capital_or_a_lone_function_word_does_not_spread() {
        // "The" opens the question: its capital is the sentence's.
        let built = "What was the company that made the film?";
        assert_eq!(
            restore(built, "The company that made the film was sold when?"),
            built
        );
        // "The" of a title elsewhere does not capitalise the step's "the".
        let built = "Who was the director of the film?";
        assert_eq!(
            restore(built, "When did the director of the film The Deal die?"),
            built
        );
        // A possessive goes back only before the word it was written before.
        let built = "Who was the son of Vladislaus?";
        assert_eq!(restore(built, "When was Vladislaus' son born?"), built);
        // Brackets and quotes stay; a question's typo in capitals does not spread.
        let built = "What was the lab that launched the Transient Events ( FORTE )?";
        assert_eq!(
            restore(built, "Which lab launched the Transient Events ( FORTE )?"),
            built
        );
        let built = "What is the growth of the Academic Library?";
        assert_eq!(
            restore(built, "How much did the Academic LIbrary grow?"),
            built
        );
        // No article before a common noun that titles a name.
        let built = "What was the movie with crew member Stephe Regelous?";
        assert_eq!(
            restore(built, "Stephe Regelous was a crew member on a movie?"),
            built
        );
        // A determiner after a preposition the step already has.
        let built = "What is the capital of the country?";
        assert_eq!(restore(built, "What is the capital of a country?"), built);
    }
}
