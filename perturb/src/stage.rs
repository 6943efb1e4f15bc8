//! The `perturb` stage: `example` batches in, `case` batches out.

use arrow::array::RecordBatch;
use metamorph_data::{from_batch, Emitter, Example, RecordBuilder, RecordKind, Result, Stage};
use serde::Deserialize;

use crate::{relations_by_name, MetamorphicRelation};

/// The `[perturb]` table of the config file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PerturbConfig {
    /// Relations to run, by name (`MR1-3`, …), or `["all"]` (default).
    pub relations: Vec<String>,
}

impl Default for PerturbConfig {
    fn default() -> Self {
        PerturbConfig {
            relations: vec!["all".into()],
        }
    }
}

/// Runs the enabled relations over every example whose task they handle.
pub struct PerturbStage {
    relations: Vec<Box<dyn MetamorphicRelation>>,
}

impl PerturbStage {
    /// A stage for the relations `config` names.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Config`] for an unknown relation name.
    pub fn try_new(config: &PerturbConfig) -> Result<Self> {
        Ok(PerturbStage {
            relations: relations_by_name(&config.relations)?,
        })
    }

    /// The names of the enabled relations.
    pub fn relation_names(&self) -> Vec<&'static str> {
        self.relations.iter().map(|r| r.name()).collect()
    }
}

impl Stage for PerturbStage {
    fn name(&self) -> &str {
        "perturb"
    }

    fn consumes(&self) -> &[RecordKind] {
        &[RecordKind::Example]
    }

    fn produces(&self) -> &[RecordKind] {
        &[RecordKind::Case]
    }

    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        let examples: Vec<Example> = from_batch(&batch, "perturb input")?;
        let mut cases = RecordBuilder::new();
        for example in &examples {
            for relation in self
                .relations
                .iter()
                .filter(|r| r.tasks().contains(&example.task))
            {
                for case in relation.follow_ups(example)? {
                    cases.append(case);
                }
            }
        }
        if !cases.is_empty() {
            emit.emit(cases.finish()?)?;
        }
        Ok(())
    }
}
