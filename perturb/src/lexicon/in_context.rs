//! Substitution that reads context: the sense a word has *in this sentence*, and the synonyms or
//! antonyms of that sense that fit the sentence, best first. Every relation that replaces a
//! word (CREST, NLPLego's mutation, MR1-1's antonyms, MR2-1's synonyms) draws its WordNet
//! candidates from here rather than from WordNet's sense order.
//!
//! **Sense choice** is Lesk with embedded glosses (Basile et al., COLING 2014, "An Enhanced Lesk
//! Word Sense Disambiguation Algorithm through a Distributional Semantic Model", with a sentence
//! encoder in place of their word space): each sense of the word's lemma in its part of speech
//! is written as its lemmas, definition and examples; the sense whose embedding is closest to the
//! sentence's wins, weighed with the sense's add-one smoothed SemCor frequency
//! ([`WordNet::sense_count`]) as a prior (see [`GLOSS_TEMPERATURE`]), so that a sentence that
//! says little keeps the usual sense. A review of NLPLego's and CREST's
//! follow-ups found most bad ones came from a sense the sentence did not use ("at the same
//! time" → "at the same clip", "resigned from the seat" → "the arse").
//!
//! **Not a variant or a clipping**: a synonym that is a derivative of the word ("group" →
//! "grouping") or a clipped form of a lemma of its synset ("prof", "info") is
//! not a candidate.
//!
//! **Too many senses**: a noun with [`MAX_SENSES`] or more senses gets no synonyms at all.
//!
//! **Fit in context**: each candidate is written into the sentence and the follow-up sentence's
//! embedding is compared with the source's (the constraint TextAttack applies with the Universal
//! Sentence Encoder; here all-MiniLM-L6-v2, an asset already). Candidates are kept when
//! * the follow-up sentence stays within [`MIN_SENTENCE_SIMILARITY`] of the source (a word of
//!   another sense or register moves the sentence: "phone call" → "phone yell");
//! * the candidate is attested in this sense in SemCor, or this is its only sense in the part
//!   of speech (rare lemmas of a synset are mostly other readings: "coevals", "esurient"),
//!   and no other sense of it is more frequent there: a word read alone in another sense
//!   carries that sense in. (This does not catch "the tone of the cinema" for "film", which
//!   the reviews found in three rounds: "cinema"'s most frequent sense is the film medium,
//!   and the error is the sense chosen for "film".);
//! * the candidate is read in the target's part of speech at least as often as in any other
//!   ([`ContextualLexicon::mostly_read_as`]: not "his living", "an escape try");
//! * every word of the candidate is a whole token of the encoder's WordPiece vocabulary
//!   ([`ContextualLexicon::is_common`]): archaic and rare words ("erstwhile", "histrion") are
//!   right in sense and wrong in register;
//!
//! and ranked by that similarity. Sense glosses are embedded once per process and cached.
//!
//! **Why not word vectors.** The issue proposed `en_core_web_md`'s 300-d vectors (the NLPLego
//! authors ranked with `en_core_web_lg`'s). Measured on the package we can fetch, they are too
//! coarse for this: its 684,830 keys share 20,000 rows, "car"–"automobile" has cosine 0.22
//! against 0.18 for "car"–"banana", and "dog" and "cat" have identical rows.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use metamorph_data::{Result, Token};
use metamorph_models::{cosine, SentenceEncoder};

use super::inflect::Inflections;
use super::wordnet::{normalize, Pos, Synset, SynsetId, WordNet};

/// Nouns with this many WordNet senses or more are not replaced by synonyms:
/// choosing among a dozen senses from one sentence is where sense choice fails most, and the
/// reviews of 2026-11-26 found their substitutes unnatural ("in every way" → "in every
/// fashion", "an open mind" → "an open psyche", "the use of the house" → "the usage", "their
/// subjects" → "their disciplines"). Cuts "way" (12 noun senses), "life" (14), "time" (10),
/// "house" (12), "state" (8), "mind" (7), and keeps "film" (5), "city" (3). Adjectives keep
/// their synonyms ("large" has 8 senses, and "a large coffee" → "a big coffee" is fine).
pub const MAX_SENSES: usize = 7;

/// A synonym must be at least this fraction as frequent in SemCor as the word it replaces (its
/// tags over all senses in the slot's part of speech), when the word has at least
/// [`REGISTER_MIN_TAGS`] tags: a far rarer synonym is a register shift that the reviews of
/// 2026-11-26 found unnatural in three rounds ("hospital" (25 tags) → "infirmary" (1), "film"
/// (66) → "cinema" (1), "stories" (63) → "narratives" (9), "cities" (117) → "metropolises"
/// (7), "cultural" (20) → "ethnic" (3), and, at 0.2, "car" (73) → "automobile" (15), which
/// the readers of seeds 20261220 and 20261221 found stilted four times). Raised from 0.25 to
/// 0.4 after the review of seed 20261224 found "era" (14) → "epoch" (5) and "examination"
/// (17) → "scrutiny" (5) wrong in register; on the first 300 GAP documents that also drops
/// "competitions" → "contests" and "victory" → "triumph" (89 → 85 cases). Keeps "buy" (104)
/// → "purchase" (46), "big" → "large".
/// The word's count is capped at [`REGISTER_TAG_CAP`], so a synonym tagged 25 times is common
/// enough for any word: SemCor tags every named person "person" (6,833 tags), and "the only
/// individual (65) to win Nobel Prizes in two fields" is fine.
pub const MIN_FREQUENCY_RATIO: f32 = 0.4;

/// The cap on a word's SemCor count in [`MIN_FREQUENCY_RATIO`].
pub const REGISTER_TAG_CAP: u32 = 100;

/// Below this many SemCor tags a word's frequency says too little for [`MIN_FREQUENCY_RATIO`].
pub const REGISTER_MIN_TAGS: u32 = 5;

/// A follow-up sentence must stay this close (cosine of all-MiniLM-L6-v2 embeddings) to its
/// source sentence for the substitute to count as fitting.
pub const MIN_SENTENCE_SIMILARITY: f32 = 0.85;

/// The same for an antonym: it changes the meaning by design, so only a gross misfit is
/// caught ("is he an honest man" → "is he a dishonest man" scores 0.75).
pub const MIN_ANTONYM_SIMILARITY: f32 = 0.70;

/// Temperature of the gloss–sentence cosines: a sense's score is `cosine / T + ln prior`, so a
/// gloss 0.05 closer to the sentence outweighs a sense e (2.7) times as frequent. Gloss
/// cosines of one word's senses lie within a few tenths of each other; with a smaller
/// temperature the context overrides even a dominant sense on a hint ("the best option" read
/// as "financially safe"), with a larger one the context is ignored ("the seat in parliament"
/// read as "a space for sitting").
const GLOSS_TEMPERATURE: f32 = 0.05;

/// Fixed function-word expressions WordNet does not list (it lists content words), whose words
/// have no synonym of their own: "as far as" → "as far forth as", "as a result of" → "as the
/// effect of" were found in review.
const FIXED_EXPRESSIONS: &[&str] = &[
    "as far as",
    "as long as",
    "as soon as",
    "as much as",
    "as a result of",
    "as a whole",
    "in terms of",
    "in spite of",
    "in front of",
    "in order to",
    "in place of",
    "in charge of",
    "on behalf of",
    "by means of",
    "by then",
    "by the time",
    "with respect to",
    "so far",
    "even so",
    "at first",
    "at last",
    "at least",
    "at most",
    "for example",
    "for instance",
    "of course",
    "more or less",
    "the same",
];

/// A substitute's word, read in its sentence, must stay this close (cosine of
/// all-MiniLM-L6-v2's mean last hidden states over the word's pieces) to the word it replaces,
/// read in the source sentence. Calibrated on the 300 judged substitutions of the issue 17
/// reviews of CREST and NLPLego-MRC (seeds 20261127–29), where the sentence cosine did not
/// separate natural from unnatural substitutes at all (one word barely moves a sentence) and
/// this one did: at 0.6, CREST kept 46% of its substitutes and 58% of those were
/// natural (42% before); NLPLego-MRC 59% and 51% (45% before). It applies to synonyms only:
/// an antonym is close to its word in context whether it fits or contradicts the text
/// ("wide" → "narrow" 0.65 contradicted, "honest" → "dishonest" 0.58 fits), so it says
/// nothing there ([`NO_WORD_CHECK`]).
pub const MIN_WORD_SIMILARITY: f32 = 0.6;

/// The word threshold that lets every substitute through (a cosine is at least −1): for
/// antonyms (see [`MIN_WORD_SIMILARITY`]).
pub const NO_WORD_CHECK: f32 = -1.0;

/// How well a substitute fits its context ([`ContextualLexicon::fit`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// Cosine of the follow-up sentence with the source sentence.
    pub sentence: f32,
    /// Cosine of the substitute, in the follow-up, with the word it replaces, in the source.
    pub word: f32,
}

impl Fit {
    /// Whether both cosines reach their thresholds: `min_sentence` for the sentence
    /// ([`MIN_SENTENCE_SIMILARITY`] or [`MIN_ANTONYM_SIMILARITY`]) and `min_word` for the word
    /// ([`MIN_WORD_SIMILARITY`] or [`NO_WORD_CHECK`]).
    pub fn fits(&self, min_sentence: f32, min_word: f32) -> bool {
        self.sentence >= min_sentence && self.word >= min_word
    }
}

/// A word in its sentence: the parse's tokens, the target's index and the sentence around it.
#[derive(Clone, Debug)]
pub struct WordInContext<'a> {
    /// The parse's tokens.
    pub tokens: &'a [Token],
    /// The target's index in `tokens`.
    pub index: usize,
    /// The tokens of the target's sentence (what sense choice reads).
    pub sentence: Range<usize>,
    /// The WordNet part of speech the word is replaced in.
    pub pos: Pos,
}

impl<'a> WordInContext<'a> {
    /// Token `index` of `tokens` in part of speech `pos`, with all of `tokens` as its sentence
    /// (narrow it with [`WordInContext::within`]).
    pub fn new(tokens: &'a [Token], index: usize, pos: Pos) -> Self {
        WordInContext {
            tokens,
            index,
            sentence: 0..tokens.len(),
            pos,
        }
    }

    /// The same word read within `sentence` (token indices) only.
    pub fn within(mut self, sentence: Range<usize>) -> Self {
        let end = sentence.end.max(self.index + 1).min(self.tokens.len());
        self.sentence = sentence.start.min(self.index)..end;
        self
    }

    fn target(&self) -> &'a Token {
        &self.tokens[self.index]
    }

    /// The sentence's text as the parse spells it.
    pub fn sentence_text(&self) -> String {
        self.tokens[self.sentence.clone()]
            .iter()
            .map(|t| format!("{}{}", t.text, t.whitespace))
            .collect::<String>()
            .trim_end()
            .to_string()
    }
}

/// What kind of substitute a relation wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Substitution {
    /// Lemmas of the sense in context.
    Synonym,
    /// Lexical antonyms of the target's lemma in the sense in context.
    Antonym,
}

/// WordNet and a sentence encoder together (see the module docs). A clone shares the gloss
/// cache.
#[derive(Clone)]
pub struct ContextualLexicon {
    wordnet: Arc<WordNet>,
    encoder: Arc<SentenceEncoder>,
    /// Checks the parser's lemmas before WordNet is asked for them (see
    /// [`Inflections::confirmed_lemma`]).
    inflections: Arc<Inflections>,
    glosses: Arc<Mutex<HashMap<SynsetId, Arc<[f32]>>>>,
    sentences: Arc<Mutex<HashMap<String, Arc<[f32]>>>>,
}

/// At most this many sentence embeddings are cached (NLPLego embeds one parent per adjunct
/// word; the cache is cleared when full, not evicted entry by entry).
const SENTENCE_CACHE: usize = 4096;

impl std::fmt::Debug for ContextualLexicon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cached = self.glosses.lock().map(|g| g.len()).unwrap_or(0);
        f.debug_struct("ContextualLexicon")
            .field("glosses_cached", &cached)
            .finish_non_exhaustive()
    }
}

impl ContextualLexicon {
    /// The lexicon over `wordnet` and `encoder`, reading lemmas checked against
    /// `inflections`.
    pub fn new(
        wordnet: Arc<WordNet>,
        encoder: Arc<SentenceEncoder>,
        inflections: Arc<Inflections>,
    ) -> Self {
        ContextualLexicon {
            wordnet,
            encoder,
            inflections,
            glosses: Arc::default(),
            sentences: Arc::default(),
        }
    }

    /// The lower-cased lemma of a parsed token read as `pos`: the parser's, unless the
    /// inflection tables show it cannot have produced the word ([`Inflections::
    /// confirmed_lemma`]: "riding" is ride, not spaCy's rid, before WordNet is asked).
    pub fn lemma(&self, token: &Token, pos: Pos) -> String {
        self.inflections
            .confirmed_lemma(&token.text, &token.lemma, pos.upos())
            .to_lowercase()
    }

    /// Unit embeddings of `texts`, in order.
    ///
    /// # Errors
    /// When the encoder fails.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.encoder.embed(texts)
    }

    /// How well each substitute fits, in one encoder batch. `sources` are `(sentence, byte
    /// range of a word)`; each follow-up is `(index into sources, its sentence, byte range of
    /// the substitute)`. A fit holds the cosine of the two sentences and the cosine of the word
    /// and its substitute, each read in its sentence (see [`MIN_WORD_SIMILARITY`]).
    ///
    /// # Errors
    /// When the encoder fails.
    pub fn fit(
        &self,
        sources: &[(&str, Range<usize>)],
        follow_ups: &[(usize, &str, Range<usize>)],
    ) -> Result<Vec<Fit>> {
        if follow_ups.is_empty() {
            return Ok(Vec::new());
        }
        let mut items: Vec<(&str, Range<usize>)> = sources.to_vec();
        items.extend(follow_ups.iter().map(|(_, s, r)| (*s, r.clone())));
        let embedded = self.encoder.embed_with_spans(&items)?;
        let (sources, follow_ups_embedded) = embedded.split_at(sources.len());
        Ok(follow_ups
            .iter()
            .zip(follow_ups_embedded)
            .map(|((k, _, _), (s, w))| Fit {
                sentence: cosine(&sources[*k].0, s),
                word: cosine(&sources[*k].1, w),
            })
            .collect())
    }

    /// The embedding of one text, cached (see [`SENTENCE_CACHE`]).
    ///
    /// # Errors
    /// When the encoder fails.
    pub fn embed_cached(&self, text: &str) -> Result<Arc<[f32]>> {
        if let Some(v) = self
            .sentences
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(text)
        {
            return Ok(Arc::clone(v));
        }
        let v: Arc<[f32]> = Arc::from(self.embed(&[text])?.remove(0));
        let mut cache = self.sentences.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= SENTENCE_CACHE {
            cache.clear();
        }
        cache.insert(text.to_string(), Arc::clone(&v));
        Ok(v)
    }

    /// The embeddings of `senses`' glosses, from the cache or computed in one batch.
    fn gloss_embeddings(&self, senses: &[Synset<'_>]) -> Result<Vec<Arc<[f32]>>> {
        let missing: Vec<Synset<'_>> = {
            let cache = self.glosses.lock().unwrap_or_else(|p| p.into_inner());
            senses
                .iter()
                .filter(|s| !cache.contains_key(&s.id()))
                .copied()
                .collect()
        };
        if !missing.is_empty() {
            let texts: Vec<String> = missing.iter().map(|s| gloss_text(*s)).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vectors = self.embed(&refs)?;
            let mut cache = self.glosses.lock().unwrap_or_else(|p| p.into_inner());
            for (s, v) in missing.iter().zip(vectors) {
                cache.insert(s.id(), Arc::from(v));
            }
        }
        let cache = self.glosses.lock().unwrap_or_else(|p| p.into_inner());
        Ok(senses.iter().map(|s| Arc::clone(&cache[&s.id()])).collect())
    }

    /// The sense of the target's lemma that fits its sentence best (see the module docs);
    /// `None` when WordNet has no sense of it in that part of speech. `sentence` is the
    /// embedding of [`WordInContext::sentence_text`].
    ///
    /// # Errors
    /// When WordNet's `index.sense` cannot be read or the encoder fails.
    pub fn sense(&self, word: &WordInContext<'_>, sentence: &[f32]) -> Result<Option<Synset<'_>>> {
        Ok(self.ranked_senses(word, sentence)?.into_iter().next())
    }

    /// Every sense of the target's lemma in its part of speech, best fit first (see
    /// [`ContextualLexicon::sense`]).
    ///
    /// # Errors
    /// When WordNet's `index.sense` cannot be read or the encoder fails.
    pub fn ranked_senses(
        &self,
        word: &WordInContext<'_>,
        sentence: &[f32],
    ) -> Result<Vec<Synset<'_>>> {
        let lemma = self.lemma(word.target(), word.pos);
        let senses = self.wordnet.synsets(&lemma, word.pos);
        if senses.len() <= 1 {
            return Ok(senses);
        }
        let mut counts = Vec::with_capacity(senses.len());
        for s in &senses {
            counts.push(self.wordnet.sense_count(*s, &lemma)? as f32);
        }
        // Add-one smoothed SemCor frequencies as the prior.
        let total: f32 = counts.iter().sum::<f32>() + senses.len() as f32;
        let glosses = self.gloss_embeddings(&senses)?;
        let mut scored: Vec<(f32, Synset<'_>)> = senses
            .iter()
            .zip(&counts)
            .zip(&glosses)
            .map(|((sense, count), gloss)| {
                let prior = (count + 1.0) / total;
                (
                    cosine(sentence, gloss) / GLOSS_TEMPERATURE + prior.ln(),
                    *sense,
                )
            })
            .collect();
        // Stable: equal scores keep WordNet's order.
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        Ok(scored.into_iter().map(|(_, s)| s).collect())
    }

    /// The candidate lemmas of `kind` for the target in its sense in context (lower case,
    /// single words, attested in that sense; see the module docs), before the fit check.
    /// Antonyms are the lexical antonyms of the target's lemma in the chosen sense only: none
    /// when that sense has none, even if another sense does ("a real realtor" is not "an
    /// unreal realtor").
    ///
    /// # Errors
    /// When WordNet's `index.sense` cannot be read or the encoder fails.
    pub fn candidates(
        &self,
        word: &WordInContext<'_>,
        sentence: &[f32],
        kind: Substitution,
    ) -> Result<Vec<String>> {
        let lemma = self.lemma(word.target(), word.pos);
        if kind == Substitution::Synonym
            && word.pos == Pos::Noun
            && self.wordnet.synsets(&lemma, word.pos).len() >= MAX_SENSES
        {
            return Ok(Vec::new());
        }
        // Adverbs get no synonyms: WordNet's adverb synsets join degrees and manners a reader
        // tells apart ("fundamentally altered" → "basically altered", "immediately succeeds" →
        // "instantly succeeds", review of seed 20261219).
        if kind == Substitution::Synonym && word.pos == Pos::Adv {
            return Ok(Vec::new());
        }
        let Some(sense) = self.sense(word, sentence)? else {
            return Ok(Vec::new());
        };
        let mut out: Vec<String> = Vec::new();
        match kind {
            Substitution::Synonym => {
                let own_tags = self.tag_count(&lemma, word.pos)?;
                // A lemma WordNet writes with capitals is a name or an acronym ("TV" for
                // "television"): lower-cased in running text it is wrong ("a tv series", review
                // of seed 20261220), and capitalised it is another register.
                let names: Vec<String> = sense
                    .lemma_names()
                    .iter()
                    .filter(|n| !n.chars().any(char::is_uppercase))
                    .map(|n| n.to_lowercase())
                    .collect();
                for name in &names {
                    if *name != lemma
                        && is_single_word(name)
                        && !out.contains(name)
                        && !is_variant_of(name, &lemma)
                        && !names.iter().any(|other| is_clipping_of(name, other))
                        && self.attested(sense, name, word.pos)?
                        && self.frequent_enough(name, own_tags, word.pos)?
                    {
                        out.push(name.clone());
                    }
                }
            }
            Substitution::Antonym => {
                // The target lemma's own antonyms in this sense, then those of the sense's
                // other lemmas ("big"/"large" → "little", "small"), then, for an adjective
                // satellite with none, its head's (WordNet's indirect antonyms: "allowed by
                // official rules" is a satellite of "legal", whose antonym is "illegal").
                let mut sources = vec![sense];
                sources.extend(
                    sense
                        .similar_tos()
                        .into_iter()
                        .filter(|_| sense.is_satellite()),
                );
                for (k, source) in sources.into_iter().enumerate() {
                    let mut lemmas: Vec<String> = source
                        .lemma_names()
                        .into_iter()
                        .map(str::to_string)
                        .collect();
                    if k == 0 {
                        lemmas.sort_by_key(|n| !n.eq_ignore_ascii_case(&lemma));
                    }
                    for name in lemmas {
                        for antonym in source.lemma_antonyms(&name) {
                            let found = antonym.name().to_lowercase();
                            if found != lemma
                                && is_single_word(&found)
                                && !out.contains(&found)
                                && self.attested(antonym.synset(), &found, word.pos)?
                            {
                                out.push(found);
                            }
                        }
                    }
                    if !out.is_empty() {
                        break;
                    }
                }
            }
        }
        Ok(out)
    }

    /// Whether `name` is read in `sense`: tagged in it in SemCor, or it has no other sense;
    /// `sense` is its most frequent sense in SemCor; and it is read in `pos` at least as often
    /// as in any other part of speech ([`ContextualLexicon::mostly_read_as`]).
    fn attested(&self, sense: Synset<'_>, name: &str, pos: Pos) -> Result<bool> {
        if !self.is_common(name) {
            return Ok(false);
        }
        let senses = self.wordnet.synsets(name, pos);
        let own = self.wordnet.sense_count(sense, name)?;
        if !(own > 0 || senses.len() == 1) {
            return Ok(false);
        }
        // This sense must be the candidate's own most frequent one: a word read alone in
        // another sense carries that sense into the text (SemCor's counts say which sense a
        // reader takes first).
        for other in senses {
            if other.id() != sense.id() && self.wordnet.sense_count(other, name)? > own {
                return Ok(false);
            }
        }
        self.mostly_read_as(name, pos)
    }

    /// Whether the synonym `name` is frequent enough to replace a word tagged `own_tags` times
    /// in SemCor: never untagged when the word is tagged ("natives" → "aboriginals", review of
    /// seed 20261219), and at least [`MIN_FREQUENCY_RATIO`] as frequent from
    /// [`REGISTER_MIN_TAGS`] tags on.
    fn frequent_enough(&self, name: &str, own_tags: u32, pos: Pos) -> Result<bool> {
        let tags = self.tag_count(name, pos)?;
        Ok(if own_tags >= REGISTER_MIN_TAGS {
            tags as f32 >= MIN_FREQUENCY_RATIO * own_tags.min(REGISTER_TAG_CAP) as f32
        } else {
            own_tags == 0 || tags > 0
        })
    }

    /// How often the lemma `name` is tagged in SemCor in `pos`, over all its senses.
    ///
    /// # Errors
    /// When WordNet's `index.sense` cannot be read.
    pub fn tag_count(&self, name: &str, pos: Pos) -> Result<u32> {
        let mut total = 0;
        for sense in self.wordnet.synsets(name, pos) {
            total += self.wordnet.sense_count(sense, name)?;
        }
        Ok(total)
    }

    /// Whether the word form `name` is tagged in SemCor in `pos` at least as often as in any
    /// other part of speech (counting each part of speech's base forms of it: "living" as the
    /// noun "living" and as the verb "live"). A substitute mostly read as a verb reads as a
    /// verb form in a noun's slot: the second CREST review (seed 20261210) found "the prime
    /// of his living", "after Wilkin's dying", "an escape try", "after the grouping seeks
    /// out", and NLPLego's "lit manuscripts" for "illuminated manuscripts".
    ///
    /// # Errors
    /// When WordNet's `index.sense` cannot be read.
    pub fn mostly_read_as(&self, name: &str, pos: Pos) -> Result<bool> {
        let mut own = 0;
        let mut other = 0;
        for p in Pos::ALL {
            let mut count = 0;
            for form in self.wordnet.morphy(&normalize(name), p) {
                for &id in self.wordnet.index_entry(&form, p) {
                    count += self.wordnet.sense_count(self.wordnet.synset(id), &form)?;
                }
            }
            if p == pos {
                own = count;
            } else {
                other = other.max(count);
            }
        }
        Ok(own >= other)
    }

    /// WordNet, for the callers' own lookups.
    pub fn wordnet(&self) -> &WordNet {
        &self.wordnet
    }

    /// Whether token `index` of `tokens` is part of a multiword expression WordNet lists
    /// (two to four consecutive tokens, the last also as its lemma, in any part of speech: "as
    /// well", "at the same time", "fire engine"): one word of such a unit has no synonym of its
    /// own ("at the same clip", "as good as" for "as well as", which a review found in most of
    /// NLPLego's invalid paragraphs).
    pub fn in_multiword_expression(&self, tokens: &[Token], index: usize) -> bool {
        let lower = |j: usize| tokens[j].text.to_lowercase();
        let fixed = FIXED_EXPRESSIONS.iter().any(|expression| {
            let words: Vec<&str> = expression.split(' ').collect();
            (index.saturating_sub(words.len() - 1)..=index).any(|start| {
                start + words.len() <= tokens.len()
                    && words
                        .iter()
                        .enumerate()
                        .all(|(k, w)| tokens[start + k].text.eq_ignore_ascii_case(w))
            })
        });
        if fixed {
            return true;
        }
        for len in 2..=4usize {
            for start in index.saturating_sub(len - 1)..=index {
                let end = start + len;
                if end > tokens.len() {
                    break;
                }
                let words: Vec<String> = (start..end).map(lower).collect();
                if words.iter().any(|w| !w.chars().all(char::is_alphabetic)) {
                    continue;
                }
                let mut with_lemma = words.clone();
                let last = &tokens[end - 1];
                with_lemma[len - 1] = self
                    .inflections
                    .confirmed_lemma(&last.text, &last.lemma, &last.pos)
                    .to_lowercase();
                for term in [words.join("_"), with_lemma.join("_")] {
                    let listed = [Pos::Noun, Pos::Verb, Pos::Adj, Pos::Adv]
                        .into_iter()
                        .any(|pos| !self.wordnet.index_entry(&term, pos).is_empty());
                    if listed {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Whether every word of the lemma `name` (`_` or `-` joined) is in common use: a whole
    /// token of the encoder's WordPiece vocabulary ([`SentenceEncoder::has_whole_word`]).
    /// Archaic and rare synonyms ("erstwhile", "thenceforth", "soldierlike", "histrion",
    /// "begetter") are WordNet lemmas of the right sense that no one would write today; a
    /// review found them in a third of the NLPLego paragraphs it rejected.
    pub fn is_common(&self, name: &str) -> bool {
        name.split(['_', '-', ' '])
            .filter(|w| !w.is_empty())
            .all(|w| self.encoder.has_whole_word(w))
    }
}

/// Whether `name` is a derivative of `lemma` or the reverse, by a shared start of three or
/// more letters ("group" → "grouping"): another word class or a nuance of the same word, not
/// a synonym; reviews found "after the grouping seeks out" twice.
fn is_variant_of(name: &str, lemma: &str) -> bool {
    let shorter = name.len().min(lemma.len());
    shorter >= 3 && (name.starts_with(lemma) || lemma.starts_with(name))
}

/// Whether `name` is a clipped form of `other`, a lemma of the same synset ("prof" of
/// "professor", "info" of "information"): informal register in running text.
fn is_clipping_of(name: &str, other: &str) -> bool {
    other.len() > name.len() + 1 && other.starts_with(name)
}

/// How a sense is written for embedding: "lemma, lemma: definition; example".
fn gloss_text(sense: Synset<'_>) -> String {
    let lemmas: Vec<String> = sense
        .lemma_names()
        .iter()
        .map(|n| n.replace('_', " "))
        .collect();
    format!("{}: {}", lemmas.join(", "), sense.gloss().trim())
}

fn is_single_word(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{pipeline, resources};

    fn in_sentence<R>(
        text: &str,
        word: &str,
        pos: Pos,
        f: impl FnOnce(&ContextualLexicon, &WordInContext<'_>) -> R,
    ) -> R {
        let docs = pipeline().process(&[text]).unwrap();
        let parsed = metamorph_parse::to_parsed_text("x", "text", &docs[0]);
        let index = parsed.tokens.iter().position(|t| t.text == word).unwrap();
        let lexicon = resources().contextual_lexicon().unwrap();
        f(&lexicon, &WordInContext::new(&parsed.tokens, index, pos))
    }

    #[test]
    fn variants_and_clippings_are_no_synonyms() {
        assert!(is_variant_of("grouping", "group"));
        assert!(is_variant_of("use", "usefulness"));
        assert!(!is_variant_of("car", "automobile"));
        assert!(is_clipping_of("prof", "professor"));
        assert!(is_clipping_of("info", "information"));
        assert!(!is_clipping_of("car", "cart") && !is_clipping_of("car", "automobile"));
    }

    #[test]
    fn substitutes_are_read_in_the_slots_part_of_speech() {
        let lexicon = resources().contextual_lexicon().unwrap();
        let read_as = |w: &str, pos: Pos| lexicon.mostly_read_as(w, pos).unwrap();
        // Verb forms in a noun's slot, found in review.
        assert!(!read_as("living", Pos::Noun));
        assert!(!read_as("dying", Pos::Noun));
        assert!(!read_as("try", Pos::Noun));
        assert!(!read_as("lit", Pos::Adj));
        assert!(read_as("life", Pos::Noun));
        assert!(read_as("house", Pos::Noun));
        assert!(read_as("try", Pos::Verb));
    }

    #[test]
    fn words_of_multiword_expressions_are_found() {
        let check = |text: &str, word: &str| {
            in_sentence(text, word, Pos::Noun, |l, w| {
                l.in_multiword_expression(w.tokens, w.index)
            })
        };
        assert!(check("Normans fought as well as traded.", "well"));
        assert!(check("They arrived at the same time.", "time"));
        assert!(check("The river runs as far as the sea.", "far"));
        assert!(check("It fell as a result of the war.", "result"));
        assert!(!check(
            "The king ruled the duchy for a long reign.",
            "duchy"
        ));
        assert!(!check("The old castle stood on the hill.", "castle"));
        let lexicon = resources().contextual_lexicon().unwrap();
        assert!(lexicon.is_common("phone"));
        assert!(!lexicon.is_common("erstwhile"));
        assert!(!lexicon.is_common("thenceforth"));
    }

    fn definition(text: &str, word: &str, pos: Pos) -> String {
        in_sentence(text, word, pos, |l, w| {
            let sentence = l.embed(&[&w.sentence_text()]).unwrap().remove(0);
            l.sense(w, &sentence).unwrap().unwrap().definition()
        })
    }

    /// The sentence of `word` with its target replaced by `replacement` (spacing kept).
    fn sentence_with(word: &WordInContext<'_>, replacement: &str) -> String {
        word.tokens[word.sentence.clone()]
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let text = if word.sentence.start + k == word.index {
                    replacement
                } else {
                    t.text.as_str()
                };
                format!("{text}{}", t.whitespace)
            })
            .collect::<String>()
            .trim_end()
            .to_string()
    }

    /// The candidates of `kind` that pass the fit check, best first, as the relations take them.
    fn substitutes(text: &str, word: &str, pos: Pos, kind: Substitution) -> Vec<String> {
        in_sentence(text, word, pos, |l, w| {
            let sentence = l.embed(&[&w.sentence_text()]).unwrap().remove(0);
            let words = l.candidates(w, &sentence, kind).unwrap();
            let follow_ups: Vec<String> = words.iter().map(|c| sentence_with(w, c)).collect();
            // The target's byte offset in its sentence: the same in the follow-ups.
            let at: usize = w.tokens[w.sentence.start..w.index]
                .iter()
                .map(|t| t.text.len() + t.whitespace.len())
                .sum();
            let source_text = w.sentence_text();
            let target = &w.tokens[w.index].text;
            let refs: Vec<(usize, &str, Range<usize>)> = follow_ups
                .iter()
                .zip(&words)
                .map(|(f, c)| (0, f.as_str(), at..at + c.len()))
                .collect();
            let fits = l
                .fit(&[(&source_text, at..at + target.len())], &refs)
                .unwrap();
            let mut scored: Vec<(String, f32)> = words
                .into_iter()
                .zip(fits)
                .filter(|(_, fit)| {
                    let min_word = match kind {
                        Substitution::Synonym => MIN_WORD_SIMILARITY,
                        Substitution::Antonym => NO_WORD_CHECK,
                    };
                    fit.fits(MIN_SENTENCE_SIMILARITY, min_word)
                })
                .map(|(w, fit)| (w, fit.word))
                .collect();
            scored.sort_by(|a, b| b.1.total_cmp(&a.1));
            scored.into_iter().map(|(w, _)| w).collect()
        })
    }

    #[test]
    fn the_sense_follows_the_sentence() {
        let money = definition(
            "She deposited the money at the bank before noon.",
            "bank",
            Pos::Noun,
        );
        assert!(money.contains("financial"), "{money}");
        let river = definition(
            "They fished from the grassy bank of the river.",
            "bank",
            Pos::Noun,
        );
        assert!(
            river.contains("water") || river.contains("slope"),
            "{river}"
        );
    }

    #[test]
    fn wrong_sense_synonyms_of_the_review_are_gone() {
        let seat = substitutes(
            "He resigned from the seat in parliament after the election.",
            "seat",
            Pos::Noun,
            Substitution::Synonym,
        );
        assert!(!seat.contains(&"arse".to_string()), "{seat:?}");
        let time = substitutes(
            "At the same time, the river rose.",
            "time",
            Pos::Noun,
            Substitution::Synonym,
        );
        assert!(!time.contains(&"clip".to_string()), "{time:?}");
        let call = substitutes(
            "She made a phone call to her brother.",
            "call",
            Pos::Noun,
            Substitution::Synonym,
        );
        assert!(!call.contains(&"yell".to_string()), "{call:?}");
        // Far rarer synonyms are a change of register (reviews of 2026-11-26).
        for (text, word, rare) in [
            (
                "He was taken to the hospital after the crash.",
                "hospital",
                "infirmary",
            ),
            ("The city has two rivers.", "city", "metropolis"),
            (
                "She told us stories about the war.",
                "stories",
                "narratives",
            ),
        ] {
            let found = substitutes(text, word, Pos::Noun, Substitution::Synonym);
            assert!(!found.contains(&rare.to_string()), "{word}: {found:?}");
        }
        // Untagged synonyms of a tagged word, and adverbs (review of seed 20261219).
        let natives = substitutes(
            "The natives of Kent resisted the Romans.",
            "natives",
            Pos::Noun,
            Substitution::Synonym,
        );
        assert!(!natives.contains(&"aboriginal".to_string()), "{natives:?}");
        let altered = substitutes(
            "The war fundamentally altered the country.",
            "fundamentally",
            Pos::Adv,
            Substitution::Synonym,
        );
        assert!(altered.is_empty(), "{altered:?}");
    }

    #[test]
    fn fitting_synonyms_are_kept() {
        let big = substitutes(
            "They live in a big house near the river.",
            "big",
            Pos::Adj,
            Substitution::Synonym,
        );
        assert!(big.contains(&"large".to_string()), "{big:?}");
        // "automobile" is four times rarer than "car" in SemCor: stilted in review.
        let cars = substitutes(
            "The car stopped at the red light.",
            "car",
            Pos::Noun,
            Substitution::Synonym,
        );
        assert!(!cars.contains(&"automobile".to_string()), "{cars:?}");
    }

    #[test]
    fn antonyms_come_from_the_sense_in_context() {
        let hot = substitutes(
            "The soup is hot today.",
            "hot",
            Pos::Adj,
            Substitution::Antonym,
        );
        assert_eq!(hot, ["cold"]);
    }

    #[test]
    fn the_sentence_is_rewritten_with_its_spacing() {
        in_sentence("The car stopped, at last.", "car", Pos::Noun, |_, w| {
            assert_eq!(w.sentence_text(), "The car stopped, at last.");
            assert_eq!(sentence_with(w, "auto"), "The auto stopped, at last.");
        });
    }
}
