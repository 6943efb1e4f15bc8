//! NLPLego's adjunct mutation `σ(b)` (seed-003 §1.3): each variant of an adjunct changes exactly
//! one word of it.
//!
//! **Eligible words** (paper): nouns, verbs, adjectives and adverbs that are not NLTK English
//! stop-words. As in the authors' code, also not punctuation, not a word inside a named entity,
//! not a hyphenated or otherwise non-alphabetic word, and not a capitalised first word of the
//! adjunct; nor (our addition) a word of a multiword expression WordNet lists ("as well as",
//! "at the same time": [`ContextualLexicon::in_multiword_expression`]), nor a word whose
//! construction fixes its sense ("in need of", "claim victory", a function adverb:
//! [`crate::lexicon::frames::fixed_by_frame`]); the caller may freeze
//! more (the MRC relation freezes adjuncts holding answer or question words). An adjunct without an eligible word is inserted unchanged.
//!
//! **Sources**:
//! * WordNet synonyms of the word's lemma in the **sense its sentence uses**, inflected to the
//!   original's Penn tag with lemminflect's tables, kept when the parent sentence with the
//!   synonym stays close to the parent in a sentence encoder and the synonym, read there,
//!   close to the word it replaces, best (closest word) first, at most
//!   [`NlpLegoConfig::synonyms_per_word`](super::NlpLegoConfig) (see
//!   [`crate::lexicon::in_context`]). The authors rank the synonyms of every sense by spaCy
//!   `en_core_web_lg` vector similarity; `lg` is not packaged and `md`'s pruned vectors proved
//!   too coarse, so sense choice and fit use all-MiniLM-L6-v2. Verbs are not replaced
//!   from WordNet, for the reason CREST's review found (their synonyms take other argument
//!   frames); the masked LM replaces them.
//! * Masked-LM predictions for the word masked in its *parent sentence's context* — the parent
//!   with this adjunct inserted and later slots empty, as the authors' code builds it — that
//!   reach the probability floor (0.1) among the top 5, are whole alphabetic words longer than
//!   one letter and are not stop-words.
//! * A causal LM's predictions (NLPLego-MRC with `[perturb.nlplego] lm`, issue 39's "choose,
//!   don't just filter"), as CREST's `lm_candidates = "predictions"` makes them: for a noun or
//!   adjective (adverbs are left alone, as WordNet's are), the LM reads the 24 words before
//!   it in the parent sentence and lists its `lm_top_k` likeliest next words; a word is a
//!   candidate when it is a common word, not a stop-word, not a WordNet antonym of the
//!   original nor a word of an opposite sense ([`WordNet::opposites`]: "slow" → "rapid"), not
//!   a compass direction, not a word of the sentence or a form of one (a small LM copies its
//!   context), and does not change a person's gender. The encoder keeps those read in context
//!   as the old word (the thresholds WordNet's synonyms pass), the LM the cheapest
//!   `lm_per_site` whose word and five next words cost at most `lm_max_cost` nats more than
//!   the original's, and a re-parse those with the original's tag and a lemma WordNet lists
//!   in its part of speech (for a noun, one naming the same thing or more generally: a
//!   synonym or a hypernym within three steps, not a sister term or a hyponym). The results are cached by sentence and word,
//!   since every question of a paragraph rebuilds the paragraph's sentences.
//!
//! Decision: the causal LM serves NLPLego-MRC only. Its cases read only the tree's leaves (the
//! whole sentence), where the LM reads the real left context; NLPLego-SA and -SSM read the
//! inner levels too, whose shortfalls are parents cut short rather than word choice, and keep
//! the masked LM the paper uses.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use metamorph_data::{Result, Token};
use metamorph_models::masked_lm::{CandleMaskedLm, FillOptions};
use metamorph_parse::spacy::pipeline::Pipeline;

use crate::crest::generation::{inflect, mutable_pos};
use crate::edit::match_case;
use crate::lexicon::frames::{fixed_by_frame, is_never_a_substitute};
use crate::lexicon::gender::changes_gender;
use crate::lexicon::in_context::{
    ContextualLexicon, Substitution as LexicalSubstitution, WordInContext, MIN_SENTENCE_SIMILARITY,
    MIN_WORD_SIMILARITY,
};
use crate::lexicon::inflect::Inflections;
use crate::lexicon::lm_choice::{keeps_its_kind, repeats_a_word_of, SubstitutionChooser};
use crate::lexicon::wordnet::{Pos, SynsetId, WordNet};

/// NLTK's English stop-word list (the 179 words of `nltk.corpus.stopwords.words('english')`).
pub const NLTK_STOP_WORDS: [&str; 179] = [
    "i",
    "me",
    "my",
    "myself",
    "we",
    "our",
    "ours",
    "ourselves",
    "you",
    "you're",
    "you've",
    "you'll",
    "you'd",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "he",
    "him",
    "his",
    "himself",
    "she",
    "she's",
    "her",
    "hers",
    "herself",
    "it",
    "it's",
    "its",
    "itself",
    "they",
    "them",
    "their",
    "theirs",
    "themselves",
    "what",
    "which",
    "who",
    "whom",
    "this",
    "that",
    "that'll",
    "these",
    "those",
    "am",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "have",
    "has",
    "had",
    "having",
    "do",
    "does",
    "did",
    "doing",
    "a",
    "an",
    "the",
    "and",
    "but",
    "if",
    "or",
    "because",
    "as",
    "until",
    "while",
    "of",
    "at",
    "by",
    "for",
    "with",
    "about",
    "against",
    "between",
    "into",
    "through",
    "during",
    "before",
    "after",
    "above",
    "below",
    "to",
    "from",
    "up",
    "down",
    "in",
    "out",
    "on",
    "off",
    "over",
    "under",
    "again",
    "further",
    "then",
    "once",
    "here",
    "there",
    "when",
    "where",
    "why",
    "how",
    "all",
    "any",
    "both",
    "each",
    "few",
    "more",
    "most",
    "other",
    "some",
    "such",
    "no",
    "nor",
    "not",
    "only",
    "own",
    "same",
    "so",
    "than",
    "too",
    "very",
    "s",
    "t",
    "can",
    "will",
    "just",
    "don",
    "don't",
    "should",
    "should've",
    "now",
    "d",
    "ll",
    "m",
    "o",
    "re",
    "ve",
    "y",
    "ain",
    "aren",
    "aren't",
    "couldn",
    "couldn't",
    "didn",
    "didn't",
    "doesn",
    "doesn't",
    "hadn",
    "hadn't",
    "hasn",
    "hasn't",
    "haven",
    "haven't",
    "isn",
    "isn't",
    "ma",
    "mightn",
    "mightn't",
    "mustn",
    "mustn't",
    "needn",
    "needn't",
    "shan",
    "shan't",
    "shouldn",
    "shouldn't",
    "wasn",
    "wasn't",
    "weren",
    "weren't",
    "won",
    "won't",
    "wouldn",
    "wouldn't",
];

/// Whether `word` (any case) is an NLTK stop-word.
pub fn is_stop_word(word: &str) -> bool {
    let lower = word.to_lowercase();
    NLTK_STOP_WORDS.contains(&lower.as_str())
}

/// One word replaced in an adjunct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Substitution {
    /// The token replaced (index into the disassembled text's tokens).
    pub token: usize,
    /// Its text before.
    pub before: String,
    /// Its text after.
    pub after: String,
}

/// Where replacements come from.
enum Source {
    /// WordNet synonyms.
    Synonyms,
    /// Masked-LM predictions in context.
    MaskedLm(Arc<CandleMaskedLm>, FillOptions),
    /// A causal LM's predictions, chosen by it.
    CausalLm(Box<Predictions>),
}

/// What the causal-LM source needs (see the module docs).
pub struct Predictions {
    chooser: SubstitutionChooser,
    wordnet: Arc<WordNet>,
    parser: Arc<Pipeline>,
    top_k: usize,
    /// The replacements found per (parent sentence, word's byte span).
    cache: Mutex<HashMap<(String, usize, usize), Vec<String>>>,
}

impl Predictions {
    /// `chooser` predicting `top_k` tokens per word, with WordNet for antonyms and parts of
    /// speech and the parser for the re-parse.
    pub fn new(
        chooser: SubstitutionChooser,
        wordnet: Arc<WordNet>,
        parser: Arc<Pipeline>,
        top_k: usize,
    ) -> Self {
        Predictions {
            chooser,
            wordnet,
            parser,
            top_k,
            cache: Mutex::new(HashMap::new()),
        }
    }
}

/// Whether `word` names a compass direction ("southwestern", "North", "eastward"): one
/// direction read in place of another is fluent and close in the encoder, and a different
/// fact (the tuning half of the LM's predictions had "southwestern Macedonia" → "northern").
fn names_a_direction(word: &str) -> bool {
    let lower = word.to_lowercase();
    ["north", "south", "east", "west"]
        .iter()
        .any(|d| lower.starts_with(d))
}

/// How many hypernym steps apart two nouns may be and still name the same thing.
const HYPERNYM_STEPS: usize = 3;

/// Whether the noun `new` (a lemma) names what `old` names, the same or more generally: a
/// WordNet sense of `new` is a sense of `old` or among its hypernyms within
/// [`HYPERNYM_STEPS`] ("the wasps" → "the insects", "a movie" → "a film", "the treaties" →
/// "the agreements"), so what the sentence said stays true. A sister term reads fluently in
/// the left context and changes what the sentence is about (the tuning half had "gift the
/// churches" → "the priests", "no foreign settlers" → "settlements"; the first blind reading,
/// docs/validity/mrc-predictions, "the batter receiving a free pass" → "the catcher",
/// "upstate counties" → "states", "deeper tissues" → "organs"), and so does a more specific
/// one (its second reading: "they retained the name" → "the surname", "as a formalised
/// activity" → "exercise"). Other parts of speech pass.
fn names_the_same_thing(wordnet: &WordNet, old: &str, new: &str, pos: Pos) -> bool {
    if pos != Pos::Noun {
        return true;
    }
    let olds: Vec<SynsetId> = wordnet.synsets(old, pos).iter().map(|s| s.id()).collect();
    let news: Vec<SynsetId> = wordnet
        .synsets(&new.to_lowercase(), pos)
        .iter()
        .map(|s| s.id())
        .collect();
    // Upwards from the old word's senses only.
    let mut frontier: Vec<SynsetId> = olds;
    let mut seen: BTreeSet<SynsetId> = frontier.iter().copied().collect();
    for _ in 0..=HYPERNYM_STEPS {
        if frontier.iter().any(|s| news.contains(s)) {
            return true;
        }
        frontier = frontier
            .iter()
            .flat_map(|&s| wordnet.synset(s).hypernyms_and_instances())
            .map(|s| s.id())
            .filter(|s| seen.insert(*s))
            .collect();
    }
    false
}

/// Proposes the one-word substitutions of adjunct words (see the module docs).
pub struct AdjunctMutator {
    lexicon: Arc<ContextualLexicon>,
    inflections: Arc<Inflections>,
    source: Source,
    synonyms_per_word: usize,
}

impl std::fmt::Debug for AdjunctMutator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdjunctMutator")
            .field("masked_lm", &self.uses_masked_lm())
            .field("synonyms_per_word", &self.synonyms_per_word)
            .finish()
    }
}

impl AdjunctMutator {
    /// A mutator drawing on WordNet synonyms, at most `synonyms_per_word` per word.
    pub fn synonyms(
        lexicon: Arc<ContextualLexicon>,
        inflections: Arc<Inflections>,
        synonyms_per_word: usize,
    ) -> Self {
        AdjunctMutator {
            lexicon,
            inflections,
            source: Source::Synonyms,
            synonyms_per_word,
        }
    }

    /// The same mutator drawing on `model`'s predictions instead.
    pub fn with_masked_lm(mut self, model: Arc<CandleMaskedLm>, options: FillOptions) -> Self {
        self.source = Source::MaskedLm(model, options);
        self
    }

    /// The same mutator drawing on a causal LM's predictions instead.
    pub fn with_causal_lm(mut self, predictions: Predictions) -> Self {
        self.source = Source::CausalLm(Box::new(predictions));
        self
    }

    /// Whether replacements come from a masked LM.
    pub fn uses_masked_lm(&self) -> bool {
        matches!(self.source, Source::MaskedLm(..))
    }

    /// Whether replacements come from a causal LM.
    pub fn uses_causal_lm(&self) -> bool {
        matches!(self.source, Source::CausalLm(..))
    }

    /// The causal LM's replacements of token `i` in `context` (see the module docs), cached.
    fn predicted(
        &self,
        predictions: &Predictions,
        tokens: &[Token],
        i: usize,
        context: (&str, (usize, usize)),
    ) -> Result<Vec<String>> {
        let (text, (start, end)) = context;
        let key = (text.to_string(), start, end);
        let cache = || predictions.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = cache().get(&key) {
            return Ok(found.clone());
        }
        let found = self.predict_uncached(predictions, &tokens[i], context)?;
        cache().insert(key, found.clone());
        Ok(found)
    }

    /// The sentence `before word after` with each of `forms` in the word's place, and how well
    /// each fits there ([`ContextualLexicon::fit`]), in one encoder batch.
    fn fits_in_place(
        &self,
        (before, word, after): (&str, &str, &str),
        forms: &[String],
    ) -> Result<(Vec<String>, Vec<crate::lexicon::in_context::Fit>)> {
        let sentence = format!("{before}{word}{after}");
        let sentences: Vec<String> = forms
            .iter()
            .map(|f| format!("{before}{f}{after}"))
            .collect();
        let refs: Vec<(usize, &str, std::ops::Range<usize>)> = sentences
            .iter()
            .zip(forms)
            .map(|(s, f)| (0, s.as_str(), before.len()..before.len() + f.len()))
            .collect();
        let word_span = before.len()..before.len() + word.len();
        let fits = self.lexicon.fit(&[(sentence.as_str(), word_span)], &refs)?;
        Ok((sentences, fits))
    }

    /// Whether the LM's `word` may replace `original` in `sentence` after the word
    /// `previous` (see the module docs): a lower-case common word, not a stop-word, not one of
    /// the original's `antonyms` (nor a form of one: "smaller" for "small"), not a compass
    /// direction, not a word of the sentence or a form of one, not changing a person's gender,
    /// gradable after a degree word ("very").
    fn may_predict(
        &self,
        word: &str,
        original: &str,
        (sentence, previous): (&str, &str),
        antonyms: &[String],
    ) -> bool {
        let lower = word.to_lowercase();
        lower == word
            && !is_stop_word(&lower)
            && !is_never_a_substitute(&lower)
            && !antonyms.iter().any(|a| lower.starts_with(a.as_str()))
            && !names_a_direction(&lower)
            && !changes_gender(original, &lower)
            && !repeats_a_word_of(sentence, &lower)
            && self.inflections.fits_after_degree_word(previous, &lower)
            && self.lexicon.is_common(&lower)
    }

    fn predict_uncached(
        &self,
        predictions: &Predictions,
        token: &Token,
        (text, (start, end)): (&str, (usize, usize)),
    ) -> Result<Vec<String>> {
        let Some(pos) = mutable_pos(token).filter(|&p| p != Pos::Adv) else {
            return Ok(Vec::new());
        };
        let (Some(before), Some(after)) = (text.get(..start), text.get(end..)) else {
            return Ok(Vec::new());
        };
        if names_a_direction(&token.text) {
            return Ok(Vec::new());
        }
        let lemma = token.lemma.to_lowercase();
        let mut antonyms: Vec<String> = predictions.wordnet.opposites(&lemma, pos);
        antonyms.extend(
            predictions
                .wordnet
                .antonyms(&lemma, pos)
                .into_iter()
                .map(|a| a.raw),
        );
        let previous = before.split_whitespace().last().unwrap_or("");
        let accept = |word: &str| self.may_predict(word, &token.text, (text, previous), &antonyms);
        let forms: Vec<String> = predictions
            .chooser
            .predict(before, &token.text, predictions.top_k, &accept)?
            .into_iter()
            .map(|w| match_case(&token.text, &w))
            .collect();
        if forms.is_empty() {
            return Ok(Vec::new());
        }
        // The encoder: the new word, read in the sentence, must read as the old one.
        let (sentences, fits) = self.fits_in_place((before, &text[start..end], after), &forms)?;
        let fitting: Vec<usize> = (0..forms.len())
            .filter(|&k| fits[k].fits(MIN_SENTENCE_SIMILARITY, MIN_WORD_SIMILARITY))
            .collect();
        if fitting.is_empty() {
            return Ok(Vec::new());
        }
        // The LM: the cheapest within its budget, the right context read too.
        let words: Vec<&str> = fitting.iter().map(|&k| forms[k].as_str()).collect();
        let chosen =
            predictions
                .chooser
                .choose_in_sentence(before, &text[start..end], after, &words)?;
        // The re-parse: the same tag, a lemma WordNet knows in that part of speech.
        let chosen: Vec<usize> = chosen.into_iter().map(|c| fitting[c]).collect();
        let texts: Vec<&str> = chosen.iter().map(|&k| sentences[k].as_str()).collect();
        let parses = crate::parse_alone(&predictions.parser, &texts, "NLPLego-MRC re-parse")?;
        let at = before.chars().count() as u32;
        Ok(chosen
            .into_iter()
            .zip(&parses)
            .filter(|(k, parse)| {
                parse
                    .tokens
                    .iter()
                    .find(|t| t.start == at)
                    .is_some_and(|new| {
                        new.text == forms[*k]
                            && keeps_its_kind(token, new, pos, &predictions.wordnet)
                            && names_the_same_thing(&predictions.wordnet, &lemma, &new.lemma, pos)
                    })
            })
            .map(|(k, _)| forms[k].clone())
            .collect())
    }

    /// WordNet synonyms of token `i` in the sense its sentence uses ([`ContextualLexicon`]),
    /// single words inflected to its tag, that keep the parent sentence `context` (the text and
    /// the token's character span in it) close in the sentence encoder, best first, at most
    /// `synonyms_per_word`. The first review took the most frequent sense instead and still
    /// found 18 of 25 paragraphs with a wrong-sense word ("at the same time" → "at the same
    /// clip").
    fn synonyms_in_context(
        &self,
        tokens: &[Token],
        i: usize,
        context: (&str, (usize, usize)),
    ) -> Result<Vec<String>> {
        let token = &tokens[i];
        let Some(pos) = mutable_pos(token) else {
            return Ok(Vec::new());
        };
        let word = WordInContext::new(tokens, i, pos);
        let sentence = self.lexicon.embed_cached(&word.sentence_text())?;
        let previous = i.checked_sub(1).map_or("", |p| tokens[p].text.as_str());
        let mut forms = Vec::new();
        for name in self
            .lexicon
            .candidates(&word, &sentence, LexicalSubstitution::Synonym)?
        {
            // A singular noun needs a singular synonym ("a generation", not "a contemporaries").
            if token.tag == "NN"
                && self
                    .inflections
                    .inflect(&name, "NNS")
                    .is_none_or(|plural| plural == name)
            {
                continue;
            }
            if !self.inflections.fits_after_degree_word(previous, &name) {
                continue;
            }
            let Some(form) = inflect(&self.inflections, &name, &token.tag) else {
                continue;
            };
            if form.eq_ignore_ascii_case(&token.text)
                || is_stop_word(&form)
                || is_never_a_substitute(&form)
                || is_never_a_substitute(&name)
            {
                continue;
            }
            forms.push(match_case(&token.text, &form));
        }
        let (text, (start, end)) = context;
        let (Some(before), Some(after), false) =
            (text.get(..start), text.get(end..), forms.is_empty())
        else {
            return Ok(Vec::new());
        };
        let (_, fits) = self.fits_in_place((before, &text[start..end], after), &forms)?;
        let mut ranked: Vec<(String, f32)> = forms
            .into_iter()
            .zip(fits)
            .filter(|(_, fit)| fit.fits(MIN_SENTENCE_SIMILARITY, MIN_WORD_SIMILARITY))
            .map(|(f, fit)| (f, fit.word))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        Ok(ranked
            .into_iter()
            .take(self.synonyms_per_word)
            .map(|(w, _)| w)
            .collect())
    }

    /// Whether token `i` of an adjunct whose words are `core` may be replaced (see the module
    /// docs; `frozen` is the caller's extra rule).
    pub fn is_eligible(&self, tokens: &[Token], i: usize, core_start: usize) -> bool {
        let t = &tokens[i];
        let pos_ok = match t.pos.as_str() {
            "NOUN" | "ADJ" | "ADV" => true,
            "VERB" => self.uses_masked_lm(),
            _ => false,
        };
        let capitalised_first =
            i == core_start && t.text.chars().next().is_some_and(char::is_uppercase);
        // A bare singular noun is usually part of an idiom ("as part of", "by treaty", "at
        // home"): a countable synonym there needs an article ("as portion of").
        let bare_singular = t.tag == "NN"
            && t.dep != "compound"
            && !tokens.iter().any(|c| {
                c.head as usize == i
                    && matches!(
                        c.dep.as_str(),
                        "det" | "poss" | "nummod" | "amod" | "compound" | "predet"
                    )
            });
        // A piece of a hyphenated word ("quarter" in "quarter-finals"), a function adverb, a
        // noun in a fixed frame ("in need of", "claim victory"): see `lexicon::frames`.
        let fixed = fixed_by_frame(tokens, i).is_some();
        pos_ok
            && !bare_singular
            && !fixed
            && !self.lexicon.in_multiword_expression(tokens, i)
            && !t.tag.starts_with("NNP")
            && t.ent_type.is_empty()
            && t.text.len() > 1
            && t.text.chars().all(char::is_alphabetic)
            && !is_stop_word(&t.text)
            && !capitalised_first
    }

    /// The replacements of token `i`, best first. `context` is the parent sentence with the
    /// adjunct inserted and the token's character span in it (the masked LM's input; unused by
    /// WordNet).
    ///
    /// # Errors
    /// When the masked LM fails.
    pub fn replacements(
        &self,
        tokens: &[Token],
        i: usize,
        context: (&str, (usize, usize)),
    ) -> Result<Vec<String>> {
        let token = &tokens[i];
        let words: Vec<String> = match &self.source {
            Source::Synonyms => self.synonyms_in_context(tokens, i, context)?,
            Source::CausalLm(predictions) => self.predicted(predictions, tokens, i, context)?,
            Source::MaskedLm(model, options) => {
                let (text, span) = context;
                model
                    .substitutes(text, span, options, None)?
                    .into_iter()
                    .map(|c| match_case(&token.text, &c.word.to_lowercase()))
                    .filter(|w| {
                        w.chars().count() > 1
                            && w.chars().all(char::is_alphabetic)
                            && !is_stop_word(w)
                            && !w.eq_ignore_ascii_case(&token.text)
                    })
                    .collect()
            }
        };
        // A word the sentence already has would read as a repetition ("cultural and ethnic" →
        // "cultural and cultural").
        let mut seen: BTreeSet<String> = tokens.iter().map(|t| t.text.to_lowercase()).collect();
        Ok(words
            .into_iter()
            .filter(|w| seen.insert(w.to_lowercase()))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{pipeline, resources};

    fn parsed(text: &str) -> metamorph_data::ParsedText {
        let docs = pipeline().process(&[text]).unwrap();
        metamorph_parse::to_parsed_text("x", "text", &docs[0])
    }

    fn mutator() -> AdjunctMutator {
        let r = resources();
        AdjunctMutator::synonyms(r.contextual_lexicon().unwrap(), r.inflections().unwrap(), 3)
    }

    #[test]
    fn nltk_list_is_complete_and_lower_case() {
        assert_eq!(NLTK_STOP_WORDS.len(), 179);
        let unique: BTreeSet<_> = NLTK_STOP_WORDS.iter().collect();
        assert_eq!(unique.len(), 179);
        assert!(is_stop_word("The") && is_stop_word("doesn't") && !is_stop_word("fire"));
    }

    #[test]
    fn only_content_words_outside_names_are_eligible() {
        let p = parsed(
            "On May 3, downtown Jacksonville was ravaged by a fire that started as a kitchen fire.",
        );
        let m = mutator();
        let eligible: Vec<&str> = (0..p.tokens.len())
            .filter(|&i| m.is_eligible(&p.tokens, i, 0))
            .map(|i| p.tokens[i].text.as_str())
            .collect();
        // "On", "May", "3", "Jacksonville" (names, a stop-word, a number) and the verbs (WordNet
        // does not replace verbs) are out, and so is "kitchen", half of the compound "kitchen
        // fire" (`lexicon::frames`); "a fire" is in.
        assert!(
            eligible.contains(&"fire") && !eligible.contains(&"kitchen"),
            "{eligible:?}"
        );
        for word in [
            "On",
            "May",
            "3",
            "Jacksonville",
            "a",
            "that",
            "started",
            "ravaged",
        ] {
            assert!(!eligible.contains(&word), "{word} in {eligible:?}");
        }
    }

    /// What the causal LM may propose: a common lower-case word, not a stop-word, antonym,
    /// word of the sentence (or a form of one) or another gender; and the LM path caches its
    /// answers and leaves adverbs alone.
    #[test]
    fn causal_lm_predictions_are_filtered_and_cached() {
        let m = mutator();
        let sentence = "She won prizes in two scientific fields.";
        let may = |word: &str, original: &str, previous: &str| {
            m.may_predict(word, original, (sentence, previous), &["small".to_string()])
        };
        assert!(may("disciplines", "fields", "scientific"));
        for refused in ["the", "Areas", "field", "prize", "smaller", "zzyzx"] {
            assert!(!may(refused, "fields", "scientific"), "{refused}");
        }
        assert!(!may("woman", "man", "a"), "gender");
        assert!(!may("northern", "fields", "scientific"), "a direction");
        assert!(names_a_direction("Southwestern") && !names_a_direction("feast"));
        let wordnet = resources().wordnet().unwrap();
        for (old, new) in [
            ("wasp", "insects"),
            ("movie", "films"),
            ("treaty", "agreements"),
        ] {
            assert!(
                names_the_same_thing(&wordnet, old, new, Pos::Noun),
                "{old} {new}"
            );
        }
        for (old, new) in [
            ("church", "priests"),
            ("batter", "catcher"),
            ("county", "states"),
        ] {
            assert!(
                !names_the_same_thing(&wordnet, old, new, Pos::Noun),
                "{old} {new}"
            );
        }
        assert!(names_the_same_thing(&wordnet, "rapid", "zzyzx", Pos::Adj));
        let opposites = wordnet.opposites("slow", Pos::Adj);
        for word in ["fast", "rapid", "quick"] {
            assert!(
                opposites.iter().any(|o| o == word),
                "{word} in {opposites:?}"
            );
        }
        assert!(!opposites.iter().any(|o| o == "slow" || o == "gradual"));
        let gguf = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../models/tests/fixtures/causal-lm/llama-tiny.gguf");
        if !gguf.exists() {
            eprintln!("SKIPPED: {} is absent", gguf.display());
            return;
        }
        let lm = Arc::new(
            metamorph_models::causal_lm::CausalLm::from_file(
                &gguf,
                metamorph_models::LmOptions::default(),
            )
            .unwrap(),
        );
        let r = resources();
        let predicting = mutator().with_causal_lm(Predictions::new(
            SubstitutionChooser::new(lm, 1e9, 2),
            r.wordnet().unwrap(),
            r.parser().unwrap(),
            50,
        ));
        assert!(predicting.uses_causal_lm() && !predicting.uses_masked_lm());
        let text = "The old city hall burned quickly in the late evening.";
        let p = parsed(text);
        let at = |w: &str| p.tokens.iter().position(|t| t.text == w).unwrap();
        let span = |i: usize| {
            let start = text
                .char_indices()
                .nth(p.tokens[i].start as usize)
                .unwrap()
                .0;
            (start, start + p.tokens[i].text.len())
        };
        let quickly = at("quickly");
        assert!(predicting
            .replacements(&p.tokens, quickly, (text, span(quickly)))
            .unwrap()
            .is_empty());
        let evening = at("evening");
        let first = predicting
            .replacements(&p.tokens, evening, (text, span(evening)))
            .unwrap();
        let Source::CausalLm(predictions) = &predicting.source else {
            unreachable!()
        };
        assert_eq!(predictions.cache.lock().unwrap().len(), 2);
        let again = predicting
            .replacements(&p.tokens, evening, (text, span(evening)))
            .unwrap();
        assert_eq!(first, again);
        assert!(first.len() <= 2, "{first:?}");
        for w in &first {
            assert!(m.may_predict(w, "evening", (text, "late"), &[]), "{w}");
        }
    }

    #[test]
    fn synonyms_are_inflected_and_never_the_word_itself() {
        let text = "The editor ignored the remarks of the critics.";
        let p = parsed(text);
        let i = p.tokens.iter().position(|t| t.text == "remarks").unwrap();
        let span = (p.tokens[i].start as usize, p.tokens[i].end as usize);
        let words = mutator().replacements(&p.tokens, i, (text, span)).unwrap();
        assert!(!words.is_empty() && words.len() <= 3, "{words:?}");
        for w in &words {
            assert!(w.ends_with('s') && w != "remarks", "{w}");
        }
    }
}
