//! The lexical resources relations draw on, loaded once per stage and only when a chosen
//! relation asks for them (a run of MR1-3 alone never reads WordNet).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use metamorph_data::Result;

use metamorph_data::assets::ModelSource;
use metamorph_models::masked_lm::CandleMaskedLm;
use metamorph_models::Checkpoint;
use metamorph_models::{EncoderOptions, SentenceEncoder};

use crate::bpb::evaluator::ContextQa;
use crate::bpb::BpbRelationConfig;
use crate::crest::CrestConfig;
use crate::lexicon::entity_pool::EntityPool;
use crate::lexicon::first_names::FirstNames;
use crate::lexicon::geography::Gazetteer;
use crate::lexicon::in_context::ContextualLexicon;
use crate::lexicon::inflect::Inflections;
use crate::lexicon::wordnet::WordNet;
use crate::nlplego::NlpLegoConfig;
use crate::sit4re::Sit4reConfig;
use crate::PerturbConfig;

/// Lazily loaded, shared lexical resources (see the module docs). A clone shares every cache.
#[derive(Clone, Debug, Default)]
pub struct Resources {
    seed: u64,
    entity_pool_path: Option<PathBuf>,
    crest: CrestConfig,
    mt4mrc: crate::mt4mrc::Mt4mrcConfig,
    bpb: BpbRelationConfig,
    nlplego: NlpLegoConfig,
    sit4re: Sit4reConfig,
    step_qa: StepQaSlot,
    caches: Arc<Caches>,
}

/// The optional single-step QA model of Break-Perturb-Build's evaluator (no `Debug` of its own).
#[derive(Clone, Default)]
struct StepQaSlot(Option<Arc<dyn ContextQa>>);

impl std::fmt::Debug for StepQaSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StepQaSlot")
            .field("set", &self.0.is_some())
            .finish()
    }
}

/// What [`Resources`] has loaded; shared by the resources derived with
/// [`Resources::with_entity_pool`], so one run loads each lexicon and each pool file once.
#[derive(Debug, Default)]
struct Caches {
    wordnet: Mutex<Option<Arc<WordNet>>>,
    inflections: Mutex<Option<Arc<Inflections>>>,
    sentence_encoder: SentenceEncoderSlot,
    contextual: Mutex<Option<Arc<ContextualLexicon>>>,
    entity_pools: Mutex<HashMap<PathBuf, Arc<EntityPool>>>,
    parser: ParserSlot,
    masked_lm: ModelSlot<CandleMaskedLm>,
    causal_lm: ModelSlot<metamorph_models::causal_lm::CausalLm>,
}

/// Models cached by their spec, so two relations naming one model load it once: the masked
/// LMs (`[perturb.crest] masked_lm`, `[perturb.nlplego] masked_lm`) and the causal LMs that
/// choose substitutions (`[perturb.crest] lm`, `[perturb.nlplego] lm`). The models have no `Debug` of their own.
struct ModelSlot<M>(Mutex<HashMap<String, Arc<M>>>);

impl<M> Default for ModelSlot<M> {
    fn default() -> Self {
        ModelSlot(Mutex::new(HashMap::new()))
    }
}

impl<M> ModelSlot<M> {
    /// The model of `spec`, loaded by `load` the first time it is asked for.
    fn get_or_load(&self, spec: &str, load: impl FnOnce() -> Result<M>) -> Result<Arc<M>> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(model) = slot.get(spec) {
            return Ok(Arc::clone(model));
        }
        let model = Arc::new(load()?);
        slot.insert(spec.to_string(), Arc::clone(&model));
        Ok(model)
    }
}

impl<M> std::fmt::Debug for ModelSlot<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let loaded: Vec<String> = self
            .0
            .lock()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        f.debug_struct("ModelSlot")
            .field("loaded", &loaded)
            .finish()
    }
}

/// The asset whose embeddings choose senses and check substitutes in context.
pub const SUBSTITUTION_ENCODER: &str = "all-MiniLM-L6-v2";

/// The cached sentence encoder (which has no `Debug` of its own).
#[derive(Default)]
struct SentenceEncoderSlot(Mutex<Option<Arc<SentenceEncoder>>>);

impl std::fmt::Debug for SentenceEncoderSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let loaded = self.0.lock().map(|p| p.is_some()).unwrap_or(false);
        f.debug_struct("SentenceEncoderSlot")
            .field("loaded", &loaded)
            .finish()
    }
}

/// The cached spaCy pipeline (which has no `Debug` of its own).
#[derive(Default)]
struct ParserSlot(Mutex<Option<Arc<metamorph_parse::spacy::pipeline::Pipeline>>>);

impl std::fmt::Debug for ParserSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let loaded = self.0.lock().map(|p| p.is_some()).unwrap_or(false);
        f.debug_struct("ParserSlot")
            .field("loaded", &loaded)
            .finish()
    }
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
            crest: config.crest.clone(),
            bpb: config.bpb.clone(),
            nlplego: config.nlplego.clone(),
            mt4mrc: config.mt4mrc.clone(),
            sit4re: config.sit4re.clone(),
            ..Resources::default()
        }
    }

    /// CREST's settings (`[perturb.crest]`).
    pub fn crest_config(&self) -> &CrestConfig {
        &self.crest
    }

    /// Break-Perturb-Build's settings (`[perturb.bpb]`).
    pub fn bpb_config(&self) -> &BpbRelationConfig {
        &self.bpb
    }

    /// NLPLego's settings (`[perturb.nlplego]`).
    pub fn nlplego_config(&self) -> &NlpLegoConfig {
        &self.nlplego
    }

    /// SIT4RE's settings (`[perturb.sit4re]`).
    pub fn sit4re_config(&self) -> &Sit4reConfig {
        &self.sit4re
    }

    /// CREST's masked LM (`[perturb.crest] masked_lm`), loaded on first use; `None` when not
    /// configured.
    ///
    /// # Errors
    /// When the checkpoint cannot be found or loaded.
    pub fn crest_masked_lm(&self) -> Result<Option<Arc<CandleMaskedLm>>> {
        self.crest
            .masked_lm
            .as_deref()
            .map(|spec| self.masked_lm(spec, "[perturb.crest] masked_lm"))
            .transpose()
    }

    /// CREST's choosing causal LM (`[perturb.crest] lm`), loaded on first use; `None` when not
    /// configured.
    ///
    /// # Errors
    /// When the model cannot be fetched or loaded.
    pub fn crest_lm(&self) -> Result<Option<Arc<metamorph_models::causal_lm::CausalLm>>> {
        self.crest
            .lm
            .as_deref()
            .map(|s| self.causal_lm(s))
            .transpose()
    }

    /// MT4MRC's settings (`[perturb.mt4mrc]`).
    pub fn mt4mrc_config(&self) -> &crate::mt4mrc::Mt4mrcConfig {
        &self.mt4mrc
    }

    /// The causal LM that chooses MR2-1's synonyms (`[perturb.mt4mrc] lm`), loaded on first use
    /// (once for every relation naming the same); `None` when not configured.
    ///
    /// # Errors
    /// When the model cannot be fetched or loaded.
    pub fn mt4mrc_lm(&self) -> Result<Option<Arc<metamorph_models::causal_lm::CausalLm>>> {
        self.mt4mrc
            .lm
            .as_deref()
            .map(|s| self.causal_lm(s))
            .transpose()
    }

    /// The causal LM that predicts NLPLego-MRC's replacements (`[perturb.nlplego] lm`), loaded
    /// on first use (once for CREST and NLPLego when they name the same); `None` when not
    /// configured.
    ///
    /// # Errors
    /// When the model cannot be fetched or loaded.
    pub fn nlplego_lm(&self) -> Result<Option<Arc<metamorph_models::causal_lm::CausalLm>>> {
        self.nlplego
            .lm
            .as_deref()
            .map(|s| self.causal_lm(s))
            .transpose()
    }

    /// The causal LM `spec` names, cached by spec.
    fn causal_lm(&self, spec: &str) -> Result<Arc<metamorph_models::causal_lm::CausalLm>> {
        self.caches.causal_lm.get_or_load(spec, || {
            metamorph_models::causal_lm::CausalLm::load(
                spec,
                metamorph_models::LmOptions::default(),
            )
        })
    }

    /// NLPLego's masked LM (`[perturb.nlplego] masked_lm`), loaded on first use; `None` when not
    /// configured.
    ///
    /// # Errors
    /// When the checkpoint cannot be found or loaded.
    pub fn nlplego_masked_lm(&self) -> Result<Option<Arc<CandleMaskedLm>>> {
        self.nlplego
            .masked_lm
            .as_deref()
            .map(|spec| self.masked_lm(spec, "[perturb.nlplego] masked_lm"))
            .transpose()
    }

    /// The masked LM `spec` names (`key` is the config key, for errors), cached by spec.
    fn masked_lm(&self, spec: &str, key: &str) -> Result<Arc<CandleMaskedLm>> {
        self.caches.masked_lm.get_or_load(spec, || {
            let source: metamorph_data::assets::ModelSource = spec
                .parse()
                .map_err(|e| metamorph_data::Error::Config(format!("{key}: {e}")))?;
            CandleMaskedLm::from_source(
                &source,
                &metamorph_data::assets::HubOptions::default(),
                &metamorph_models::ModelOptions::default(),
            )
        })
    }

    /// The single-step QA model of Break-Perturb-Build's evaluator, if the run provides one.
    pub fn step_qa(&self) -> Option<Arc<dyn ContextQa>> {
        self.step_qa.0.clone()
    }

    /// These resources with `qa` as Break-Perturb-Build's single-step QA model (a pipeline
    /// passes an extractive QA model of `execute`), sharing everything loaded so far.
    pub fn with_step_qa(&self, qa: Arc<dyn ContextQa>) -> Resources {
        Resources {
            step_qa: StepQaSlot(Some(qa)),
            ..self.clone()
        }
    }

    /// The run's base seed (`[perturb] seed`), mixed into every case's seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// WordNet 3.1 from the asset cache (fetched on first use), with morphological exceptions
    /// from lemminflect's tables ([`WordNet::with_exceptions`]).
    ///
    /// # Errors
    /// As [`WordNet::from_assets`] and [`Resources::inflections`].
    pub fn wordnet(&self) -> Result<Arc<WordNet>> {
        let inflections = self.inflections()?;
        cached(&self.caches.wordnet, || {
            Ok(WordNet::from_assets()?.with_exceptions(inflections))
        })
    }

    /// all-MiniLM-L6-v2 from the asset cache (fetched on first use), on the CPU: the sentence
    /// encoder substitutions are chosen by sense and checked for fit with.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Asset`] naming the file that does not load.
    pub fn sentence_encoder(&self) -> Result<Arc<SentenceEncoder>> {
        cached(&self.caches.sentence_encoder.0, || {
            let checkpoint = Checkpoint::try_resolve(
                &ModelSource::Asset(SUBSTITUTION_ENCODER.into()),
                &Default::default(),
            )?;
            SentenceEncoder::try_new(
                SUBSTITUTION_ENCODER,
                &checkpoint,
                EncoderOptions::default().with_batch_size(64),
            )
        })
    }

    /// WordNet and the sentence encoder together, one per run (its gloss cache is shared):
    /// the context-aware substitution every relation that replaces a word draws on.
    ///
    /// # Errors
    /// As [`Resources::wordnet`] and [`Resources::sentence_encoder`].
    pub fn contextual_lexicon(&self) -> Result<Arc<ContextualLexicon>> {
        cached(&self.caches.contextual, || {
            Ok(ContextualLexicon::new(
                self.wordnet()?,
                self.sentence_encoder()?,
                self.inflections()?,
            ))
        })
    }

    /// lemminflect's inflection tables from the asset cache (fetched on first use).
    ///
    /// # Errors
    /// As [`Inflections::from_assets`].
    pub fn inflections(&self) -> Result<Arc<Inflections>> {
        cached(&self.caches.inflections, Inflections::from_assets)
    }

    /// The spaCy pipeline `en_core_web_sm` (the `parse` stage's model) from the asset cache,
    /// for relations that must parse the follow-ups they build (CREST's selection re-parses
    /// each mutated sentence); loaded on first use, once per run.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Model`] when the pipeline cannot be fetched or loaded.
    pub fn parser(&self) -> Result<Arc<metamorph_parse::spacy::pipeline::Pipeline>> {
        cached(&self.caches.parser.0, || {
            let dir = metamorph_data::assets::ensure("en_core_web_sm")?;
            metamorph_parse::spacy::pipeline::Pipeline::load(&dir).map_err(|e| {
                metamorph_data::Error::Model {
                    model: "en_core_web_sm".into(),
                    message: format!("loading {}: {e}", dir.display()),
                }
            })
        })
    }

    /// The GeoNames gazetteer (process-wide, fetched on first use).
    ///
    /// # Errors
    /// The first-name dictionary (MR-R1's gender and region of a person's name), loaded once
    /// per process.
    ///
    /// # Errors
    /// As [`FirstNames::shared`].
    pub fn first_names(&self) -> Result<&'static FirstNames> {
        FirstNames::shared()
    }

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
        self.entity_pool_at(path).map(Some)
    }

    /// The entity pool in the JSON file `path`, loaded once per run whichever resources ask.
    ///
    /// # Errors
    /// When the file cannot be read or parsed (a failed load is retried on the next call).
    pub fn entity_pool_at(&self, path: &Path) -> Result<Arc<EntityPool>> {
        let mut pools = self
            .caches
            .entity_pools
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(pool) = pools.get(path) {
            return Ok(Arc::clone(pool));
        }
        let pool = Arc::new(EntityPool::load_json(path)?);
        pools.insert(path.to_path_buf(), Arc::clone(&pool));
        Ok(pool)
    }

    /// These resources with `path` as the entity pool (`cargo xtask pipeline` gives each
    /// relation dataset a pool of its own), sharing every cache with `self`.
    pub fn with_entity_pool(&self, path: Option<PathBuf>) -> Resources {
        Resources {
            entity_pool_path: path,
            ..self.clone()
        }
    }

    /// The configured entity pool's path, if any.
    pub fn entity_pool_path(&self) -> Option<&Path> {
        self.entity_pool_path.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexicon::entity_pool::EntityPoolBuilder;

    #[test]
    fn derived_resources_share_pools_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.json"), dir.path().join("sub/b.json"));
        let mut builder = EntityPoolBuilder::new("gold");
        builder.add("PERSON", "Ann");
        builder.build().save_json(&a).unwrap();
        let mut builder = EntityPoolBuilder::new("gold");
        builder.add("CITY", "Rome");
        builder.build().save_json(&b).unwrap();
        let base = Resources::default();
        assert!(base.entity_pool().unwrap().is_none());
        let ra = base.with_entity_pool(Some(a.clone()));
        let rb = base.with_entity_pool(Some(b));
        let pa = ra.entity_pool().unwrap().unwrap();
        assert_eq!(pa.entries("PERSON")[0].text, "Ann");
        assert_eq!(
            rb.entity_pool().unwrap().unwrap().entries("CITY")[0].text,
            "Rome"
        );
        // Loaded once: the same Arc from the base and from a derived resources.
        assert!(Arc::ptr_eq(&pa, &base.entity_pool_at(&a).unwrap()));
    }
}
