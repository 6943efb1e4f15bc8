//! The `perturb` stage: `parsed` and `example` batches in, `case` batches out.
//!
//! **Joining parses to examples.** The `parse` stage emits each batch's `parsed` rows just
//! before passing the `example` rows on, so in a pipeline an example's parses are usually here
//! when it arrives. The stage keeps parses by example id until their example comes; an example
//! that needs a parse not yet seen is parked until its parse arrives, and whatever is still
//! parked at the end runs without one (relations needing syntax then skip it, and the count is
//! logged). The join therefore holds whatever the order of the inputs, the number of workers or
//! the sharding (parsed rows are sharded by the same example id).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use arrow::array::RecordBatch;
use metamorph_data::{
    from_batch, Emitter, Example, ParsedText, RecordBuilder, RecordKind, Result, Stage,
};
use serde::{Deserialize, Serialize};

use crate::bpb::BpbRelationConfig;
use crate::crest::CrestConfig;
use crate::nlplego::NlpLegoConfig;
use crate::sit4re::Sit4reConfig;
use crate::{relations_by_name, MetamorphicRelation, Resources, Source};

/// The `[perturb]` table of the config file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PerturbConfig {
    /// Relations to run: names (`MR1-3`, `MR-S2`), families (`mt4mrc`, `sit4re`) or `["all"]`
    /// (default).
    pub relations: Vec<String>,
    /// Base seed of every relation's randomness (default 0); a case's own seed is derived from
    /// it, the source id and the relation.
    pub seed: u64,
    /// JSON entity pool for the replacement relations (`metamorph pool` writes one).
    pub entity_pool: Option<PathBuf>,
    /// CREST's settings (`[perturb.crest]`).
    pub crest: CrestConfig,
    /// MT4MRC's settings (`[perturb.mt4mrc]`).
    pub mt4mrc: crate::mt4mrc::Mt4mrcConfig,
    /// Break-Perturb-Build's settings (`[perturb.bpb]`).
    pub bpb: BpbRelationConfig,
    /// NLPLego's settings (`[perturb.nlplego]`).
    pub nlplego: NlpLegoConfig,
    /// SIT4RE's settings (`[perturb.sit4re]`).
    pub sit4re: Sit4reConfig,
}

impl Default for PerturbConfig {
    fn default() -> Self {
        PerturbConfig {
            relations: vec!["all".into()],
            seed: 0,
            entity_pool: None,
            crest: CrestConfig::default(),
            mt4mrc: crate::mt4mrc::Mt4mrcConfig::default(),
            bpb: BpbRelationConfig::default(),
            nlplego: NlpLegoConfig::default(),
            sit4re: Sit4reConfig::default(),
        }
    }
}

/// What one relation did over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelationCounts {
    /// The relation's family.
    pub family: String,
    /// The relation's name.
    pub mr: String,
    /// Sources of a task the relation handles.
    pub sources: u64,
    /// Sources that gave at least one case (eligible sources).
    pub eligible: u64,
    /// Cases generated.
    pub cases: u64,
    /// Sources skipped because a parse the relation needs was missing.
    pub unparsed: u64,
}

/// Runs the enabled relations over every example whose task they handle.
pub struct PerturbStage {
    relations: Vec<Box<dyn MetamorphicRelation>>,
    expect_parses: bool,
    join: Mutex<Join>,
    counts: Mutex<Vec<RelationCounts>>,
}

/// Parses waiting for their example, and examples waiting for their parses.
#[derive(Default)]
struct Join {
    parses: HashMap<String, Vec<ParsedText>>,
    parked: HashMap<String, Example>,
}

impl PerturbStage {
    /// A stage for the relations `config` names, expecting `parsed` rows for examples (set
    /// `expect_parses` to false when no parse stage runs, so examples are never held back).
    ///
    /// # Errors
    /// [`metamorph_data::Error::Config`] for an unknown relation name; a relation's error when
    /// its resources cannot be loaded.
    pub fn try_new(config: &PerturbConfig, expect_parses: bool) -> Result<Self> {
        Self::with_resources(config, &Resources::from_config(config), expect_parses)
    }

    /// As [`PerturbStage::try_new`], drawing lexicons from `resources`, so that several stages
    /// (one per dataset shard in `cargo xtask pipeline`) load each lexicon once.
    ///
    /// # Errors
    /// As [`PerturbStage::try_new`].
    pub fn with_resources(
        config: &PerturbConfig,
        resources: &Resources,
        expect_parses: bool,
    ) -> Result<Self> {
        Ok(Self::from_relations(
            relations_by_name(&config.relations, resources)?,
            expect_parses,
        ))
    }

    /// A stage running `relations` — the registry's or your own implementations of
    /// [`MetamorphicRelation`].
    pub fn from_relations(
        relations: Vec<Box<dyn MetamorphicRelation>>,
        expect_parses: bool,
    ) -> Self {
        let counts = relations
            .iter()
            .map(|r| RelationCounts {
                family: r.family().into(),
                mr: r.name().into(),
                ..RelationCounts::default()
            })
            .collect();
        PerturbStage {
            relations,
            expect_parses,
            join: Mutex::new(Join::default()),
            counts: Mutex::new(counts),
        }
    }

    /// The names of the enabled relations.
    pub fn relation_names(&self) -> Vec<&'static str> {
        self.relations.iter().map(|r| r.name()).collect()
    }

    /// Per-relation counts so far (complete once the run has finished).
    pub fn counts(&self) -> Vec<RelationCounts> {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Whether some enabled relation would read a parse of one of `example`'s fields.
    fn wants_parse(&self, example: &Example) -> bool {
        self.relations.iter().any(|r| {
            r.tasks().contains(&example.task)
                && r.parsed_fields()
                    .iter()
                    .any(|f| example.field(f).is_some_and(|t| !t.is_empty()))
        })
    }

    /// Runs every relation over `example` with `parses`, appending its cases to `out`.
    fn derive(
        &self,
        example: &Example,
        parses: &[ParsedText],
        out: &mut RecordBuilder<metamorph_data::Case>,
    ) -> Result<()> {
        let source = Source::new(example, parses);
        let mut tally = Vec::with_capacity(self.relations.len());
        for (i, relation) in self.relations.iter().enumerate() {
            if !relation.tasks().contains(&example.task) {
                continue;
            }
            let missing = relation.parsed_fields().iter().any(|f| {
                example.field(f).is_some_and(|t| !t.is_empty()) && source.parse(f).is_none()
            });
            if missing {
                tally.push((i, 0, true));
                continue;
            }
            let cases = relation.follow_ups(&source)?;
            tally.push((i, cases.len() as u64, false));
            for case in cases {
                out.append(case);
            }
        }
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        for (i, cases, unparsed) in tally {
            let c = &mut counts[i];
            c.sources += 1;
            c.eligible += u64::from(cases > 0);
            c.cases += cases;
            c.unparsed += u64::from(unparsed);
        }
        Ok(())
    }
}

impl Stage for PerturbStage {
    fn name(&self) -> &str {
        "perturb"
    }

    fn consumes(&self) -> &[RecordKind] {
        &[RecordKind::Parsed, RecordKind::Example]
    }

    fn produces(&self) -> &[RecordKind] {
        &[RecordKind::Case]
    }

    fn process(&self, batch: RecordBatch, emit: &mut Emitter<'_>) -> Result<()> {
        let mut ready: Vec<(Example, Vec<ParsedText>)> = Vec::new();
        match RecordKind::of_batch(&batch)? {
            RecordKind::Parsed => {
                let rows: Vec<ParsedText> = from_batch(&batch, "perturb input (parsed)")?;
                let mut join = self.join.lock().unwrap_or_else(|p| p.into_inner());
                for row in rows {
                    join.parses.entry(row.id.clone()).or_default().push(row);
                }
                let arrived: Vec<String> = join
                    .parked
                    .keys()
                    .filter(|id| join.parses.contains_key(*id))
                    .cloned()
                    .collect();
                for id in arrived {
                    let example = join.parked.remove(&id).expect("parked id");
                    let parses = join.parses.remove(&id).unwrap_or_default();
                    ready.push((example, parses));
                }
            }
            _ => {
                let examples: Vec<Example> = from_batch(&batch, "perturb input")?;
                let mut join = self.join.lock().unwrap_or_else(|p| p.into_inner());
                for example in examples {
                    match join.parses.remove(&example.id) {
                        Some(parses) => ready.push((example, parses)),
                        None if self.expect_parses && self.wants_parse(&example) => {
                            join.parked.insert(example.id.clone(), example);
                        }
                        None => ready.push((example, Vec::new())),
                    }
                }
            }
        }
        let mut cases = RecordBuilder::new();
        for (example, parses) in &ready {
            self.derive(example, parses, &mut cases)?;
        }
        if !cases.is_empty() {
            emit.emit(cases.finish()?)?;
        }
        Ok(())
    }

    fn finish(&self, emit: &mut Emitter<'_>) -> Result<()> {
        let parked: Vec<Example> = {
            let mut join = self.join.lock().unwrap_or_else(|p| p.into_inner());
            join.parses.clear();
            let mut parked: Vec<Example> = join.parked.drain().map(|(_, e)| e).collect();
            parked.sort_by(|a, b| a.id.cmp(&b.id));
            parked
        };
        let mut cases = RecordBuilder::new();
        for example in &parked {
            self.derive(example, &[], &mut cases)?;
        }
        if !cases.is_empty() {
            emit.emit(cases.finish()?)?;
        }
        for c in self.counts() {
            if c.unparsed > 0 {
                tracing::warn!(
                    mr = %c.mr,
                    sources = c.unparsed,
                    "sources skipped: the relation needs their parse; run the parse stage first (or pass its `parsed` shards to metamorph-perturb)"
                );
            }
            if c.sources > 0 {
                tracing::debug!(family = %c.family, mr = %c.mr, sources = c.sources, eligible = c.eligible, cases = c.cases, "perturb");
            }
        }
        Ok(())
    }
}
