//! The [`VoiceChange`] relation value and its constructor. A leaf, so that the modules which add
//! its conversion methods (`to_passive`, `to_active`, `noun_phrase`) need not import `mod.rs`.

use std::sync::Arc;

use metamorph_data::Result;

use crate::lexicon::first_names::FirstNames;
use crate::lexicon::inflect::Inflections;
use crate::lexicon::lm_choice::SubstitutionChooser;
use crate::lexicon::wordnet::WordNet;
use crate::Resources;

/// MT4MRC MR2-3 (see the module docs).
#[derive(Clone, Debug)]
pub struct VoiceChange {
    pub(super) inflections: Arc<Inflections>,
    /// For whether a noun may name a person or animal (pronoun referents).
    pub(super) wordnet: Arc<WordNet>,
    /// For the gender of a person's name (pronoun referents).
    pub(super) first_names: &'static FirstNames,
    /// With `[perturb.mt4mrc] lm`: the causal LM that chooses where a phrase after the object
    /// goes (see `VoiceChange::placed`).
    pub(super) chooser: Option<SubstitutionChooser>,
    /// How many nats likelier the LM must find the phrase in the new subject.
    pub(super) placement_margin: f32,
}

impl VoiceChange {
    /// The relation over the shared inflection tables.
    ///
    /// # Errors
    /// When the inflection tables, WordNet, the first-name table or the configured LM cannot be
    /// loaded.
    pub fn new(resources: &Resources) -> Result<Self> {
        let config = resources.mt4mrc_config();
        Ok(VoiceChange {
            inflections: resources.inflections()?,
            wordnet: resources.wordnet()?,
            first_names: resources.first_names()?,
            chooser: resources
                .mt4mrc_lm()?
                .map(|lm| SubstitutionChooser::new(lm, f32::INFINITY, 1)),
            placement_margin: config.voice_lm_margin,
        })
    }
}
