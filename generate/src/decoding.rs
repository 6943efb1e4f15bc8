//! Greedy and beam search over any incremental decoder, reproducing `transformers`' `generate()`
//! (version 5) token for token.
//!
//! The search runs on the host over `f32` scores; the model behind [`StepDecoder`] feeds one
//! token per row and keeps its own caches.
//!
//! # Scores reduced where they are computed
//! On a GPU, copying `rows × vocab` logits to the host every step (25 MB for 32 inputs × 4
//! beams × BART's 50,265 tokens) and taking `log_softmax` and the top `2k` there cost more
//! than the decoder step itself. When the logits live on a GPU and every row gets the same
//! processors (no repetition penalty, no n-gram ban: the processors that read a row's own
//! tokens), the step is reduced on the device: `log_softmax`, the end-of-sequence ban of
//! `min_new_tokens`, then each row's best `2k + 1` scores by repeated `argmax` (forced tokens
//! need no scores at all; equal scores are taken lowest token first, as on the host). Only
//! those come to the host, where each input's best `2k` of its `k` rows' candidates are
//! chosen with the host path's order (score, then flat index). That is exact, because any of
//! the input's best `2k` is among its row's best `2k`, unless two different scores of a row
//! become equal at its cut once the running score is added (the `+ 1` shows it); then the
//! step falls back to the full copy. (Half-precision logits tie often: a fallback on every
//! tie made bf16 beam search as slow as the copy.) Greedy search takes the device's `argmax`
//! (on equal scores it may pick another index than the host's lowest-index rule). On the
//! CPU the host path runs, as before. Rows are laid out input-major: with `k` beams, input
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

use candle_core::{DType, Tensor, D};
use metamorph_data::{Error, Result};
use rayon::prelude::*;

use metamorph_models::device::with_cpu_f32;
use metamorph_models::encoders::log_softmax_in_place as log_softmax;
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

impl Processors<'_> {
    /// Whether every row gets the same processors, so that scores can be reduced on the device:
    /// no repetition penalty and no n-gram ban (the two that read a row's own tokens).
    fn uniform(&self) -> bool {
        self.options.repetition_penalty == 1.0 && self.options.no_repeat_ngram_size == 0
    }

    /// The token every row is forced to when its decoder tokens number `len` (start token
    /// included), as [`apply`](Self::apply) forces it: BOS at the first step, EOS at the last
    /// (which wins when both apply).
    fn forced(&self, len: usize) -> Option<u32> {
        let mut forced = None;
        if len == 1 {
            forced = self.special.forced_bos.or(forced);
        }
        if len + 1 == self.max_length {
            forced = self.special.forced_eos.or(forced);
        }
        forced
    }

    /// Whether end-of-sequence is banned when rows hold `len` decoder tokens.
    fn bans_eos(&self, len: usize) -> bool {
        len - 1 < self.options.min_new_tokens
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

/// The indices of the `k` largest `values`, largest first; ties keep the lower index first.
///
/// A few out of many (beam search's `2k` of `k × vocabulary`) are kept in one pass over the
/// values, in a short sorted list that most values fail to enter with one comparison: no
/// index vector of the whole row is built and partitioned, as for larger `k`.
pub fn top_k(values: &[f32], k: usize) -> Vec<usize> {
    if k <= 64 && k * 64 <= values.len() {
        return top_few(values, k);
    }
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

/// [`top_k`] for small `k`: (value, index) pairs best first, scanned in index order, so that a
/// value equal to a kept one enters after it (the lower index first).
fn top_few(values: &[f32], k: usize) -> Vec<usize> {
    use std::cmp::Ordering::Less;
    let mut best: Vec<(f32, usize)> = Vec::with_capacity(k + 1);
    for (i, &v) in values.iter().enumerate() {
        if best.len() == k && best[k - 1].0.total_cmp(&v) != Less {
            continue;
        }
        let at = best.partition_point(|&(b, _)| b.total_cmp(&v) != Less);
        best.insert(at, (v, i));
        best.truncate(k);
    }
    best.into_iter().map(|(_, i)| i).collect()
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
    search(decoder, inputs, vocab, special, options, false)
}

/// [`generate`], reducing scores with tensor operations also when the logits are on the CPU
/// (`reduce_on_cpu`: the tests check the device path against the host path that way).
fn search(
    decoder: &mut dyn StepDecoder,
    inputs: usize,
    vocab: usize,
    special: SpecialTokens,
    options: &DecodingOptions,
    reduce_on_cpu: bool,
) -> Result<Vec<Vec<u32>>> {
    let processors = Processors {
        options,
        special,
        max_length: options.max_new_tokens + 1,
    };
    let reduce = Reduce { reduce_on_cpu };
    if options.num_beams == 1 {
        greedy(decoder, inputs, vocab, &processors, reduce)
    } else {
        beam_search(decoder, inputs, vocab, &processors, reduce)
    }
}

/// Where a step's scores are reduced (see the module docs).
#[derive(Clone, Copy)]
struct Reduce {
    reduce_on_cpu: bool,
}

impl Reduce {
    /// Whether to reduce `logits` with tensor operations where they are.
    fn in_place(self, logits: &Tensor, p: &Processors, vocab: usize) -> bool {
        (self.reduce_on_cpu || !logits.device().is_cpu())
            && p.uniform()
            && (p.special.eos as usize) < vocab
            && [p.special.forced_bos, p.special.forced_eos]
                .iter()
                .flatten()
                .all(|&t| (t as usize) < vocab)
            && 2 * p.options.num_beams < vocab
    }
}

fn model_err(message: String) -> Error {
    Error::Model {
        model: "decoder".into(),
        message,
    }
}

/// The logits of a step as host values, `rows × vocab`.
fn host_logits(logits: &Tensor) -> Result<Vec<f32>> {
    logits
        .flatten_all()
        .and_then(|l| l.to_vec1::<f32>())
        .map_err(|e| model_err(format!("reading logits: {e}")))
}

/// `scores` with column `token` set to `-inf` in every row.
fn ban_column(scores: &Tensor, token: u32) -> candle_core::Result<Tensor> {
    let rows = scores.dim(0)?;
    let column = Tensor::full(f32::NEG_INFINITY, (rows, 1), scores.device())?;
    scores.slice_scatter(&column, 1, token as usize)
}

/// Greedy search's next token of every row, reduced where `logits` are.
fn argmax_rows(logits: &Tensor, p: &Processors, len: usize) -> candle_core::Result<Vec<u32>> {
    let rows = logits.dim(0)?;
    if let Some(token) = p.forced(len) {
        return Ok(vec![token; rows]);
    }
    let mut scores = logits.to_dtype(DType::F32)?;
    if p.bans_eos(len) {
        scores = ban_column(&scores, p.special.eos)?;
    }
    scores
        .argmax_keepdim(D::Minus1)?
        .flatten_all()?
        .to_vec1::<u32>()
}

/// `log_softmax` over the last dimension.
fn log_softmax_rows(logits: &Tensor) -> candle_core::Result<Tensor> {
    let max = logits.max_keepdim(D::Minus1)?;
    let shifted = logits.broadcast_sub(&max)?;
    let log_sum = shifted.exp()?.sum_keepdim(D::Minus1)?.log()?;
    shifted.broadcast_sub(&log_sum)
}

/// One input's best continuations: (flat index `beam · vocab + token`, score), best first.
type Candidates = Vec<(usize, f32)>;

/// Beam search's best `2k` continuations of every input as (flat index `beam · vocab + token`,
/// score), best first, reduced where `logits` are; `None` when two different scores of a row
/// become equal at its cut once the running score is added (then the host path decides).
/// `running` holds each row's accumulated score.
fn beam_candidates(
    logits: &Tensor,
    p: &Processors,
    len: usize,
    running: &[f32],
    vocab: usize,
) -> candle_core::Result<Option<Vec<Candidates>>> {
    let k = p.options.num_beams;
    let keep = 2 * k;
    let rows = running.len();
    let inputs = rows / k;
    // Per row: (token, score before adding the running score), best first.
    let per_row: Vec<Vec<(u32, f32)>> = if let Some(token) = p.forced(len) {
        // Every score is -inf but the forced token's 0 (`force`); the host order puts the
        // -inf ones by index, so the first ones of each row stand for them.
        (0..rows)
            .map(|_| {
                std::iter::once((token, 0.0))
                    .chain(
                        (0..vocab as u32)
                            .filter(|&t| t != token)
                            .take(keep)
                            .map(|t| (t, f32::NEG_INFINITY)),
                    )
                    .collect()
            })
            .collect()
    } else {
        let mut scores = log_softmax_rows(&logits.to_dtype(DType::F32)?)?;
        if p.bans_eos(len) {
            scores = ban_column(&scores, p.special.eos)?;
        }
        let scores = scores.contiguous()?;
        let device = scores.device();
        let masked = Tensor::full(f32::NEG_INFINITY, (rows, 1), device)?;
        // `vocab − token`: among a row's equal maxima the largest is the lowest token, the
        // host's tie rule (CUDA's argmax returns any of them). Exact in f32 up to 2^24 tokens.
        let lowest_first = Tensor::arange(0u32, vocab as u32, device)?
            .to_dtype(DType::F32)?
            .affine(-1.0, vocab as f64)?
            .unsqueeze(0)?;
        let zeros = scores.zeros_like()?;
        let (mut ids, mut values) = (Vec::with_capacity(keep + 1), Vec::with_capacity(keep + 1));
        for _ in 0..=keep {
            let max = scores.max_keepdim(D::Minus1)?;
            let at_max = scores.broadcast_eq(&max)?;
            let id = at_max
                .where_cond(&lowest_first.broadcast_as((rows, vocab))?, &zeros)?
                .argmax_keepdim(D::Minus1)?;
            values.push(max);
            scores.scatter_set(&id, &masked, D::Minus1)?;
            ids.push(id);
        }
        let ids = Tensor::cat(&ids, 1)?.to_vec2::<u32>()?;
        let values = Tensor::cat(&values, 1)?.to_vec2::<f32>()?;
        ids.into_iter()
            .zip(values)
            .map(|(i, v)| i.into_iter().zip(v).collect())
            .collect()
    };
    let mut out = Vec::with_capacity(inputs);
    for i in 0..inputs {
        let mut candidates: Candidates = Vec::with_capacity(k * (keep + 1));
        for b in 0..k {
            let r = i * k + b;
            let row: Vec<(usize, f32)> = per_row[r]
                .iter()
                .map(|&(token, score)| (b * vocab + token as usize, score + running[r]))
                .collect();
            // Scores that differed before adding the running score and are equal after it
            // may order otherwise on the host (by index): then let the host decide.
            let (last, next) = (per_row[r][keep - 1].1, per_row[r].get(keep).map(|c| c.1));
            if next.is_some_and(|next| next != last && row[keep - 1].1 == row[keep].1) {
                return Ok(None);
            }
            candidates.extend(row.into_iter().take(keep));
        }
        candidates.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        candidates.truncate(keep);
        out.push(candidates);
    }
    Ok(Some(out))
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

fn check_dims(logits: &Tensor, rows: usize, vocab: usize) -> Result<()> {
    if logits.dims() != [rows, vocab] {
        return Err(model_err(format!(
            "returned logits of shape {:?} for {rows} rows of vocabulary {vocab}",
            logits.dims()
        )));
    }
    Ok(())
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
    reduce: Reduce,
) -> Result<Vec<Vec<u32>>> {
    let special = p.special;
    let mut seqs: Vec<Vec<u32>> = vec![vec![special.decoder_start]; rows];
    let mut unfinished = vec![true; rows];
    while unfinished.iter().any(|&u| u) {
        let last: Vec<u32> = seqs.iter().map(|s| s[s.len() - 1]).collect();
        let logits = decoder.step_tensor(&last)?;
        let len = seqs[0].len();
        let picked: Vec<u32> = if reduce.in_place(&logits, p, vocab) {
            check_dims(&logits, rows, vocab)?;
            argmax_rows(&logits, p, len).map_err(|e| model_err(format!("argmax: {e}")))?
        } else {
            let mut logits = host_logits(&logits)?;
            check_logits(&logits, rows, vocab)?;
            logits
                .chunks_mut(vocab)
                .enumerate()
                .map(|(r, scores)| {
                    if unfinished[r] {
                        p.apply(&seqs[r], scores);
                        top_k(scores, 1)[0] as u32
                    } else {
                        special.pad
                    }
                })
                .collect()
        };
        for r in 0..rows {
            let next = if unfinished[r] {
                picked[r]
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
    reduce: Reduce,
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
        let logits = decoder.step_tensor(&last)?;
        let running: Vec<f32> = state
            .iter()
            .flat_map(|s| s.running.iter().map(|r| r.1))
            .collect();
        let reduced = if reduce.in_place(&logits, p, vocab) {
            check_dims(&logits, inputs * k, vocab)?;
            beam_candidates(&logits, p, cur_len, &running, vocab)
                .map_err(|e| model_err(format!("beam scores: {e}")))?
        } else {
            None
        };
        // Top 2k continuations of every input over all its beams: (flat index, score).
        let best: Vec<Candidates> = match reduced {
            Some(best) => best,
            None => {
                // Inputs are independent: each thread takes whole inputs' `k` rows, copied
                // into its own scores there (one serial copy of every row was a tenth of the
                // calling thread's time at 32 inputs × 4 beams while the workers waited).
                let search = |logits: &[f32]| -> Result<Vec<Candidates>> {
                    check_logits(logits, inputs * k, vocab)?;
                    Ok(state
                        .par_iter()
                        .zip(logits.par_chunks(k * vocab))
                        .map(|(input, rows)| {
                            let mut rows = rows.to_vec();
                            for (b, scores) in rows.chunks_mut(vocab).enumerate() {
                                log_softmax(scores);
                                p.apply(&input.running[b].0, scores);
                                let running_score = input.running[b].1;
                                for s in scores.iter_mut() {
                                    *s += running_score;
                                }
                            }
                            top_k(&rows, keep)
                                .into_iter()
                                .map(|idx| (idx, rows[idx]))
                                .collect()
                        })
                        .collect())
                };
                let logits = logits
                    .flatten_all()
                    .map_err(|e| model_err(format!("reading logits: {e}")))?;
                let on_host = logits.device().is_cpu()
                    && logits.dtype() == DType::F32
                    && logits.is_contiguous();
                if on_host {
                    with_cpu_f32(&logits, search)
                        .map_err(|e| model_err(format!("reading logits: {e}")))??
                } else {
                    search(&host_logits(&logits)?)?
                }
            }
        };
        let mut all_hit = true;
        let mut origins = Vec::with_capacity(inputs * k);
        for (i, (input, best)) in state.iter_mut().zip(&best).enumerate() {
            let candidates: Vec<(usize, u32, f32, bool)> = best
                .iter()
                .map(|&(idx, score)| {
                    let (beam, token) = (idx / vocab, (idx % vocab) as u32);
                    let hit = token == special.eos || cur_len + 1 >= p.max_length;
                    (beam, token, score, hit)
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
    fn top_few_matches_the_full_selection() {
        let mut seed = 7u64;
        for n in [64, 500, 5000] {
            // Values from a small set, so that ties are common; one NaN and infinities too.
            let mut values: Vec<f32> = (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    ((seed >> 33) % 17) as f32 * 0.5 - 4.0
                })
                .collect();
            values[n / 2] = f32::NAN;
            values[n / 3] = f32::INFINITY;
            values[n / 5] = f32::NEG_INFINITY;
            for k in [1, 2, 8] {
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by(|a, b| values[*b].total_cmp(&values[*a]).then(a.cmp(b)));
                order.truncate(k);
                assert_eq!(top_few(&values, k), order, "n {n} k {k}");
                assert_eq!(top_k(&values, k), order, "n {n} k {k}");
            }
        }
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

    /// A decoder whose logits are a seeded function of each row's tokens so far (so beams that
    /// share a prefix agree), over a vocabulary of 40.
    struct Hashed {
        seqs: Vec<Vec<u32>>,
        /// Logits rounded to multiples of this (0: not rounded), for ties as in bf16.
        quantum: f32,
    }

    const HASHED_VOCAB: usize = 40;

    impl StepDecoder for Hashed {
        fn step(&mut self, tokens: &[u32]) -> Result<Vec<f32>> {
            if self.seqs.is_empty() {
                self.seqs = vec![Vec::new(); tokens.len()];
            }
            let mut out = Vec::with_capacity(tokens.len() * HASHED_VOCAB);
            for (seq, &t) in self.seqs.iter_mut().zip(tokens) {
                seq.push(t);
                let mut h = seq.iter().fold(0x9E37_79B9_7F4A_7C15u64, |h, &t| {
                    (h ^ t as u64).wrapping_mul(0x100_0000_01B3)
                });
                for _ in 0..HASHED_VOCAB {
                    h = h
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let x = ((h >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0;
                    out.push(if self.quantum > 0.0 {
                        (x / self.quantum).round() * self.quantum
                    } else {
                        x
                    });
                }
            }
            Ok(out)
        }

        fn reorder(&mut self, rows: &[usize]) -> Result<()> {
            self.seqs = rows.iter().map(|&r| self.seqs[r].clone()).collect();
            Ok(())
        }
    }

    #[test]
    fn scores_reduced_as_tensors_give_the_host_path_outputs() {
        let specials = [
            SPECIAL,
            SpecialTokens {
                forced_bos: Some(5),
                forced_eos: Some(1),
                ..SPECIAL
            },
        ];
        let mut checked = 0;
        for special in specials {
            for num_beams in [1, 2, 4] {
                for (min_new_tokens, length_penalty, early_stopping) in [
                    (0, 1.0, EarlyStopping::Heuristic),
                    (3, 2.0, EarlyStopping::Finished),
                    (1, 0.6, EarlyStopping::Never),
                ] {
                    let options = DecodingOptions {
                        num_beams,
                        max_new_tokens: 9,
                        min_new_tokens,
                        length_penalty,
                        early_stopping,
                        ..DecodingOptions::default()
                    };
                    let inputs = 3;
                    for quantum in [0.0, 0.5] {
                        let run = |on_cpu: bool| {
                            let mut decoder = Hashed {
                                seqs: Vec::new(),
                                quantum,
                            };
                            let vocab = HASHED_VOCAB;
                            search(&mut decoder, inputs, vocab, special, &options, on_cpu).unwrap()
                        };
                        assert_eq!(run(true), run(false), "{options:?} {special:?} {quantum}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 36);
        // The table decoder's hand-checked cases too.
        for num_beams in [1, 2] {
            let options = DecodingOptions {
                num_beams,
                max_new_tokens: 5,
                ..DecodingOptions::default()
            };
            let run = |on_cpu: bool| {
                let mut decoder = Table {
                    rows: num_beams,
                    last: vec![],
                    table: table(),
                    reorders: vec![],
                };
                search(&mut decoder, 1, 4, SPECIAL, &options, on_cpu).unwrap()
            };
            assert_eq!(run(true), run(false));
        }
    }

    #[test]
    fn beam_candidates_are_the_host_top_2k() {
        let (k, inputs, vocab) = (3, 2, HASHED_VOCAB);
        let mut decoder = Hashed {
            seqs: Vec::new(),
            quantum: 0.0,
        };
        let values = decoder.step(&[7, 8, 9, 10, 11, 12]).unwrap();
        let logits = Tensor::from_vec(
            values.clone(),
            (inputs * k, vocab),
            &candle_core::Device::Cpu,
        )
        .unwrap();
        let options = DecodingOptions {
            num_beams: k,
            min_new_tokens: 2,
            ..DecodingOptions::default()
        };
        let p = Processors {
            options: &options,
            special: SPECIAL,
            max_length: 10,
        };
        let running = [-0.5, -1.25, -3.0, -0.75, -0.8, -2.5];
        let got = beam_candidates(&logits, &p, 2, &running, vocab)
            .unwrap()
            .expect("no tie at the cut");
        for (i, got) in got.iter().enumerate() {
            let mut rows = values[i * k * vocab..(i + 1) * k * vocab].to_vec();
            for (b, scores) in rows.chunks_mut(vocab).enumerate() {
                log_softmax(scores);
                p.apply(&[0, 2], scores);
                scores.iter_mut().for_each(|s| *s += running[i * k + b]);
            }
            let want: Vec<usize> = top_k(&rows, 2 * k);
            assert_eq!(got.iter().map(|c| c.0).collect::<Vec<_>>(), want);
            for &(idx, score) in got {
                assert!((score - rows[idx]).abs() < 1e-5, "{score} vs {}", rows[idx]);
            }
            assert!(
                got.iter().all(|c| c.0 % vocab != SPECIAL.eos as usize),
                "eos banned"
            );
        }
    }
}
