//! Greedy and beam search over any incremental decoder, reproducing `transformers`' `generate()`
//! (version 5) token for token.
//!
//! The search runs on the host over `f32` scores; the model behind [`StepDecoder`] feeds one
//! token per row and keeps its own caches. Rows are laid out input-major: with `k` beams, input
//! `i`'s beams are rows `i·k … i·k+k−1` (greedy: `k = 1`).
//!
//! # Lengths
//! `transformers` counts lengths of encoder-decoder outputs including the decoder start token, so
//! `max_new_tokens = n` means `max_length = n + 1` and `min_new_tokens = m` masks end-of-sequence
//! while fewer than `m` tokens follow the start token. Outputs here are what `generate()` returns:
//! the start token, the generated tokens, and `pad` after a sequence's end up to the longest
//! output of the batch (beam search, like `transformers`, fills with end-of-sequence instead
//! when the pad id is 0).
//!
//! # Logits processors
//! Applied in `transformers`' order: repetition penalty (over every decoder token so far, the
//! start token included), no-repeat n-grams, min-new-tokens, forced BOS (first step), forced EOS
//! (last step). Greedy search applies them to raw logits, beam search to log-softmax scores, as
//! `transformers` does (so a repetition penalty acts differently in the two).
//!
//! # Beam bookkeeping
//! Each step keeps the best `2·num_beams` continuations of an input; the best `num_beams` of
//! them that did not end become the running beams, and those among the top `num_beams` that
//! ended (end-of-sequence or the length limit) compete, scored `sum_logprobs / generated_len ^
//! length_penalty`, for the `num_beams` finished slots. `early_stopping` decides when an input
//! is done ([`EarlyStopping`]). The `-1e9` offsets `transformers` uses to mask candidates are
//! reproduced in `f32`, because they quantise scores and so take part in its choices.

use metamorph_data::{Error, Result};

use metamorph_models::seq2seq::{EncoderDecoder, SpecialTokens, StepDecoder};

use crate::{DecodingOptions, EarlyStopping};

/// The offset `transformers` adds to scores of candidates that must not be chosen.
const MASKED: f32 = -1.0e9;

/// Checks `options` before a search.
///
/// # Errors
/// [`Error::Config`] naming the bad setting.
pub fn validate(options: &DecodingOptions) -> Result<()> {
    if options.num_beams == 0 {
        return Err(Error::Config(
            "decoding: num_beams must be at least 1".into(),
        ));
    }
    if options.max_new_tokens == 0 {
        return Err(Error::Config(
            "decoding: max_new_tokens must be at least 1".into(),
        ));
    }
    if !(options.repetition_penalty.is_finite() && options.repetition_penalty > 0.0) {
        return Err(Error::Config(format!(
            "decoding: repetition_penalty must be a positive number, not {}",
            options.repetition_penalty
        )));
    }
    if !options.length_penalty.is_finite() {
        return Err(Error::Config(format!(
            "decoding: length_penalty must be finite, not {}",
            options.length_penalty
        )));
    }
    Ok(())
}

/// The logits processors of one search.
struct Processors<'a> {
    options: &'a DecodingOptions,
    special: SpecialTokens,
    max_length: usize,
}

impl Processors<'_> {
    /// Processes one row's `scores` given its decoder tokens so far (`seq`, start token first).
    fn apply(&self, seq: &[u32], scores: &mut [f32]) {
        if self.options.repetition_penalty != 1.0 {
            repetition_penalty(seq, scores, self.options.repetition_penalty);
        }
        if self.options.no_repeat_ngram_size > 0 {
            ban_repeated_ngrams(seq, scores, self.options.no_repeat_ngram_size);
        }
        let eos = self.special.eos as usize;
        if seq.len() - 1 < self.options.min_new_tokens && eos < scores.len() {
            scores[eos] = f32::NEG_INFINITY;
        }
        if seq.len() == 1 {
            if let Some(bos) = self.special.forced_bos {
                force(scores, bos);
            }
        }
        if seq.len() + 1 == self.max_length {
            if let Some(eos) = self.special.forced_eos {
                force(scores, eos);
            }
        }
    }
}

/// Every score `-inf` but `token`'s, which becomes 0.
fn force(scores: &mut [f32], token: u32) {
    scores.fill(f32::NEG_INFINITY);
    if let Some(s) = scores.get_mut(token as usize) {
        *s = 0.0;
    }
}

/// `transformers`' repetition penalty: the score of every token in `seq` is divided by `penalty`
/// when positive and multiplied by it when negative (so a penalty > 1 always lowers it).
pub fn repetition_penalty(seq: &[u32], scores: &mut [f32], penalty: f32) {
    let mut seen = vec![false; scores.len()];
    for &t in seq {
        let t = t as usize;
        if t < scores.len() && !seen[t] {
            seen[t] = true;
            let s = scores[t];
            scores[t] = if s < 0.0 { s * penalty } else { s / penalty };
        }
    }
}

/// Sets to `-inf` every token that would complete an `n`-gram already present in `seq`.
pub fn ban_repeated_ngrams(seq: &[u32], scores: &mut [f32], n: usize) {
    if n == 0 || seq.len() < n {
        return;
    }
    let prefix = &seq[seq.len() + 1 - n..];
    for window in seq.windows(n) {
        if &window[..n - 1] == prefix {
            if let Some(s) = scores.get_mut(window[n - 1] as usize) {
                *s = f32::NEG_INFINITY;
            }
        }
    }
}

/// `log_softmax` of one row, in `f32`.
fn log_softmax(row: &mut [f32]) {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f32 = row.iter().map(|&x| (x - max).exp()).sum();
    let log_sum = sum.ln();
    for x in row.iter_mut() {
        *x = *x - max - log_sum;
    }
}

/// The indices of the `k` largest `values`, largest first; ties keep the lower index first.
pub fn top_k(values: &[f32], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    let k = k.min(values.len());
    let by_score = |a: &usize, b: &usize| values[*b].total_cmp(&values[*a]).then(a.cmp(b));
    if k < order.len() {
        order.select_nth_unstable_by(k, by_score);
        order.truncate(k);
    }
    order.sort_by(by_score);
    order
}

/// Runs greedy search (`options.num_beams == 1`) or beam search for `inputs` inputs whose rows
/// `decoder` holds (`inputs × num_beams` rows), returning one padded sequence per input.
///
/// # Errors
/// [`Error::Config`] for invalid options; the decoder's errors.
pub fn generate(
    decoder: &mut dyn StepDecoder,
    inputs: usize,
    vocab: usize,
    special: SpecialTokens,
    options: &DecodingOptions,
) -> Result<Vec<Vec<u32>>> {
    validate(options)?;
    if inputs == 0 {
        return Ok(Vec::new());
    }
    let processors = Processors {
        options,
        special,
        max_length: options.max_new_tokens + 1,
    };
    if options.num_beams == 1 {
        greedy(decoder, inputs, vocab, &processors)
    } else {
        beam_search(decoder, inputs, vocab, &processors)
    }
}

/// Runs the search on an encoder-decoder `model` from token ids, returning what
/// `transformers`' `generate()` returns: per input the decoder start token, the generated ids
/// and `pad` up to the batch's longest output.
///
/// # Errors
/// [`Error::Config`] for invalid options (also `max_new_tokens` beyond the decoder's
/// positions); [`Error::Model`] for bad inputs or failures.
pub fn generate_ids(
    model: &dyn EncoderDecoder,
    inputs: &[Vec<u32>],
    options: &DecodingOptions,
) -> Result<Vec<Vec<u32>>> {
    validate(options)?;
    model.check_output_length(options.max_new_tokens)?;
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    let mut session = model.start(inputs, options.num_beams)?;
    generate(
        session.as_mut(),
        inputs.len(),
        model.vocab_size(),
        model.special_tokens(),
        options,
    )
}

/// [`generate_ids`] from texts to texts: inputs tokenized with the model's tokenizer, outputs
/// decoded with special tokens skipped.
///
/// # Errors
/// As [`generate_ids`]; [`Error::Model`] when tokenizing or decoding fails.
pub fn generate_text(
    model: &dyn EncoderDecoder,
    inputs: &[&str],
    options: &DecodingOptions,
) -> Result<Vec<String>> {
    let outputs = generate_ids(model, &model.tokenize(inputs)?, options)?;
    model.detokenize(&outputs)
}

fn check_logits(logits: &[f32], rows: usize, vocab: usize) -> Result<()> {
    if logits.len() != rows * vocab {
        return Err(Error::Model {
            model: "decoder".into(),
            message: format!(
                "returned {} logits for {rows} rows of vocabulary {vocab}",
                logits.len()
            ),
        });
    }
    Ok(())
}

fn greedy(
    decoder: &mut dyn StepDecoder,
    rows: usize,
    vocab: usize,
    p: &Processors,
) -> Result<Vec<Vec<u32>>> {
    let special = p.special;
    let mut seqs: Vec<Vec<u32>> = vec![vec![special.decoder_start]; rows];
    let mut unfinished = vec![true; rows];
    while unfinished.iter().any(|&u| u) {
        let last: Vec<u32> = seqs.iter().map(|s| s[s.len() - 1]).collect();
        let mut logits = decoder.step(&last)?;
        check_logits(&logits, rows, vocab)?;
        for (r, scores) in logits.chunks_mut(vocab).enumerate() {
            let next = if unfinished[r] {
                p.apply(&seqs[r], scores);
                top_k(scores, 1)[0] as u32
            } else {
                special.pad
            };
            seqs[r].push(next);
            let len = seqs[r].len();
            unfinished[r] = unfinished[r] && next != special.eos && len < p.max_length;
        }
    }
    Ok(seqs)
}

/// The search state of one input.
struct Input {
    /// Running beams: tokens and accumulated log-probabilities.
    running: Vec<(Vec<u32>, f32)>,
    /// Finished slots: tokens, length-normalised score, whether the slot holds a finished
    /// hypothesis (else it is a placeholder).
    finished: Vec<(Vec<u32>, f32, bool)>,
    /// Whether a running beam may still beat the worst finished one.
    improvable: bool,
}

fn beam_search(
    decoder: &mut dyn StepDecoder,
    inputs: usize,
    vocab: usize,
    p: &Processors,
) -> Result<Vec<Vec<u32>>> {
    let k = p.options.num_beams;
    let keep = 2 * k;
    let special = p.special;
    let lp = p.options.length_penalty;
    let early = p.options.early_stopping;
    let start = vec![special.decoder_start];
    let mut state: Vec<Input> = (0..inputs)
        .map(|_| Input {
            running: (0..k)
                .map(|b| (start.clone(), if b == 0 { 0.0 } else { MASKED }))
                .collect(),
            finished: (0..k).map(|_| (start.clone(), MASKED, false)).collect(),
            improvable: true,
        })
        .collect();
    let mut cur_len = 1usize;
    loop {
        let last: Vec<u32> = state
            .iter()
            .flat_map(|s| s.running.iter().map(|(seq, _)| seq[seq.len() - 1]))
            .collect();
        let mut logits = decoder.step(&last)?;
        check_logits(&logits, inputs * k, vocab)?;
        let mut all_hit = true;
        let mut origins = Vec::with_capacity(inputs * k);
        for (i, input) in state.iter_mut().enumerate() {
            let rows = &mut logits[i * k * vocab..(i + 1) * k * vocab];
            for (b, scores) in rows.chunks_mut(vocab).enumerate() {
                log_softmax(scores);
                p.apply(&input.running[b].0, scores);
                let running_score = input.running[b].1;
                for s in scores.iter_mut() {
                    *s += running_score;
                }
            }
            // Top 2k continuations over all beams.
            let best = top_k(rows, keep);
            let candidates: Vec<(usize, u32, f32, bool)> = best
                .iter()
                .map(|&idx| {
                    let (beam, token) = (idx / vocab, (idx % vocab) as u32);
                    let hit = token == special.eos || cur_len + 1 >= p.max_length;
                    (beam, token, rows[idx], hit)
                })
                .collect();
            all_hit &= candidates.iter().all(|c| c.3);
            let extend = |c: &(usize, u32, f32, bool)| {
                let mut seq = input.running[c.0].0.clone();
                seq.push(c.1);
                seq
            };
            // Running beams for the next step: the best k that did not end.
            let running_scores: Vec<f32> = candidates
                .iter()
                .map(|c| c.2 + if c.3 { MASKED } else { 0.0 })
                .collect();
            let next_running: Vec<(Vec<u32>, f32)> = top_k(&running_scores, k)
                .into_iter()
                .map(|j| {
                    origins.push(i * k + candidates[j].0);
                    (extend(&candidates[j]), running_scores[j])
                })
                .collect();
            // Finished slots: merge the top-k candidates that ended into them.
            let full = input.finished.iter().all(|f| f.2) && early == EarlyStopping::Finished;
            let norm = ((cur_len + 1 - 1) as f64).powf(lp as f64) as f32;
            let mut merged: Vec<(Vec<u32>, f32, bool)> = std::mem::take(&mut input.finished);
            for (j, c) in candidates.iter().enumerate() {
                let ended = c.3 && j < k;
                let mut score = c.2 / norm;
                if full {
                    score += MASKED;
                }
                if !input.improvable {
                    score += MASKED;
                }
                if !ended {
                    score += MASKED;
                }
                merged.push((extend(c), score, ended));
            }
            let scores: Vec<f32> = merged.iter().map(|m| m.1).collect();
            let chosen = top_k(&scores, k);
            let mut slots: Vec<Option<(Vec<u32>, f32, bool)>> =
                merged.into_iter().map(Some).collect();
            input.finished = chosen
                .into_iter()
                .map(|j| slots[j].take().expect("top_k indices are distinct"))
                .collect();
            input.running = next_running;
        }
        decoder.reorder(&origins)?;
        cur_len += 1;
        // Can a running beam still beat the worst finished hypothesis?
        for input in &mut state {
            let best_len = if early == EarlyStopping::Never && lp > 0.0 {
                p.max_length - 1
            } else {
                cur_len - 1
            };
            let best_possible = input.running[0].1 / (best_len as f64).powf(lp as f64) as f32;
            let worst = input
                .finished
                .iter()
                .map(|f| f.1)
                .fold(f32::INFINITY, f32::min);
            input.improvable &= input
                .finished
                .iter()
                .any(|f| best_possible > if f.2 { worst } else { MASKED });
        }
        let improvable = state.iter().any(|s| s.improvable);
        let all_finished = state.iter().all(|s| s.finished.iter().all(|f| f.2));
        let open = !(all_finished && early == EarlyStopping::Finished);
        if !(improvable && open && !all_hit) {
            break;
        }
    }
    let mut best: Vec<Vec<u32>> = state
        .into_iter()
        .map(|s| {
            s.finished
                .into_iter()
                .next()
                .map(|f| f.0)
                .unwrap_or_default()
        })
        .collect();
    // `transformers` fills beam outputs with `pad_token_id or eos_token_id`: a pad id of 0
    // (T5's) is falsy there, so such outputs are filled with end-of-sequence tokens.
    let fill = if special.pad != 0 {
        special.pad
    } else {
        special.eos
    };
    let width = best.iter().map(Vec::len).max().unwrap_or(0);
    for seq in &mut best {
        seq.resize(width, fill);
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetition_penalty_lowers_seen_tokens_by_sign() {
        let mut scores = [2.0, -2.0, 3.0, -1.0];
        // Token 1 twice: penalised once.
        repetition_penalty(&[0, 1, 1], &mut scores, 2.0);
        assert_eq!(scores, [1.0, -4.0, 3.0, -1.0]);
        let mut scores = [2.0, -2.0];
        repetition_penalty(&[0, 1], &mut scores, 0.5);
        assert_eq!(scores, [4.0, -1.0]);
    }

    #[test]
    fn ngrams_that_occurred_are_banned() {
        // Bigrams so far: (5,6) (6,5) (5,7); the sequence ends in 5, so 6 and 7 are banned.
        let mut scores = [0.0f32; 8];
        ban_repeated_ngrams(&[5, 6, 5, 7, 5], &mut scores, 2);
        let banned: Vec<usize> = (0..8).filter(|&t| scores[t].is_infinite()).collect();
        assert_eq!(banned, [6, 7]);
        // Trigrams: (1,2,3) (2,3,1) (3,1,2); suffix (1,2) bans 3 only.
        let mut scores = [0.0f32; 4];
        ban_repeated_ngrams(&[1, 2, 3, 1, 2], &mut scores, 3);
        assert_eq!(scores, [0.0, 0.0, 0.0, f32::NEG_INFINITY]);
        // Too short for a complete n-gram: nothing banned.
        let mut scores = [0.0f32; 4];
        ban_repeated_ngrams(&[1, 1], &mut scores, 3);
        assert_eq!(scores, [0.0; 4]);
    }

    #[test]
    fn top_k_orders_by_score_then_index() {
        assert_eq!(top_k(&[1.0, 3.0, 3.0, -1.0, 2.0], 3), [1, 2, 4]);
        assert_eq!(top_k(&[f32::NEG_INFINITY, 0.5], 5), [1, 0]);
    }

    /// A decoder whose next-token log-probabilities depend only on the last token: a fixed
    /// table, so beam search can be followed by hand.
    struct Table {
        rows: usize,
        last: Vec<u32>,
        table: Vec<Vec<f32>>,
        reorders: Vec<Vec<usize>>,
    }

    impl StepDecoder for Table {
        fn step(&mut self, tokens: &[u32]) -> Result<Vec<f32>> {
            assert_eq!(tokens.len(), self.rows);
            self.last = tokens.to_vec();
            Ok(tokens
                .iter()
                .flat_map(|&t| self.table[t as usize].iter().map(|p| p.ln()))
                .collect())
        }

        fn reorder(&mut self, rows: &[usize]) -> Result<()> {
            self.reorders.push(rows.to_vec());
            Ok(())
        }
    }

    const SPECIAL: SpecialTokens = SpecialTokens {
        decoder_start: 0,
        eos: 1,
        pad: 3,
        forced_bos: None,
        forced_eos: None,
    };

    /// Tokens: 0 start, 1 eos, 2 "a", 3 pad (never likely).
    fn table() -> Vec<Vec<f32>> {
        vec![
            vec![0.0001, 0.4, 0.5999, 0.0], // after start: eos .4, a .6
            vec![0.0001, 0.9999, 0.0, 0.0], // after eos
            vec![0.0002, 0.7, 0.2998, 0.0], // after a: eos .7, a .3
            vec![0.25, 0.25, 0.25, 0.25],
        ]
    }

    #[test]
    fn greedy_stops_each_row_and_pads() {
        let mut decoder = Table {
            rows: 1,
            last: vec![],
            table: table(),
            reorders: vec![],
        };
        let options = DecodingOptions {
            max_new_tokens: 5,
            ..DecodingOptions::default()
        };
        let out = generate(&mut decoder, 1, 4, SPECIAL, &options).unwrap();
        // a (.6), then eos (.7).
        assert_eq!(out, [vec![0, 2, 1]]);
        // min_new_tokens 3 masks eos for three steps: a, a, a, then eos.
        let options = DecodingOptions {
            max_new_tokens: 5,
            min_new_tokens: 3,
            ..DecodingOptions::default()
        };
        let out = generate(&mut decoder, 1, 4, SPECIAL, &options).unwrap();
        assert_eq!(out, [vec![0, 2, 2, 2, 1]]);
    }

    #[test]
    fn beam_search_ranks_finished_hypotheses_by_normalised_score() {
        // Two beams, max 3 new tokens. Step 1 ends "eos" (log .4 = -0.916, length 1) and keeps
        // "a" (log .5999 = -0.511) and "start" (-9.21) running. Step 2 ends "a eos" (-0.868,
        // length 2) and keeps "a a" (-1.716). Step 3 hits the length limit: "a a eos" (-2.072).
        let run = |lp: f32, early: EarlyStopping| {
            let mut decoder = Table {
                rows: 2,
                last: vec![],
                table: table(),
                reorders: vec![],
            };
            let options = DecodingOptions {
                num_beams: 2,
                max_new_tokens: 3,
                length_penalty: lp,
                early_stopping: early,
                ..DecodingOptions::default()
            };
            let out = generate(&mut decoder, 1, 4, SPECIAL, &options).unwrap();
            (out, decoder.reorders)
        };
        // Length penalty 1: "a eos" scores -0.434 and beats "eos" (-0.916) and "a a eos"
        // (-0.691). After step 2 the best running beam could still score -1.716/2 = -0.858 >
        // -0.916, so the heuristic runs a third step; early stopping ends after step 2, once
        // both slots are full.
        let (out, reorders) = run(1.0, EarlyStopping::Heuristic);
        assert_eq!(out, [vec![0, 2, 1]]);
        assert_eq!(reorders, [vec![0, 0], vec![0, 0], vec![0, 0]]);
        let (out, reorders) = run(1.0, EarlyStopping::Finished);
        assert_eq!(out, [vec![0, 2, 1]]);
        assert_eq!(reorders.len(), 2);
        // Length penalty -3 favours short outputs: "eos" scores -0.916, "a eos" -0.868·8; the
        // best running score (-1.716·8) cannot improve, so the search stops after step 2.
        let (out, reorders) = run(-3.0, EarlyStopping::Never);
        assert_eq!(out, [vec![0, 1]]);
        assert_eq!(reorders.len(), 2);
    }

    #[test]
    fn bad_options_are_config_errors() {
        let mut decoder = Table {
            rows: 1,
            last: vec![],
            table: table(),
            reorders: vec![],
        };
        for options in [
            DecodingOptions {
                num_beams: 0,
                ..DecodingOptions::default()
            },
            DecodingOptions {
                max_new_tokens: 0,
                ..DecodingOptions::default()
            },
            DecodingOptions {
                repetition_penalty: 0.0,
                ..DecodingOptions::default()
            },
            DecodingOptions {
                length_penalty: f32::NAN,
                ..DecodingOptions::default()
            },
        ] {
            let err = generate(&mut decoder, 1, 4, SPECIAL, &options).unwrap_err();
            assert!(matches!(err, Error::Config(_)), "{err}");
        }
    }
}
