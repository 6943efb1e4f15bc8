//! A started generation model with its decoding options, input template and reference-token
//! convention: what the generate stage calls for each request kind.

use std::collections::HashMap;
use std::sync::Arc;

use metamorph_data::{Error, Result};

use crate::qdmr::{self, Template};
use crate::{DecodingOptions, Seq2Seq};

/// `template` filled with `value` for `name`, `#k` written `@@k@@` with `reference_tokens`.
pub(crate) fn model_input(
    template: &Template,
    name: &str,
    value: &str,
    reference_tokens: bool,
) -> String {
    let text = template.render(&[(name, value)]);
    if reference_tokens {
        qdmr::to_reference_tokens(&text)
    } else {
        text
    }
}

/// A started model with its decoding options, input template and reference-token convention.
pub struct Generator {
    model: Arc<dyn Seq2Seq>,
    options: DecodingOptions,
    batch_size: usize,
    template: Template,
    reference_tokens: bool,
}

impl Generator {
    /// `model` decoding with `options`, `batch_size` distinct inputs per call; `template` makes
    /// the model input, and with `reference_tokens` `#k` becomes `@@k@@` in it.
    pub fn new(
        model: Arc<dyn Seq2Seq>,
        options: DecodingOptions,
        batch_size: usize,
        template: Template,
        reference_tokens: bool,
    ) -> Self {
        Generator {
            model,
            options,
            batch_size: batch_size.max(1),
            template,
            reference_tokens,
        }
    }

    /// The model's name.
    pub fn name(&self) -> &str {
        self.model.name()
    }

    /// What the model has spent so far, when it is a metered endpoint.
    pub fn spent(&self) -> Option<metamorph_data::usage::Spent> {
        self.model.spent()
    }

    /// The model input for `value` of the template's placeholder `name`.
    pub fn input(&self, name: &str, value: &str) -> String {
        model_input(&self.template, name, value, self.reference_tokens)
    }

    /// One output per input; identical inputs run once.
    pub(crate) fn run(&self, inputs: &[String]) -> Result<Vec<String>> {
        let mut unique: Vec<&str> = Vec::new();
        let mut slot_by_input: HashMap<&str, usize> = HashMap::new();
        let slots: Vec<usize> = inputs
            .iter()
            .map(|input| {
                *slot_by_input.entry(input.as_str()).or_insert_with(|| {
                    unique.push(input);
                    unique.len() - 1
                })
            })
            .collect();
        let mut outputs = Vec::with_capacity(unique.len());
        for chunk in unique.chunks(self.batch_size) {
            let got = self.model.generate(chunk, &self.options)?;
            if got.len() != chunk.len() {
                return Err(Error::Model {
                    model: self.model.name().to_string(),
                    message: format!("returned {} outputs for {} inputs", got.len(), chunk.len()),
                });
            }
            outputs.extend(got);
        }
        Ok(slots.into_iter().map(|s| outputs[s].clone()).collect())
    }
}
