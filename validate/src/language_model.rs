//! The `lm` checks: what a causal language model (SmolLM2-135M by default, any GGUF the
//! models crate loads) makes of a follow-up's changed sentences.
//!
//! * **`lm`**: the log-probability (nats) of the follow-up's changed window minus that of the
//!   source's window it replaced. A wrong-sense synonym ("religious wars" → "spiritual wars"),
//!   a broken agreement or "an riveting" costs the follow-up several nats against a source
//!   that read naturally; a fitting substitution costs about nothing. The source's score is
//!   computed once however many follow-ups share it.
//! * **`lm_sentence`**: the mean log-probability per token of a window read as a whole, for the
//!   relations that build sentences from parts (NLPLego's parents and children): the lower of
//!   the follow-up's window and, where the relation built the source too, the source's. A
//!   parent cut short ("It has a bundle") reads improbably on its own whatever its child does.
//!   Mean per token rather than total, so that longer sentences are not penalised for their
//!   length. (Not frequency-normalised: no word-frequency list is packaged; a rare name lowers
//!   the mean of source and follow-up alike, which is why `lm`, a difference, is the main
//!   check and this one applies only where the source is itself constructed.)
//! * **`lm_ending`**: for the relations that build their source from parts (NLPLego-SA and
//!   -SSM's parents), the log-probability that each of the source's sentences ends where it
//!   does: `log P(terminal punctuation | the text before it)`, the lowest over its sentences.
//!   A parent cut short ("it stops me.", "It has a bundle.") ends where a reader, and the LM,
//!   expects more words; a whole sentence's mean (`lm_sentence`) hides that one improbable
//!   token among many likely ones. A sentence ends at `.`, `!` or `?` (a run of them) followed
//!   by white space or the text's end, so decimals and most abbreviations inside a word are not
//!   ends; a sentence of fewer than two words before its punctuation is not read. The
//!   punctuation is read attached to its last word: tokenized text's " ." (PAWS, SST) costs
//!   the LM several nats however whole the sentence is.
//!
//! * **`lm_seam`**: for the same relations, where a phrase was cut from the middle of the
//!   dataset text ([`crate::seam`]), `log p(words after the gap | the built text before them)
//!   − log p(the same words | the dataset text before them)`, the lowest over the seams of the
//!   source's and the follow-up's windows. A parent whose cut leaves a seam ("He spoke loud to
//!   hear him") makes the next words improbable where the dataset text did not.
//!
//! * **`lm_end_cut`**: for the same relations, where a sentence of the built text ends at a
//!   cut, the dataset text going on after its last word ([`crate::seam::end_cut`]): `log
//!   p(the full stop | the sentence's words) − log p(the dataset text's next word | the same
//!   words)`. A parent that ends grammatically where its verb wants more ("Responsibility
//!   turned the spoiled playboy.", "The voice teacher showed the students.") passes
//!   `lm_ending`, but the LM expects the cut words far more than the end.
//!
//! Every text is scored with the model's start token before it ([`CausalLm::start_token`]), in
//! batches grouped by length.

use std::collections::HashMap;

use metamorph_data::Result;
use metamorph_models::causal_lm::{CausalLm, LmOptions};

/// Words read after a prefix ([`LmScorer::continuation_log_probs`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Continuation<'a> {
    /// The text before the words.
    pub prefix: &'a str,
    /// The words scored.
    pub words: &'a str,
    /// Whether the words follow the prefix with no space between (punctuation: "He left" +
    /// "."), rather than after one.
    pub glued: bool,
}

impl<'a> Continuation<'a> {
    /// `words` after `prefix` and a space.
    pub fn spaced(prefix: &'a str, words: &'a str) -> Self {
        Continuation {
            prefix,
            words,
            glued: false,
        }
    }

    /// `words` glued to the end of `prefix` (punctuation).
    pub fn glued(prefix: &'a str, words: &'a str) -> Self {
        Continuation {
            prefix,
            words,
            glued: true,
        }
    }

    /// The prefix and the words, as the model reads them.
    fn text(&self) -> String {
        if self.glued || self.prefix.is_empty() {
            format!("{}{}", self.prefix, self.words)
        } else {
            format!("{} {}", self.prefix, self.words)
        }
    }
}

/// A text's log-probability under the LM.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextScore {
    /// Sum of the tokens' log-probabilities (nats).
    pub total: f32,
    /// Tokens scored.
    pub tokens: usize,
}

impl TextScore {
    /// Mean log-probability per token (0 for an empty text).
    pub fn mean(&self) -> f32 {
        if self.tokens == 0 {
            0.0
        } else {
            self.total / self.tokens as f32
        }
    }
}

/// The two scores of one follow-up window against its source window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangeScores {
    /// Follow-up minus source, total nats.
    pub lm: f32,
    /// Lowest mean per-token log-probability of the windows read whole.
    pub lm_sentence: f32,
}

/// Scores both windows of `(source, follow-up)` pairs; `rebuilt` says for each pair whether the
/// relation built its source too (then the source's own mean counts in `lm_sentence`).
pub fn change_scores(before: TextScore, after: TextScore, rebuilt: bool) -> ChangeScores {
    let lm_sentence = if rebuilt {
        after.mean().min(before.mean())
    } else {
        after.mean()
    };
    ChangeScores {
        lm: after.total - before.total,
        lm_sentence,
    }
}

/// A causal LM used to score texts.
pub struct LmScorer {
    lm: CausalLm,
}

impl std::fmt::Debug for LmScorer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LmScorer")
            .field("lm", &self.lm.name())
            .finish()
    }
}

impl LmScorer {
    /// Loads the model `spec` names (`smollm2-135m`, a `.gguf` path, `hf:ORG/NAME/FILE.gguf`).
    ///
    /// # Errors
    /// [`metamorph_data::Error::Asset`] naming the model.
    pub fn load(spec: &str, options: LmOptions) -> Result<Self> {
        Ok(LmScorer {
            lm: CausalLm::load(spec, options)?,
        })
    }

    /// Wraps a loaded model.
    pub fn new(lm: CausalLm) -> Self {
        LmScorer { lm }
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        self.lm.name()
    }

    /// The score of each text (duplicates scored once), in order. Texts longer than the
    /// model's context keep their last tokens that fit (the change is near their middle).
    ///
    /// # Errors
    /// Tokenizer or model failures naming the model.
    pub fn score_texts(&self, texts: &[&str]) -> Result<Vec<TextScore>> {
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut distinct: Vec<&str> = Vec::new();
        let slots: Vec<usize> = texts
            .iter()
            .map(|t| {
                *index.entry(t).or_insert_with(|| {
                    distinct.push(t);
                    distinct.len() - 1
                })
            })
            .collect();
        let encoded = self.lm.encode_batch(&distinct)?;
        let limit = self.lm.context_length().min(1024);
        let start: Vec<u32> = self.lm.start_token().into_iter().collect();
        let sequences: Vec<Vec<u32>> = encoded
            .into_iter()
            .map(|ids| {
                let keep = limit - start.len();
                let tail = &ids[ids.len().saturating_sub(keep)..];
                start.iter().chain(tail).copied().collect()
            })
            .collect();
        let started = std::time::Instant::now();
        let log_probs = self.lm.score(&sequences)?;
        tracing::debug!(
            texts = texts.len(),
            distinct = sequences.len(),
            tokens = sequences.iter().map(Vec::len).sum::<usize>(),
            longest = sequences.iter().map(Vec::len).max().unwrap_or(0),
            ms = started.elapsed().as_millis() as u64,
            "lm scored"
        );
        let scores: Vec<TextScore> = log_probs
            .iter()
            .map(|lp| TextScore {
                total: lp.iter().sum(),
                tokens: lp.len(),
            })
            .collect();
        Ok(slots.into_iter().map(|s| scores[s]).collect())
    }

    /// For each text, the lowest log-probability (nats) over its sentences that the sentence
    /// ends with the punctuation it ends with, given everything before it
    /// ([`sentence_ends`]); `None` for a text with no sentence to read. Every distinct
    /// `(text up to an end)` is one sequence, and all go through the model together.
    ///
    /// # Errors
    /// Tokenizer or model failures naming the model.
    pub fn ending_log_probs(&self, texts: &[&str]) -> Result<Vec<Option<f32>>> {
        let limit = self.lm.context_length().min(1024);
        let start = usize::from(self.lm.start_token().is_some());
        let mut index: HashMap<(&str, usize), usize> = HashMap::new();
        // Per distinct end: the sequence to score and how many of its last tokens are the
        // punctuation.
        let mut sequences: Vec<Vec<u32>> = Vec::new();
        let mut tails: Vec<usize> = Vec::new();
        let mut owners: Vec<Vec<usize>> = vec![Vec::new(); texts.len()];
        for (t, text) in texts.iter().enumerate() {
            for (words_end, punctuation) in sentence_ends(text) {
                if let Some(&k) = index.get(&(*text, punctuation.end)) {
                    owners[t].push(k);
                    continue;
                }
                // The punctuation is read attached to the last word, as edited text writes it:
                // a tokenized " ." costs several nats whether or not the sentence is whole.
                let words = &text[..words_end];
                let prefix = self.lm.with_start(words)?;
                let body = self
                    .lm
                    .with_start(&format!("{words}{}", &text[punctuation.clone()]))?;
                // The punctuation must be tokens of its own after the words' tokens (almost
                // always: byte-pair vocabularies split punctuation off a word).
                if body.len() <= prefix.len() || body[..prefix.len()] != prefix[..] {
                    continue;
                }
                let tail = body.len() - prefix.len();
                // Longer than the context: the earliest tokens after the start go.
                let drop = body.len().saturating_sub(limit);
                if drop > 0 && prefix.len() < start + drop + 1 {
                    continue;
                }
                let kept: Vec<u32> = body[..start]
                    .iter()
                    .chain(&body[start + drop..])
                    .copied()
                    .collect();
                index.insert((text, punctuation.end), sequences.len());
                owners[t].push(sequences.len());
                sequences.push(kept);
                tails.push(tail);
            }
        }
        // Only the punctuation's tokens are scored against the vocabulary.
        let log_probs = self.lm.score_last(&sequences, &tails)?;
        let ends: Vec<f32> = log_probs.iter().map(|lp| lp.iter().sum()).collect();
        Ok(owners
            .into_iter()
            .map(|mine| mine.into_iter().map(|k| ends[k]).reduce(f32::min))
            .collect())
    }

    /// For each continuation, `log p(words | prefix)` in nats (summed over the words'
    /// tokens), or `None` where the words' tokens do not extend the prefix's or the text is
    /// longer than the model's context. Each distinct continuation is one sequence, and all go
    /// through the model together.
    ///
    /// # Errors
    /// Tokenizer or model failures naming the model.
    pub fn continuation_log_probs(
        &self,
        continuations: &[Continuation<'_>],
    ) -> Result<Vec<Option<f32>>> {
        let limit = self.lm.context_length().min(1024);
        let mut index: HashMap<Continuation<'_>, Option<usize>> = HashMap::new();
        let mut sequences: Vec<Vec<u32>> = Vec::new();
        let mut tails: Vec<usize> = Vec::new();
        let mut slots: Vec<Option<usize>> = Vec::with_capacity(continuations.len());
        for &continuation in continuations {
            if let Some(&slot) = index.get(&continuation) {
                slots.push(slot);
                continue;
            }
            let head = self.lm.with_start(continuation.prefix)?;
            let whole = self.lm.with_start(&continuation.text())?;
            let slot = (whole.len() > head.len()
                && whole[..head.len()] == head[..]
                && whole.len() <= limit)
                .then(|| {
                    tails.push(whole.len() - head.len());
                    sequences.push(whole);
                    sequences.len() - 1
                });
            index.insert(continuation, slot);
            slots.push(slot);
        }
        let log_probs = self.lm.score_last(&sequences, &tails)?;
        let sums: Vec<f32> = log_probs.iter().map(|lp| lp.iter().sum()).collect();
        Ok(slots.into_iter().map(|s| s.map(|k| sums[k])).collect())
    }

    /// The lowest [`LmScorer::ending_log_probs`] per owner: `parts[i] = (owner, text)` with
    /// owners below `owners`; `None` for an owner none of whose texts has a sentence to read.
    ///
    /// # Errors
    /// As [`LmScorer::ending_log_probs`].
    pub fn lowest_endings(
        &self,
        owners: usize,
        parts: &[(usize, &str)],
    ) -> Result<Vec<Option<f32>>> {
        let mut out: Vec<Option<f32>> = vec![None; owners];
        if parts.is_empty() {
            return Ok(out);
        }
        let texts: Vec<&str> = parts.iter().map(|&(_, t)| t).collect();
        for (&(owner, _), score) in parts.iter().zip(self.ending_log_probs(&texts)?) {
            if let Some(score) = score {
                out[owner] = Some(out[owner].map_or(score, |o| o.min(score)));
            }
        }
        Ok(out)
    }
}

/// The sentence ends of `text` as byte offsets `(words_end, punctuation)`: `punctuation` is a
/// sentence's terminal punctuation (a run of `.`, `!`, `?` followed by white space or the end
/// of the text), `text[..words_end]` the text before it without the spaces before it.
/// Sentences of fewer than two words before their punctuation are left out (a list marker,
/// "No.").
pub fn sentence_ends(text: &str) -> Vec<(usize, std::ops::Range<usize>)> {
    let is_end = |c: char| matches!(c, '.' | '!' | '?');
    let mut out = Vec::new();
    let mut sentence_start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        if !is_end(chars[i].1) {
            i += 1;
            continue;
        }
        let run_start = chars[i].0;
        while i < chars.len() && is_end(chars[i].1) {
            i += 1;
        }
        let end = chars.get(i).map_or(text.len(), |&(b, _)| b);
        if i < chars.len() && !chars[i].1.is_whitespace() {
            continue;
        }
        let words_end = text[..run_start].trim_end().len();
        if text[sentence_start..words_end].split_whitespace().count() >= 2 {
            out.push((words_end, run_start..end));
        }
        sentence_start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::sentence_ends;

    fn ends(text: &str) -> Vec<(&str, &str)> {
        sentence_ends(text)
            .into_iter()
            .map(|(w, p)| (&text[..w], &text[p]))
            .collect()
    }

    #[test]
    fn a_sentence_ends_at_punctuation_before_a_space_or_the_end() {
        assert_eq!(
            ends("It costs 3.5 dollars . Really? It does!!"),
            vec![
                ("It costs 3.5 dollars", "."),
                ("It costs 3.5 dollars . Really? It does", "!!"),
            ]
        );
    }

    #[test]
    fn a_text_without_an_end_or_with_one_word_sentences_has_none() {
        assert!(ends("it stops me").is_empty());
        assert!(ends("No. Yes!").is_empty());
        assert_eq!(ends("No. It has a bundle.").len(), 1);
    }
}
