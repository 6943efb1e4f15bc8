//! The [`VoiceChange`] relation value and its constructor. A leaf, so that the modules which add
//! its conversion methods (`to_passive`, `to_active`, `noun_phrase`) need not import `mod.rs`.

use std::sync::Arc;

use metamorph_data::Result;

use crate::lexicon::inflect::Inflections;
use crate::Resources;

/// MT4MRC MR2-3 (see the module docs).
#[derive(Clone, Debug)]
pub struct VoiceChange {
    pub(super) inflections: Arc<Inflections>,
}

impl VoiceChange {
    /// The relation over the shared inflection tables.
    ///
    /// # Errors
    /// When the inflection tables cannot be loaded.
    pub fn new(resources: &Resources) -> Result<Self> {
        Ok(VoiceChange {
            inflections: resources.inflections()?,
        })
    }
}
