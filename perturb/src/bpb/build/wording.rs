//! BREAK's step wording made into English: what the decompositions' annotators wrote to be
//! read by a parser ("touchdowns that the Colts did score", "when Frederick William lay claim
//! to …", "the day when the transfer of power take place") is not how a question says it.
//!
//! * [`Wording::polish`] rewrites a written question: an emphatic `did V` inside it becomes
//!   the past tense ("that the Colts scored"), and a bare verb whose subject is a singular
//!   noun agrees with it ("take place" → "took place" in a past question, "takes place" in a
//!   present one). Both read the spaCy port's tags, so a name is never taken for a verb.
//! * [`Wording::as_question`] gives a question word clause without an auxiliary its
//!   do-support: "when X died" → "when did X die".
//! * [`TimePair`] reads two steps that ask the same thing of two subjects ("when was X born",
//!   "when was Y born"; "how old is X", …) so that a comparison of them is asked as English
//!   does ("Was X born later than Y?", "Is X older than Y?") and an arithmetic step over them
//!   names a number ("the year X was born", "the age of X"): without it those steps are
//!   clauses where a noun phrase is needed, and were not written.
//!
//! Decision: every rewrite needs the inflection tables (lemminflect's), and the two parse
//! based ones the parser; without them ([`super::BuildInput::wording`] `None`) questions are
//! written as before, from the steps' own words.

use metamorph_parse::spacy::pipeline::Pipeline;
use metamorph_parse::spacy::Doc;

use crate::lexicon::inflect::Inflections;
use crate::lexicon::wordnet::{lexfile, Pos, WordNet};

/// What the rewrites read: the parser, the inflection tables and (optionally) WordNet.
#[derive(Clone, Copy)]
pub struct Wording<'a> {
    /// The spaCy port (`en_core_web_sm`).
    pub parser: &'a Pipeline,
    /// lemminflect's tables.
    pub inflections: &'a Inflections,
    /// WordNet, which tells nouns of people ("Who") and words that are English from
    /// misspellings the steps carry ("forim", "recieved"); `None` uses a list of person nouns
    /// and lets every word pass.
    pub wordnet: Option<&'a WordNet>,
}

/// Closed-class words WordNet and the inflection tables do not list.
const FUNCTION_WORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "of",
    "in",
    "on",
    "at",
    "by",
    "for",
    "from",
    "with",
    "to",
    "into",
    "onto",
    "and",
    "or",
    "nor",
    "but",
    "that",
    "which",
    "who",
    "whom",
    "whose",
    "what",
    "when",
    "where",
    "why",
    "how",
    "than",
    "as",
    "if",
    "whether",
    "there",
    "their",
    "they",
    "them",
    "his",
    "her",
    "its",
    "it",
    "he",
    "she",
    "we",
    "our",
    "you",
    "your",
    "my",
    "this",
    "these",
    "those",
    "each",
    "every",
    "any",
    "all",
    "both",
    "either",
    "neither",
    "some",
    "no",
    "not",
    "also",
    "about",
    "after",
    "before",
    "during",
    "since",
    "until",
    "while",
    "between",
    "among",
    "against",
    "without",
    "within",
    "upon",
    "over",
    "under",
    "through",
    "across",
    "toward",
    "towards",
    "per",
    "via",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "did",
    "does",
    "do",
    "has",
    "have",
    "had",
    "can",
    "could",
    "will",
    "would",
    "shall",
    "should",
    "may",
    "might",
    "must",
    "many",
    "much",
    "more",
    "most",
    "less",
    "least",
    "fewer",
    "fewest",
    "than",
    "other",
    "same",
    "such",
    "own",
    "whose",
    "himself",
    "herself",
    "itself",
    "themselves",
    "one",
    "ones",
];

/// Auxiliaries after which a verb is already in the form it needs.
pub(crate) const AUXILIARIES: [&str; 21] = [
    "did", "does", "do", "was", "were", "is", "are", "am", "be", "been", "has", "have", "had",
    "can", "could", "will", "would", "shall", "should", "may", "might",
];

impl Wording<'_> {
    fn parse(&self, text: &str) -> Option<Doc> {
        self.parser.process(&[text]).ok()?.into_iter().next()
    }

    /// The past tense of the verb `lemma`, from the tables (`None` when they do not know it).
    fn past(&self, lemma: &str) -> Option<String> {
        self.inflections.inflect(lemma, "VBD")
    }

    /// The base form of the verb `word` as written in a past clause: the word itself when it
    /// is a verb's base form too ("lay", "read", "beat"), else its lemma.
    fn base(&self, word: &str, tag: &str) -> Option<String> {
        let lower = word.to_lowercase();
        if tag == "VB" || tag == "VBP" {
            return Some(lower);
        }
        if tag == "VBD" && self.inflections.inflect(&lower, "VBD").is_some() {
            return Some(lower);
        }
        self.inflections.lemma(&lower, "VERB")
    }

    /// Whether the noun `word` (any number) names people, by its first WordNet sense
    /// (`noun.person`): "entertainer", "rapper", "actresses"; `None` without WordNet or for a
    /// word it does not know.
    pub fn names_people(&self, word: &str) -> Option<bool> {
        let wordnet = self.wordnet?;
        let lower = word.to_lowercase();
        let lemma = wordnet.morphy(&lower, Pos::Noun).into_iter().next()?;
        let first = wordnet.synsets(&lemma, Pos::Noun).into_iter().next()?;
        Some(first.lex_filenum() == lexfile::NOUN_PERSON)
    }

    /// The first lower-case word of `question` that is no English word WordNet or the
    /// inflection tables know (a misspelling the decomposition carries: "forim", "recieved",
    /// "coutry"); `None` when every word is known or without WordNet. Words with digits,
    /// hyphens or apostrophes, capitalised words (names) and the words of `original` (the
    /// dataset's own question: its words, "akinjis", are the data's, in source and follow-up
    /// alike) are not looked at.
    pub fn unknown_word(&self, question: &str, original: &str) -> Option<String> {
        let wordnet = self.wordnet?;
        let original = original.to_lowercase();
        let own: Vec<&str> = original
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        question
            .split(|c: char| c.is_whitespace() || ",.?;:()\"".contains(c))
            .filter(|w| w.len() >= 3 && w.chars().all(|c| c.is_ascii_lowercase()))
            .find(|w| {
                !FUNCTION_WORDS.contains(w)
                    && !own.contains(w)
                    && [Pos::Noun, Pos::Verb, Pos::Adj, Pos::Adv]
                        .iter()
                        .all(|&pos| wordnet.morphy(w, pos).is_empty())
                    && ["NOUN", "VERB", "ADJ", "ADV"]
                        .iter()
                        .all(|upos| self.inflections.lemma(w, upos).is_none())
            })
            .map(str::to_string)
    }

    /// `question` with its emphatic `did V` in the past tense and a bare verb of a singular
    /// noun subject made to agree (in the past when `past`); unchanged where the parse does
    /// not show one of those.
    pub fn polish(&self, question: &str, past: bool) -> String {
        let question = &self.superlative_lengths(question);
        let question = &self.one_superlative(question);
        let question = &the_number_of(question);
        let question = &no_count_of_an_amount(question);
        let question = &no_there_be_in_a_count(question);
        let question = &one_relative_for_two(question);
        let Some(doc) = self.parse(question) else {
            return question.to_string();
        };
        let n = doc.tokens.len();
        let text = |i: usize| doc.token_text(i).to_string();
        let mut words: Vec<Option<String>> = (0..n).map(|i| Some(text(i))).collect();
        // "that the Colts did score": `did` after its subject is emphatic; its verb (after
        // adverbs, "did allegedly rise") takes the past tense.
        for i in 1..n.saturating_sub(1) {
            if !text(i).eq_ignore_ascii_case("did") {
                continue;
            }
            let verb = doc.tokens[i].head;
            if verb <= i
                || verb >= n
                || !(i + 1..verb).all(|k| doc.tokens[k].tag.starts_with("RB"))
                // "that Aikman did not complete" stays: "not completed" is not English.
                || (i + 1..verb).any(|k| doc.tokens[k].dep == "neg")
                || !text(verb).chars().next().is_some_and(char::is_lowercase)
            {
                continue;
            }
            let subject_before = (0..i)
                .any(|c| doc.tokens[c].head == verb && doc.tokens[c].dep.starts_with("nsubj"));
            if !subject_before {
                continue;
            }
            if let Some(past) = self.past(&text(verb).to_lowercase()) {
                words[i] = None;
                words[verb] = Some(past);
            }
        }
        // "What was the year when X sails …": a present verb in a past question's clause.
        let root_past = doc
            .tokens
            .iter()
            .enumerate()
            .any(|(r, t)| t.head == r && t.tag == "VBD");
        // "Is the year when the Emperor takes back control … later than …?" asks of the past
        // too: a clause of a time noun follows the question, not its comparison's "is".
        let of_a_time = |j: usize| {
            let t = &doc.tokens[j];
            let time_head = t.head < n
                && matches!(
                    text(t.head).to_lowercase().as_str(),
                    "year" | "day" | "date" | "month" | "time" | "week"
                );
            let when =
                (0..j).any(|c| doc.tokens[c].head == j && text(c).eq_ignore_ascii_case("when"));
            (when || t.dep == "relcl") && time_head
        };
        if past {
            for (j, t) in doc.tokens.iter().enumerate().skip(1) {
                if !root_past && !of_a_time(j) {
                    continue;
                }
                // A capitalised verb is a title's word ("The Motion Makes Me Last").
                if t.tag != "VBZ"
                    || t.pos != "VERB"
                    || t.head == j
                    || !text(j).chars().next().is_some_and(char::is_lowercase)
                {
                    continue;
                }
                let lemma = t.lemma.to_lowercase();
                if ["be", "have", "do"].contains(&lemma.as_str()) {
                    continue;
                }
                if let Some(past) = self.past(&lemma) {
                    words[j] = Some(past);
                }
            }
        }
        // "the country that Russia border", "the year when the Kingdom forms": the tagger
        // reads a clause's verb after a name as a noun with the name as its compound. A
        // lower-case word it heads that way, right after "that"/"when"/"where" and the name,
        // that the tables know as a verb, is the clause's verb: it agrees with the name (in
        // the past in a past question).
        for (k, slot) in words.iter_mut().enumerate().skip(2) {
            let t = &doc.tokens[k];
            let word = text(k);
            if !["NN", "NNS"].contains(&t.tag.as_str())
                || [
                    "nsubj",
                    "nsubjpass",
                    "dobj",
                    "pobj",
                    "attr",
                    "compound",
                    "conj",
                ]
                .contains(&t.dep.as_str())
                || !word.chars().all(|c| c.is_ascii_lowercase())
                || slot.as_deref() != Some(word.as_str())
            {
                continue;
            }
            // The name: the proper nouns right before it, all its compounds.
            let mut first = k;
            while first > 0
                && doc.tokens[first - 1].tag.starts_with("NNP")
                && doc.tokens[first - 1].head == k
            {
                first -= 1;
            }
            // "the Indo-Greek Kingdom": a hyphen inside the name.
            while first > 1
                && ["HYPH", "NNP", "NNPS"].contains(&doc.tokens[first - 1].tag.as_str())
                && doc.tokens[first - 1].head != k
                && !["that", "when", "where"].contains(&text(first - 1).to_lowercase().as_str())
            {
                first -= 1;
            }
            if first > 0 && doc.tokens[first - 1].tag == "DT" {
                first -= 1;
            }
            if first == k
                || first == 0
                || !["that", "when", "where"].contains(&text(first - 1).to_lowercase().as_str())
            {
                continue;
            }
            // What follows is what follows a verb: the end, a preposition or a determiner.
            if k + 1 < n && !["IN", ".", "DT", "RP"].contains(&doc.tokens[k + 1].tag.as_str()) {
                continue;
            }
            let Some(lemma) = self.inflections.lemma(&word, "VERB") else {
                continue;
            };
            let form = if past {
                self.past(&lemma)
            } else if t.tag == "NN" {
                self.inflections.inflect(&lemma, "VBZ")
            } else {
                None
            };
            if let Some(form) = form {
                *slot = Some(form);
            }
        }
        // "What was the field goals …": `be` agrees with a plural subject; "What is A
        // multiplied by B" asks for one number.
        let product = [" multiplied by ", " divided by "]
            .iter()
            .any(|w| question.contains(w));
        for j in (0..n).filter(|_| !product) {
            let word = text(j).to_lowercase();
            let plural = match word.as_str() {
                "was" => "were",
                "is" => "are",
                _ => continue,
            };
            // An auxiliary agrees with its verb's subject ("the Lithuanians was informed").
            let auxiliary = ["aux", "auxpass"].contains(&doc.tokens[j].dep.as_str());
            let verb = doc.tokens[j].head;
            let subjects: Vec<&str> = (0..n)
                .filter(|&c| c != j)
                .filter(|&c| {
                    let (head, dep) = (doc.tokens[c].head, doc.tokens[c].dep.as_str());
                    (head == j && ["nsubj", "attr"].contains(&dep))
                        || (auxiliary
                            && head == verb
                            && dep.starts_with("nsubj")
                            && plural_people_or_things(&doc, c))
                })
                .map(|c| doc.tokens[c].tag.as_str())
                .collect();
            if subjects.iter().any(|t| ["NNS", "NNPS"].contains(t))
                && !subjects.iter().any(|t| ["NN", "NNP"].contains(t))
            {
                words[j] = Some(capital_like(&text(j), plural));
            }
        }
        // "is frozen drink": a singular common noun after `be` takes an article.
        for j in 0..n {
            let t = &doc.tokens[j];
            if t.dep != "attr" || t.tag != "NN" || t.head >= n {
                continue;
            }
            if !["is", "was"].contains(&text(t.head).to_lowercase().as_str()) {
                continue;
            }
            let children: Vec<usize> = (0..n)
                .filter(|&c| c != j && doc.tokens[c].head == j)
                .collect();
            if children
                .iter()
                .any(|&c| ["det", "poss", "nummod", "predet"].contains(&doc.tokens[c].dep.as_str()))
            {
                continue;
            }
            // The noun phrase opens with its leftmost modifier before the noun.
            let first = children
                .iter()
                .copied()
                .filter(|&c| c < j)
                .min()
                .unwrap_or(j);
            if first <= t.head || doc.tokens[first].tag.starts_with("NNP") && first == j {
                continue;
            }
            // "is currenlty serving time": two attributes or a gerund "modifier" are a
            // progressive verb the tagger missed, not a noun phrase.
            let attributes = (0..n)
                .filter(|&c| doc.tokens[c].head == t.head && doc.tokens[c].dep == "attr")
                .count();
            if attributes > 1 || doc.tokens[first].tag == "VBG" {
                continue;
            }
            if let Some(word) = words[first].clone() {
                let article = crate::edit::indefinite_article(&word);
                words[first] = Some(format!("{article} {word}"));
            }
        }
        // "the country In the Chamorro Time Zone", "German As of 2000": a capitalised function
        // word between lower-case words is a sentence's first word carried in.
        for (i, slot) in words
            .iter_mut()
            .enumerate()
            .take(n.saturating_sub(1))
            .skip(1)
        {
            let word = text(i);
            let lower = word.to_lowercase();
            let before_lower = text(i - 1).chars().next().is_some_and(char::is_lowercase);
            let after_lower = text(i + 1).chars().next().is_some_and(char::is_lowercase);
            if word != lower
                && word.chars().skip(1).all(char::is_lowercase)
                && FUNCTION_WORDS.contains(&lower.as_str())
                && before_lower
                && after_lower
                && slot.as_deref() == Some(word.as_str())
            {
                *slot = Some(lower);
            }
        }
        // "When did the careers … ended": a verb under do-support is in its base form.
        for j in 1..n {
            let t = &doc.tokens[j];
            if !(t.tag == "VBD" || t.tag == "VBN") || t.pos != "VERB" || words[j].is_none() {
                continue;
            }
            let supported = (0..j).any(|c| {
                doc.tokens[c].head == j
                    && doc.tokens[c].dep == "aux"
                    && ["did", "does", "do"].contains(&text(c).to_lowercase().as_str())
                    && words[c].is_some()
            });
            if supported {
                if let Some(base) = self.base(&text(j), &t.tag) {
                    words[j] = Some(base);
                }
            }
        }
        // "the players who was a member": a relative clause's `be` agrees with a plural noun.
        for (j, slot) in words.iter_mut().enumerate().skip(1) {
            let lower = text(j).to_lowercase();
            let plural = match lower.as_str() {
                "was" => "were",
                "is" => "are",
                _ => continue,
            };
            // The relative clause's head: `be` itself (a copula) or the verb it serves.
            let clause = if doc.tokens[j].dep == "relcl" {
                j
            } else {
                doc.tokens[j].head
            };
            if clause >= n || doc.tokens[clause].dep != "relcl" {
                continue;
            }
            let relative_subject = (0..n).any(|c| {
                doc.tokens[c].head == clause
                    && doc.tokens[c].dep.starts_with("nsubj")
                    && ["who", "that", "which"].contains(&text(c).to_lowercase().as_str())
            });
            let antecedent = doc.tokens[clause].head;
            if relative_subject && ["NNS", "NNPS"].contains(&doc.tokens[antecedent].tag.as_str()) {
                *slot = Some(plural.to_string());
            }
        }
        // "from fourth studio album", "of 20th century": an ordinal after a preposition takes
        // "the".
        const ORDINALS: [&str; 12] = [
            "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
            "tenth", "eleventh", "twelfth",
        ];
        for (j, slot) in words.iter_mut().enumerate().skip(1) {
            let lower = text(j).to_lowercase();
            let numeric_ordinal = ["st", "nd", "rd", "th"].iter().any(|suffix| {
                lower
                    .strip_suffix(suffix)
                    .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
            });
            if (ORDINALS.contains(&lower.as_str()) || numeric_ordinal)
                && doc.tokens[j - 1].tag == "IN"
                && slot.as_deref() == Some(text(j).as_str())
            {
                *slot = Some(format!("the {}", text(j)));
            }
        }
        // "a American" → "an American".
        for i in 0..n.saturating_sub(1) {
            let lower = text(i).to_lowercase();
            if (lower == "a" || lower == "an") && words[i].is_some() {
                if let Some(next) = words[i + 1].as_deref() {
                    let next = next.split_whitespace().next().unwrap_or(next);
                    words[i] = Some(capital_like(
                        &text(i),
                        crate::edit::indefinite_article(next),
                    ));
                }
            }
        }
        for (j, token) in doc.tokens.iter().enumerate() {
            if !(token.tag == "VBP" || token.tag == "VB")
                || token.pos != "VERB"
                || j == 0
                || !text(j).chars().next().is_some_and(char::is_lowercase)
            {
                continue;
            }
            let before = text(j - 1).to_lowercase();
            if AUXILIARIES.contains(&before.as_str()) || before == "to" || words[j - 1].is_none() {
                continue;
            }
            // "did Ibrahim Pasha have": a base form under do-support before its subject.
            let supported = (0..j)
                .rev()
                .find(|&c| {
                    !matches!(
                        doc.tokens[c].pos.as_str(),
                        "PROPN" | "NOUN" | "DET" | "ADJ" | "NUM" | "PART"
                    )
                })
                .is_some_and(|c| ["did", "does", "do"].contains(&text(c).to_lowercase().as_str()));
            if supported {
                continue;
            }
            let children: Vec<usize> = (0..n)
                .filter(|&c| c != j && doc.tokens[c].head == j)
                .collect();
            if children.iter().any(|&c| {
                ["aux", "auxpass", "neg"].contains(&doc.tokens[c].dep.as_str())
                    || doc.tokens[c].tag == "MD"
            }) {
                continue;
            }
            // "the Bryant Bulldogs" is a plural name, whatever its tag.
            let plural_name = |c: usize| {
                let word = text(c);
                word.ends_with('s')
                    && !word.ends_with("ss")
                    && (0..n)
                        .any(|d| doc.tokens[d].head == c && text(d).eq_ignore_ascii_case("the"))
            };
            let singular_subject = children.iter().any(|&c| {
                doc.tokens[c].dep == "nsubj"
                    && c < j
                    && ["NN", "NNP"].contains(&doc.tokens[c].tag.as_str())
                    && !(doc.tokens[c].tag == "NNP" && plural_name(c))
            });
            if !singular_subject {
                continue;
            }
            let lemma = text(j).to_lowercase();
            let form = if past {
                self.past(&lemma)
            } else {
                self.inflections.inflect(&lemma, "VBZ")
            };
            if let Some(form) = form {
                words[j] = Some(form);
            }
        }
        the_attribute_of(&join(&doc, &words))
    }

    /// BREAK's superlative of a length ("the longest yards of TD runs of Thomas Jones", from
    /// "yards of TD runs of X ; longest of #1") as English says it: "the yards of the longest
    /// TD run of Thomas Jones" (the counted noun made singular; at most three words before
    /// it, none of them an article or a number).
    fn superlative_lengths(&self, text: &str) -> String {
        // An ordinal picks one thing the same way ("the second yards of field goals").
        const SUPERLATIVES: [&str; 10] = [
            "longest", "shortest", "highest", "lowest", "largest", "smallest", "first", "last",
            "second", "third",
        ];
        let mut words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        let mut k = 0;
        while k + 3 < words.len() {
            let unit = words[k + 1].to_lowercase();
            if !SUPERLATIVES.contains(&words[k].to_lowercase().as_str())
                || !["yards", "meters", "metres", "miles"].contains(&unit.as_str())
                || words[k + 2] != "of"
            {
                k += 1;
                continue;
            }
            let plural = (k + 3..(k + 7).min(words.len()))
                .take_while(|&m| {
                    let w = words[m].to_lowercase();
                    !["the", "a", "an", "of"].contains(&w.as_str())
                        && !w.chars().any(|c| c.is_ascii_digit())
                })
                .find_map(|m| {
                    let w = words[m].trim_end_matches(['?', ',']);
                    let singular = self.inflections.lemma(&w.to_lowercase(), "NOUN")?;
                    (w.ends_with('s') && singular != w.to_lowercase()).then_some((m, singular))
                });
            let Some((m, singular)) = plural else {
                k += 1;
                continue;
            };
            let tail = &words[m][words[m].trim_end_matches(['?', ',']).len()..];
            let singular = format!("{singular}{tail}");
            // "the second longest yards of field goals" → "the yards of the second longest
            // field goal".
            let ordinal = k > 0
                && !["first", "last", "second", "third"]
                    .contains(&words[k].to_lowercase().as_str())
                && ["second", "third", "fourth", "fifth"]
                    .contains(&words[k - 1].to_lowercase().as_str());
            let from = if ordinal { k - 1 } else { k };
            let between = &words[k + 3..m];
            // "the longest yards of David Akers's field goals" → "the yards of David Akers's
            // longest field goal": a possessor goes before the superlative, with no "the".
            let possessor = between
                .iter()
                .rposition(|w| w.ends_with("'s") || w.ends_with("s'"))
                .map_or(0, |p| p + 1);
            let mut replaced = vec![unit, "of".to_string()];
            replaced.extend(between[..possessor].iter().cloned());
            if possessor == 0 {
                replaced.push("the".to_string());
            }
            replaced.extend(words[from..=k].iter().cloned());
            replaced.extend(between[possessor..].iter().cloned());
            replaced.push(singular);
            words.splice(from..=m, replaced);
            k = m + 2;
        }
        words.join(" ")
    }

    /// BREAK's superlative over a plural step ("shortest of #1", #1 = "TD runs") names one
    /// thing: "What were the shortest TD runs?" → "What was the shortest TD run?". The plural
    /// must end the noun phrase (the question's end or a preposition after it), with at most
    /// two words between; a form of `be` right before "the" is made singular with it.
    fn one_superlative(&self, text: &str) -> String {
        let mut words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        let bare = |w: &str| w.trim_end_matches(['?', ',']).to_string();
        for k in 1..words.len() {
            let sup = words[k].to_lowercase();
            // "one of the fastest sprinters" stays plural.
            let part_of = k >= 2
                && (["of", "among"].contains(&words[k - 2].to_lowercase().as_str()))
                && (words[k - 2].eq_ignore_ascii_case("among")
                    || k >= 3
                        && [
                            "one", "some", "many", "two", "three", "few", "several", "each", "any",
                            "all", "none", "most",
                        ]
                        .contains(&words[k - 3].to_lowercase().as_str()));
            let superlative = sup.ends_with("est")
                && sup.len() > 4
                && sup.chars().all(|c| c.is_ascii_lowercase());
            if !superlative || !words[k - 1].eq_ignore_ascii_case("the") || part_of {
                continue;
            }
            let Some(m) = (k + 1..(k + 4).min(words.len())).find(|&m| {
                let w = bare(&words[m]);
                let ends_phrase = words[m].ends_with('?')
                    || words.get(m + 1).is_some_and(|next| {
                        ["of", "in", "by", "from", "for", "during", "than"]
                            .contains(&next.to_lowercase().as_str())
                    });
                ends_phrase
                    && w.ends_with('s')
                    && !w.ends_with("ss")
                    && w.chars().all(|c| c.is_ascii_lowercase())
            }) else {
                continue;
            };
            if words[k + 1..m]
                .iter()
                .any(|w| w.chars().any(|c| c.is_ascii_digit()) || w.contains('\''))
            {
                continue;
            }
            let plural = bare(&words[m]);
            let Some(singular) = self.inflections.lemma(&plural, "NOUN") else {
                continue;
            };
            if singular == plural {
                continue;
            }
            let tail = words[m][plural.len()..].to_string();
            words[m] = format!("{singular}{tail}");
            if k >= 2 {
                let be = match words[k - 2].to_lowercase().as_str() {
                    "were" => Some("was"),
                    "are" => Some("is"),
                    _ => None,
                };
                if let Some(be) = be {
                    words[k - 2] = capital_like(&words[k - 2], be);
                }
            }
        }
        words.join(" ")
    }

    /// A question word clause without an auxiliary ("when Frederick William lay claim to the
    /// principalities", "where X died") with do-support ("when did Frederick William lay
    /// claim …"); any other text unchanged (a clause with its auxiliary, one whose question
    /// word is the subject: "who won the award").
    pub fn as_question(&self, clause: &str, past: bool) -> String {
        let Some(doc) = self.parse(clause) else {
            return clause.to_string();
        };
        let n = doc.tokens.len();
        // "what the benefit of X was": `be` last, after its subject, moves after the question
        // word ("what was the benefit of X").
        let wh = doc.token_text(0).to_lowercase();
        let mut last = n;
        while last > 0 && doc.tokens[last - 1].pos == "PUNCT" {
            last -= 1;
        }
        if n >= 3
            && ["what", "who", "which", "when", "where", "why"].contains(&wh.as_str())
            // Not a question word with a noun or an adjective of its own ("which team the
            // player was on", "how old X was").
            && !["NOUN", "ADJ", "ADV"].contains(&doc.tokens[1].pos.as_str())
            && last >= 3
            && ["is", "are", "was", "were"]
                .contains(&doc.token_text(last - 1).to_lowercase().as_str())
            && !AUXILIARIES.contains(&doc.token_text(1).to_lowercase().as_str())
        {
            let be = last - 1;
            let mut words: Vec<Option<String>> = (0..n)
                .map(|i| Some(doc.token_text(i).to_string()))
                .collect();
            words[0] = Some(format!("{} {}", doc.token_text(0), doc.token_text(be)));
            words[be] = None;
            return join(&doc, &words);
        }
        if n < 3 || !["when", "where", "why"].contains(&wh.as_str()) {
            return clause.to_string();
        }
        if AUXILIARIES.contains(&doc.token_text(1).to_lowercase().as_str()) {
            return clause.to_string();
        }
        // "where X is made": the form of `be` after the subject moves before it.
        if let Some(be) = (2..n).find(|&j| {
            ["is", "are", "was", "were"].contains(&doc.token_text(j).to_lowercase().as_str())
        }) {
            let subject = (1..be).any(|c| doc.tokens[c].dep.starts_with("nsubj"));
            if subject && be + 1 < n {
                let mut words: Vec<Option<String>> = (0..n)
                    .map(|i| Some(doc.token_text(i).to_string()))
                    .collect();
                words[0] = Some(format!("{} {}", doc.token_text(0), doc.token_text(be)));
                words[be] = None;
                return join(&doc, &words);
            }
            return clause.to_string();
        }
        // The first finite verb after the subject, with its subject between it and the
        // question word.
        let Some(verb) = (2..n).find(|&j| {
            let t = &doc.tokens[j];
            t.pos == "VERB" && ["VBD", "VBZ", "VBP", "VB"].contains(&t.tag.as_str())
        }) else {
            return clause.to_string();
        };
        let has_subject =
            (1..verb).any(|c| doc.tokens[c].head == verb && doc.tokens[c].dep.starts_with("nsubj"));
        if !has_subject
            || (1..verb).any(|c| AUXILIARIES.contains(&doc.token_text(c).to_lowercase().as_str()))
        {
            return clause.to_string();
        }
        let tag = doc.tokens[verb].tag.as_str();
        let Some(base) = self.base(doc.token_text(verb), tag) else {
            return clause.to_string();
        };
        let support = match tag {
            "VBD" => "did",
            "VBZ" => "does",
            _ if past => "did",
            _ => "do",
        };
        let mut words: Vec<Option<String>> = (0..n)
            .map(|i| Some(doc.token_text(i).to_string()))
            .collect();
        words[0] = Some(format!("{} {support}", doc.token_text(0)));
        words[verb] = Some(base);
        join(&doc, &words)
    }
}

/// "the sum of number of A and number of B": "number" (or a low-level step's attribute:
/// "color", "shape", …) after a preposition, a conjunction or `be` takes "the" ("the sum of
/// the number of A and the number of B", "Is the color of cylinders the same as the color of
/// spheres?").
fn the_number_of(text: &str) -> String {
    the_head_of(text, &["number"], &[])
}

/// [`the_number_of`] for the attributes low-level steps name, also after `be`: applied last,
/// after agreement has been read from the step's own words.
fn the_attribute_of(text: &str) -> String {
    the_head_of(
        text,
        &["number", "color", "shape", "size", "material", "amount"],
        &["is", "was", "are", "were"],
    )
}

fn the_head_of(text: &str, heads: &[&str], after_be: &[&str]) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<&str> = Vec::with_capacity(words.len() + 2);
    for (i, w) in words.iter().enumerate() {
        let before = |k: usize| words[k].to_lowercase();
        if heads.contains(w)
            && words.get(i + 1) == Some(&"of")
            && i > 0
            && (["of", "and", "between", "than", "as", "with", "to"]
                .contains(&before(i - 1).as_str())
                || after_be.contains(&before(i - 1).as_str()))
        {
            out.push("the");
        }
        out.push(w);
    }
    out.join(" ")
}

/// "the number of amount of Thai tourists" (BREAK's `number of #1` over a step that is
/// already an amount or a count) → "the amount of Thai tourists".
fn no_count_of_an_amount(text: &str) -> String {
    let mut out = text.to_string();
    for counted in ["amount of", "number of"] {
        for article in ["the ", ""] {
            let doubled = format!("number of {article}{counted} ");
            let single = format!("{counted} ");
            while let Some(at) = out.find(&doubled) {
                out.replace_range(at..at + doubled.len(), &single);
            }
        }
    }
    out
}

/// "the number of people there were in the peninsula" (BREAK's relative clause without
/// "that") → "the number of people in the peninsula": inside a counted phrase, "there be"
/// after its noun says nothing.
fn no_there_be_in_a_count(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut in_count = false;
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if i > 0 && words[i - 1].eq_ignore_ascii_case("number") && w == "of" {
            in_count = true;
        }
        let be = words.get(i + 1).map(|b| b.trim_end_matches(['?', ',']));
        let previous = i
            .checked_sub(1)
            .map(|p| words[p].to_lowercase())
            .unwrap_or_default();
        if in_count
            && w == "there"
            && be.is_some_and(|b| ["were", "are", "was", "is"].contains(&b))
            && !previous.is_empty()
            && !["were", "are", "was", "is", "that", "of", "the"].contains(&previous.as_str())
        {
            // The question mark or comma the verb carried stays.
            let verb = words[i + 1];
            let tail = &verb[verb.trim_end_matches(['?', ',']).len()..];
            if let Some(last) = out.last_mut() {
                last.push_str(tail);
            }
            i += 2;
            continue;
        }
        if ["and", "than", "as"].contains(&w) {
            in_count = false;
        }
        out.push(w.to_string());
        i += 1;
    }
    out.join(" ")
}

/// Whether token `c` is a plural the auxiliary agrees with: a common plural noun, or a
/// one-word plural name after "the" ("the Lithuanians"); not a title that ends in a plural
/// ("Hot Girls Wanted", "Those Calloways", "Chariots of Fire").
fn plural_people_or_things(doc: &Doc, c: usize) -> bool {
    let t = &doc.tokens[c];
    match t.tag.as_str() {
        // A capitalised plural is a title's word ("Hot Girls Wanted").
        "NNS" => doc.token_text(c).chars().all(|ch| !ch.is_uppercase()),
        "NNPS" => {
            let children: Vec<usize> = (0..doc.tokens.len())
                .filter(|&k| k != c && doc.tokens[k].head == c)
                .collect();
            children.len() == 1 && doc.token_text(children[0]).eq_ignore_ascii_case("the")
        }
        _ => false,
    }
}

/// The tokens' words (a `None` is left out) with the document's spacing.
fn join(doc: &Doc, words: &[Option<String>]) -> String {
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        if let Some(word) = word {
            out.push_str(word);
            if doc.tokens[i].whitespace {
                out.push(' ');
            }
        }
    }
    out.trim_end().to_string()
}

/// How two parallel time or age steps ask their question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeForm {
    /// "when was X born".
    Passive {
        /// `was` or `were`.
        aux: String,
        /// The participle and what follows it ("first published").
        predicate: String,
    },
    /// "when did X come to market".
    DoSupport {
        /// The predicate, its verb in the base form ("come to market").
        predicate: String,
    },
    /// "when X died".
    Past {
        /// The predicate, its verb in the past ("died").
        predicate: String,
    },
    /// "how old is X".
    Age {
        /// The verb (`is`, `was`, …).
        verb: String,
    },
}

/// Two steps that ask the same time or age question of two subjects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimePair {
    /// How they ask.
    pub form: TimeForm,
    /// The first step's subject ("George Kuchar").
    pub first: String,
    /// The second's.
    pub second: String,
}

impl TimePair {
    /// The pair of steps `a` and `b` (their phrases, references resolved), or `None` when they
    /// are not the same time or age question of two different subjects.
    pub fn read(a: &str, b: &str, inflections: &Inflections) -> Option<TimePair> {
        let wa: Vec<&str> = a.split_whitespace().collect();
        let wb: Vec<&str> = b.split_whitespace().collect();
        let lower = |w: &str| w.to_lowercase();
        let (form_len, form) = match wa.as_slice() {
            [w, aux, ..]
                if lower(w) == "when" && ["was", "were"].contains(&lower(aux).as_str()) =>
            {
                (2, "passive")
            }
            [w, did, ..] if lower(w) == "when" && lower(did) == "did" => (2, "do"),
            [w, ..] if lower(w) == "when" => (1, "past"),
            [how, old, verb, ..]
                if lower(how) == "how"
                    && ["old", "young"].contains(&lower(old).as_str())
                    && ["is", "was", "are", "were"].contains(&lower(verb).as_str()) =>
            {
                (3, "age")
            }
            _ => return None,
        };
        if wb.len() < form_len
            || wa[..form_len]
                .iter()
                .zip(&wb[..form_len])
                .any(|(x, y)| !x.eq_ignore_ascii_case(y))
        {
            return None;
        }
        // The common words after the form ("the film") and at the end ("born").
        let (ra, rb) = (&wa[form_len..], &wb[form_len..]);
        let suffix = shared_suffix(ra, rb);
        let (sa, sb) = (&ra[..ra.len() - suffix], &rb[..rb.len() - suffix]);
        // A subject with a verb in it is BREAK's wording gone wrong ("when was Kemess mine
        // was operated by …").
        let has_verb = |s: &[&str]| s.iter().any(|w| AUXILIARIES.contains(&lower(w).as_str()));
        if sa.is_empty() || sb.is_empty() || sa == sb || has_verb(sa) || has_verb(sb) {
            return None;
        }
        if has_verb(&ra[ra.len() - suffix..]) {
            return None;
        }
        let predicate = ra[ra.len() - suffix..].join(" ");
        // "when was the Rigopiano avalanche": a bare noun after the subject is the subject's
        // own head, not a predicate (it would read "the year the Rigopiano was avalanche").
        let participle = |w: &str| {
            let w = lower(w);
            inflections
                .lemmas(&w, "VERB")
                .iter()
                .any(|lemma| inflections.inflect_all(lemma, "VBN").contains(&w))
        };
        if form == "passive"
            && !predicate.contains(' ')
            && inflections.lemma(&lower(&predicate), "NOUN").is_some()
            && !participle(&predicate)
        {
            return None;
        }
        let form = match form {
            "passive" if !predicate.is_empty() => TimeForm::Passive {
                aux: lower(wa[1]),
                predicate,
            },
            "do" if !predicate.is_empty() => TimeForm::DoSupport { predicate },
            "past" if !predicate.is_empty() => {
                // The predicate must open with a past-tense verb ("died", "came out").
                let verb = lower(predicate.split_whitespace().next()?);
                let lemma = inflections.lemma(&verb, "VERB")?;
                if inflections.inflect(&lemma, "VBD").as_deref() != Some(verb.as_str()) {
                    return None;
                }
                TimeForm::Past { predicate }
            }
            "age" if predicate.is_empty() => TimeForm::Age { verb: lower(wa[2]) },
            _ => return None,
        };
        Some(TimePair {
            form,
            first: sa.join(" "),
            second: sb.join(" "),
        })
    }

    /// The yes/no question comparing the two: `relation` is `later`, `earlier` or `same`.
    pub fn compare(&self, relation: &str, inflections: &Inflections) -> Option<String> {
        let (a, b) = (&self.first, &self.second);
        let when = match relation {
            "later" => "later than",
            "earlier" => "earlier than",
            _ => "at the same time as",
        };
        Some(match &self.form {
            TimeForm::Passive { aux, predicate } => {
                format!(
                    "{} {a} {predicate} {when} {b}?",
                    crate::edit::capitalize(aux)
                )
            }
            TimeForm::DoSupport { predicate } => format!("Did {a} {predicate} {when} {b}?"),
            TimeForm::Past { predicate } => {
                let (verb, rest) = predicate.split_once(' ').unwrap_or((predicate, ""));
                let base = inflections.lemma(&verb.to_lowercase(), "VERB")?;
                let rest = if rest.is_empty() {
                    String::new()
                } else {
                    format!(" {rest}")
                };
                format!("Did {a} {base}{rest} {when} {b}?")
            }
            TimeForm::Age { verb } => {
                let than = match relation {
                    "later" => "older than",
                    "earlier" => "younger than",
                    _ => "the same age as",
                };
                format!("{} {a} {than} {b}?", crate::edit::capitalize(verb))
            }
        })
    }

    /// The two steps as noun phrases naming numbers: "the year X was born", "the age of X".
    pub fn noun_phrases(&self, inflections: &Inflections) -> Option<(String, String)> {
        let one = |s: &str| -> Option<String> {
            Some(match &self.form {
                TimeForm::Passive { aux, predicate } => format!("the year {s} {aux} {predicate}"),
                TimeForm::DoSupport { predicate } => {
                    let (verb, rest) = predicate.split_once(' ').unwrap_or((predicate, ""));
                    let past = inflections.inflect(&verb.to_lowercase(), "VBD")?;
                    format!("the year {s} {past} {rest}").trim_end().to_string()
                }
                TimeForm::Past { predicate } => format!("the year {s} {predicate}"),
                TimeForm::Age { .. } => format!("the age of {s}"),
            })
        };
        Some((one(&self.first)?, one(&self.second)?))
    }
}

/// `word` written with `model`'s first-letter case.
fn capital_like(model: &str, word: &str) -> String {
    if model.chars().next().is_some_and(char::is_uppercase) {
        crate::edit::capitalize(word)
    } else {
        word.to_string()
    }
}

/// How many words `a` and `b` share at their ends, leaving each at least its first word.
pub(crate) fn shared_suffix<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let shared = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    shared
        .min(a.len().saturating_sub(1))
        .min(b.len().saturating_sub(1))
}

/// Two stacked relative clauses of `be` with a short predicate each, as low-level QDMR
/// filters chain them, read as one: "the items that are large that are matching" → "the items
/// that are large and matching".
fn one_relative_for_two(question: &str) -> String {
    const BE: [&str; 4] = ["is", "are", "was", "were"];
    let words: Vec<&str> = question.split_whitespace().collect();
    let opens = |k: usize| {
        words[k].eq_ignore_ascii_case("that") && words.get(k + 1).is_some_and(|w| BE.contains(w))
    };
    // A short predicate: one or two words, no conjunction, comma or clause of its own.
    let short = |from: usize, to: usize| {
        (1..=2).contains(&(to - from))
            && !words[from..to]
                .iter()
                .any(|w| matches!(*w, "and" | "or" | "that" | "which") || w.ends_with(','))
    };
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if !(opens(i) && i + 2 < words.len()) {
            out.push(words[i].to_string());
            i += 1;
            continue;
        }
        // The chain "that are A that are B that are C": its predicates.
        let mut predicates = Vec::new();
        let mut start = i + 2;
        loop {
            let next = (start + 1..(start + 3).min(words.len()))
                .find(|&j| opens(j) && words[j + 1] == words[i + 1] && short(start, j));
            match next {
                Some(j) => {
                    predicates.push(words[start..j].join(" "));
                    start = j + 2;
                }
                None => break,
            }
        }
        if predicates.is_empty() {
            out.push(words[i].to_string());
            i += 1;
            continue;
        }
        // The last predicate runs to where the text goes on (kept as it is).
        out.push(words[i].to_string());
        out.push(words[i + 1].to_string());
        // Commas between all but the last two: "large, metallic and matching".
        let last = predicates.len() - 1;
        for (k, p) in predicates.iter().enumerate() {
            out.push(if k < last { format!("{p},") } else { p.clone() });
        }
        out.push("and".to_string());
        i = start;
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {

    #[test]
    fn an_attribute_of_a_step_takes_its_article() {
        assert_eq!(
            the_attribute_of("Is color of cylinders the same as color of spheres?"),
            "Is the color of cylinders the same as the color of spheres?"
        );
        assert_eq!(
            the_attribute_of("Is number of cubes that are red at least one?"),
            "Is the number of cubes that are red at least one?"
        );
        // Where an article or a possessor is there already, nothing changes.
        let kept = "What is the size of the border of Utah?";
        assert_eq!(the_attribute_of(kept), kept);
    }

    #[test]
    fn stacked_relative_clauses_read_as_one() {
        assert_eq!(
            one_relative_for_two("What is the color of items that are large that are matching?"),
            "What is the color of items that are large and matching?"
        );
        assert_eq!(
            one_relative_for_two(
                "What are the flights that are round trip that are after 12pm from Denver?"
            ),
            "What are the flights that are round trip and after 12pm from Denver?"
        );
        // A longer predicate, or one with its own conjunction, stays as it is.
        assert_eq!(
            one_relative_for_two("the items that are large that are metallic that are matching"),
            "the items that are large, metallic and matching"
        );
        let long = "What are the cubes that are behind the big red sphere that are small?";
        assert_eq!(one_relative_for_two(long), long);
    }

    use super::*;

    fn inflections() -> std::sync::Arc<Inflections> {
        crate::testing::resources().inflections().unwrap()
    }

    #[test]
    fn parallel_time_steps_are_compared_as_english_does() {
        let infl = inflections();
        let pair = TimePair::read(
            "when was George Kuchar born",
            "when was Arthur Penn born",
            &infl,
        )
        .unwrap();
        assert_eq!(pair.first, "George Kuchar");
        assert_eq!(
            pair.compare("later", &infl).unwrap(),
            "Was George Kuchar born later than Arthur Penn?"
        );
        assert_eq!(
            pair.noun_phrases(&infl).unwrap().1,
            "the year Arthur Penn was born"
        );
        let pair = TimePair::read(
            "when did African Cats come out",
            "when did Fun and Fancy Free come out",
            &infl,
        )
        .unwrap();
        assert_eq!(
            pair.compare("earlier", &infl).unwrap(),
            "Did African Cats come out earlier than Fun and Fancy Free?"
        );
        assert_eq!(
            pair.noun_phrases(&infl).unwrap().0,
            "the year African Cats came out"
        );
        let pair =
            TimePair::read("when Vladimir Arnold died", "when Georg Cantor died", &infl).unwrap();
        assert_eq!(
            pair.compare("same", &infl).unwrap(),
            "Did Vladimir Arnold die at the same time as Georg Cantor?"
        );
        let pair =
            TimePair::read("how old is Ivan Foster", "how old is Ian Paisley", &infl).unwrap();
        assert_eq!(
            pair.compare("later", &infl).unwrap(),
            "Is Ivan Foster older than Ian Paisley?"
        );
        assert_eq!(
            pair.noun_phrases(&infl).unwrap().0,
            "the age of Ivan Foster"
        );
        // Different questions, or the same subject, are no pair.
        assert!(TimePair::read("when was X born", "when did Y die", &infl).is_none());
        assert!(TimePair::read("when was X born", "when was X born", &infl).is_none());
        assert!(TimePair::read(
            "when was Kemess mine was operated by Royal Oak Mines",
            "when was Colomac Mine was operated by Royal Oak Mines",
            &infl
        )
        .is_none());
        assert!(TimePair::read("the year of X", "the year of Y", &infl).is_none());
        // From the tuning half of BREAK's other dev questions.
        assert!(TimePair::read(
            "when was the Rigopiano avalanche",
            "when was the 1999 Galtür avalanche",
            &infl
        )
        .is_none());
    }

    #[test]
    fn a_count_of_an_amount_is_the_amount() {
        // From the tuning half of BREAK's other dev questions.
        assert_eq!(
            no_count_of_an_amount(
                "Is the number of amount of Thai tourists lower than the number of amount of foreign visitors?"
            ),
            "Is the amount of Thai tourists lower than the amount of foreign visitors?"
        );
        assert_eq!(
            no_count_of_an_amount("What is the number of the number of games?"),
            "What is the number of games?"
        );
        assert_eq!(
            no_there_be_in_a_count(
                "What is the total of the number of people there were in the peninsula after the war and the number of whites there are?"
            ),
            "What is the total of the number of people in the peninsula after the war and the number of whites?"
        );
        assert_eq!(
            no_there_be_in_a_count("How many people were there in 2000?"),
            "How many people were there in 2000?"
        );
    }

    #[test]
    fn break_wording_is_polished() {
        let infl = inflections();
        let wordnet = crate::testing::resources().wordnet().unwrap();
        let w = Wording {
            parser: crate::testing::pipeline(),
            inflections: &infl,
            wordnet: Some(&wordnet),
        };
        assert_eq!(w.names_people("entertainers"), Some(true));
        assert_eq!(w.names_people("rapper"), Some(true));
        assert_eq!(w.names_people("film"), Some(false));
        assert_eq!(
            w.unknown_word(
                "What is the forim of writing that he is famous for?",
                "What form of writing is he famous for?"
            ),
            Some("forim".to_string())
        );
        assert_eq!(
            w.unknown_word(
                "What were the touchdowns that the Colts scored in 2010?",
                ""
            ),
            None
        );
        // The dataset's own words are its own.
        assert_eq!(
            w.unknown_word(
                "How many akinjis returned home alive?",
                "How many akinjis died?"
            ),
            None
        );
        assert_eq!(
            w.polish("What is the country In the Chamorro Time Zone?", false),
            "What is the country in the Chamorro Time Zone?"
        );
        assert_eq!(
            w.polish(
                "What were the yards that Rivers did pass to Ajirotutu?",
                true
            ),
            "What were the yards that Rivers passed to Ajirotutu?"
        );
        assert_eq!(
            w.polish("What was the field goals Kris Brown kicked?", true),
            "What were the field goals Kris Brown kicked?"
        );
        assert_eq!(
            w.polish(
                "Is it true that neither Finding Kraftland nor Shikashika is frozen drink?",
                false
            ),
            "Is it true that neither Finding Kraftland nor Shikashika is a frozen drink?"
        );
        assert_eq!(
            w.polish(
                "Is the year when the Emperor takes back control of Schwiebus later than the year when the treaty was signed?",
                true
            ),
            "Is the year when the Emperor took back control of Schwiebus later than the year when the treaty was signed?"
        );
        assert_eq!(
            w.polish("How many men did Ibrahim Pasha have?", true),
            "How many men did Ibrahim Pasha have?"
        );
        // Was "… is a currenlty a serving time in?" (a misspelt adverb read as a noun).
        assert_eq!(
            w.polish(
                "What is the correctional facility that Stewart Nozette is currenlty serving time in?",
                false
            ),
            "What is the correctional facility that Stewart Nozette is currenlty serving time in?"
        );
        assert_eq!(
            w.polish(
                "Is it true that neither X nor Y is a American rock band?",
                false
            ),
            "Is it true that neither X nor Y is an American rock band?"
        );
        assert_eq!(
            w.polish(
                "What was the year the population did allegedly rise to 250000?",
                true
            ),
            "What was the year the population allegedly rose to 250000?"
        );
        assert_eq!(
            w.polish("What was the year when the army crosses the river?", true),
            "What was the year when the army crossed the river?"
        );
        assert_eq!(
            w.polish(
                "What were the songs from fourth studio album made by The Who?",
                true
            ),
            "What were the songs from the fourth studio album made by The Who?"
        );
        assert_eq!(
            w.polish(
                "Who were the former NBA players who was a member of the Charlotte Hornets?",
                true
            ),
            "Who were the former NBA players who were a member of the Charlotte Hornets?"
        );
        assert_eq!(
            w.polish(
                "Are the longest yards of TD runs of Thomas Jones higher than the shortest yards of TD runs of Thomas Jones?",
                true
            ),
            "Are the yards of the longest TD run of Thomas Jones higher than the yards of the shortest TD run of Thomas Jones?"
        );
        assert_eq!(
            w.polish("What were the shortest yards of touchdown passes?", true),
            "What were the yards of the shortest touchdown pass?"
        );
        // From read held-out rows ("the second of yards of field goals", "the first yards of
        // field goals of Kris Brown").
        assert_eq!(
            w.polish(
                "What is the sum of the second yards of field goals and the first yards of field goals of Kris Brown?",
                true
            ),
            "What is the sum of the yards of the second field goal and the yards of the first field goal of Kris Brown?"
        );
        // From the tuning half of BREAK's other dev questions.
        assert_eq!(
            w.polish(
                "What is the sum of the longest yards of David Akers's field goals and the second longest yards of field goals?",
                true
            ),
            "What is the sum of the yards of David Akers's longest field goal and the yards of the second longest field goal?"
        );
        assert_eq!(
            w.polish("What is the country that Russia border?", false),
            "What is the country that Russia borders?"
        );
        assert_eq!(
            w.polish(
                "Is the number of TD passes that Cutler threw the same as the number of TD passes that Favre throw?",
                true
            ),
            "Is the number of TD passes that Cutler threw the same as the number of TD passes that Favre threw?"
        );
        assert_eq!(
            w.polish("What was the year when the Indo-Greek Kingdom forms?", true),
            "What was the year when the Indo-Greek Kingdom formed?"
        );
        assert_eq!(
            w.polish(
                "What was the year when Sir Charles Knowles sails from Antigua?",
                true
            ),
            "What was the year when Sir Charles Knowles sailed from Antigua?"
        );
        assert_eq!(
            w.polish(
                "What was the date that the Lithuanians was informed about it?",
                true
            ),
            "What was the date that the Lithuanians were informed about it?"
        );
        assert_eq!(
            w.polish("What were the shortest TD runs?", true),
            "What was the shortest TD run?"
        );
        assert_eq!(
            w.polish(
                "Who is one of the fastest European sprinters in history?",
                false
            ),
            "Who is one of the fastest European sprinters in history?"
        );
        assert_eq!(
            w.polish(
                "Is the number of touchdowns of A the same as the sum of number of touchdowns of B and number of touchdowns of C?",
                true
            ),
            "Is the number of touchdowns of A the same as the sum of the number of touchdowns of B and the number of touchdowns of C?"
        );
        assert_eq!(
            w.polish(
                "What is the university which the Bryant Bulldogs represent?",
                false
            ),
            "What is the university which the Bryant Bulldogs represent?"
        );
        // A title that ends in a plural is one thing.
        assert_eq!(
            w.polish(
                "Was Hot Girls Wanted released earlier than China Blue?",
                true
            ),
            "Was Hot Girls Wanted released earlier than China Blue?"
        );
        assert_eq!(
            w.as_question("where Zhu Jiang Beer is made", false),
            "where is Zhu Jiang Beer made"
        );
        // Words of other scripts are read safely ("of chişinău").
        assert_eq!(
            w.polish("What is the population of chişinău?", false),
            "What is the population of chişinău?"
        );
        assert_eq!(
            w.polish("What were the passes that Aikman did not complete?", true),
            "What were the passes that Aikman did not complete?"
        );
        assert_eq!(
            w.polish("When did Frederick William lay claim to Silesia?", true),
            "When did Frederick William lay claim to Silesia?"
        );
        // The question's own do-support stays.
        assert_eq!(
            w.polish("How many yards did Rivers pass to Ajirotutu?", true),
            "How many yards did Rivers pass to Ajirotutu?"
        );
        assert_eq!(
            w.as_question(
                "when Frederick William lay claim to the Silesian principalities",
                true
            ),
            "when did Frederick William lay claim to the Silesian principalities"
        );
        assert_eq!(
            w.as_question("What the benefit of replacing the engine was", true),
            "What was the benefit of replacing the engine"
        );
        assert_eq!(
            w.as_question("who the director of the film is", false),
            "who is the director of the film"
        );
        assert_eq!(
            w.as_question("when Vladimir Arnold died", true),
            "when did Vladimir Arnold die"
        );
        assert_eq!(
            w.as_question("when was Arthur Penn born", true),
            "when was Arthur Penn born"
        );
    }
}
