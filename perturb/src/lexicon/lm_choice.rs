//! Substitutions chosen in context by a causal language model (issue 39's "choose, don't just
//! filter"): a relation proposes its candidates broadly — every WordNet sense's lemmas for the
//! word's part of speech, inflected — and the LM keeps those whose sentence it finds about as
//! likely as the original's.
//!
//! The cost of a candidate is `log p(original rest | prefix) − log p(candidate rest | prefix)`
//! in nats, where `prefix` is the sentence up to the replaced word (scored once for all the
//! candidates of a site, [`CausalLm::score_continuations`]) and `rest` the word and everything
//! after it: so a wrong-sense synonym is paid for where it clashes with what follows, not only
//! in itself ("the religious wars" → "the spiritual wars" costs nats at "wars"). A candidate is
//! kept when its cost is at most `max_cost`; the cheapest first, at most `per_site` of them.
//!
//! Decision: the default `max_cost` is 7.95 nats, what `metamorph-validate calibrate` chose
//! for the `lm` check of word substitutions on the tuning half of the judged follow-ups
//! (`validate/src/config.rs`, the same model and the same difference over the changed
//! window); the check and the choice then agree on what reads as English.

use std::sync::Arc;

use metamorph_data::{Result, Token};
use metamorph_models::causal_lm::CausalLm;

use crate::lexicon::wordnet::WordNet;

/// The calibrated most a substitution may cost (nats), see the module docs.
pub const DEFAULT_MAX_COST: f32 = 7.95;

/// Chooses among the candidates of one substitution site (see the module docs).
#[derive(Clone)]
pub struct SubstitutionChooser {
    lm: Arc<CausalLm>,
    max_cost: f32,
    per_site: usize,
}

impl std::fmt::Debug for SubstitutionChooser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SubstitutionChooser")
            .field("lm", &self.lm.name())
            .field("max_cost", &self.max_cost)
            .field("per_site", &self.per_site)
            .finish()
    }
}

impl SubstitutionChooser {
    /// A chooser keeping at most `per_site` candidates costing at most `max_cost` nats.
    pub fn new(lm: Arc<CausalLm>, max_cost: f32, per_site: usize) -> Self {
        SubstitutionChooser {
            lm,
            max_cost,
            per_site,
        }
    }

    /// The cost (nats) of each of `alternatives` against `original`, all three the text
    /// after `prefix` (the sentence up to the replaced word).
    ///
    /// # Errors
    /// Tokenizer or model errors.
    pub fn costs(&self, prefix: &str, original: &str, alternatives: &[&str]) -> Result<Vec<f32>> {
        if alternatives.is_empty() {
            return Ok(Vec::new());
        }
        // A space before the word belongs to the word's token (byte-level BPE).
        let trimmed = prefix.trim_end();
        let gap = &prefix[trimmed.len()..];
        let prefix_ids = self.lm.with_start(trimmed)?;
        let mut continuations = Vec::with_capacity(alternatives.len() + 1);
        for text in std::iter::once(original).chain(alternatives.iter().copied()) {
            continuations.push(self.lm.encode(&format!("{gap}{text}"))?);
        }
        let scores = self.lm.score_continuations(&prefix_ids, &continuations)?;
        let total = |s: &Vec<f32>| s.iter().sum::<f32>();
        let base = total(&scores[0]);
        Ok(scores[1..].iter().map(|s| base - total(s)).collect())
    }

    /// The LM's own words for the slot after `prefix` (the sentence up to the replaced word),
    /// likeliest first: the word-initial tokens among its `top_k` most likely next tokens,
    /// spelled as whole alphabetic words, not `original`, passing `accept`. A token that is
    /// only a word's first piece is taken as if whole; the caller's checks (a known word, a
    /// re-parse) and [`SubstitutionChooser::choose`], which scores the rest of the sentence
    /// with it, refuse it then.
    ///
    /// This is the seed's masked-LM source (a word predicted in context) with a causal LM: the
    /// prediction reads only the left context; `choose` reads the right.
    ///
    /// # Errors
    /// Tokenizer or model errors.
    pub fn predict(
        &self,
        prefix: &str,
        original: &str,
        top_k: usize,
        accept: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<String>> {
        let prefix = last_words(prefix, CONTEXT_BEFORE);
        let prefix_ids = self.lm.with_start(prefix.trim_end())?;
        let log_probs = self
            .lm
            .next_token_log_probs(std::slice::from_ref(&prefix_ids))?
            .pop()
            .unwrap_or_default();
        let mut order: Vec<usize> = (0..log_probs.len()).collect();
        let k = top_k.min(order.len());
        if k == 0 {
            return Ok(Vec::new());
        }
        order.select_nth_unstable_by(k - 1, |&a, &b| log_probs[b].total_cmp(&log_probs[a]));
        order.truncate(k);
        order.sort_by(|&a, &b| log_probs[b].total_cmp(&log_probs[a]));
        let tokenizer = self.lm.tokenizer();
        let mut words: Vec<String> = Vec::new();
        for id in order {
            let Some(piece) = u32::try_from(id)
                .ok()
                .and_then(|i| tokenizer.id_to_token(i))
            else {
                continue;
            };
            let Some(word) = word_initial(&piece) else {
                continue;
            };
            if word.eq_ignore_ascii_case(original) || words.contains(&word) || !accept(&word) {
                continue;
            }
            words.push(word);
        }
        Ok(words)
    }

    /// [`SubstitutionChooser::choose`] over the window the LM reads around a replaced word:
    /// the last [`CONTEXT_BEFORE`] words of `before` (the sentence up to the word) and the
    /// first [`CONTEXT_AFTER`] of `after` (the sentence after it), which is where a wrong sense
    /// or a broken construction shows, at a fraction of the whole sentence's cost. `original`
    /// is the word replaced, `words` its candidates.
    ///
    /// # Errors
    /// As [`SubstitutionChooser::costs`].
    pub fn choose_in_sentence(
        &self,
        before: &str,
        original: &str,
        after: &str,
        words: &[&str],
    ) -> Result<Vec<usize>> {
        let prefix = last_words(before, CONTEXT_BEFORE);
        let right = first_words(after, CONTEXT_AFTER);
        let original = format!("{original}{right}");
        let rests: Vec<String> = words.iter().map(|w| format!("{w}{right}")).collect();
        let refs: Vec<&str> = rests.iter().map(String::as_str).collect();
        self.choose(prefix, &original, &refs)
    }

    /// The indices of the `alternatives` kept, cheapest first (see the module docs).
    ///
    /// # Errors
    /// As [`SubstitutionChooser::costs`].
    pub fn choose(
        &self,
        prefix: &str,
        original: &str,
        alternatives: &[&str],
    ) -> Result<Vec<usize>> {
        let costs = self.costs(prefix, original, alternatives)?;
        let mut kept: Vec<(usize, f32)> = costs
            .into_iter()
            .enumerate()
            .filter(|(_, c)| c.is_finite() && *c <= self.max_cost)
            .collect();
        kept.sort_by(|a, b| a.1.total_cmp(&b.1));
        Ok(kept
            .into_iter()
            .take(self.per_site)
            .map(|(i, _)| i)
            .collect())
    }
}

/// Words of context the choosing LM reads before a replaced word.
const CONTEXT_BEFORE: usize = 24;
/// Words of context it reads after it.
const CONTEXT_AFTER: usize = 5;

/// The end of `text` from its `n`-th last word (with the whitespace after it).
fn last_words(text: &str, n: usize) -> &str {
    let mut starts: Vec<usize> = text
        .char_indices()
        .filter(|&(i, c)| {
            !c.is_whitespace() && (i == 0 || text[..i].ends_with(char::is_whitespace))
        })
        .map(|(i, _)| i)
        .collect();
    if starts.len() <= n {
        return text;
    }
    let from = starts.split_off(starts.len() - n)[0];
    &text[from..]
}

/// The start of `text` up to its `n`-th word (the whitespace before the first kept).
fn first_words(text: &str, n: usize) -> &str {
    let mut seen = 0;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if in_word {
                seen += 1;
                if seen == n {
                    return &text[..i];
                }
            }
            in_word = false;
        } else {
            in_word = true;
        }
    }
    text
}

/// Whether `word` (lowercase) is a word of `sentence` or a form of one: the two share all but
/// the last three letters of the longer, and at least four ("interests" / "interested", not
/// "part" / "particularly"). A small LM copies from its context ("the architect and amateur
/// architect", "interested in all its interests", the tuning reading of predictions), and a
/// word the sentence already has reads as a clumsy repetition.
pub fn repeats_a_word_of(sentence: &str, word: &str) -> bool {
    sentence
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.len() > 2)
        .any(|w| {
            let w = w.to_lowercase();
            let shared = w
                .bytes()
                .zip(word.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            w == word || shared >= w.len().max(word.len()).saturating_sub(3).max(4)
        })
}

/// Whether a predicted word, re-parsed in its sentence (`new`), is the kind of word it
/// replaced (`old`): the same tag, and a lemma WordNet lists in the part of speech `pos`
/// (spaCy tags an unknown string too, "the zzyzx" as a noun).
pub fn keeps_its_kind(
    old: &Token,
    new: &Token,
    pos: crate::lexicon::wordnet::Pos,
    wordnet: &WordNet,
) -> bool {
    old.tag == new.tag && !wordnet.synsets(&new.lemma.to_lowercase(), pos).is_empty()
}

/// The word a vocabulary piece starts, if it starts one and is all ASCII letters: byte-level
/// BPE marks a leading space `Ġ`, SentencePiece `▁`.
fn word_initial(piece: &str) -> Option<String> {
    let rest = piece
        .strip_prefix('\u{120}')
        .or_else(|| piece.strip_prefix('\u{2581}'))?;
    (rest.len() > 1 && rest.chars().all(|c| c.is_ascii_alphabetic())).then(|| rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tiny GGUF fixture the models crate's tests make: random weights, so only the
    /// arithmetic is checked here (costs against the model's own scores).
    fn tiny() -> Option<Arc<CausalLm>> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../models/tests/fixtures/causal-lm/llama-tiny.gguf");
        if !path.exists() {
            eprintln!("SKIPPED: {} is absent", path.display());
            return None;
        }
        Some(Arc::new(
            CausalLm::from_file(&path, metamorph_models::LmOptions::default()).unwrap(),
        ))
    }

    #[test]
    fn the_lm_reads_a_window_of_words_around_the_replacement() {
        assert_eq!(last_words("a b  c d ", 2), "c d ");
        assert_eq!(last_words("a b", 5), "a b");
        assert_eq!(first_words(" wars of religion ended.", 2), " wars of");
        assert_eq!(first_words(" wars.", 5), " wars.");
    }

    #[test]
    fn costs_are_the_difference_of_whole_sentence_scores_and_choice_follows_them() {
        let Some(lm) = tiny() else { return };
        let chooser = SubstitutionChooser::new(lm.clone(), f32::INFINITY, 2);
        let prefix = "The old man";
        let costs = chooser
            .costs(
                prefix,
                " walked home.",
                &[" strolled home.", " walked home."],
            )
            .unwrap();
        // The original against itself costs nothing.
        assert!(costs[1].abs() < 1e-4, "{costs:?}");
        // Against the model's own whole-sentence scores.
        let whole = |t: &str| -> f32 {
            let ids = lm.with_start(t).unwrap();
            lm.score(&[ids]).unwrap()[0].iter().sum()
        };
        let expected = whole("The old man walked home.") - whole("The old man strolled home.");
        assert!(
            (costs[0] - expected).abs() < 1e-2,
            "{} vs {expected}",
            costs[0]
        );
        // A cap of zero nats keeps only what costs nothing; `per_site` caps the count.
        let strict = SubstitutionChooser::new(lm.clone(), 1e-3, 5);
        assert_eq!(
            strict
                .choose(
                    prefix,
                    " walked home.",
                    &[" walked home.", " strolled home."]
                )
                .unwrap()
                .first(),
            Some(&0)
        );
        let one = SubstitutionChooser::new(lm, f32::INFINITY, 1);
        assert_eq!(
            one.choose(prefix, " walked home.", &[" a.", " b.", " c."])
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn word_initial_pieces_are_whole_alphabetic_words() {
        assert_eq!(word_initial("\u{120}house").as_deref(), Some("house"));
        assert_eq!(word_initial("\u{2581}house").as_deref(), Some("house"));
        // A piece inside a word, a one-letter word, digits and punctuation are not words.
        assert_eq!(word_initial("house"), None);
        assert_eq!(word_initial("\u{120}a"), None);
        assert_eq!(word_initial("\u{120}1990"), None);
        assert_eq!(word_initial("\u{2581}don't"), None);
    }

    #[test]
    fn predictions_are_the_lms_likeliest_words() {
        let Some(lm) = tiny() else { return };
        let chooser = SubstitutionChooser::new(lm.clone(), f32::INFINITY, 3);
        let prefix = "The old man ";
        let accept = |w: &str| w.len() > 3;
        let predicted = chooser.predict(prefix, "walked", 200, &accept).unwrap();
        // Exactly the words among the LM's 200 likeliest next tokens that start a word, pass
        // `accept` and are not the original, likeliest first.
        let ids = lm.with_start(prefix.trim_end()).unwrap();
        let lp = lm.next_token_log_probs(&[ids]).unwrap().remove(0);
        let mut order: Vec<usize> = (0..lp.len()).collect();
        order.sort_by(|&a, &b| lp[b].total_cmp(&lp[a]));
        let mut expected: Vec<String> = Vec::new();
        for &i in &order[..200] {
            if let Some(w) = word_initial(&lm.tokenizer().id_to_token(i as u32).unwrap()) {
                if accept(&w) && !w.eq_ignore_ascii_case("walked") && !expected.contains(&w) {
                    expected.push(w);
                }
            }
        }
        assert!(!expected.is_empty(), "the fixture's vocabulary has words");
        assert_eq!(predicted, expected);
        assert!(chooser
            .predict(prefix, "walked", 0, &accept)
            .unwrap()
            .is_empty());
    }
}
