//! The `validate` stage: `case` batches in; cases that pass (or every case, in `flag` mode) out
//! as `case` with their validity, the others out as `rejected`.

use std::sync::Arc;

use arrow::array::RecordBatch;
use metamorph_data::{from_batch, to_batch, Case, Emitter, RecordKind, Rejected, Result, Stage};

use crate::config::Mode;
use crate::validator::Validator;

/// Scores every case and routes it by the configured [`Mode`].
pub struct ValidateStage {
    validator: Arc<Validator>,
}

impl ValidateStage {
    /// A stage running `validator`.
    pub fn new(validator: Arc<Validator>) -> Self {
        ValidateStage { validator }
    }
}

impl Stage for ValidateStage {
    fn name(&self) -> &str {
        "validate"
    }

    fn consumes(&self) -> &[RecordKind] {
        &[RecordKind::Case]
    }

    fn produces(&self) -> &[RecordKind] {
        &[RecordKind::Case, RecordKind::Rejected]
    }

    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        let mut cases: Vec<Case> = from_batch(&batch, "validate input")?;
        let validity = self.validator.validate(&cases)?;
        for (case, v) in cases.iter_mut().zip(validity) {
            case.validity = Some(v);
        }
        let reject = self.validator.config().mode == Mode::Reject;
        let (kept, rejected): (Vec<Case>, Vec<Case>) = cases
            .into_iter()
            .partition(|c| !reject || c.validity.as_ref().is_none_or(|v| v.passed));
        emit.emit(to_batch(&kept)?)?;
        let rejected: Vec<Rejected> = rejected.into_iter().map(Rejected).collect();
        emit.emit(to_batch(&rejected)?)
    }
}
