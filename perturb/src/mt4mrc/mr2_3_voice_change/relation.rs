//! The [`VoiceChange`] relation value and its constructor. A leaf, so that the modules which add
//! its conversion methods (`to_passive`, `to_active`, `noun_phrase`) need not import `mod.rs`.

use std::sync::Arc;

use metamorph_data::Result;

use crate::lexicon::first_names::FirstNames;
use crate::lexicon::inflect::Inflections;
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
}

impl VoiceChange {
    /// The relation over the shared inflection tables.
    ///
    /// # Errors
    /// When the inflection tables, WordNet or the first-name table cannot be loaded.
    pub fn new(resources: &Resources) -> Result<Self> {
        Ok(VoiceChange {
            inflections: resources.inflections()?,
            wordnet: resources.wordnet()?,
            first_names: resources.first_names()?,
        })
    }
}
