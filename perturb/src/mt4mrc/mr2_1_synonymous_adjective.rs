//! MT4MRC MR2-1, "Consistence with Synonymous Adjective": replace an adjective of the question by
//! a WordNet synonym; the answer must stay the same (paper: "can a tight hat give you a headache"
//! → "can a taut hat give you a headache"; "social" → "societal"). No precondition.
//!
//! Where paper and script (`tool/MR2_1.py`) differ, and what we chose:
//! * The paper says the MR1-1 patterns apply, yet its own example starts with "can"; the script
//!   takes every JJ token anywhere in the question. We follow **the script**: any adjective
//!   tagged JJ (comparatives and superlatives are left alone, as in the script).
//! * The paper replaces **all** occurrences ("social" → "societal" twice); the script replaces
//!   the first occurrence of one adjective. We follow **the paper**: every occurrence of the
//!   chosen adjective in the question is replaced.
//! * The script emits one follow-up per (adjective, synonym) over every lemma of every synset,
//!   with no word-sense disambiguation. On the BoolQ sample that gives mostly wrong-sense
//!   substitutes ("possible" → "potential", "new" → "novel", "single player" → "individual
//!   player", "rotten tomatoes" → "icky tomatoes"). We trade yield for meaning-preserving
//!   follow-ups, with WordNet's SemCor sense frequencies (`index.sense` tag counts):
//!   - the synset the two words share must carry at least [`DOMINANT_SHARE_PERCENT`] of the
//!     adjective's tagged uses and of the synonym's, so both words are mostly read in the shared
//!     meaning ("big" → "large", "huge" → "immense"); this refuses
//!     the paper's own "tight" → "taut", a minor sense of "tight" (2 of its 16 tagged uses);
//!   - the synonym must be read as an adjective at least as often as a noun or verb ("single" →
//!     "individual" would read as a noun) and as an adverb ("overseas players" → "abroad
//!     players"), be one lower-case word, not be an "-ish" shade nor a
//!     quantity word ("little"), and the adjective itself be read as a noun less than a
//!     quarter as often ("a minimum age" → "a minimal age", [`CLASSIFIER_NOUN_PERCENT`]);
//!   - the shared synset must not be a relational one (WordNet's pertainym pointers: each
//!     word pertains to a noun of its own), so the paper's own "social" → "societal" is
//!     refused: "social critic" → "societal critic", "technical term" → "technological
//!     term", "linguistic minority" → "lingual minority" read wrong (blind readings of
//!     TriviaQA's, BREAK's and web questions; over every judged row the rule removes two such
//!     failures and one natural row, "a societal construct");
//!   - the adjective must be free: not in a named entity, a capitalised title, a hyphenated
//!     compound or a WordNet multiword term ("social security", "central nervous system"), not
//!     a colour or determiner-like word ("same", "other", "many"), not capitalised in the
//!     passage (a lower-cased title: "Dirty Dancing", "Rotten Tomatoes"), and not followed by a
//!     word it forms a term with in the passage ("spare ribs", "double elimination").
//!
//!   - the shared sense must also be the one the question uses (chosen in context,
//!     [`crate::lexicon::in_context`]), and the follow-up question must stay close to the
//!     source in a sentence encoder.
//!
//!   Each adjective gets at most one follow-up, its first such synonym in WordNet order, and a
//!   source at most [`MAX_CASES`], for its first adjectives in question order.
//! * **Chosen by a causal LM** (`[perturb.mt4mrc] lm`, off by default; issue 39's "choose,
//!   don't just filter"): instead of one synonym of the dominant sense read in context, every
//!   sense SemCor attests for both the adjective and the synonym proposes its lemmas (a sense
//!   never tagged for the word is too rare: "small" → "minor"), and the LM keeps the
//!   `lm_per_site` cheapest whose question costs at most `lm_max_cost` nats against the
//!   original's ([`crate::lexicon::lm_choice`], an indefinite article before the word scored
//!   agreeing with each); the encoder's fit check still guards the meaning. Measured blind on
//!   five question sets (2026-12-01, Gemma 3 270M at 4 nats): 83% natural, 92% valid, three to
//!   nine times the default's cases (`docs/validity/mr2-1-lm/`). SmolLM2-135M could not tell
//!   the senses apart ("a hard cap" → "a tough cap" cost it under 2 nats), and the encoder's
//!   in-context sense as a filter on the candidates left almost no case: so neither is used.
//! * A synonym that looks like a participle with no verb behind it ("famed": no verb "fame")
//!   stands only before its noun or before "for" ("a famed actress", "famed for its marches";
//!   not "made Jonathan Routh famed", "became famed in what group": a blind reading of
//!   TriviaQA's questions, 2026-12-03, `docs/validity/triviaqa-questions/`).
//! * A question all in lower case with no passage (or a passage without capitals) gives no
//!   case: nothing shows which of its words belong to a title or a name (a reading of Natural
//!   Questions' passage-less questions, 2026-12-01: "little house on the prairie" → "small
//!   house", "the big 10" → "the large 10").
//! * An adjective with a `to`-infinitive of its own ("able to sit", "likely to assuage") is
//!   left alone: which adjectives take one is a fact of each word, and the LM path chose
//!   "capable to sit" and "probable to assuage" (three of the LM path's 25 failing judged rows;
//!   the rule removes those three and no other judged row of either path).
//! * An indefinite article before a replaced adjective is adjusted to the synonym, and a
//!   synonym the question already has in any form is not put in ("where X is located
//!   situated on" → "located located on": a reading of BREAK's dev questions, 2026-12-01).

use std::sync::Arc;

use metamorph_data::{Case, Expectation, Result, Task};

use super::adjective_site::{article_fix, best_fit, byte_at, is_free_adjective, named_in_passage};
use super::sense_counts::SenseCounts;
use super::{edited_case, FAMILY};
use crate::edit::{indefinite_article, match_case, Replacement};
use crate::lexicon::frames::is_never_a_substitute;
use crate::lexicon::in_context::{
    ContextualLexicon, WordInContext, MIN_SENTENCE_SIMILARITY, MIN_WORD_SIMILARITY,
};
use crate::lexicon::lm_choice::{repeats_a_word_of, SubstitutionChooser};
use crate::lexicon::wordnet::{Pos, Relation, SynsetId, WordNet};
use crate::syntax::Tree;
use crate::{MetamorphicRelation, Resources, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR2-1";

/// At most this many follow-ups per source (one per adjective, first adjectives first).
pub const MAX_CASES: usize = 3;

/// MT4MRC MR2-1 (see the module docs).
#[derive(Debug)]
pub struct SynonymousAdjective {
    wordnet: Arc<WordNet>,
    lexicon: Arc<ContextualLexicon>,
    senses: Arc<SenseCounts>,
    /// With `[perturb.mt4mrc] lm`: the causal LM that chooses among every sense's synonyms.
    chooser: Option<SubstitutionChooser>,
}

impl SynonymousAdjective {
    /// The relation over the shared WordNet.
    ///
    /// # Errors
    /// When WordNet cannot be loaded.
    pub fn new(resources: &Resources) -> Result<Self> {
        let wordnet = resources.wordnet()?;
        let senses = SenseCounts::shared(&wordnet)?;
        let config = resources.mt4mrc_config();
        let chooser = resources
            .mt4mrc_lm()?
            .map(|lm| SubstitutionChooser::new(lm, config.lm_max_cost, config.lm_per_site.max(1)));
        Ok(SynonymousAdjective {
            wordnet,
            lexicon: resources.contextual_lexicon()?,
            senses,
            chooser,
        })
    }

    /// Whether `word` is never replaced: a colour, or a word also much read as a noun (see
    /// [`CLASSIFIER_NOUN_PERCENT`]).
    fn is_fixed(&self, word: &str) -> bool {
        COLOURS.contains(&word)
            || self.senses.noun_verb_total(word) * 100
                >= CLASSIFIER_NOUN_PERCENT * self.senses.adjective_total(word).max(1)
    }

    /// Whether `name`, a lemma of one of `word`'s synsets, may stand for it at all: one
    /// lower-case word, not an "-ish" shade, not a quantity word, read as an adjective at
    /// least as often as a noun or verb, and as an adverb ("overseas players" → "abroad
    /// players": TriviaQA's questions, 2026-12-03).
    fn may_substitute(&self, word: &str, name: &str) -> bool {
        let adjective = self.senses.adjective_total(name);
        name != word
            && !name.is_empty()
            && name.chars().all(|c| c.is_ascii_lowercase())
            && !name.ends_with("ish")
            // "a small breed dog" → "a little breed dog" reads as a quantity.
            && !is_never_a_substitute(name)
            && self.senses.noun_verb_total(name) <= adjective
            && self.senses.adverb_total(name) <= adjective
    }

    /// Whether the adjective synset is a relational one, whose words each pertain to a noun
    /// of their own (WordNet's pertainym pointer: "social" to society, "societal" to a
    /// society; "technical" to technique, "technological" to technology): a synonym there
    /// names another noun, and the term breaks ("social critic" → "societal critic",
    /// "technical term" → "technological term": TriviaQA's questions, 2026-12-03).
    fn relational(&self, synset: &crate::lexicon::wordnet::Synset<'_>) -> bool {
        synset
            .pointers()
            .iter()
            .any(|p| p.relation == Relation::Pertainym)
    }

    /// Every sense's synonyms of the adjective `word` (lower case), in WordNet order, for the
    /// LM to choose among (`[perturb.mt4mrc] lm`).
    fn candidates(&self, word: &str) -> Vec<String> {
        if self.is_fixed(word) {
            return Vec::new();
        }
        let mut found: Vec<String> = Vec::new();
        for synset in self.wordnet.synsets(word, Pos::Adj) {
            // A sense SemCor never tags the word with is too rare to offer ("small" → "minor").
            if self.senses.count(word, synset.offset()) == 0 || self.relational(&synset) {
                continue;
            }
            for lemma in synset.lemmas() {
                let name = lemma.name();
                if self.may_substitute(word, name)
                    && self.senses.count(name, synset.offset()) > 0
                    && !found.iter().any(|f| f == name)
                {
                    found.push(name.to_string());
                }
            }
        }
        found
    }

    /// The synonym to substitute for the adjective `word` (lower case), if one shares its
    /// dominant meaning (see the module docs).
    fn synonym(&self, word: &str) -> Option<(String, SynsetId)> {
        // A word also much read as a noun classifies rather than describes ("a minimum age" →
        // "a minimal age", review of seed 20261211): see [`CLASSIFIER_NOUN_PERCENT`].
        if self.is_fixed(word) {
            return None;
        }
        let wn = &*self.wordnet;
        for synset in wn.synsets(word, Pos::Adj) {
            // This sense must be what the question's word mostly means.
            if !self.dominant(word, synset.offset()) || self.relational(&synset) {
                continue;
            }
            let found = synset
                .lemmas()
                .map(|lemma| lemma.name())
                // Mostly read in this sense, and mostly read as an adjective ("individual" for
                // "single" would read as a noun: "an individual player").
                .find(|name| {
                    self.may_substitute(word, name) && self.dominant(name, synset.offset())
                });
            if let Some(name) = found {
                return Some((name.to_string(), synset.id()));
            }
        }
        None
    }

    /// Whether the adjective synset at `offset` is the clearly dominant reading of `lemma`: at
    /// least [`DOMINANT_SHARE_PERCENT`] of the lemma's SemCor-tagged adjective occurrences (and
    /// at least one).
    fn dominant(&self, lemma: &str, offset: u32) -> bool {
        let here = self.senses.count(lemma, offset);
        let total = self.senses.adjective_total(lemma);
        here > 0 && here * 100 >= DOMINANT_SHARE_PERCENT * total
    }
}

/// Whether the adjective `i` and the word after it occur together in the passage ("spare
/// ribs", "single-player", "double elimination"): a term the passage uses, whose adjective is
/// fixed rather than free to vary.
fn term_in_passage(tree: &Tree<'_>, i: usize, passage: Option<&str>) -> bool {
    let (Some(passage), true) = (passage, i + 1 < tree.len()) else {
        return false;
    };
    let passage = passage.to_lowercase();
    let (a, b) = (tree.lower(i), tree.lower(i + 1));
    [" ", "-"].iter().any(|sep| {
        let term = format!("{a}{sep}{b}");
        passage.match_indices(&term).any(|(pos, _)| {
            let before = passage[..pos].chars().next_back();
            let after = passage[pos + term.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    })
}

/// Colour adjectives: their WordNet synonyms are shades ("red" → "reddish", "blue" → "bluish"),
/// and in questions they mostly name things ("red velvet cake", "blue jays", "green screen").
/// The share of a lemma's tagged adjective uses its shared sense must have (see
/// [`SynonymousAdjective::dominant`]).
const DOMINANT_SHARE_PERCENT: u32 = 50;

/// An adjective whose SemCor noun and verb uses reach this share of its adjective uses is not
/// replaced: "minimum" (9 noun tags to 23) in "a minimum age" names a kind of age, and
/// "minimal" another register (review of seed 20261211, both MR2-1 cases unidiomatic).
const CLASSIFIER_NOUN_PERCENT: u32 = 25;

const COLOURS: &[&str] = &[
    "red", "blue", "green", "yellow", "black", "white", "pink", "purple", "orange", "brown",
    "grey", "gray", "golden", "silver",
];

/// Whether the question or its passage has a capital letter anywhere, so that a title or name
/// the question mentions can be told from free words (in the passage's capitals, or the
/// question's own). A question all in lower case with no passage to show its names ("who
/// played caroline on little house on the prairie", "when did the big 10 get 11 teams") gives
/// no case: a blind reading of every case on Natural Questions' passage-less questions
/// (2026-12-01, 76 rows) found 26% natural, nearly all failures a title's or a name's
/// adjective replaced.
fn shows_capitals(question: Option<&str>, passage: Option<&str>) -> bool {
    [question, passage]
        .into_iter()
        .flatten()
        .any(|text| text.chars().any(char::is_uppercase))
}

impl SynonymousAdjective {
    /// The default path's synonym for the adjective `i` of `question`
    /// ([`SynonymousAdjective::synonym`]), if the question uses the sense it shares and does
    /// not already have it.
    fn in_context(
        &self,
        tree: &Tree<'_>,
        i: usize,
        question: Option<&str>,
    ) -> Result<Option<String>> {
        let Some((synonym, shared)) = self.synonym(&tree.lower(i)) else {
            return Ok(None);
        };
        // "On what river is the city where X is located situated on?" → "… located located
        // on": a synonym the question already has, in any form, repeats it.
        if question.is_some_and(|q| repeats_a_word_of(q, &synonym)) {
            return Ok(None);
        }
        // The shared sense must be the one this question uses.
        let target = WordInContext::new(tree.tokens(), i, Pos::Adj).within(tree.sentence_of(i));
        let sentence = self.lexicon.embed_cached(&target.sentence_text())?;
        Ok(
            (self.lexicon.sense(&target, &sentence)?.map(|s| s.id()) == Some(shared))
                .then_some(synonym),
        )
    }

    /// The synonyms `chooser` keeps for the adjective `i` of `question`: every sense's
    /// candidates ([`SynonymousAdjective::candidates`]) not already in the question, scored
    /// with the question's words around it, an indefinite article before it agreeing with each
    /// ("a big house" against "a large house", "an ample house").
    fn chosen(
        &self,
        chooser: &SubstitutionChooser,
        tree: &Tree<'_>,
        i: usize,
        question: Option<&str>,
    ) -> Result<Vec<String>> {
        let Some(question) = question else {
            return Ok(Vec::new());
        };
        let candidates: Vec<String> = self
            .candidates(&tree.lower(i))
            .into_iter()
            .filter(|c| !repeats_a_word_of(question, c))
            .collect();
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        let token = tree.token(i);
        let (start, end) = (
            byte_at(question, token.start as usize),
            byte_at(question, token.end as usize),
        );
        let article = i
            .checked_sub(1)
            .filter(|&a| matches!(tree.lower(a).as_str(), "a" | "an") && tree.token(a).tag == "DT")
            .map(|a| tree.token(a));
        let from = article.map_or(start, |a| byte_at(question, a.start as usize));
        let written = |word: &str| {
            let word = match_case(&token.text, word);
            match article {
                Some(a) => {
                    let gap = &question[byte_at(question, a.end as usize)..start];
                    format!(
                        "{}{gap}{word}",
                        match_case(&a.text, indefinite_article(&word))
                    )
                }
                None => word,
            }
        };
        let rests: Vec<String> = candidates.iter().map(|c| written(c)).collect();
        let refs: Vec<&str> = rests.iter().map(String::as_str).collect();
        let kept = chooser.choose_in_sentence(
            &question[..from],
            &question[from..end],
            &question[end..],
            &refs,
        )?;
        Ok(kept.into_iter().map(|k| candidates[k].clone()).collect())
    }
}

impl SynonymousAdjective {
    /// Whether `word` looks like a past participle with no verb behind it ("famed": WordNet
    /// has no verb "fame"). Such a word reads well before its noun ("a famed actress", "his
    /// most famed opera") or with its "for" ("famed for playing the organ") but not where a
    /// participle would be a verb's ("made Jonathan Routh famed", "became famed in what
    /// group", "are famed in which winter activity": TriviaQA's questions, 2026-12-03).
    fn denominal_participle(&self, word: &str) -> bool {
        word.len() > 4 && word.ends_with("ed") && self.wordnet.morphy(word, Pos::Verb).is_empty()
    }
}

/// Whether the adjective `i` stands before its noun (`amod`) or is followed by "for", however
/// the parser attached it ("is famous for which sport").
fn attributive_or_for(tree: &Tree<'_>, i: usize) -> bool {
    (tree.token(i).dep == "amod" && i < tree.head(i))
        || (i + 1 < tree.len() && tree.lower(i + 1) == "for")
}

/// Whether the adjective `i` takes a `to`-infinitive of its own ("able to sit", "more likely
/// than internists to recommend"): which adjectives take one is a fact about each word, not its
/// sense, so a synonym may not ("capable to sit", "probable to assuage").
fn takes_an_infinitive(tree: &Tree<'_>, i: usize) -> bool {
    tree.child_with_dep(i, &["xcomp"]).is_some()
}

/// The edits that put `synonym` for every free occurrence of `word` among `adjectives`, an
/// indefinite article before each agreeing with it.
fn replace_all(
    tree: &Tree<'_>,
    adjectives: &[usize],
    word: &str,
    synonym: &str,
) -> Vec<Replacement> {
    let mut replacements = Vec::new();
    for &j in adjectives.iter().filter(|&&j| tree.lower(j) == word) {
        let token = tree.token(j);
        let new_word = match_case(&token.text, synonym);
        replacements.extend(article_fix(tree, j, &new_word));
        replacements.push(Replacement::new(
            token.start as usize,
            token.end as usize,
            new_word,
        ));
    }
    replacements
}

impl MetamorphicRelation for SynonymousAdjective {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::BoolQ]
    }

    fn parsed_fields(&self) -> &'static [&'static str] {
        &["question"]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let example = source.example;
        let Some(parsed) = source.parse("question") else {
            return Ok(Vec::new());
        };
        if !shows_capitals(example.question.as_deref(), example.context.as_deref()) {
            return Ok(Vec::new());
        }
        let tree = Tree::new(parsed);
        let adjectives: Vec<usize> = (0..tree.len())
            .filter(|&i| {
                tree.token(i).tag == "JJ"
                    && !takes_an_infinitive(&tree, i)
                    && is_free_adjective(&tree, i, &self.wordnet)
                    && !named_in_passage(example.context.as_deref(), &tree.token(i).text)
            })
            .collect();
        let mut done: Vec<String> = Vec::new();
        let mut cases = Vec::new();
        for &i in &adjectives {
            if cases.len() == MAX_CASES {
                break;
            }
            let word = tree.lower(i);
            if done.contains(&word) {
                continue;
            }
            done.push(word.clone());
            if term_in_passage(&tree, i, example.context.as_deref()) {
                continue;
            }
            let question = example.question.as_deref();
            let synonyms: Vec<String> = match &self.chooser {
                Some(chooser) => self.chosen(chooser, &tree, i, question)?,
                None => self.in_context(&tree, i, question)?.into_iter().collect(),
            }
            .into_iter()
            .filter(|synonym| attributive_or_for(&tree, i) || !self.denominal_participle(synonym))
            .collect();
            for synonym in synonyms {
                if cases.len() == MAX_CASES {
                    break;
                }
                let replacements = replace_all(&tree, &adjectives, &word, &synonym);
                let Some(case) = edited_case(
                    example,
                    NAME,
                    cases.len(),
                    "question",
                    replacements,
                    &Expectation::Equal,
                    false,
                ) else {
                    continue;
                };
                cases.extend(best_fit(
                    &self.lexicon,
                    question,
                    vec![case],
                    (MIN_SENTENCE_SIMILARITY, MIN_WORD_SIMILARITY),
                )?);
            }
        }
        Ok(cases)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{boolq, resources};

    fn relation() -> SynonymousAdjective {
        SynonymousAdjective::new(resources()).unwrap()
    }

    fn followups(question: &str) -> Vec<String> {
        let (example, parses) = boolq(question, "Some passage.");
        let cases = relation()
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        for (k, case) in cases.iter().enumerate() {
            case.validate().unwrap();
            assert_eq!(case.case_id, format!("q1:MR2-1:{k}"));
            assert_eq!(case.expectation().unwrap(), Expectation::Equal);
            assert_eq!(case.precondition().unwrap(), None);
            let chars: Vec<char> = question.chars().collect();
            for edit in &case.edits {
                let before: String = chars[edit.start as usize..edit.end as usize]
                    .iter()
                    .collect();
                assert_eq!(before, edit.before);
            }
        }
        cases
            .into_iter()
            .map(|c| c.followup.question.unwrap())
            .collect()
    }

    /// With a choosing causal LM (here the tiny random Llama of the models crate's fixtures, no
    /// cost limit), the candidates are the lemmas of every sense SemCor attests for both words,
    /// at most `lm_per_site` are kept, and an article before the word agrees with each.
    /// TriviaQA's dev questions (the tuning half of a reading, 2026-12-03): no adverb for an
    /// adjective, no relational adjective's synonym, and a participle with no verb behind it
    /// only before its noun or with its "for".
    #[test]
    fn trivia_questions_keep_their_terms() {
        let none_with = |question: &str, word: &str| {
            let found = followups(question);
            assert!(
                !found.iter().any(|f| f.contains(word)),
                "{question}: {found:?}"
            );
        };
        none_with(
            "Which percentage of goals were scored by overseas players?",
            "abroad",
        );
        none_with(
            "Which Danish philosopher was a theologian and social critic?",
            "societal",
        );
        none_with("Which TV series made Jonathan Routh famous?", "famed");
        none_with("Which singer became famous in a Cuban group?", "famed");
        assert_eq!(
            followups("Which famous actress was born in Kent?"),
            vec!["Which famed actress was born in Kent?".to_string()]
        );
        assert_eq!(
            followups("Which painter is famous for scenes of everyday life?"),
            vec!["Which painter is famed for scenes of everyday life?".to_string()]
        );
    }

    #[test]
    fn a_causal_lm_chooses_among_every_attested_senses_lemmas() {
        let gguf = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../models/tests/fixtures/causal-lm/llama-tiny.gguf"
        );
        let config: crate::PerturbConfig = toml::from_str(&format!(
            "[mt4mrc]\nlm = \"{gguf}\"\nlm_max_cost = 1e9\nlm_per_site = 2\n"
        ))
        .unwrap();
        let relation = SynonymousAdjective::new(&crate::Resources::from_config(&config)).unwrap();
        let candidates = relation.candidates("big");
        assert!(candidates.contains(&"large".to_string()), "{candidates:?}");
        // A sense of "small" SemCor never tags it with is not offered.
        assert!(!relation.candidates("small").contains(&"minor".to_string()));
        let question = "is a big house expensive to heat";
        let (example, parses) = boolq(question, "Some passage.");
        let cases = relation
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        assert!(!cases.is_empty() && cases.len() <= 2, "{cases:?}");
        for case in &cases {
            case.validate().unwrap();
            let followup = case.followup.question.as_deref().unwrap();
            let words: Vec<&str> = followup.split(' ').collect();
            assert!(candidates.contains(&words[2].to_string()), "{followup}");
            assert_eq!(words[1], indefinite_article(words[2]), "{followup}");
            assert_eq!(words[3..].join(" "), "house expensive to heat");
        }
    }

    #[test]
    fn papers_examples() {
        // "taut" shares only a minor sense of "tight" (its dominant one, "closely constrained",
        // has no other lemma), so the sense filter refuses the paper's first example.
        assert!(followups("can a tight hat give you a headache").is_empty());
        assert_eq!(
            followups("is a big house expensive to heat"),
            vec!["is a large house expensive to heat"]
        );
        // Every free occurrence would be replaced, as in the paper, but "societal media" breaks
        // the term "social media": the follow-up drifts from the question (cosine 0.81) and the
        // fit check refuses it ...
        assert!(followups("are social habits and social media trends the same").is_empty());
        // ... and the paper's own "social" → "societal" is refused: the two are relational
        // adjectives of two nouns (WordNet's pertainyms), and the term breaks ("societal
        // critic"; see `relational`).
        assert!(followups("are social studies and social science the same").is_empty());
    }

    #[test]
    fn synonyms_share_the_dominant_sense() {
        let r = relation();
        assert_eq!(r.synonym("big").map(|s| s.0).as_deref(), Some("large"));
        // "full" is a sense of "good" but not what "full" mostly means.
        assert_ne!(r.synonym("good").map(|s| s.0).as_deref(), Some("full"));
        // "potential" and "novel" share only minor senses of "possible" and "new".
        assert_eq!(r.synonym("possible"), None);
        assert_eq!(r.synonym("new"), None);
        // "individual" is mostly a noun; "reddish" is a shade.
        assert_ne!(
            r.synonym("single").map(|s| s.0).as_deref(),
            Some("individual")
        );
        assert_eq!(r.synonym("red"), None);
        // "minimum" classifies ("a minimum age"), and "little" reads as a quantity.
        assert_eq!(r.synonym("minimum"), None);
        assert_ne!(r.synonym("small").map(|s| s.0).as_deref(), Some("little"));
    }

    #[test]
    fn articles_agree_and_case_is_kept() {
        // "an" would be wrong before a consonant-initial synonym and vice versa.
        let out = followups("is an enormous house expensive to heat");
        assert!(!out.is_empty());
        for q in &out {
            let words: Vec<&str> = q.split(' ').collect();
            if words[1] == "a" || words[1] == "an" {
                assert_eq!(words[1], crate::edit::indefinite_article(words[2]), "{q}");
            }
        }
    }

    #[test]
    fn questions_that_show_no_capitals_give_no_case() {
        let (example, parses) = boolq("who played caroline on little house on the prairie", "");
        let cases = relation()
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        assert!(cases.is_empty());
        assert!(!shows_capitals(
            Some("is a big house expensive"),
            Some("no capitals here")
        ));
        assert!(shows_capitals(
            Some("is a big house expensive"),
            Some("A house.")
        ));
        assert!(shows_capitals(Some("Is a big house expensive"), None));
    }

    #[test]
    fn a_synonym_the_question_has_is_not_put_in() {
        assert_eq!(
            followups("is a big house larger than a shed"),
            Vec::<String>::new()
        );
        assert_eq!(
            followups("is a big house expensive to heat"),
            vec!["is a large house expensive to heat"]
        );
    }

    #[test]
    fn one_case_per_adjective_in_question_order() {
        assert_eq!(
            followups("is a big garden an enormous expense for a family"),
            vec![
                "is a large garden an enormous expense for a family",
                "is a big garden a tremendous expense for a family",
            ]
        );
    }

    #[test]
    fn an_adjective_with_an_infinitive_of_its_own_is_left_alone() {
        // Gemma 3 270M chose "capable to sit" and "probable to assuage" (a blind reading of
        // the LM path, 2026-12-01): the infinitive is the adjective's own word choice.
        for (question, adjective, takes) in [
            ("Is an adult able to sit in a high chair?", "able", true),
            ("Is an espresso likely to assuage fear?", "likely", true),
            ("is a big house expensive", "big", false),
        ] {
            let (_, parses) = boolq(question, "Some passage.");
            let tree = Tree::new(&parses[0]);
            let i = (0..tree.len())
                .find(|&i| tree.lower(i) == adjective)
                .unwrap();
            assert_eq!(takes_an_infinitive(&tree, i), takes, "{question}");
        }
    }

    #[test]
    fn names_and_determiner_like_words_are_left_alone() {
        assert!(followups("is the Good Wife on netflix").is_empty());
        assert!(followups("are the other players the same").is_empty());
        let (example, _) = boolq("is it a tight hat", "Some passage.");
        assert!(relation()
            .follow_ups(&Source::unparsed(&example))
            .unwrap()
            .is_empty());
    }
}
