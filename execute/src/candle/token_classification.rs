//! Token classification (NER-style tagging) as a library API: no task of the execute stage is
//! token-level, so [`TokenClassifier`] is not a [`Model`](crate::Model); relations and tools
//! that need entity spans call it directly.
//!
//! * Each text is encoded with the checkpoint's tokenizer (special tokens added, truncated to
//!   `max_length` tokens, default the model's positions; tokens past it get no label), and
//!   batched like the other task models ([`Batcher`]).
//! * [`TokenClassifier::tokens`]: every non-special token with its label (`id2label` of the
//!   likeliest class), that class's probability, the whole softmax and its **character**
//!   offsets in the text.
//! * [`TokenClassifier::classify`]: the spans of transformers' token-classification pipeline
//!   with `aggregation_strategy="simple"`: consecutive tokens whose labels share a type (`B-X`
//!   starts a span, `I-X` or a bare `X` continues one of type `X`) are merged, the span's
//!   score is the mean of its tokens' scores, and spans labelled `O` are dropped. The span text
//!   is the text between the first token's start and the last token's end (the pipeline
//!   detokenizes the tokens instead, which differs only in whitespace).

use metamorph_data::{Error, Result};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use super::batching::{Batch, BatchOptions, Batcher, Encoded, PaddingReport, Row};
use super::{model_error, Head, TaskEncoder};

/// One token's prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenLabel {
    /// Position of the token in the model input (special tokens counted).
    pub index: usize,
    /// The likeliest label.
    pub label: String,
    /// Its probability.
    pub score: f32,
    /// The softmax over all labels, in `id2label` order.
    pub probabilities: Vec<f32>,
    /// Character offset of the token in the text.
    pub start: usize,
    /// Character offset one past its end.
    pub end: usize,
}

/// A labelled span of a text (aggregated tokens).
#[derive(Clone, Debug, PartialEq)]
pub struct EntitySpan {
    /// The entity type: the label without its `B-` / `I-` prefix.
    pub label: String,
    /// Mean score of the span's tokens.
    pub score: f32,
    /// Character offset of the span.
    pub start: usize,
    /// Character offset one past its end.
    pub end: usize,
    /// The text of the span.
    pub text: String,
}

/// A `…ForTokenClassification` checkpoint tagging texts.
pub struct TokenClassifier {
    name: String,
    encoder: TaskEncoder,
    tokenizer: Tokenizer,
    batcher: Batcher,
}

impl TokenClassifier {
    /// The classifier `name` over `encoder` (which must have the token-classification head),
    /// inputs truncated to `max_length` tokens (default: the model's positions).
    ///
    /// # Errors
    /// [`Error::Config`] for another head or a `max_length` beyond the model's positions.
    pub fn try_new(
        name: &str,
        encoder: TaskEncoder,
        max_length: Option<usize>,
        batch: BatchOptions,
    ) -> Result<Self> {
        let config_err = |message: String| Error::Config(format!("model `{name}`: {message}"));
        if encoder.head() != Head::TokenClassification {
            return Err(config_err(format!(
                "a token classifier needs a token-classification head; the checkpoint has {}",
                encoder.head()
            )));
        }
        let max_positions = encoder.max_positions();
        let max_length = max_length.unwrap_or(max_positions);
        if max_length > max_positions || max_length < 2 {
            return Err(config_err(format!(
                "max_length {max_length} is outside 2..={max_positions} (the model's positions)"
            )));
        }
        let mut tokenizer = encoder.tokenizer().clone();
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                ..Default::default()
            }))
            .map_err(|e| config_err(format!("cannot set up the tokenizer: {e}")))?;
        let batcher = Batcher::new(name, batch, encoder.pad_id());
        Ok(TokenClassifier {
            name: name.to_string(),
            encoder,
            tokenizer,
            batcher,
        })
    }

    /// Padding totals since the classifier was loaded.
    pub fn padding_stats(&self) -> PaddingReport {
        self.batcher.stats()
    }

    /// Every non-special token of every text with its label and probabilities.
    ///
    /// # Errors
    /// [`Error::Model`] naming the text (by position) when tokenization or the forward pass
    /// fails.
    pub fn tokens(&self, texts: &[&str]) -> Result<Vec<Vec<TokenLabel>>> {
        let outputs = self.batcher.run(
            &texts.iter().enumerate().collect::<Vec<_>>(),
            |&(i, text)| self.encode(i, text),
            |batch| self.forward(batch),
        )?;
        let labels = self.encoder.labels();
        Ok(outputs
            .into_iter()
            .map(|output| {
                let encoding = output.meta;
                let probs = &output.rows[0];
                let n = labels.len();
                encoding
                    .get_special_tokens_mask()
                    .iter()
                    .enumerate()
                    .filter(|(_, &special)| special == 0)
                    .map(|(t, _)| {
                        let p = &probs[t * n..(t + 1) * n];
                        let best = argmax(p);
                        let (start, end) = encoding.get_offsets()[t];
                        TokenLabel {
                            index: t,
                            label: labels[best].clone(),
                            score: p[best],
                            probabilities: p.to_vec(),
                            start,
                            end,
                        }
                    })
                    .collect()
            })
            .collect())
    }

    /// The labelled spans of every text (`aggregation_strategy="simple"`, `O` dropped).
    ///
    /// # Errors
    /// As [`TokenClassifier::tokens`].
    pub fn classify(&self, texts: &[&str]) -> Result<Vec<Vec<EntitySpan>>> {
        Ok(self
            .tokens(texts)?
            .iter()
            .zip(texts)
            .map(|(tokens, text)| aggregate_simple(text, tokens))
            .collect())
    }

    fn encode(&self, i: usize, text: &str) -> Result<Encoded<Encoding>> {
        let encoding = self
            .tokenizer
            .encode_char_offsets(text, true)
            .map_err(|e| model_error(&self.name, &format!("text {i}: tokenization failed"), e))?;
        Ok(Encoded {
            rows: vec![Row {
                ids: encoding.get_ids().to_vec(),
                type_ids: encoding.get_type_ids().to_vec(),
            }],
            meta: encoding,
        })
    }

    /// Per row, the softmax of every real token's logits, flattened `[len × labels]`.
    fn forward(&self, batch: &Batch) -> Result<Vec<Vec<f32>>> {
        let (rows, width, n) = (batch.rows(), batch.width, self.encoder.labels().len());
        let logits = self
            .encoder
            .logits(&batch.ids, &batch.type_ids, &batch.mask, rows, width)?;
        let flat: Vec<f32> = logits
            .flatten_all()
            .and_then(|t| t.to_vec1())
            .map_err(|e| model_error(&self.name, "reading the token logits failed", e))?;
        if flat.len() != rows * width * n {
            return Err(model_error(
                &self.name,
                "reading the token logits failed",
                format!("{} values for [{rows}, {width}, {n}]", flat.len()),
            ));
        }
        Ok(batch
            .lengths
            .iter()
            .enumerate()
            .map(|(r, &len)| {
                (0..len)
                    .flat_map(|t| {
                        let at = (r * width + t) * n;
                        softmax(&flat[at..at + n])
                    })
                    .collect()
            })
            .collect())
    }
}

fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|&l| (l - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}

/// Index of the largest value (the first on ties).
fn argmax(values: &[f32]) -> usize {
    values
        .iter()
        .enumerate()
        .fold(0, |best, (i, &v)| if v > values[best] { i } else { best })
}

/// `(B or I, type)` of a label: `B-X`, `I-X`, or a bare `X` read as `I-X`.
fn tag(label: &str) -> (char, &str) {
    match label.split_at_checked(2) {
        Some(("B-", rest)) => ('B', rest),
        Some(("I-", rest)) => ('I', rest),
        _ => ('I', label),
    }
}

/// The pipeline's "simple" aggregation of tagged tokens into spans of `text`, `O` dropped.
pub fn aggregate_simple(text: &str, tokens: &[TokenLabel]) -> Vec<EntitySpan> {
    let mut groups: Vec<Vec<&TokenLabel>> = Vec::new();
    for token in tokens {
        let (bi, kind) = tag(&token.label);
        match groups.last_mut() {
            Some(group) if bi != 'B' && tag(&group[group.len() - 1].label).1 == kind => {
                group.push(token)
            }
            _ => groups.push(vec![token]),
        }
    }
    groups
        .into_iter()
        .filter_map(|group| {
            let first = group[0];
            let last = group[group.len() - 1];
            // The pipeline names the span after its first token, prefix removed.
            let label = first
                .label
                .split_once('-')
                .map_or(first.label.as_str(), |(_, rest)| rest);
            if label == "O" {
                return None;
            }
            let score = group.iter().map(|t| t.score).sum::<f32>() / group.len() as f32;
            Some(EntitySpan {
                label: label.to_string(),
                score,
                start: first.start,
                end: last.end,
                text: text
                    .chars()
                    .skip(first.start)
                    .take(last.end.saturating_sub(first.start))
                    .collect(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(label: &str, score: f32, start: usize, end: usize) -> TokenLabel {
        TokenLabel {
            index: 0,
            label: label.into(),
            score,
            probabilities: Vec::new(),
            start,
            end,
        }
    }

    #[test]
    fn simple_aggregation_merges_spans_like_the_pipeline() {
        let text = "Marie Curie went to Paris in café time";
        let tokens = [
            token("B-PER", 0.9, 0, 5),
            token("I-PER", 0.7, 6, 11),
            token("O", 0.99, 12, 16),
            token("O", 0.99, 17, 19),
            token("B-LOC", 0.8, 20, 25),
            // A new B- starts a new span even of the same type.
            token("B-LOC", 0.6, 26, 28),
            // Bare labels continue a span of their type.
            token("MISC", 0.5, 29, 33),
            token("MISC", 0.7, 34, 38),
        ];
        let spans = aggregate_simple(text, &tokens);
        let got: Vec<(&str, &str, usize, usize)> = spans
            .iter()
            .map(|s| (s.label.as_str(), s.text.as_str(), s.start, s.end))
            .collect();
        assert_eq!(
            got,
            [
                ("PER", "Marie Curie", 0, 11),
                ("LOC", "Paris", 20, 25),
                ("LOC", "in", 26, 28),
                ("MISC", "café time", 29, 38),
            ]
        );
        assert!((spans[0].score - 0.8).abs() < 1e-6);
        assert!((spans[3].score - 0.6).abs() < 1e-6);
        // An I- after O of another type starts a span of its own type.
        let spans = aggregate_simple("a b", &[token("O", 0.9, 0, 1), token("I-ORG", 0.4, 2, 3)]);
        assert_eq!(spans.len(), 1);
        assert_eq!(
            (spans[0].label.as_str(), spans[0].text.as_str()),
            ("ORG", "b")
        );
    }
}
