//! The lexical resources relations draw on, loaded once per stage and only when a chosen
//! relation asks for them (a run of MR1-3 alone never reads WordNet).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use metamorph_data::Result;

use crate::lexicon::entity_pool::EntityPool;
use crate::lexicon::geography::Gazetteer;
use crate::lexicon::inflect::Inflections;
use crate::lexicon::wordnet::WordNet;
use crate::PerturbConfig;

/// Lazily loaded, shared lexical resources (see the module docs).
#[derive(Debug, Default)]
pub struct Resources {
    seed: u64,
    entity_pool_path: Option<PathBuf>,
    wordnet: Mutex<Option<Arc<WordNet>>>,
    inflections: Mutex<Option<Arc<Inflections>>>,
    entity_pool: Mutex<Option<Arc<EntityPool>>>,
}

/// Returns the cached value, or loads, caches and returns it (a failed load is retried).
fn cached<T>(slot: &Mutex<Option<Arc<T>>>, load: impl FnOnce() -> Result<T>) -> Result<Arc<T>> {
    let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(value) = slot.as_ref() {
        return Ok(Arc::clone(value));
    }
    let value = Arc::new(load()?);
    *slot = Some(Arc::clone(&value));
    Ok(value)
}

impl Resources {
    /// Resources as `config` configures them (nothing is loaded yet).
    pub fn from_config(config: &PerturbConfig) -> Self {
        Resources {
            seed: config.seed,
            entity_pool_path: config.entity_pool.clone(),
            ..Resources::default()
        }
    }

    /// The run's base seed (`[perturb] seed`), mixed into every case's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// WordNet 3.1 from the asset cache (fetched on first use).
    ///
    /// # Errors
    /// As [`WordNet::from_assets`].
    pub fn wordnet(&self) -> Result<Arc<WordNet>> {
        cached(&self.wordnet, WordNet::from_assets)
    }

    /// lemminflect's inflection tables from the asset cache (fetched on first use).
    ///
    /// # Errors
    /// As [`Inflections::from_assets`].
    pub fn inflections(&self) -> Result<Arc<Inflections>> {
        cached(&self.inflections, Inflections::from_assets)
    }

    /// The GeoNames gazetteer (process-wide, fetched on first use).
    ///
    /// # Errors
    /// As [`Gazetteer::shared`].
    pub fn gazetteer(&self) -> Result<&'static Gazetteer> {
        Gazetteer::shared()
    }

    /// The entity pool named by `[perturb] entity_pool`, or `None` when none is configured.
    ///
    /// # Errors
    /// When the configured file cannot be read or parsed.
    pub fn entity_pool(&self) -> Result<Option<Arc<EntityPool>>> {
        let Some(path) = &self.entity_pool_path else {
            return Ok(None);
        };
        cached(&self.entity_pool, || EntityPool::load_json(path)).map(Some)
    }
}
