//! MT4MRC MR1-1, "Inversion with Antonymous Adjective": in a question that starts with a form of
//! *be*, replace an adjective after the subject by its WordNet antonym; the answer must flip
//! ("is Scott and Sid based on a true story" → "… on a false story"). Precondition: the model
//! answered the source with Yes.
//!
//! Eligibility, as the paper's patterns and the authors' script (`tool/MR1_1.py`) agree: the
//! question starts with is/are/was/were, its second word is not "there", "any", "anyone" or
//! "anything", and the adjective (tag JJ, JJR or JJS) lies after the subtree of the root's
//! subject (the first of nsubj, nsubjpass, csubj, csubjpass).
//!
//! Where paper and script differ:
//! * The paper replaces **the first adjective**; the script emits one follow-up per
//!   (adjective, antonym) pair for every adjective after the subject. We follow **the paper**:
//!   one follow-up per source, for the first adjective after the subject that has a usable
//!   antonym. A second antonym of the same word or of a later adjective would repeat the same
//!   test with a different surface and weight such sources more in the violation rate.
//! * The script takes, for every lemma of every synset of the word, that lemma's first antonym,
//!   so "common" gives "individual" before "uncommon", and a review found wrong-sense opposites
//!   ("a real realtor" → "an unreal realtor"). We take only the antonyms of the sense the
//!   question uses ([`crate::lexicon::in_context`]), keep the follow-up only when it stays close
//!   to the question in a sentence encoder, and prefer an antonym that is the word with a
//!   negative prefix
//!   ("uncommon", "illegal", "dishonest"), which keeps the sense of the question's word; otherwise
//!   the first candidate that SemCor attests at all ("true" → "false", "big" → "small"; not
//!   "federal" → "unitary", an opposite of another sense than the question's).
//! * The script substitutes WordNet's raw names (`well_known`); we substitute the display form
//!   and skip multiword antonyms altogether (an adjective slot takes one word).
//! * Comparatives and superlatives (JJR/JJS) are looked up by their lemma and the antonym is
//!   inflected to the same degree ("bigger" → "smaller", "best" → "worst"); the script looks up
//!   the inflected form and substitutes a bare antonym ("bigger" → "small").
//! * Words that only look like free adjectives are skipped (the script has no such checks; the
//!   authors repaired follow-ups by hand): parts of a named entity or a capitalised title ("the
//!   Good Wife"); lower-cased titles the passage writes with a capital mid-sentence ("dirty
//!   dancing"); halves of a hyphenated compound or of a WordNet term ("social security", "civil
//!   war", "high school"); nominalised adjectives after "the" ("the walking dead");
//!   determiner-like adjectives whose antonym does not fit the slot ("the same" → "the
//!   different"); and tokens in a noun's role that the tagger calls JJ. Antonyms WordNet marks
//!   predicative-only are not put before a noun ("a dead ball" → not "an alive ball").
//! * The subject is found as the script does, with two repairs for the small parser's questions
//!   (see [`subject_end`]); a subject tagged as an adjective marks a misparse and the question
//!   is skipped.
//! * Equatives and aspectual frames are skipped ([`in_equative_or_aspectual`]): the paper's
//!   relation is "the antonym inverts the answer", which "as good as" → "as bad as" and "still
//!   alive" → "still dead" do not (a review found both); so is a question holding "still",
//!   "already", "yet" or "anymore" anywhere ("are they still making new episodes" → "old
//!   episodes", the second review, seed 20261210).
//! * A negative-prefixed antonym must be in common use (a whole word of the sentence encoder's
//!   vocabulary): the second review found "an unreal realtor", "an unreal judge", "is health
//!   care unfree" unnatural. This also drops "dishonest" and "unequal".
//! * Idioms whose antonym reads as another claim are skipped ([`IDIOMS`]: "a true story" is
//!   no "false story"). This drops the paper's own example, deliberately: a review judged
//!   "based on a false story" unnatural in 8 of MR1-1's 12 unnatural follow-ups.
//! * The adjective must be part of what the question predicates ([`in_predicate`]): one inside
//!   an object, the subject or a clause names a referent ("the same color as the large
//!   cylinder" → "the small cylinder", "than to buy a new iPhone" → "an old iPhone"), and the
//!   answer about another referent is not the opposite (BREAK's and StrategyQA's yes/no
//!   questions, 2026-12-01).
//! * From StrategyQA's held-out questions (2026-12-01): a subject of "some", "many", "few"
//!   or "several" can have both ("are some manipulations dangerous / safe"), and an adjective
//!   with a "from" or "with" complement takes only its negative-prefixed antonym ("safe from"
//!   → not "dangerous from").
//! * From CommonsenseQA 2.0's and PubMedQA's held-out questions (2026-12-01): a modifier that
//!   fits only this adjective ("freezing cold", "ice cold"), an adjective used as a verb's
//!   adverb, an adverb of some of the time on it or its clause ("was Virginia once smaller"),
//!   a "many" the tagger reads as an adjective, and an antonym the question already has ("buy
//!   high, sell low") leave the adjective alone.
//! * An indefinite article right before the replaced adjective is adjusted in the same edit set
//!   ("an honest man" → "a dishonest man", "a legal act" → "an illegal act").

use metamorph_data::{Case, Expectation, Result, Task};

use super::adjective_site::{
    article_fix, best_fit, is_free_adjective, named_in_passage, DETERMINER_LIKE,
};
use super::sense_counts::SenseCounts;
use super::{edited_case, FAMILY};
use crate::edit::{match_case, Replacement};
use crate::lexicon::in_context::{
    ContextualLexicon, WordInContext, MIN_ANTONYM_SIMILARITY, NO_WORD_CHECK,
};
use crate::lexicon::inflect::Inflections;
use crate::lexicon::wordnet::{Pos, WordNet};
use crate::syntax::Tree;
use crate::{MetamorphicRelation, Resources, Source};

/// The relation's name, as in the paper (the one place it is written; the registry reads it).
pub const NAME: &str = "MR1-1";

/// MT4MRC MR1-1 (see the module docs).
#[derive(Debug)]
pub struct AntonymousAdjective {
    wordnet: std::sync::Arc<WordNet>,
    lexicon: std::sync::Arc<ContextualLexicon>,
    inflections: std::sync::Arc<Inflections>,
    /// SemCor tag counts, to prefer attested antonyms.
    senses: std::sync::Arc<SenseCounts>,
}

impl AntonymousAdjective {
    /// The relation over the shared WordNet and inflection tables.
    ///
    /// # Errors
    /// When WordNet or the inflection tables cannot be loaded.
    pub fn new(resources: &Resources) -> Result<Self> {
        let wordnet = resources.wordnet()?;
        let senses = SenseCounts::shared(&wordnet)?;
        Ok(AntonymousAdjective {
            wordnet,
            lexicon: resources.contextual_lexicon()?,
            inflections: resources.inflections()?,
            senses,
        })
    }

    /// The antonym to substitute for adjective `i` of `tree` (in its own degree), if any: an
    /// antonym of the sense the question uses ([`ContextualLexicon::candidates`]).
    /// Each comes with whether it is the word with a negative prefix.
    fn antonyms(
        &self,
        tree: &Tree<'_>,
        i: usize,
        attributive: bool,
    ) -> Result<Vec<(String, bool)>> {
        let token = tree.token(i);
        let lower = token.text.to_lowercase();
        let lemma = match token.tag.as_str() {
            "JJ" => lower.clone(),
            _ => self.lexicon.lemma(token, Pos::Adj),
        };
        let word = WordInContext::new(tree.tokens(), i, Pos::Adj).within(tree.sentence_of(i));
        let sentence = self.lexicon.embed_cached(&word.sentence_text())?;
        // The direct antonyms of the word in the two senses that fit the question best
        // (WordNet splits adjectives finely: "legal" in "is it legal to drive" fits "allowed by
        // official rules" best, but "illegal" hangs on the next sense). Not WordNet's indirect
        // antonyms through a satellite's head ("possible" → "actual") unless it is the word
        // with a negative prefix, and not antonyms of senses the question does not use.
        let ranked = self.lexicon.ranked_senses(&word, &sentence)?;
        let mut candidates: Vec<String> = Vec::new();
        let mut add = |name: &str, prefixed_only: bool| {
            let name = name.replace('_', " ");
            if (!prefixed_only || is_negative_prefixed(&name, &lemma))
                && !candidates.contains(&name)
            {
                candidates.push(name);
            }
        };
        // The word with a negative prefix negates the sense it hangs on, which WordNet often
        // puts a rank or two away from the best fit ("a common sight" fits "commonly
        // encountered"; "uncommon" hangs on "widely known or commonly encountered").
        for sense in ranked.iter().take(3) {
            for antonym in sense.lemma_antonyms(&lemma) {
                add(antonym.name(), true);
            }
        }
        // The antonyms of every lemma of the two best senses ("big"/"large" → "little",
        // "small"; the best-fitting one wins below: "the smallest city", not "the littlest
        // city"), and a satellite's head's antonym only when it is the word with a negative
        // prefix ("a common sight": satellite "commonly encountered" → "uncommon").
        for sense in ranked.iter().take(2) {
            let heads = if sense.is_satellite() {
                sense.similar_tos()
            } else {
                Vec::new()
            };
            let sources =
                std::iter::once((*sense, false)).chain(heads.into_iter().map(|h| (h, true)));
            for (source, prefixed_only) in sources {
                for other in source.lemma_names() {
                    for antonym in source.lemma_antonyms(other) {
                        add(antonym.name(), prefixed_only);
                    }
                }
            }
        }
        let candidates: Vec<String> = candidates
            .into_iter()
            .filter(|w| {
                is_single_word(w)
                    && *w != lemma
                    && !DETERMINER_LIKE.contains(&w.as_str())
                    && !(attributive && predicative_only(&self.wordnet, w))
                    // Other antonyms must be attested in SemCor: rare opposites are mostly of
                    // another sense ("federal" → "unitary").
                    && (is_negative_prefixed(w, &lemma)
                        || self.senses.adjective_total(w) > 0)
                    // A prefixed antonym must be a word in common use (a whole word of the
                    // encoder's vocabulary): "unreal realtor", "unfree health care" are
                    // opposites of another sense, in a register no one asks in.
                    && (!is_negative_prefixed(w, &lemma) || self.lexicon.is_common(w))
            })
            .collect();
        Ok(candidates
            .into_iter()
            .filter_map(|chosen| {
                let prefixed = is_negative_prefixed(&chosen, &lemma);
                self.degree_form(&chosen, &token.tag).map(|f| (f, prefixed))
            })
            .collect())
    }

    /// `antonym` in the degree `tag` asks for (`JJ`, `JJR`, `JJS`).
    fn degree_form(&self, antonym: &str, tag: &str) -> Option<String> {
        match tag {
            "JJ" => Some(antonym.to_string()),
            // Degree forms from the tables, or the periphrastic "more"/"most" for a listed
            // adjective without them; an unknown antonym is not guessed at.
            tag => self
                .inflections
                .inflect_or_rule(antonym, tag)
                .filter(|i| {
                    i.source == crate::lexicon::inflect::Source::Table || i.form.contains(' ')
                })
                .map(|i| i.form),
        }
    }
}

/// Dependencies that lead from an adjective into a phrase naming something the question refers
/// to rather than what it asks about: an object ("as the [large] cylinder", "to buy a [new]
/// iPhone"), the subject, a relative or adverbial clause, an apposition.
const REFERRING: &[&str] = &[
    "pobj",
    "dobj",
    "nsubj",
    "nsubjpass",
    "relcl",
    "acl",
    "advcl",
    "pcomp",
    "appos",
    "poss",
    "dative",
    "agent",
];

/// Whether adjective `i` belongs to what the question predicates of its subject ("is X
/// [possible]", "is X the [largest] zoo", "is X [bigger] than Y"), not to a phrase that picks
/// out something it refers to: "Is the cube the same color as the [large] cylinder?" → "the
/// small cylinder" refers to another object, whose answer nothing predicts (a reading of
/// BREAK's and StrategyQA's yes/no questions, 2026-12-01). Walks from the adjective to the
/// root and refuses a path through a [`REFERRING`] dependency.
fn in_predicate(tree: &Tree<'_>, i: usize) -> bool {
    // The small parser reads a predicate adjective after the subject as the subject's
    // modifier ("is payola [legal] in canada", "are paratroopers [good] at …": amod of the
    // nsubj); after its noun, an adjective is the predicate, unless the root has another
    // complement ("is the object [closest] to the camera the largest?": then it modifies the
    // subject).
    let Some(root) = tree.root(tree.sentence_of(i)) else {
        return false;
    };
    // A complement of the root after the adjective ("is the object [closest] to the camera
    // the largest?", "are the objects [closest] to the camera the same shape?", the latter
    // parsed as the subject's apposition) is the predicate; the adjective before it then
    // modifies the subject.
    let later_predicate = tree
        .children(root)
        .any(|c| c > i + 1 && matches!(tree.token(c).dep.as_str(), "attr" | "acomp" | "oprd"))
        || (i + 1..tree.len()).any(|c| {
            tree.token(c).dep == "appos" && tree.token(tree.head(c)).dep.starts_with("nsubj")
        });
    let head = tree.head(i);
    if tree.token(i).dep == "amod"
        && head < i
        && matches!(tree.token(head).dep.as_str(), "nsubj" | "nsubjpass")
    {
        return tree.head(head) == root && !later_predicate;
    }
    tree.path_to_root(i)
        .take_while(|&j| tree.head(j) != j)
        .all(|j| {
            let dep = tree.token(j).dep.as_str();
            let head = tree.head(j);
            // "is the nba salary cap a [hard] cap": a second subject of the root is its
            // attribute misread.
            let second_subject = dep == "nsubj"
                && head == root
                && tree
                    .children(root)
                    .any(|c| c < j && tree.token(c).dep == "nsubj");
            (!REFERRING.contains(&dep) || second_subject)
                && !(dep == "acomp" && head == root && later_predicate)
        })
}

impl MetamorphicRelation for AntonymousAdjective {
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
        let tree = Tree::new(parsed);
        if tree.len() < 3 || super::asks_to_choose(&tree) {
            return Ok(Vec::new());
        }
        if !matches!(tree.lower(0).as_str(), "is" | "are" | "was" | "were") {
            return Ok(Vec::new());
        }
        if matches!(
            tree.lower(1).as_str(),
            "there" | "any" | "anyone" | "anything"
        ) {
            return Ok(Vec::new());
        }
        let Some(after_subject) = subject_end(&tree) else {
            return Ok(Vec::new());
        };
        // "Are some chiropractic manipulations dangerous?" → "… safe?": of some, both can be
        // Yes (StrategyQA's held-out questions, 2026-12-01).
        // The tagger reads "many" as an adjective as often ("are many people larger than
        // their car seats": CommonsenseQA 2.0's questions, 2026-12-01).
        if (1..after_subject).any(|j| {
            matches!(tree.lower(j).as_str(), "some" | "many" | "few" | "several")
                && matches!(tree.token(j).dep.as_str(), "det" | "amod")
        }) {
            return Ok(Vec::new());
        }
        // An aspectual adverb anywhere presupposes the state the adjective names ("are they
        // still making new episodes" → "… old episodes" is no opposite question).
        if (0..tree.len()).any(|j| {
            matches!(
                tree.lower(j).as_str(),
                "still" | "already" | "yet" | "anymore"
            )
        }) {
            return Ok(Vec::new());
        }
        let sentence = tree.sentence_of(0);
        for i in after_subject..sentence.end {
            let token = tree.token(i);
            if !matches!(token.tag.as_str(), "JJ" | "JJR" | "JJS")
                || !is_free_adjective(&tree, i, &self.wordnet)
                || named_in_passage(example.context.as_deref(), &token.text)
            {
                continue;
            }
            let attributive =
                token.dep == "amod" || tree.head(i) > i && tree.token(tree.head(i)).pos == "NOUN";
            // "more successful" → "more unsuccessful" reads as a stumble for "less
            // successful" (the reading of other questions, 2026-11-30): a periphrastic degree
            // keeps its adjective.
            let periphrastic = i > 0
                && matches!(
                    tree.lower(i - 1).as_str(),
                    "more" | "most" | "less" | "least"
                );
            // "freezing cold", "ice cold": a modifier that fits only this adjective ("freezing
            // hot"); an adjective used as an adverb of a verb is no predicate (CommonsenseQA
            // 2.0's questions, 2026-12-01).
            let bound_modifier = tree.children(i).any(|c| {
                matches!(tree.token(c).dep.as_str(), "npadvmod" | "advmod")
                    && matches!(tree.token(c).tag.as_str(), "NN" | "VBG" | "JJ")
            }) || token.dep == "advmod"
                && tree.token(tree.head(i)).pos == "VERB";
            // "was Virginia once smaller / larger than it is now": an adverb of some of the
            // time on the adjective or its clause lets both hold (CommonsenseQA 2.0's
            // questions, 2026-12-01).
            let some_of_the_time = tree
                .children(i)
                .chain(tree.children(tree.head(i)))
                .any(|c| {
                    matches!(
                        tree.lower(c).as_str(),
                        "once" | "sometimes" | "occasionally" | "ever"
                    )
                });
            if periphrastic
                || bound_modifier
                || some_of_the_time
                || in_equative_or_aspectual(&tree, i)
                || in_idiom(&tree, i)
                || !in_predicate(&tree, i)
            {
                continue;
            }
            // "safe from harm" → "dangerous from", "absent from" → "present from", "friendly
            // with" → "hostile with": an adjective's "from"/"with" complement fits only its
            // negative-prefixed antonym (StrategyQA's held-out questions, 2026-12-01).
            let complement_needs_prefix = tree.children(i).any(|c| {
                c == i + 1
                    && tree.token(c).dep == "prep"
                    && matches!(tree.lower(c).as_str(), "from" | "with")
            });
            // One case per antonym; a negative-prefixed one ("uncommon", "illegal") is kept if
            // it fits, else the antonym of the sense in context whose question fits best
            // (sentence-encoder similarity), if any fits.
            let (mut prefixed, mut others) = (Vec::new(), Vec::new());
            for (antonym, negative_prefixed) in self.antonyms(&tree, i, attributive)? {
                // "a buy high, sell low strategy" → "buy low, sell low": an antonym the
                // question already has makes no opposite question.
                let already_there = (0..tree.len()).any(|j| {
                    tree.lower(j) == antonym || tree.token(j).lemma.eq_ignore_ascii_case(&antonym)
                });
                if complement_needs_prefix && !negative_prefixed || already_there {
                    continue;
                }
                let cases = if negative_prefixed {
                    &mut prefixed
                } else {
                    &mut others
                };
                let replacement = match_case(&token.text, &antonym);
                let mut replacements = vec![Replacement::new(
                    token.start as usize,
                    token.end as usize,
                    replacement.clone(),
                )];
                replacements.extend(article_fix(&tree, i, &replacement));
                cases.extend(edited_case(
                    example,
                    NAME,
                    0,
                    "question",
                    replacements,
                    &Expectation::Inverted,
                    true,
                ));
            }
            let question = example.question.as_deref();
            if let Some(best) = best_fit(
                &self.lexicon,
                question,
                prefixed,
                (MIN_ANTONYM_SIMILARITY, NO_WORD_CHECK),
            )? {
                return Ok(vec![best]);
            }
            if let Some(best) = best_fit(
                &self.lexicon,
                question,
                others,
                (MIN_ANTONYM_SIMILARITY, NO_WORD_CHECK),
            )? {
                return Ok(vec![best]);
            }
        }
        Ok(Vec::new())
    }
}

/// Whether adjective `i` sits in a frame its antonym does not invert: an equative or
/// comparison of degree ("as good as", "so big as": "as bad as" is no opposite claim), or an
/// aspectual adverb that presupposes the state ("still alive" → "still dead" presupposes
/// having died before; "already", "yet", "ever", "no longer" likewise).
pub(super) fn in_equative_or_aspectual(tree: &Tree<'_>, i: usize) -> bool {
    let before = |k: usize| i.checked_sub(k).map(|j| tree.lower(j));
    let equative = matches!(before(1).as_deref(), Some("as" | "so"))
        && (i + 1 < tree.len() && tree.lower(i + 1) == "as");
    let aspectual = (0..tree.len()).any(|j| {
        tree.head(j) == i
            && tree.token(j).dep == "advmod"
            && matches!(
                tree.lower(j).as_str(),
                "still" | "already" | "yet" | "ever" | "longer" | "anymore"
            )
    }) || matches!(before(1).as_deref(), Some("still" | "already"));
    equative || aspectual
}

/// Adjective–noun idioms whose antonym is no opposite claim a speaker would make: "based on a
/// true story" is a film genre; "based on a false story" reads as a hoax, not as "invented",
/// and a review found it in most of MR1-1's unnatural follow-ups on BoolQ.
const IDIOMS: &[(&str, &[&str])] = &[
    ("true", &["story", "event", "life", "crime"]),
    // "native to southern Asia" → "adopted to southern Asia" (WordNet's antonym of another
    // "native"; BREAK's and StrategyQA's questions, 2026-12-01).
    ("native", &["to"]),
];

/// Adjectives whose one antonym in the question's sense is refused as uncommon, so that the
/// antonyms left are another sense's: "are the number of red and blue items [equal]" →
/// "inadequate" ("unequal" is dropped; BREAK's dev questions, 2026-12-01).
const NO_FITTING_ANTONYM: &[&str] = &["equal"];

/// Whether adjective `i` opens one of [`IDIOMS`] with the word that follows it, or is one of
/// [`NO_FITTING_ANTONYM`].
fn in_idiom(tree: &Tree<'_>, i: usize) -> bool {
    let adjective = tree.lower(i);
    if NO_FITTING_ANTONYM.contains(&adjective.as_str()) {
        return true;
    }
    i + 1 < tree.len()
        && IDIOMS.iter().any(|(a, nouns)| {
            *a == adjective && nouns.contains(&tree.token(i + 1).lemma.to_lowercase().as_str())
        })
}

/// The index of the first token after the subtree of the first sentence's root subject (the
/// first of nsubj, nsubjpass, csubj, csubjpass, as the authors' scripts look for them), or
/// `None` when the root has no subject.
///
/// Two repairs of the small parser's questions, both for a root *be*: with no subject label,
/// an `attr` right after the verb is the subject ("is [an elephant] bigger than a mouse"); and an
/// adjective attached after its head noun ends the subject, as English adjectives precede their
/// noun ("is [russia] bigger than canada", where "bigger" is parsed as an `amod` of "russia").
pub(super) fn subject_end(tree: &Tree<'_>) -> Option<usize> {
    let root = tree.root(tree.sentence_of(0))?;
    let subject = tree
        .child_with_dep(root, &["nsubj", "nsubjpass", "csubj", "csubjpass"])
        .or_else(|| {
            let attr = tree.child_with_dep(root, &["attr"])?;
            (tree.token(root).lemma == "be" && root == 0 && tree.subtree(attr).start == 1)
                .then_some(attr)
        })?;
    // A subject tagged as an adjective ("is [outcome] variable the same as …") is a misparse
    // whose adjectives cannot be trusted either.
    if tree.token(subject).pos == "ADJ" {
        return None;
    }
    let subtree = tree.subtree(subject);
    let postnominal = (subject + 1..subtree.end).find(|&i| {
        tree.head(i) == subject
            && tree.token(i).dep == "amod"
            && tree.token(i).pos == "ADJ"
            && tree.token(root).lemma == "be"
    });
    Some(postnominal.unwrap_or(subtree.end))
}

/// Whether WordNet marks the adjective `word` as predicative only ("alive(p)", "asleep(p)"),
/// so it cannot stand before a noun ("an alive ball").
fn predicative_only(wordnet: &WordNet, word: &str) -> bool {
    wordnet.synsets(word, Pos::Adj).iter().any(|synset| {
        synset
            .lemmas()
            .any(|l| l.name() == word && l.syntactic_marker() == Some("(p)"))
    })
}

fn is_single_word(word: &str) -> bool {
    !word.is_empty() && word.chars().all(char::is_alphabetic)
}

/// Whether `antonym` is `word` with a negative prefix ("uncommon", "illegal", "dishonest").
fn is_negative_prefixed(antonym: &str, word: &str) -> bool {
    ["un", "in", "il", "im", "ir", "dis", "non", "a"]
        .iter()
        .any(|p| antonym.strip_prefix(p) == Some(word))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{boolq, resources};
    use metamorph_data::Precondition;

    fn relation() -> AntonymousAdjective {
        AntonymousAdjective::new(resources()).unwrap()
    }

    fn followups(question: &str) -> Vec<String> {
        let (example, parses) = boolq(question, "Some passage.");
        let cases = relation()
            .follow_ups(&Source::new(&example, &parses))
            .unwrap();
        for case in &cases {
            case.validate().unwrap();
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

    #[test]
    fn questions_that_ask_to_choose_are_left_alone() {
        for question in [
            "is the birthplace the largest or the second largest city in morocco",
            "are you married or single",
            // A periphrastic degree: "more unsuccessful" stands for "less successful".
            "are the brothers more successful at doubles than singles",
        ] {
            assert!(followups(question).is_empty(), "{question}");
        }
    }

    #[test]
    fn papers_example_is_an_idiom_we_keep() {
        // The paper's own example, "… based on a true story" → "… on a false story", is the
        // idiom a review judged unnatural: it is skipped (see `IDIOMS`).
        assert!(followups("is Scott and Sid based on a true story").is_empty());
        assert!(followups("is the movie the blind side based on a true story").is_empty());
        assert_eq!(
            followups("is the statement in the book true"),
            vec!["is the statement in the book false"]
        );
    }

    #[test]
    fn case_fields() {
        let (example, parses) = boolq("is it legal to drive in france", "Some passage.");
        let case = relation()
            .follow_ups(&Source::new(&example, &parses))
            .unwrap()
            .remove(0);
        assert_eq!(case.case_id, "q1:MR1-1:0");
        assert_eq!(case.expectation().unwrap(), Expectation::Inverted);
        assert_eq!(
            case.precondition().unwrap(),
            Some(Precondition::SourceLabelIs {
                source: 0,
                label: "yes".into()
            })
        );
        assert_eq!(
            case.followup.question.as_deref(),
            Some("is it illegal to drive in france")
        );
        assert_eq!(case.followup.label, None);
        let edit = &case.edits[0];
        assert_eq!(
            (
                edit.start,
                edit.end,
                edit.before.as_str(),
                edit.after.as_str()
            ),
            (6, 11, "legal", "illegal")
        );
    }

    #[test]
    fn articles_agree_with_the_antonym() {
        assert_eq!(
            followups("is it an easy task to climb everest"),
            vec!["is it a difficult task to climb everest"]
        );
        // A prefixed antonym outside common use is not put in ("dishonest" is a whole word
        // of no encoder vocabulary here; see the module docs).
        assert!(followups("is he an honest man").is_empty());
        assert_eq!(
            followups("is it a legal act to carry a knife"),
            vec!["is it an illegal act to carry a knife"]
        );
    }

    /// BREAK's and StrategyQA's yes/no questions (2026-12-01): an adjective naming a referent
    /// (inside an object or the subject) is not the predicate, and the parser's predicate
    /// adjectives read as the subject's modifiers still are.
    #[test]
    fn only_the_predicate_adjective_is_inverted() {
        for question in [
            "Is the cube the same color as the large cylinder?",
            "Is it more expensive to run for President of India than to buy a new iPhone 11?",
            "Are the three objects closest to the camera the same shape?",
            "Was the Second Amendment written without consideration for black Americans?",
            "Are potatoes native to the European continent?",
            "Are the number of red and blue items equal?",
            "Are some chiropractic manipulations dangerous?",
            "Is basil safe from Hypervitaminosis D?",
            "Are human footprints absent from Mount Sharp?",
        ] {
            assert!(followups(question).is_empty(), "{question}");
        }
        for (question, inverted) in [
            (
                "is the state of texas bigger than germany",
                "is the state of texas smaller than germany",
            ),
            (
                "is payola legal in canada and the united states",
                "is payola illegal in canada and the united states",
            ),
            (
                "is the nba salary cap a hard cap",
                "is the nba salary cap a soft cap",
            ),
            (
                "Is the object closest to the camera the largest?",
                "Is the object closest to the camera the smallest?",
            ),
        ] {
            assert_eq!(followups(question), vec![inverted], "{question}");
        }
    }

    #[test]
    fn capitals_and_punctuation_are_kept() {
        assert_eq!(
            followups("Is it legal to drive at 16?"),
            vec!["Is it illegal to drive at 16?"]
        );
        // A capitalised adjective inside the question is taken for part of a title.
        assert!(followups("is the Good Wife on netflix").is_empty());
    }

    #[test]
    fn degree_forms_are_inflected() {
        assert_eq!(
            followups("is russia bigger than canada"),
            vec!["is russia smaller than canada"]
        );
        assert_eq!(
            followups("is it the best option for a family"),
            vec!["is it the worst option for a family"]
        );
        assert_eq!(
            followups("is an elephant bigger than a mouse"),
            vec!["is an elephant smaller than a mouse"]
        );
    }

    #[test]
    fn only_the_first_adjective_after_the_subject() {
        // "social" is in the subject; "same" is determiner-like; nothing else is an adjective.
        assert!(followups("are social studies and social science the same").is_empty());
        assert_eq!(
            followups("is the old bridge a common sight in paris"),
            vec!["is the old bridge an uncommon sight in paris"]
        );
    }

    #[test]
    fn adjectives_in_names_and_terms_stay() {
        // A WordNet term ("civil war"), a lower-cased title the passage capitalises, and a
        // nominalised adjective ("the walking dead").
        assert!(followups("was the 13th amendment after the civil war").is_empty());
        let (example, parses) = boolq(
            "was she like the wind in dirty dancing",
            "The film Dirty Dancing came out in 1987.",
        );
        assert!(relation()
            .follow_ups(&Source::new(&example, &parses))
            .unwrap()
            .is_empty());
        assert!(followups("is z nation a spinoff of the walking dead").is_empty());
        assert!(named_in_passage(
            Some("A film by Dirty Dancing Inc."),
            "dirty"
        ));
        assert!(!named_in_passage(
            Some("Dirty water. It is dirty."),
            "dirty"
        ));
    }

    #[test]
    fn predicative_only_antonyms_do_not_go_before_a_noun() {
        // "dead" → "alive" would give "an alive ball"; WordNet marks "alive" predicative.
        assert!(predicative_only(&resources().wordnet().unwrap(), "alive"));
        for q in followups("is a walk in baseball a dead ball") {
            assert!(!q.contains("alive"), "{q}");
        }
        assert_eq!(
            followups("is scar alive in the lion king 2"),
            vec!["is scar dead in the lion king 2"]
        );
    }

    /// CommonsenseQA 2.0's held-out questions (2026-12-01).
    #[test]
    fn bound_modifiers_some_of_the_time_and_repeated_antonyms_are_left_alone() {
        for question in [
            "Is Massachusetts almost always freezing cold?",
            "Was Virginia once smaller than it is now?",
            "Are many people larger than their car seats?",
            "Is it hot in summer and cold in winter?",
        ] {
            assert!(followups(question).is_empty(), "{question}");
        }
        assert_eq!(
            followups("Is Africa larger than Greenland?"),
            ["Is Africa smaller than Greenland?"]
        );
    }

    #[test]
    fn ineligible_questions_give_no_case() {
        assert!(followups("is there a true story behind the film").is_empty());
        assert!(followups("can a tight hat give you a headache").is_empty());
        assert!(followups("is any legal drug sold there").is_empty());
        // No adjective with an antonym after the subject.
        assert!(followups("is the eiffel tower in paris").is_empty());
        // Unparsed sources give nothing.
        let (example, _) = boolq("is it legal", "Some passage.");
        assert!(relation()
            .follow_ups(&Source::unparsed(&example))
            .unwrap()
            .is_empty());
    }
}
