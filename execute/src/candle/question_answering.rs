//! Extractive question answering: windows over long contexts and the span decoding of
//! transformers' question-answering pipeline (`QuestionAnsweringPipeline` with a fast
//! tokenizer, `top_k = 1`, `align_to_words = True`), reproduced rule for rule so that answers,
//! character offsets and scores agree with it:
//!
//! * **Windows**: question and context are encoded as a pair with `only_second` truncation to
//!   `max_seq_len` tokens and `doc_stride` tokens of overlap; the first encoding and its
//!   overflowing encodings are the windows (the tokenizer's own overflow, as the pipeline).
//!   Defaults as the pipeline: `max_seq_len = min(model limit, 384)`,
//!   `doc_stride = min(max_seq_len / 2, 128)`, `max_answer_len = 15`. A question so long that
//!   the context room of a window is not larger than `doc_stride` is an error naming the example
//!   (the tokenizer would panic; the pipeline fails too).
//! * **Masking**: only context tokens (sequence 1) and the CLS token (the first token when it is
//!   special, and every later token with its id) may be in the answer; the others get logit
//!   −10000 before the softmax, which runs over the whole window (padding excluded).
//! * **Null score**: `P_start(CLS) · P_end(CLS)` of the window's first token; across windows the
//!   smallest. Then CLS is excluded from spans.
//! * **Candidates** of a window: the [`CANDIDATES_PER_WINDOW`] (the pipeline's
//!   `top_k * 2 + 10`) largest `P_start(s) · P_end(e)` with `s ≤ e < s + max_answer_len`, both
//!   allowed, best first (ties in (s, e) order).
//! * **Merging** (transformers ≥ 4.3x): candidates, windows in order, become answers by their
//!   text; a candidate whose text equals an earlier answer's ignoring case adds its score to
//!   that answer (which keeps its offsets), so a span found in two overlapping windows, or
//!   several spans with one text, count together. The best answer is the first with the
//!   highest (summed) score.
//! * **Null answer** (SQuAD 2.0): `""` at 0..0 with the null score when
//!   `null score − best answer score > null_threshold`; `null_threshold = 0` is the pipeline's
//!   `handle_impossible_answer=True`, no threshold (the default) its `False` (never null).
//! * **Offsets**: the span is widened to whole words (`token_to_word` / `word_to_chars` of the
//!   window; raw token offsets for tokens without a word) and returned as **character** (Unicode
//!   scalar) offsets into the original context, like Python's string indices; the answer text is
//!   the context's characters in that range.

use std::time::Instant;

use metamorph_data::{AnswerSpan, Error, Example, Prediction, Result, Task};
use tokenizers::processors::PostProcessorWrapper;
use tokenizers::{Encoding, PostProcessor, Tokenizer, TruncationParams, TruncationStrategy};

use super::batching::{Batch, BatchOptions, Batcher, Encoded, PaddingReport, Row};
use super::{model_error, required, Head, TaskEncoder};
use crate::Model;

/// Logit given to tokens that cannot be in the answer (the pipeline's value).
const MASKED_LOGIT: f32 = -10000.0;

/// Settings of a [`QuestionAnsweringModel`].
#[derive(Clone, Debug, PartialEq)]
pub struct QaOptions {
    max_seq_len: Option<usize>,
    doc_stride: Option<usize>,
    max_answer_len: usize,
    null_threshold: Option<f32>,
    batch: BatchOptions,
}

impl Default for QaOptions {
    /// The pipeline's defaults: `max_seq_len = min(model limit, 384)`,
    /// `doc_stride = min(max_seq_len / 2, 128)`, `max_answer_len = 15`, never a null answer;
    /// [`BatchOptions::default`].
    fn default() -> Self {
        QaOptions {
            max_seq_len: None,
            doc_stride: None,
            max_answer_len: 15,
            null_threshold: None,
            batch: BatchOptions::default(),
        }
    }
}

impl QaOptions {
    /// Tokens per window, question and special tokens included.
    pub fn with_max_seq_len(mut self, n: usize) -> Self {
        self.max_seq_len = Some(n);
        self
    }

    /// Tokens of overlap between consecutive windows of a long context.
    pub fn with_doc_stride(mut self, n: usize) -> Self {
        self.doc_stride = Some(n);
        self
    }

    /// Longest answer, in tokens (default 15).
    pub fn with_max_answer_len(mut self, n: usize) -> Self {
        self.max_answer_len = n;
        self
    }

    /// Answer `""` when `null score − best span score > threshold` (SQuAD 2.0 models; 0 is
    /// the pipeline's `handle_impossible_answer=True`). `None` (default): always a span.
    pub fn with_null_threshold(mut self, threshold: Option<f32>) -> Self {
        self.null_threshold = threshold;
        self
    }

    /// How windows are packed into batches.
    pub fn with_batch(mut self, batch: BatchOptions) -> Self {
        self.batch = batch;
        self
    }
}

/// The windows of one (question, context) pair and what decoding needs of them.
#[derive(Debug)]
pub struct QaWindows {
    /// One encoding per window, character offsets.
    pub encodings: Vec<Encoding>,
    /// Per window, per token: whether the token may be in the answer.
    pub allowed: Vec<Vec<bool>>,
}

/// Cuts (question, context) pairs into windows as the pipeline's fast tokenizer does.
///
/// The two texts are encoded apart (no post-processing, truncation off) and joined by the
/// tokenizer's own `post_process` with `only_second` truncation and the stride, which makes the
/// overflowing windows and adds special tokens, segment ids and sequence ids. Encoding the pair
/// in one call with truncation on would be shorter, but the Rust `tokenizers` 0.23.2 stops
/// tokenizing a truncated sequence at `max_length` tokens, so the overflow (and every window
/// after the second) would be lost; Python's binding (0.23.3) does not.
#[derive(Clone)]
pub struct WindowTokenizer {
    plain: Tokenizer,
    truncating: Tokenizer,
    special_tokens: usize,
    max_seq_len: usize,
    doc_stride: usize,
}

impl WindowTokenizer {
    /// Windows of `max_seq_len` tokens (question and special tokens included) overlapping by
    /// `doc_stride` tokens, with `tokenizer`'s vocabulary and template.
    ///
    /// # Errors
    /// The tokenizer's message when the truncation cannot be set.
    pub fn new(
        tokenizer: &Tokenizer,
        max_seq_len: usize,
        doc_stride: usize,
    ) -> std::result::Result<Self, String> {
        let mut truncating = tokenizer.clone();
        truncating.with_padding(None);
        truncating
            .with_truncation(Some(TruncationParams {
                max_length: max_seq_len,
                stride: doc_stride,
                strategy: TruncationStrategy::OnlySecond,
                ..Default::default()
            }))
            .map_err(|e| e.to_string())?;
        let special_tokens = truncating
            .get_post_processor()
            .map_or(0, |p| p.added_tokens(true));
        // The parts are post-processed once, when they are joined: a second pass would trim
        // byte-level offsets twice (RoBERTa's `trim_offsets`).
        let mut plain = truncating.clone();
        plain
            .with_truncation(None)
            .map_err(|e| e.to_string())?
            .with_post_processor(None::<PostProcessorWrapper>);
        Ok(WindowTokenizer {
            plain,
            truncating,
            special_tokens,
            max_seq_len,
            doc_stride,
        })
    }

    /// The windows of `question` and `context`.
    ///
    /// # Errors
    /// A message when tokenization fails, or when the context needs several windows but the
    /// question leaves no more than `doc_stride` tokens of it per window.
    pub fn windows(&self, question: &str, context: &str) -> std::result::Result<QaWindows, String> {
        let q = self
            .plain
            .encode_char_offsets(question, false)
            .map_err(|e| format!("tokenization failed: {e}"))?;
        let mut c = self
            .plain
            .encode_char_offsets(context, false)
            .map_err(|e| format!("tokenization failed: {e}"))?;
        // Segment 1, as a pair encoding gives it: `post_process` sets the segment ids of the
        // first window only, the overflowing windows keep these.
        c.set_type_ids(vec![1; c.len()]);
        let room = self
            .max_seq_len
            .saturating_sub(self.special_tokens + q.len());
        // The tokenizer panics (stride) or fails (no room) here; say why instead.
        if q.len() + c.len() + self.special_tokens > self.max_seq_len && room <= self.doc_stride {
            return Err(format!(
                "field `question` is {} tokens long, which leaves {room} tokens of context per \
                 window, not more than doc_stride {}; raise max_length ({}) or lower doc_stride",
                q.len(),
                self.doc_stride,
                self.max_seq_len
            ));
        }
        let mut first = self
            .truncating
            .post_process(q, Some(c), true)
            .map_err(|e| format!("tokenization failed: {e}"))?;
        let overflowing = first.take_overflowing();
        let encodings: Vec<Encoding> = std::iter::once(first).chain(overflowing).collect();
        let allowed = encodings
            .iter()
            .map(|enc| {
                let ids = enc.get_ids();
                let cls = (enc.get_special_tokens_mask().first() == Some(&1)).then(|| ids[0]);
                enc.get_sequence_ids()
                    .iter()
                    .zip(ids)
                    .map(|(seq, id)| *seq == Some(1) || Some(*id) == cls)
                    .collect()
            })
            .collect();
        Ok(QaWindows { encodings, allowed })
    }
}

/// The best span of one window, in token indices, with its score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowSpan {
    /// First token.
    pub start: usize,
    /// Last token (inclusive).
    pub end: usize,
    /// `P_start(start) · P_end(end)`.
    pub score: f32,
}

/// Masked softmax of one window's logits: tokens not `allowed` get [`MASKED_LOGIT`].
fn masked_softmax(logits: &[f32], allowed: &[bool]) -> Vec<f32> {
    let masked: Vec<f32> = logits
        .iter()
        .zip(allowed)
        .map(|(&l, &ok)| if ok { l } else { MASKED_LOGIT })
        .collect();
    let max = masked.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = masked.iter().map(|&l| (l - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}

/// Candidate spans the pipeline keeps per window (`top_k * 2 + 10` with `top_k = 1`).
pub const CANDIDATES_PER_WINDOW: usize = 12;

/// Decodes one window: its null score (`P_start · P_end` of the first token) and its best
/// `k` candidate spans, best first (see the module doc).
pub fn decode_window(
    start_logits: &[f32],
    end_logits: &[f32],
    allowed: &[bool],
    max_answer_len: usize,
    k: usize,
) -> (f32, Vec<WindowSpan>) {
    let mut start = masked_softmax(start_logits, allowed);
    let mut end = masked_softmax(end_logits, allowed);
    let len = start.len();
    if len == 0 {
        return (0.0, Vec::new());
    }
    let null = start[0] * end[0];
    start[0] = 0.0;
    end[0] = 0.0;
    let mut spans: Vec<WindowSpan> = Vec::new();
    for s in (0..len).filter(|&s| allowed[s]) {
        let last = (s + max_answer_len).min(len);
        for e in (s..last).filter(|&e| allowed[e]) {
            spans.push(WindowSpan {
                start: s,
                end: e,
                score: start[s] * end[e],
            });
        }
    }
    // Stable: equal scores stay in (s, e) order.
    spans.sort_by(|a, b| b.score.total_cmp(&a.score));
    spans.truncate(k);
    (null, spans)
}

/// Whether the null answer wins: `null − best > threshold` (never without a threshold).
fn prefers_null(null: f64, best: f64, threshold: Option<f32>) -> bool {
    threshold.is_some_and(|t| null - best > f64::from(t))
}

/// Character offsets of tokens `start..=end` of a window, widened to whole words of the
/// context (the pipeline's `align_to_words`).
pub fn span_chars(encoding: &Encoding, start: usize, end: usize) -> (usize, usize) {
    let word_chars = |token: usize| {
        let (_, word) = encoding.token_to_word(token)?;
        encoding.word_to_chars(word, 1)
    };
    match (word_chars(start), word_chars(end)) {
        (Some((s, _)), Some((_, e))) => (s, e),
        _ => {
            let offsets = encoding.get_offsets();
            (offsets[start].0, offsets[end].1)
        }
    }
}

/// The answer to one (question, context) pair from its windows and each window's start and
/// end logits (`logits[w] = (start, end)`, as long as window `w`).
pub fn decode_answer(
    context: &str,
    windows: &QaWindows,
    logits: &[(&[f32], &[f32])],
    max_answer_len: usize,
    null_threshold: Option<f32>,
) -> AnswerSpan {
    struct Candidate {
        text: String,
        key: String,
        start: usize,
        end: usize,
        score: f64,
    }
    let mut null = f32::INFINITY;
    let mut answers: Vec<Candidate> = Vec::new();
    for (w, (start, end)) in logits.iter().enumerate() {
        let (window_null, spans) = decode_window(
            start,
            end,
            &windows.allowed[w],
            max_answer_len,
            CANDIDATES_PER_WINDOW,
        );
        null = null.min(window_null);
        for span in spans {
            let (first, last) = span_chars(&windows.encodings[w], span.start, span.end);
            let text: String = context
                .chars()
                .skip(first)
                .take(last.saturating_sub(first))
                .collect();
            let key = text.to_lowercase();
            match answers.iter_mut().find(|a| a.key == key) {
                Some(same) => same.score += f64::from(span.score),
                None => answers.push(Candidate {
                    text,
                    key,
                    start: first,
                    end: last,
                    score: f64::from(span.score),
                }),
            }
        }
    }
    let best = answers
        .into_iter()
        .fold(None::<Candidate>, |best, a| match best {
            Some(b) if b.score >= a.score => Some(b),
            _ => Some(a),
        })
        .filter(|b| !prefers_null(f64::from(null), b.score, null_threshold));
    match best {
        Some(b) => AnswerSpan {
            text: b.text,
            start: u32::try_from(b.start).ok(),
            end: u32::try_from(b.end).ok(),
            score: Some(b.score as f32),
        },
        None => AnswerSpan {
            text: String::new(),
            start: Some(0),
            end: Some(0),
            score: Some(null),
        },
    }
}

/// An extractive QA model under test (SQuAD, DROP) on a `…ForQuestionAnswering` checkpoint:
/// `question` and `context` in, an answer span with character offsets out.
pub struct QuestionAnsweringModel {
    name: String,
    encoder: TaskEncoder,
    windows: WindowTokenizer,
    options: QaOptions,
    batcher: Batcher,
}

impl QuestionAnsweringModel {
    /// The model `name` over `encoder`, which must have the QA head.
    ///
    /// # Errors
    /// [`Error::Config`] for another head, a `max_seq_len` beyond the model's positions, a
    /// `doc_stride` not below `max_seq_len`, `max_answer_len` 0 or a non-finite threshold.
    pub fn try_new(name: &str, encoder: TaskEncoder, options: QaOptions) -> Result<Self> {
        let config_err = |message: String| Error::Config(format!("model `{name}`: {message}"));
        if encoder.head() != Head::QuestionAnswering {
            return Err(config_err(format!(
                "an extractive-qa model needs a question-answering head; the checkpoint has {}",
                encoder.head()
            )));
        }
        let max_positions = encoder.max_positions();
        let max_seq_len = options.max_seq_len.unwrap_or(max_positions.min(384));
        if max_seq_len > max_positions || max_seq_len < 4 {
            return Err(config_err(format!(
                "max_length {max_seq_len} is outside 4..={max_positions} (the model's positions)"
            )));
        }
        let doc_stride = options.doc_stride.unwrap_or((max_seq_len / 2).min(128));
        if doc_stride >= max_seq_len {
            return Err(config_err(format!(
                "doc_stride {doc_stride} must be below max_length {max_seq_len}"
            )));
        }
        if options.max_answer_len == 0 {
            return Err(config_err("max_answer_len must be at least 1".into()));
        }
        if options.null_threshold.is_some_and(|t| !t.is_finite()) {
            return Err(config_err("null_threshold must be a finite number".into()));
        }
        let windows = WindowTokenizer::new(encoder.tokenizer(), max_seq_len, doc_stride)
            .map_err(|e| config_err(format!("cannot set up the tokenizer: {e}")))?;
        let batcher = Batcher::new(name, options.batch, encoder.pad_id());
        Ok(QuestionAnsweringModel {
            name: name.to_string(),
            encoder,
            windows,
            options,
            batcher,
        })
    }

    /// The encoder the model runs.
    pub fn encoder(&self) -> &TaskEncoder {
        &self.encoder
    }

    /// How the model cuts contexts into windows.
    pub fn window_tokenizer(&self) -> &WindowTokenizer {
        &self.windows
    }

    /// Padding totals since the model was loaded.
    pub fn padding_stats(&self) -> PaddingReport {
        self.batcher.stats()
    }

    /// Answers one question about `context` (`id` names it in errors).
    ///
    /// # Errors
    /// As [`Model::predict`].
    pub fn answer(&self, id: &str, question: &str, context: &str) -> Result<AnswerSpan> {
        let pairs = [(id, question, context)];
        Ok(self.answer_all(&pairs)?.remove(0))
    }

    /// Answers `(id, question, context)` triples in packed batches.
    fn answer_all(&self, pairs: &[(&str, &str, &str)]) -> Result<Vec<AnswerSpan>> {
        let outputs = self.batcher.run(
            pairs,
            |&(id, question, context)| self.encode(id, question, context),
            |batch| self.forward(batch),
        )?;
        Ok(pairs
            .iter()
            .zip(outputs)
            .map(|(&(_, _, context), output)| {
                let logits: Vec<(&[f32], &[f32])> = output
                    .rows
                    .iter()
                    .map(|row| row.split_at(row.len() / 2))
                    .collect();
                decode_answer(
                    context,
                    &output.meta,
                    &logits,
                    self.options.max_answer_len,
                    self.options.null_threshold,
                )
            })
            .collect())
    }

    /// The windows of one pair as model rows.
    fn encode(&self, id: &str, question: &str, context: &str) -> Result<Encoded<QaWindows>> {
        let windows = self
            .windows
            .windows(question, context)
            .map_err(|message| Error::Model {
                model: self.name.clone(),
                message: format!("example `{id}`: {message}"),
            })?;
        let rows = windows
            .encodings
            .iter()
            .map(|enc| Row {
                ids: enc.get_ids().to_vec(),
                type_ids: enc.get_type_ids().to_vec(),
            })
            .collect();
        Ok(Encoded {
            rows,
            meta: windows,
        })
    }

    /// Start and end logits of every row, each row's `[start.., end..]` over its real tokens.
    fn forward(&self, batch: &Batch) -> Result<Vec<Vec<f32>>> {
        let (rows, width) = (batch.rows(), batch.width);
        let logits = self
            .encoder
            .logits(&batch.ids, &batch.type_ids, &batch.mask, rows, width)?;
        let flat: Vec<f32> = logits
            .flatten_all()
            .and_then(|t| t.to_vec1())
            .map_err(|e| model_error(&self.name, "reading the QA logits failed", e))?;
        if flat.len() != rows * width * 2 {
            return Err(model_error(
                &self.name,
                "reading the QA logits failed",
                format!("{} values for [{rows}, {width}, 2]", flat.len()),
            ));
        }
        Ok(batch
            .lengths
            .iter()
            .enumerate()
            .map(|(r, &len)| {
                let at = |t: usize, k: usize| flat[(r * width + t) * 2 + k];
                (0..len)
                    .map(|t| at(t, 0))
                    .chain((0..len).map(|t| at(t, 1)))
                    .collect()
            })
            .collect())
    }
}

impl Model for QuestionAnsweringModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn handles(&self, task: Task) -> bool {
        matches!(task, Task::Squad | Task::Drop)
    }

    fn max_batch(&self) -> usize {
        self.batcher.options().max_rows()
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        let started = Instant::now();
        let pairs = batch
            .iter()
            .map(|example| {
                if !self.handles(example.task) {
                    return Err(Error::Model {
                        model: self.name.clone(),
                        message: format!(
                            "example `{}`: task `{}` is not extractive QA (squad, drop)",
                            example.id, example.task
                        ),
                    });
                }
                let question = required(&self.name, example, "question", &example.question)?;
                let context = required(&self.name, example, "context", &example.context)?;
                Ok((example.id.as_str(), question, context))
            })
            .collect::<Result<Vec<_>>>()?;
        let answers = self.answer_all(&pairs)?;
        let latency_ms = started.elapsed().as_secs_f32() * 1e3 / batch.len().max(1) as f32;
        Ok(batch
            .iter()
            .zip(answers)
            .map(|(example, answer)| Prediction {
                answer: Some(answer),
                latency_ms,
                ..Prediction::new(&example.id, &self.name, example.task)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn softmax(logits: &[f32]) -> Vec<f64> {
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
        let exp: Vec<f64> = logits.iter().map(|&l| (l as f64 - max).exp()).collect();
        let sum: f64 = exp.iter().sum();
        exp.into_iter().map(|e| e / sum).collect()
    }

    #[test]
    fn spans_stay_in_allowed_tokens_and_within_max_answer_len() {
        // [CLS] q q [SEP] c c c c [SEP]: the question tokens have the largest logits.
        let allowed = [true, false, false, false, true, true, true, true, false];
        let start = [1.0, 9.0, 9.0, 0.0, 0.5, 3.0, 0.1, 0.2, 9.0];
        let end = [1.0, 9.0, 9.0, 0.0, 0.1, 0.2, 0.3, 4.0, 9.0];
        let (null, spans) = decode_window(&start, &end, &allowed, 15, 12);
        let span = spans[0];
        assert_eq!((span.start, span.end), (5, 7));
        // Scores are products of the masked softmax over the whole window.
        let masked = |l: &[f32]| -> Vec<f32> {
            l.iter()
                .zip(&allowed)
                .map(|(&x, &ok)| if ok { x } else { MASKED_LOGIT })
                .collect()
        };
        let (ps, pe) = (softmax(&masked(&start)), softmax(&masked(&end)));
        assert!((span.score as f64 - ps[5] * pe[7]).abs() < 1e-6);
        assert!((null as f64 - ps[0] * pe[0]).abs() < 1e-6);
        // Two tokens at most: (5, 7) is out of reach; the best pair within reach is (7, 7)
        // (P_s(7)·P_e(7) = e^(0.2+4) beats P_s(5)·P_e(6) = e^(3+0.3)).
        let span = decode_window(&start, &end, &allowed, 2, 12).1[0];
        assert_eq!((span.start, span.end), (7, 7));
        // One token: start = end.
        let span = decode_window(&start, &end, &allowed, 1, 12).1[0];
        assert_eq!(span.start, span.end);
    }

    #[test]
    fn cls_scores_the_null_answer_and_only_zero_spans() {
        let allowed = [true, false, true, true];
        let start = [8.0, 0.0, 1.0, 0.0];
        let end = [8.0, 0.0, 0.0, 1.0];
        let (null, spans) = decode_window(&start, &end, &allowed, 15, 12);
        let span = spans[0];
        assert_eq!((span.start, span.end), (2, 3));
        assert!(null > span.score);
        // Candidates best first; spans from CLS score 0 (its probabilities are zeroed).
        assert!(spans.windows(2).all(|w| w[0].score >= w[1].score));
        assert!(spans
            .iter()
            .filter(|s| s.start == 0)
            .all(|s| s.score == 0.0));
        assert!(spans.iter().all(|s| allowed[s.start] && allowed[s.end]));
        assert_eq!(spans.len(), 6); // (0,0) (0,2) (0,3) (2,2) (2,3) (3,3)
        assert_eq!(decode_window(&start, &end, &allowed, 15, 2).1.len(), 2);
        // The null answer wins only with a threshold the margin exceeds.
        let (null, best) = (f64::from(null), f64::from(span.score));
        assert!(!prefers_null(null, best, None));
        assert!(prefers_null(null, best, Some(0.0)));
        assert!(!prefers_null(null, best, Some((null - best) as f32 + 1e-3)));
        // A tie keeps the span (the pipeline sorts the null answer after the spans).
        assert!(!prefers_null(0.5, 0.5, Some(0.0)));
    }

    #[test]
    fn equal_scores_keep_the_first_span() {
        let allowed = [true, true, true, true];
        let start = [0.0, 2.0, 2.0, 0.0];
        let end = [0.0, 0.0, 2.0, 2.0];
        let span = decode_window(&start, &end, &allowed, 15, 12).1[0];
        assert_eq!((span.start, span.end), (1, 2));
    }
}
