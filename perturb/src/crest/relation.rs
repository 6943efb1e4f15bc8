//! The CREST relation: one follow-up per kept one-word mutation of a coreference example.
//!
//! Per sentence of the source's parse (seed-004 Algorithm 1):
//! 1. the protected words ([`ProtectedWords`]) are left alone; every other word that CREST
//!    mutates gets its candidates ([`candidates`]), except verbs with a particle (phrasal verbs)
//!    and candidates that would need the preceding "a"/"an" to change (one word changes);
//! 2. the (word, candidate) pairs are put in a seeded random order (the seed derived from the
//!    case's source id, so a case is reproducible whatever the sharding). The paper caps "at most
//!    M follow-ups" without saying which; capping in sentence order would favour its first words
//!    (seed G3), the artifact's cap favours failing pairs (G4);
//! 3. in that order, each follow-up sentence is re-parsed and kept when the replaced word's
//!    constituent label and every mention's depth are unchanged ([`check`]), until
//!    [`DEFAULT_MAX_PER_SENTENCE`] (the paper's M = 20, configurable with
//!    [`CorefPreservingMutation::with_max_per_sentence`]) are kept.
//!
//! **Re-parsing.** The selection needs parses of texts that do not exist before the relation
//! runs, so the relation holds the spaCy pipeline ([`Resources::parser`], the same
//! `en_core_web_sm` port the `parse` stage runs, loaded once per process). The sentence is
//! parsed *alone*, source and follow-up alike, so both parses see the same context and a long
//! document is not re-parsed per candidate (spaCy's encoder window is a few tokens; sentences do
//! not influence each other's trees). A sentence whose isolated parse does not reproduce the
//! document's tokens is skipped; a follow-up that does not tokenize into the source's tokens with
//! one word replaced is rejected (so the edit is one token for one token, seed G6).
//!
//! **Eligibility.** A `coref` example with `text`, a parse of `text`, and at least one gold
//! cluster of two or more mentions (GAP's singleton "other name" clusters are protected but do
//! not make a source eligible). The source's gold clusters decide what is protected (seed G1).
//! When the example has dataset `tokens` (CoNLL, LitBank), only words that are exactly one
//! dataset token are replaced, and the follow-up's tokens carry the replacement.
//!
//! **Expectation.** [`Expectation::SameClusters`] at thresholds 1.0: the follow-up's predicted
//! clusters, mapped back through the edit, have the source's links (BLANC-style link precision
//! and recall both 1). The follow-up carries no gold clusters or label: they are what the
//! relation presumes, not annotations.

use std::ops::Range;
use std::sync::Arc;

use metamorph_data::{Case, CharSpan, Example, Expectation, ParsedText, Result, Task, Token};
use metamorph_models::masked_lm::{CandleMaskedLm, FillOptions};
use metamorph_parse::spacy::pipeline::Pipeline;

use super::generation::{candidates, mutable_pos, Origin, PERSONAL_PRONOUNS};
use super::protected::ProtectedWords;
use super::selection::check;
use super::{LmCandidates, FAMILY};
use crate::edit::{apply, match_case, Replacement};
use crate::lexicon::frames::{fixed_by_frame, is_never_a_substitute};
use crate::lexicon::gender::changes_gender;
use crate::lexicon::in_context::{
    ContextualLexicon, WordInContext, MIN_ANTONYM_SIMILARITY, MIN_SENTENCE_SIMILARITY,
    MIN_WORD_SIMILARITY, NO_WORD_CHECK,
};
use crate::lexicon::inflect::Inflections;
use crate::lexicon::lm_choice::{keeps_its_kind, repeats_a_word_of, SubstitutionChooser};
use crate::lexicon::wordnet::WordNet;
use crate::nlplego::mutation::is_stop_word;
use crate::{case_id, shuffle, source_seed, MetamorphicRelation, Resources, Source};

/// The relation's name.
pub const NAME: &str = "CREST";

/// At most this many follow-ups per source sentence (the paper's M = 20).
pub const DEFAULT_MAX_PER_SENTENCE: usize = 20;

/// CREST's coreference-preserving one-word mutation (see the module docs).
pub struct CorefPreservingMutation {
    lexicon: Arc<ContextualLexicon>,
    inflections: Arc<Inflections>,
    parser: Arc<Pipeline>,
    max_per_sentence: usize,
    /// Whether WordNet antonyms are candidates (`[perturb.crest] antonyms`).
    antonyms: bool,
    base_seed: u64,
    /// The masked LM whose predictions join WordNet's candidates, and how they are filtered.
    masked_lm: Option<(Arc<CandleMaskedLm>, FillOptions)>,
    /// The causal LM that chooses among every sense's lemmas (`[perturb.crest] lm`), with
    /// WordNet to propose them; `None`: the encoder picks the sense and checks the fit.
    chooser: Option<(SubstitutionChooser, Arc<WordNet>)>,
    /// What the causal LM chooses among, and how many of its predictions it reads per word.
    lm_candidates: (LmCandidates, usize),
}

impl std::fmt::Debug for CorefPreservingMutation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CorefPreservingMutation")
            .field("parser", &self.parser.name())
            .field("max_per_sentence", &self.max_per_sentence)
            .field("antonyms", &self.antonyms)
            .field("base_seed", &self.base_seed)
            .finish_non_exhaustive()
    }
}

/// One candidate mutation: replace document token `token` by `word`.
#[derive(Clone)]
struct Mutation {
    token: usize,
    word: String,
    /// The sentence with the replacement: what the fit check embeds and the selection parses.
    sentence: String,
    /// The byte range of the replaced word in the source sentence, and of `word` in
    /// `sentence`.
    spans: (Range<usize>, Range<usize>),
    /// The fit thresholds: [`MIN_ANTONYM_SIMILARITY`] for a WordNet antonym, else
    /// [`MIN_SENTENCE_SIMILARITY`], for the sentence; [`NO_WORD_CHECK`] for an antonym, else
    /// [`MIN_WORD_SIMILARITY`], for the word.
    min_similarity: f32,
    min_word: f32,
    /// For a word the causal LM predicted (`lm_candidates = "predictions"`), the part of
    /// speech it must keep: the re-parse must give it the original's tag and a lemma WordNet
    /// lists in this part of speech, since nothing but the LM proposed it.
    predicted: Option<crate::lexicon::wordnet::Pos>,
}

impl CorefPreservingMutation {
    /// The relation over the shared WordNet, inflection tables and parser.
    ///
    /// # Errors
    /// When one of them cannot be loaded, or `[perturb.crest] max_per_sentence` is 0.
    pub fn new(resources: &Resources) -> Result<Self> {
        let max_per_sentence = resources.crest_config().max_per_sentence;
        if max_per_sentence == 0 {
            return Err(metamorph_data::Error::Config(
                "[perturb.crest] max_per_sentence must be at least 1".into(),
            ));
        }
        let config = resources.crest_config();
        if config.lm.is_some() && config.masked_lm.is_some() {
            return Err(metamorph_data::Error::Config(
                "[perturb.crest] lm and masked_lm are two ways of proposing replacements: set one"
                    .into(),
            ));
        }
        let masked_lm = resources.crest_masked_lm()?.map(|model| {
            let options = FillOptions {
                top_k: config.masked_lm_top_k,
                min_prob: config.masked_lm_min_prob,
                same_pos: false,
            };
            (model, options)
        });
        if config.lm.is_none() && config.lm_candidates == LmCandidates::Predictions {
            return Err(metamorph_data::Error::Config(
                "[perturb.crest] lm_candidates = \"predictions\" needs the causal LM that \
                 predicts them: set lm (e.g. lm = \"gemma3-270m\")"
                    .into(),
            ));
        }
        let chooser = match resources.crest_lm()? {
            Some(lm) => Some((
                SubstitutionChooser::new(lm, config.lm_max_cost, config.lm_per_site.max(1)),
                resources.wordnet()?,
            )),
            None => None,
        };
        Ok(CorefPreservingMutation {
            masked_lm,
            chooser,
            lm_candidates: (config.lm_candidates, config.lm_top_k),
            lexicon: resources.contextual_lexicon()?,
            inflections: resources.inflections()?,
            parser: resources.parser()?,
            max_per_sentence,
            antonyms: config.antonyms,
            base_seed: resources.seed(),
        })
    }

    /// The same relation keeping at most `max` follow-ups per sentence.
    pub fn with_max_per_sentence(mut self, max: usize) -> Self {
        self.max_per_sentence = max;
        self
    }

    /// The masked LM's replacements of `token` in its sentence (`sentence_text`, which starts
    /// at document character `offset`): predictions with the configured probability floor that
    /// are whole words, not the word itself, not a personal pronoun and not a word of any
    /// mention (seed-004: a replacement must not create a new copy of a mention word); names
    /// and pronouns are not masked. Empty without a masked LM.
    fn masked_lm_candidates(
        &self,
        sentence_text: &str,
        token: &Token,
        offset: u32,
        mention_words: &std::collections::BTreeSet<String>,
    ) -> Result<Vec<String>> {
        let Some((model, options)) = &self.masked_lm else {
            return Ok(Vec::new());
        };
        if matches!(
            token.pos.as_str(),
            "PROPN" | "PRON" | "PUNCT" | "NUM" | "SYM" | "X"
        ) || !token.text.chars().all(char::is_alphabetic)
        {
            return Ok(Vec::new());
        }
        let span = (
            (token.start - offset) as usize,
            (token.end - offset) as usize,
        );
        let found = model.substitutes(sentence_text, span, options, None)?;
        Ok(found
            .into_iter()
            .map(|c| match_case(&token.text, &c.word.to_lowercase()))
            .filter(|w| {
                let lower = w.to_lowercase();
                !PERSONAL_PRONOUNS.contains(&lower.as_str()) && !mention_words.contains(&lower)
            })
            .collect())
    }

    /// The WordNet antonyms of `lemma` an LM's candidates may not be: none with
    /// `antonyms = true`, where antonyms are proposed.
    fn refused_antonyms(
        &self,
        wordnet: &WordNet,
        lemma: &str,
        pos: crate::lexicon::wordnet::Pos,
    ) -> Vec<String> {
        if self.antonyms {
            return Vec::new();
        }
        wordnet
            .antonyms(lemma, pos)
            .into_iter()
            .map(|a| a.raw)
            .collect()
    }

    /// Whether the causal LM proposes the candidates (`lm_candidates = "predictions"`).
    fn predicts(&self) -> bool {
        self.chooser.is_some() && self.lm_candidates.0 == LmCandidates::Predictions
    }

    /// The replacements of `token` the causal LM chooses among every WordNet sense's lemmas
    /// for its part of speech (inflected to its tag; see [`crate::lexicon::lm_choice`]), with
    /// the thresholds that let them through the fit check (the LM has judged them). The
    /// sentence is `text`'s bytes `byte(start)..byte(end)`.
    fn lm_chosen(
        &self,
        (text, byte): (&str, &dyn Fn(u32) -> usize),
        (start, end): (u32, u32),
        token: &Token,
        pos: crate::lexicon::wordnet::Pos,
        article: Option<&str>,
        mention_words: &std::collections::BTreeSet<String>,
    ) -> Result<Vec<(String, (f32, f32))>> {
        let Some((chooser, wordnet)) = &self.chooser else {
            return Ok(Vec::new());
        };
        if self.predicts() {
            return self.lm_predicted(
                (text, byte),
                (start, end),
                token,
                pos,
                article,
                mention_words,
            );
        }
        let original = token.text.to_lowercase();
        let lemma = token.lemma.to_lowercase();
        let antonyms = self.refused_antonyms(wordnet, &lemma, pos);
        let mut forms: Vec<String> = Vec::new();
        for word in wordnet.synonyms(&lemma, pos) {
            let name = word.raw;
            if name == lemma
                || !name.chars().all(|c| c.is_ascii_lowercase())
                || is_never_a_substitute(&name)
                || antonyms.contains(&name)
            {
                continue;
            }
            let Some(form) = super::generation::inflect(&self.inflections, &name, &token.tag)
            else {
                continue;
            };
            let form = match_case(&token.text, &form);
            let lower = form.to_lowercase();
            if lower == original
                || PERSONAL_PRONOUNS.contains(&lower.as_str())
                || mention_words.contains(&lower)
                || article.is_some_and(|a| a != indefinite_article(&lower))
                || changes_gender(&token.text, &lower)
                || forms.contains(&form)
            {
                continue;
            }
            forms.push(form);
        }
        if forms.is_empty() {
            return Ok(Vec::new());
        }
        let refs: Vec<&str> = forms.iter().map(String::as_str).collect();
        let (before, word, after) = around(token, (text, byte), (start, end));
        let chosen = chooser.choose_in_sentence(before, word, after, &refs)?;
        Ok(chosen
            .into_iter()
            .map(|i| (forms[i].clone(), (f32::NEG_INFINITY, NO_WORD_CHECK)))
            .collect())
    }

    /// The replacements of `token` the causal LM predicts for its slot and keeps
    /// ([`SubstitutionChooser::predict`]): whole words of the encoder's vocabulary, not a stop
    /// word, pronoun, mention word, word of the sentence (nor a form of one) or (without
    /// `antonyms = true`) WordNet antonym of the word, agreeing with the article before and not
    /// changing a person's gender; adverbs are not replaced. Their part of
    /// speech is checked on the re-parse ([`Mutation::predicted`]), and, like WordNet's
    /// synonyms, their fit in context by the encoder: the LM proposes and judges fluency, the
    /// encoder that the new word reads as the old one did.
    fn lm_predicted(
        &self,
        (text, byte): (&str, &dyn Fn(u32) -> usize),
        (start, end): (u32, u32),
        token: &Token,
        pos: crate::lexicon::wordnet::Pos,
        article: Option<&str>,
        mention_words: &std::collections::BTreeSet<String>,
    ) -> Result<Vec<(String, (f32, f32))>> {
        let Some((chooser, wordnet)) = &self.chooser else {
            return Ok(Vec::new());
        };
        // Adverbs are not replaced, as WordNet's adverb synonyms are not (in_context.rs):
        // degree, manner and frequency adverbs a reader tells apart.
        if pos == crate::lexicon::wordnet::Pos::Adv {
            return Ok(Vec::new());
        }
        let sentence = &text[byte(start)..byte(end)];
        let antonyms = self.refused_antonyms(wordnet, &token.lemma.to_lowercase(), pos);
        let accept = |word: &str| {
            let lower = word.to_lowercase();
            lower == word
                && !is_stop_word(&lower)
                && !PERSONAL_PRONOUNS.contains(&lower.as_str())
                && !mention_words.contains(&lower)
                && !is_never_a_substitute(&lower)
                && !antonyms.iter().any(|a| lower.starts_with(a.as_str()))
                && article.is_none_or(|a| a == indefinite_article(&lower))
                && !changes_gender(&token.text, &lower)
                && !repeats_a_word_of(sentence, &lower)
                && self.lexicon.is_common(&lower)
        };
        let (before, _, _) = around(token, (text, byte), (start, end));
        let predicted = chooser.predict(before, &token.text, self.lm_candidates.1, &accept)?;
        Ok(predicted
            .into_iter()
            .map(|word| {
                let word = match_case(&token.text, &word);
                (word, (MIN_SENTENCE_SIMILARITY, MIN_WORD_SIMILARITY))
            })
            .collect())
    }

    /// Of the `fitting` mutations, those the causal LM chooses where it predicted them
    /// ([`Mutation::predicted`]): per word, the cheapest `lm_per_site` whose window costs at
    /// most `lm_max_cost` nats against the original's ([`SubstitutionChooser::choose`]). The
    /// encoder has already kept only words that read as the one they replace, so the LM scores
    /// a few candidates per word rather than every prediction. Other mutations pass through.
    fn lm_cheapest(
        &self,
        fitting: Vec<Mutation>,
        tokens: &[Token],
        (text, byte): (&str, &dyn Fn(u32) -> usize),
        (start, end): (u32, u32),
    ) -> Result<Vec<Mutation>> {
        let Some((chooser, _)) = &self.chooser else {
            return Ok(fitting);
        };
        let (predicted, mut kept): (Vec<Mutation>, Vec<Mutation>) =
            fitting.into_iter().partition(|m| m.predicted.is_some());
        let mut at = 0;
        while at < predicted.len() {
            let i = predicted[at].token;
            let site = predicted[at..].iter().take_while(|m| m.token == i).count();
            let token = &tokens[i];
            let words: Vec<&str> = predicted[at..at + site]
                .iter()
                .map(|m| m.word.as_str())
                .collect();
            let (before, word, after) = around(token, (text, byte), (start, end));
            let chosen = chooser.choose_in_sentence(before, word, after, &words)?;
            kept.extend(chosen.into_iter().map(|k| predicted[at + k].clone()));
            at += site;
        }
        Ok(kept)
    }

    /// Parses `texts` (sentences) alone.
    fn parse(&self, texts: &[&str]) -> Result<Vec<ParsedText>> {
        crate::parse_alone(&self.parser, texts, "CREST re-parse")
    }

    /// The kept mutations of the sentence over document tokens `sentence`, at most
    /// `self.max_per_sentence`, in the seeded order.
    fn sentence_mutations(
        &self,
        parsed: &ParsedText,
        (text, text_chars): (&str, &[(usize, char)]),
        sentence: Range<usize>,
        words: &ProtectedWords,
        dataset_tokens: Option<&[CharSpan]>,
        seed: u64,
    ) -> Result<Vec<Mutation>> {
        let tokens = &parsed.tokens;
        // The sentence alone: its text and character bounds in the document.
        let byte = |c: u32| text_chars.get(c as usize).map_or(text.len(), |(b, _)| *b);
        let first = &tokens[sentence.start];
        let (start, end) = (first.start, tokens[sentence.end - 1].end);
        let sentence_text = &text[byte(start)..byte(end)];
        let mut pool = Vec::new();
        for i in sentence.clone() {
            if words.is_protected(i) {
                continue;
            }
            let token = &tokens[i];
            if let Some(spans) = dataset_tokens {
                let own = CharSpan {
                    start: token.start,
                    end: token.end,
                };
                if !spans.contains(&own) {
                    continue;
                }
            }
            // A word whose construction fixes its sense ("in need of", "the son of", "claim
            // victory", a piece of "two-part") has no synonym of its own.
            if fixed_by_frame(tokens, i).is_some() {
                continue;
            }
            // A verb with a particle is a phrasal verb ("breaking down", "turned out"): its
            // synonyms do not take the particle.
            if tokens
                .iter()
                .any(|t| t.head as usize == i && t.dep == "prt")
                || self.lexicon.in_multiword_expression(tokens, i)
            {
                // A word of a WordNet multiword expression ("short story", "as well") has no
                // synonym or antonym of its own: "short story" → "long story" contradicts.
                continue;
            }
            let article = i
                .checked_sub(1)
                .map(|p| tokens[p].text.to_lowercase())
                .filter(|a| a == "a" || a == "an");
            let mut words_for_token: Vec<(String, (f32, f32))> = match mutable_pos(token) {
                Some(pos) if self.chooser.is_some() => self.lm_chosen(
                    (text, &byte),
                    (start, end),
                    token,
                    pos,
                    article.as_deref(),
                    &words.mention_words,
                )?,
                Some(pos) => candidates(
                    &self.lexicon,
                    &self.inflections,
                    &WordInContext::new(tokens, i, pos).within(sentence.clone()),
                    &self.lexicon.embed_cached(sentence_text)?,
                    &words.mention_words,
                )?
                .words
                .into_iter()
                .filter(|(_, origin)| self.antonyms || *origin != Origin::Antonym)
                .map(|(w, origin)| {
                    let min = match origin {
                        Origin::Antonym => (MIN_ANTONYM_SIMILARITY, NO_WORD_CHECK),
                        Origin::Synonym => (MIN_SENTENCE_SIMILARITY, MIN_WORD_SIMILARITY),
                    };
                    (w, min)
                })
                .collect(),
                None => Vec::new(),
            };
            for word in
                self.masked_lm_candidates(sentence_text, token, start, &words.mention_words)?
            {
                if !words_for_token
                    .iter()
                    .any(|(w, _)| w.eq_ignore_ascii_case(&word))
                {
                    words_for_token.push((word, (MIN_SENTENCE_SIMILARITY, MIN_WORD_SIMILARITY)));
                }
            }
            for (word, (min_similarity, min_word)) in words_for_token {
                // One word changes, so the article before it must already fit ("an issue" →
                // "an topic" is refused), and a noun for a person keeps its gender, which the
                // pronouns referring back agree with ("his son … he" → not "his girl … he").
                if article
                    .as_deref()
                    .is_some_and(|a| a != indefinite_article(&word))
                    || changes_gender(&token.text, &word)
                    || is_never_a_substitute(&word)
                {
                    continue;
                }
                let (prefix, original, rest) = around(token, (text, &byte), (start, end));
                let sentence = format!("{prefix}{word}{rest}");
                let spans = (
                    prefix.len()..prefix.len() + original.len(),
                    prefix.len()..prefix.len() + word.len(),
                );
                let predicted = self.predicts().then(|| mutable_pos(token)).flatten();
                pool.push(Mutation {
                    token: i,
                    word,
                    sentence,
                    spans,
                    min_similarity,
                    min_word,
                    predicted,
                });
            }
        }
        if pool.is_empty() || self.max_per_sentence == 0 {
            return Ok(Vec::new());
        }

        // The mentions inside the sentence, in sentence-local indices.
        let source = self.parse(&[sentence_text])?.remove(0);
        let aligned = source.tokens.len() == sentence.len()
            && source
                .tokens
                .iter()
                .zip(&tokens[sentence.clone()])
                .all(|(a, b)| a.text == b.text);
        if !aligned {
            return Ok(Vec::new());
        }
        let mentions: Vec<Range<usize>> = words
            .mentions
            .iter()
            .filter(|m| sentence.start <= m.start && m.end <= sentence.end)
            .map(|m| m.start - sentence.start..m.end - sentence.start)
            .collect();

        // Fit in context: the follow-up sentence must stay close to the source, and the new
        // word, read in it, close to the old one read in the source (WordNet's and the masked
        // LM's candidates alike), all in one encoder batch.
        let mut sources: Vec<(&str, Range<usize>)> = Vec::new();
        let mut follow_ups: Vec<(usize, &str, Range<usize>)> = Vec::with_capacity(pool.len());
        for (k, m) in pool.iter().enumerate() {
            if k == 0 || pool[k - 1].token != m.token {
                sources.push((sentence_text, m.spans.0.clone()));
            }
            follow_ups.push((sources.len() - 1, m.sentence.as_str(), m.spans.1.clone()));
        }
        // The LM's choices among WordNet's lemmas need no encoder: the LM has read them in
        // context already. Its own predictions do: a blind reading of 80 on GAP found 90% of
        // those the encoder reads as the same word in context natural, 75% of the others
        // (docs/validity/crest-predictions/).
        let fitting: Vec<Mutation> = if self.chooser.is_some() && !self.predicts() {
            pool
        } else {
            let fits = self.lexicon.fit(&sources, &follow_ups)?;
            pool.into_iter()
                .zip(fits)
                .filter(|(m, fit)| fit.fits(m.min_similarity, m.min_word))
                .map(|(m, _)| m)
                .collect()
        };
        let mut pool = self.lm_cheapest(fitting, tokens, (text, &byte), (start, end))?;
        shuffle(&mut pool, seed);

        let mut kept = Vec::new();
        let mut queue = pool.into_iter().peekable();
        while kept.len() < self.max_per_sentence && queue.peek().is_some() {
            let batch: Vec<Mutation> = queue
                .by_ref()
                .take(self.max_per_sentence - kept.len())
                .collect();
            let refs: Vec<&str> = batch.iter().map(|m| m.sentence.as_str()).collect();
            let parses = self.parse(&refs)?;
            for (mutation, followup) in batch.into_iter().zip(&parses) {
                let local = mutation.token - sentence.start;
                let same_word = followup
                    .tokens
                    .get(local)
                    .is_some_and(|t| t.text == mutation.word);
                let same_kind = mutation.predicted.is_none_or(|pos| {
                    self.chooser.as_ref().is_some_and(|(_, wordnet)| {
                        keeps_its_kind(&source.tokens[local], &followup.tokens[local], pos, wordnet)
                    })
                });
                if same_word && same_kind && check(&source, followup, local, &mentions).is_ok() {
                    kept.push(mutation);
                }
            }
        }
        Ok(kept)
    }
}

impl MetamorphicRelation for CorefPreservingMutation {
    fn family(&self) -> &'static str {
        FAMILY
    }

    fn name(&self) -> &'static str {
        NAME
    }

    fn tasks(&self) -> &'static [Task] {
        &[Task::Coref]
    }

    fn parsed_fields(&self) -> &'static [&'static str] {
        &["text"]
    }

    fn follow_ups(&self, source: &Source<'_>) -> Result<Vec<Case>> {
        let example = source.example;
        let (Some(text), Some(clusters), Some(parsed)) = (
            example.text.as_deref(),
            example.clusters.as_deref(),
            source.parse("text"),
        ) else {
            return Ok(Vec::new());
        };
        if example.task != Task::Coref || !clusters.iter().any(|c| c.len() >= 2) {
            return Ok(Vec::new());
        }
        let text_chars: Vec<(usize, char)> = text.char_indices().collect();
        for span in clusters.iter().flatten() {
            if span.start >= span.end || span.end as usize > text_chars.len() {
                return Err(schema_error(
                    example,
                    format!(
                        "cluster span {}..{} is empty or outside the text ({} characters)",
                        span.start,
                        span.end,
                        text_chars.len()
                    ),
                ));
            }
        }
        let dataset_tokens = match &example.tokens {
            Some(tokens) => Some(locate_tokens(example, text, tokens)?),
            None => None,
        };
        let words = ProtectedWords::new(parsed, clusters);
        let seed = source_seed(self.base_seed, &example.id, NAME);
        let expectation = Expectation::SameClusters {
            min_precision: 1.0,
            min_recall: 1.0,
        };
        let mut cases = Vec::new();
        for (k, sentence) in parsed.sentences.iter().enumerate() {
            let sentence = sentence.start as usize..sentence.end as usize;
            if sentence.is_empty() || sentence.end > parsed.tokens.len() {
                continue;
            }
            let mutations = self.sentence_mutations(
                parsed,
                (text, &text_chars),
                sentence,
                &words,
                dataset_tokens.as_deref(),
                seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            )?;
            for mutation in mutations {
                let token = &parsed.tokens[mutation.token];
                let replacement = Replacement::new(
                    token.start as usize,
                    token.end as usize,
                    mutation.word.clone(),
                );
                let Some((new_text, edits)) = apply("text", text, vec![replacement]) else {
                    continue;
                };
                let mut followup = example.clone();
                followup.id = case_id(&example.id, NAME, cases.len());
                followup.text = Some(new_text);
                followup.label = None;
                followup.clusters = None;
                if let (Some(tokens), Some(spans)) = (&mut followup.tokens, &dataset_tokens) {
                    let own = CharSpan {
                        start: token.start,
                        end: token.end,
                    };
                    if let Some(at) = spans.iter().position(|s| *s == own) {
                        tokens[at] = mutation.word.clone();
                    }
                }
                cases.push(
                    Case::new(FAMILY, NAME, vec![example.clone()], followup, &expectation)
                        .with_edits(edits)
                        .with_seed(seed),
                );
            }
        }
        Ok(cases)
    }
}

/// The sentence over characters `start..end` of `text` split around `token`: the text before
/// it, the token itself and the text after it (`byte` maps a character offset to a byte one).
fn around<'t>(
    token: &Token,
    (text, byte): (&'t str, &dyn Fn(u32) -> usize),
    (start, end): (u32, u32),
) -> (&'t str, &'t str, &'t str) {
    (
        &text[byte(start)..byte(token.start)],
        &text[byte(token.start)..byte(token.end)],
        &text[byte(token.end)..byte(end)],
    )
}

fn schema_error(example: &Example, message: String) -> metamorph_data::Error {
    metamorph_data::Error::Schema {
        context: format!("coref example `{}`", example.id),
        message,
    }
}

/// The character spans of the dataset `tokens` in `text`, which they make up in order,
/// separated by whitespace only (how the CoNLL reader builds `text`).
///
/// # Errors
/// [`metamorph_data::Error::Schema`] naming the example and token when a token is not found.
fn locate_tokens(example: &Example, text: &str, tokens: &[String]) -> Result<Vec<CharSpan>> {
    let mut spans = Vec::with_capacity(tokens.len());
    let (mut byte, mut chars) = (0usize, 0u32);
    for (k, token) in tokens.iter().enumerate() {
        let rest = &text[byte..];
        let gap = rest.len() - rest.trim_start().len();
        let start_byte = byte + gap;
        if token.is_empty() || !text[start_byte..].starts_with(token.as_str()) {
            return Err(schema_error(
                example,
                format!("token {k} {token:?} is not where `text` continues"),
            ));
        }
        let start = chars + rest[..gap].chars().count() as u32;
        let end = start + token.chars().count() as u32;
        spans.push(CharSpan { start, end });
        byte = start_byte + token.len();
        chars = end;
    }
    Ok(spans)
}

/// The indefinite article before `word` by its first letter (vowel letters take "an").
fn indefinite_article(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::{pipeline, resources};

    /// Figure 1 with "large" for "clean" and "quickly" added: en_core_web_sm reads "the clean
    /// lake" as a name (NNP), which CREST does not mutate, "ate" has no synonym in its sense,
    /// and "dirty"'s common synonyms do not keep the sentence close enough.
    const FIGURE_1: &str = "The fish in the large lake quickly ate the worm because it is tasty.";

    fn span(text: &str, word: &str) -> CharSpan {
        let byte = text.find(word).unwrap();
        let start = text[..byte].chars().count() as u32;
        CharSpan {
            start,
            end: start + word.chars().count() as u32,
        }
    }

    fn example(text: &str, clusters: Vec<Vec<CharSpan>>) -> (Example, Vec<ParsedText>) {
        let mut example = Example::new("fig1", Task::Coref);
        example.text = Some(text.into());
        example.clusters = Some(clusters);
        let parses =
            crate::source::parse_examples(pipeline(), std::slice::from_ref(&example), &["text"])
                .unwrap();
        (example, parses)
    }

    fn relation() -> CorefPreservingMutation {
        CorefPreservingMutation::new(resources()).unwrap()
    }

    #[test]
    fn figure_1_follow_ups_change_one_unprotected_word() {
        let (ex, parses) = example(
            FIGURE_1,
            vec![vec![span(FIGURE_1, "the worm"), span(FIGURE_1, "it")]],
        );
        let cases = relation().follow_ups(&Source::new(&ex, &parses)).unwrap();
        assert!(!cases.is_empty() && cases.len() <= DEFAULT_MAX_PER_SENTENCE);
        let protected = ["the worm", "it", "tasty"];
        for case in &cases {
            case.validate().unwrap();
            assert_eq!(case.edits.len(), 1);
            let edit = &case.edits[0];
            let chars: Vec<char> = FIGURE_1.chars().collect();
            let before: String = chars[edit.start as usize..edit.end as usize]
                .iter()
                .collect();
            assert_eq!(before, edit.before);
            assert!(!edit.after.contains(' ') && edit.after != edit.before);
            let followup = case.followup.text.as_deref().unwrap();
            for word in protected {
                assert!(followup.contains(word), "{followup}");
            }
            assert!(!["The", "the", "worm", "it", "tasty"].contains(&edit.before.as_str()));
            assert_eq!(
                case.expectation().unwrap(),
                Expectation::SameClusters {
                    min_precision: 1.0,
                    min_recall: 1.0
                }
            );
            assert_eq!(case.followup.clusters, None);
        }
        // Deterministic, and the cap holds.
        let again = relation().follow_ups(&Source::new(&ex, &parses)).unwrap();
        assert_eq!(cases, again);
        let two = relation()
            .with_max_per_sentence(2)
            .follow_ups(&Source::new(&ex, &parses))
            .unwrap();
        assert!(two.len() <= 2 && !two.is_empty());
    }

    /// With a choosing causal LM (here the tiny random Llama of the models crate's fixtures, no
    /// cost limit, one per word), every sense's lemmas are proposed, at most one per word is
    /// kept, and the same protection and selection hold.
    #[test]
    fn a_causal_lm_chooses_among_every_senses_lemmas() {
        let gguf = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../models/tests/fixtures/causal-lm/llama-tiny.gguf"
        );
        let config: crate::PerturbConfig = toml::from_str(&format!(
            "[crest]\nlm = \"{gguf}\"\nlm_max_cost = 1e9\nlm_per_site = 1\n"
        ))
        .unwrap();
        let resources = Resources::from_config(&config);
        let chooser = CorefPreservingMutation::new(&resources).unwrap();
        let (ex, parses) = example(
            FIGURE_1,
            vec![vec![span(FIGURE_1, "the worm"), span(FIGURE_1, "it")]],
        );
        let cases = chooser.follow_ups(&Source::new(&ex, &parses)).unwrap();
        assert!(!cases.is_empty());
        let mut replaced: Vec<(u32, u32)> = Vec::new();
        for case in &cases {
            case.validate().unwrap();
            let edit = &case.edits[0];
            assert!(!["the worm", "it", "tasty"].contains(&edit.before.as_str()));
            // One replacement per word.
            assert!(!replaced.contains(&(edit.start, edit.end)));
            replaced.push((edit.start, edit.end));
        }
        // Two ways of proposing replacements are one too many.
        let both: crate::PerturbConfig =
            toml::from_str(&format!("[crest]\nlm = \"{gguf}\"\nmasked_lm = \"x\"\n")).unwrap();
        let err = CorefPreservingMutation::new(&Resources::from_config(&both)).unwrap_err();
        assert!(err.to_string().contains("set one"), "{err}");
    }

    /// A predicted word must re-parse with the original's tag and be a WordNet lemma of its
    /// part of speech; predictions need the LM that makes them.
    #[test]
    fn predicted_words_keep_their_kind_and_need_an_lm() {
        let wordnet = resources().wordnet().unwrap();
        let noun = |text: &str| {
            let docs = pipeline().process(&[text]).unwrap();
            metamorph_parse::to_parsed_text("x", "text", &docs[0]).tokens[3].clone()
        };
        let car = noun("He sold the car yesterday.");
        let pos = mutable_pos(&car).unwrap();
        assert!(keeps_its_kind(
            &car,
            &noun("He sold the truck yesterday."),
            pos,
            &wordnet
        ));
        // Another tag, and a string WordNet does not know, are refused.
        assert!(!keeps_its_kind(
            &car,
            &noun("He sold the cars yesterday."),
            pos,
            &wordnet
        ));
        let unknown = noun("He sold the zzyzx yesterday.");
        assert_eq!(unknown.tag, car.tag);
        assert!(!keeps_its_kind(&car, &unknown, pos, &wordnet));

        // Nor may it repeat a word of its sentence, in any form.
        let sentence = "He was interested in all its concerns, the Architect said.";
        for word in ["interests", "interest", "architect", "concerns", "said"] {
            assert!(repeats_a_word_of(sentence, word), "{word}");
        }
        for word in ["matters", "inter", "arch", "any", "saint"] {
            assert!(!repeats_a_word_of(sentence, word), "{word}");
        }

        let config: crate::PerturbConfig =
            toml::from_str("[crest]\nlm_candidates = \"predictions\"\n").unwrap();
        let err = CorefPreservingMutation::new(&Resources::from_config(&config)).unwrap_err();
        assert!(err.to_string().contains("needs the causal LM"), "{err}");
    }

    /// With a masked LM (here the tiny random BERT of the models crate's parity fixtures, floor 0 since
    /// its probabilities are spread thin), its predictions join WordNet's and pass the same
    /// protection and selection.
    #[test]
    fn masked_lm_predictions_join_the_candidates() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../models/tests/fixtures/mlm/bert");
        let mut config = crate::PerturbConfig::default();
        config.crest.masked_lm = Some(fixture.display().to_string());
        config.crest.masked_lm_min_prob = 0.0;
        config.crest.max_per_sentence = 200;
        let with_mlm = Resources::from_config(&config);
        let (ex, parses) = example(
            FIGURE_1,
            vec![vec![span(FIGURE_1, "the worm"), span(FIGURE_1, "it")]],
        );
        let afters = |relation: CorefPreservingMutation| -> Vec<String> {
            relation
                .follow_ups(&Source::new(&ex, &parses))
                .unwrap()
                .into_iter()
                .map(|c| c.edits[0].after.clone())
                .collect()
        };
        let wordnet_only = afters(relation().with_max_per_sentence(200));
        let both = afters(CorefPreservingMutation::new(&with_mlm).unwrap());
        assert!(
            both.len() > wordnet_only.len(),
            "{both:?} vs {wordnet_only:?}"
        );
        assert!(both.iter().any(|w| !wordnet_only.contains(w)));
        for word in &both {
            assert!(!["worm", "it", "he", "she", "the"].contains(&word.to_lowercase().as_str()));
        }
    }

    #[test]
    fn the_cap_is_configured_under_perturb_crest() {
        let config: crate::PerturbConfig =
            toml::from_str("relations = [\"crest\"]\n[crest]\nmax_per_sentence = 5\n").unwrap();
        assert_eq!(config.crest.max_per_sentence, 5);
        let resources = Resources::from_config(&config);
        assert_eq!(resources.crest_config().max_per_sentence, 5);
        assert_eq!(
            crate::PerturbConfig::default().crest.max_per_sentence,
            DEFAULT_MAX_PER_SENTENCE
        );
        let zero: crate::PerturbConfig = toml::from_str("[crest]\nmax_per_sentence = 0\n").unwrap();
        let err = CorefPreservingMutation::new(&Resources::from_config(&zero)).unwrap_err();
        assert!(err.to_string().contains("max_per_sentence"), "{err}");
        assert!(toml::from_str::<crate::PerturbConfig>("[crest]\ncap = 3\n").is_err());
        // Antonyms are off unless asked for (the paper's behaviour).
        assert!(!crate::PerturbConfig::default().crest.antonyms);
        let paper: crate::PerturbConfig = toml::from_str("[crest]\nantonyms = true\n").unwrap();
        assert!(paper.crest.antonyms);
    }

    #[test]
    fn sources_without_a_coreference_link_or_parse_yield_nothing() {
        let (ex, parses) = example(FIGURE_1, vec![vec![span(FIGURE_1, "the worm")]]);
        assert!(relation()
            .follow_ups(&Source::new(&ex, &parses))
            .unwrap()
            .is_empty());
        let (ex, _) = example(
            FIGURE_1,
            vec![vec![span(FIGURE_1, "the worm"), span(FIGURE_1, "it")]],
        );
        assert!(relation()
            .follow_ups(&Source::unparsed(&ex))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_span_outside_the_text_is_an_error_naming_the_example() {
        let (ex, parses) = example(
            FIGURE_1,
            vec![vec![
                span(FIGURE_1, "the worm"),
                CharSpan {
                    start: 500,
                    end: 502,
                },
            ]],
        );
        let err = relation()
            .follow_ups(&Source::new(&ex, &parses))
            .unwrap_err();
        assert!(err.to_string().contains("fig1"), "{err}");
    }

    #[test]
    fn dataset_tokens_follow_the_replacement() {
        let text = "The fish in the large lake quickly ate the worm because it is tasty .";
        let (mut ex, _) = example(text, vec![vec![span(text, "the worm"), span(text, "it")]]);
        ex.tokens = Some(text.split(' ').map(str::to_string).collect());
        let parses =
            crate::source::parse_examples(pipeline(), std::slice::from_ref(&ex), &["text"])
                .unwrap();
        let cases = relation().follow_ups(&Source::new(&ex, &parses)).unwrap();
        assert!(!cases.is_empty());
        for case in cases {
            let tokens = case.followup.tokens.as_ref().unwrap();
            assert_eq!(&tokens.join(" "), case.followup.text.as_ref().unwrap());
        }
        ex.tokens = Some(vec!["Nope".into()]);
        let err = relation()
            .follow_ups(&Source::new(&ex, &parses))
            .unwrap_err();
        assert!(err.to_string().contains("Nope"), "{err}");
    }
}
