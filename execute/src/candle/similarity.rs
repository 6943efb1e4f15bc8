//! The paraphrase model under test built on sentence embeddings: two texts are paraphrases
//! (label `1`, as the paraphrase readers write it) when the cosine of their embeddings reaches a
//! threshold, else label `0`.
//!
//! Probabilities are `P(1) = σ((cos − threshold) / temperature)` and `P(0) = 1 − P(1)`: monotone
//! in the cosine, ½ exactly at the threshold, so the label is always the likelier class. They
//! are a calibration-free score for relations that compare confidences, not a trained
//! probability.

use std::collections::HashMap;
use std::time::Instant;

use metamorph_data::{Error, Example, LabelProb, Prediction, Result, Task};

use super::SentenceEncoder;
use crate::Model;

/// Settings of a [`SentenceSimilarityModel`].
#[derive(Clone, Debug)]
pub struct SimilarityOptions {
    threshold: f32,
    temperature: f32,
}

impl Default for SimilarityOptions {
    /// Threshold 0.8, temperature 0.05.
    fn default() -> Self {
        SimilarityOptions {
            threshold: 0.8,
            temperature: 0.05,
        }
    }
}

impl SimilarityOptions {
    /// Cosine at and above which a pair is labelled a paraphrase (default 0.8).
    pub fn with_threshold(mut self, threshold: f32) -> Self {
        self.threshold = threshold;
        self
    }

    /// Width of the sigmoid that turns the cosine margin into `P(1)` (default 0.05).
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = temperature;
        self
    }
}

/// A paraphrase model under test: cosine similarity of sentence embeddings against a threshold.
pub struct SentenceSimilarityModel {
    name: String,
    encoder: SentenceEncoder,
    options: SimilarityOptions,
}

impl SentenceSimilarityModel {
    /// The model `name` over `encoder`.
    ///
    /// # Errors
    /// [`Error::Config`] when the threshold is not in [-1, 1] or the temperature is not
    /// positive.
    pub fn try_new(
        name: &str,
        encoder: SentenceEncoder,
        options: SimilarityOptions,
    ) -> Result<Self> {
        if !(-1.0..=1.0).contains(&options.threshold) {
            return Err(Error::Config(format!(
                "model `{name}`: threshold {} is not a cosine in [-1, 1]",
                options.threshold
            )));
        }
        if options.temperature.is_nan() || options.temperature <= 0.0 {
            return Err(Error::Config(format!(
                "model `{name}`: temperature {} must be positive",
                options.temperature
            )));
        }
        Ok(SentenceSimilarityModel {
            name: name.to_string(),
            encoder,
            options,
        })
    }

    /// The encoder the model embeds with.
    pub fn encoder(&self) -> &SentenceEncoder {
        &self.encoder
    }

    /// The text field `field` of `example`, which must be present and not blank.
    fn text<'a>(
        &self,
        example: &'a Example,
        field: &str,
        value: &'a Option<String>,
    ) -> Result<&'a str> {
        match value.as_deref() {
            Some(text) if !text.trim().is_empty() => Ok(text),
            Some(_) => Err(Error::Model {
                model: self.name.clone(),
                message: format!("example `{}`: field `{field}` is empty", example.id),
            }),
            None => Err(Error::Model {
                model: self.name.clone(),
                message: format!(
                    "example `{}`: field `{field}` is missing (a paraphrase pair needs text and \
                     text_b)",
                    example.id
                ),
            }),
        }
    }
}

impl Model for SentenceSimilarityModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn handles(&self, task: Task) -> bool {
        task == Task::Paraphrase
    }

    fn max_batch(&self) -> usize {
        256
    }

    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>> {
        let started = Instant::now();
        // Every distinct text is embedded once, whichever pairs share it.
        let mut texts: Vec<&str> = Vec::new();
        let mut slot: HashMap<&str, usize> = HashMap::new();
        let mut pairs = Vec::with_capacity(batch.len());
        for example in batch {
            if example.task != Task::Paraphrase {
                return Err(Error::Model {
                    model: self.name.clone(),
                    message: format!(
                        "example `{}`: task `{}` is not paraphrase (the only task a \
                         sentence-similarity model answers)",
                        example.id, example.task
                    ),
                });
            }
            let a = self.text(example, "text", &example.text)?;
            let b = self.text(example, "text_b", &example.text_b)?;
            let mut index = [0usize; 2];
            for (side, text) in index.iter_mut().zip([a, b]) {
                *side = *slot.entry(text).or_insert_with(|| {
                    texts.push(text);
                    texts.len() - 1
                });
            }
            pairs.push((index[0], index[1]));
        }
        let embeddings = self.encoder.embed(&texts)?;
        let latency_ms = started.elapsed().as_secs_f32() * 1e3 / batch.len().max(1) as f32;
        let SimilarityOptions {
            threshold,
            temperature,
        } = self.options;
        Ok(batch
            .iter()
            .zip(pairs)
            .map(|(example, (a, b))| {
                let cosine = metamorph_models::cosine(&embeddings[a], &embeddings[b]);
                let p1 = 1.0 / (1.0 + (-(cosine - threshold) / temperature).exp());
                Prediction {
                    label: Some(if cosine >= threshold { "1" } else { "0" }.to_string()),
                    probabilities: Some(vec![
                        LabelProb {
                            label: "1".into(),
                            prob: p1,
                        },
                        LabelProb {
                            label: "0".into(),
                            prob: 1.0 - p1,
                        },
                    ]),
                    latency_ms,
                    ..Prediction::new(&example.id, &self.name, Task::Paraphrase)
                }
            })
            .collect())
    }
}
