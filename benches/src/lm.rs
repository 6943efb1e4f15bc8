//! What the language-model benches share: a BoolQ model under test's p(yes) over many questions.

use metamorph_data::{Example, Result};
use metamorph_execute::Model;

/// p(yes) of each of `examples`, predicted `model.max_batch()` at a time.
///
/// # Errors
/// The model's errors.
pub fn p_yes(model: &dyn Model, examples: &[&Example]) -> Result<Vec<f32>> {
    let mut out = Vec::with_capacity(examples.len());
    for chunk in examples.chunks(model.max_batch()) {
        for p in model.predict(chunk)? {
            let probs = p.probabilities.unwrap_or_default();
            out.push(
                probs
                    .iter()
                    .find(|l| l.label == "yes")
                    .map_or(0.0, |l| l.prob),
            );
        }
    }
    Ok(out)
}
