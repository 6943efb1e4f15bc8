//! The pipeline's own table, `[pipeline]`, and the check of a whole config file before any
//! stage runs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use metamorph_data::{ConfigFile, DatasetFormat, Error, Result};
use metamorph_execute::ExecuteConfig;
use metamorph_generate::GenerateConfig;
use metamorph_parse::stage::ParseConfig;
use metamorph_perturb::PerturbConfig;
use metamorph_validate::ValidateConfig;
use serde::Deserialize;

/// The stages the pipeline runs, in order (the keys `[pipeline.workers]` accepts).
pub const STAGES: [&str; 6] = [
    "parse", "perturb", "generate", "validate", "execute", "judge",
];

/// The `[pipeline]` table.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PipelineConfig {
    /// Output directory (relative to the config file's folder).
    pub output: PathBuf,
    /// Shards per dataset.
    pub shards: usize,
    /// Rows per batch.
    pub batch_size: usize,
    /// Batches buffered between stages.
    pub channel_capacity: usize,
    /// Worker threads per stage (`parse`, `perturb`, `generate`, `execute`, `judge`); 1 when
    /// not listed.
    pub workers: BTreeMap<String, usize>,
    /// Skip and count malformed dataset records instead of failing.
    pub skip_bad: bool,
    /// Run the `parse` stage (the spaCy port, configured in `[parse]`) and write `parsed` shards.
    pub parse: bool,
    /// The datasets to test on.
    pub datasets: Vec<DatasetEntry>,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            output: PathBuf::from("out/pipeline"),
            shards: 1,
            batch_size: 256,
            channel_capacity: 4,
            workers: BTreeMap::new(),
            skip_bad: false,
            parse: true,
            datasets: Vec::new(),
        }
    }
}

/// One dataset of the run.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetEntry {
    /// Name; also the folder of its outputs.
    pub name: String,
    /// The file (relative to the config file's folder).
    pub path: PathBuf,
    /// Its format.
    pub format: DatasetFormat,
    /// Read at most this many examples.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// The top-level tables of a pipeline config file.
pub const CONFIG_SECTIONS: [&str; 6] = [
    "pipeline", "parse", "perturb", "generate", "validate", "execute",
];

/// Checks a pipeline config as far as it can be without running anything: every top-level
/// table is one the pipeline reads, every table's keys and values are the ones its stage
/// accepts (each stage's config refuses unknown keys), and dataset and model names are plain
/// and unique (they name output folders and records). Run before any stage, and by the docs'
/// example check.
///
/// # Errors
/// [`Error::Config`] naming the section (and the key) at fault.
pub fn check_config(file: &ConfigFile) -> Result<()> {
    if let Some(name) = file
        .section_names()
        .find(|name| !CONFIG_SECTIONS.contains(name))
    {
        return Err(Error::Config(format!(
            "{}: unknown section [{name}] (expected one of {})",
            file.origin(),
            CONFIG_SECTIONS.join(", ")
        )));
    }
    let pipeline = file.section::<PipelineConfig>("pipeline")?;
    file.section::<ParseConfig>("parse")?;
    file.section::<PerturbConfig>("perturb")?;
    file.section::<GenerateConfig>("generate")?;
    file.section::<ValidateConfig>("validate")?.check()?;
    let execute = file.section::<ExecuteConfig>("execute")?;
    let named = |e: Error| match e {
        Error::Config(message) => Error::Config(format!("{}: {message}", file.origin())),
        other => other,
    };
    metamorph_data::check_names("dataset", pipeline.datasets.iter().map(|d| d.name.as_str()))
        .map_err(named)?;
    execute.check_names().map_err(named)?;
    Ok(())
}
