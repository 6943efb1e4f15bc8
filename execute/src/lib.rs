//! `metamorph-execute`: runs the model under test on every source and follow-up input of the
//! cases it receives, and records one `prediction` per (input, model).
//!
//! * [`Model`] is the one trait a model implements: a batch of examples in, one prediction per
//!   example out.
//! * [`SubprocessModel`] is the JSONL subprocess adapter: any program (typically a few lines of
//!   Python around the user's model) that reads one JSON request per line on stdin and writes
//!   one JSON response per line on stdout. The protocol is in [`protocol`] and the README.
//! * [`ExecuteStage`] computes each source's prediction once, however many follow-ups it has,
//!   runs identical inputs once, and forwards the case batches so the judge sees them.
//!
//! Built-in candle architectures and the OpenAI-compatible adapter are the execute issue's work;
//! they implement the same [`Model`] trait.
#![deny(missing_docs)]

pub mod protocol;
mod stage;
mod subprocess;

pub use stage::{ExecuteConfig, ExecuteStage, ForTasks, ModelConfig};
pub use subprocess::{SubprocessConfig, SubprocessModel};

use metamorph_data::{Example, Prediction, Result, Task};

/// A model under test.
pub trait Model: Send + Sync {
    /// The model's name, recorded in every prediction.
    fn name(&self) -> &str;

    /// Predicts every example of `batch`, returning predictions in the same order.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Model`] when the model fails or answers something unusable.
    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>>;

    /// Whether the model answers examples of `task` (default: every task).
    fn handles(&self, _task: Task) -> bool {
        true
    }

    /// The largest batch the model wants at once.
    fn max_batch(&self) -> usize {
        32
    }
}
