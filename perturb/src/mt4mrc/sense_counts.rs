//! SemCor sense-tag counts read from WordNet's `index.sense`, which MR1-1 and MR2-1 both use to
//! pick an adjective's dominant sense. A leaf module, so that neither relation imports the other.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use metamorph_data::Result;

use crate::lexicon::wordnet::WordNet;

/// SemCor tag counts from WordNet's `index.sense` (fields: sense key, synset offset, sense
/// number, tag count): per adjective sense (`lemma%3:…` heads and `lemma%5:…` satellites), and
/// each lemma's totals as an adjective and as a noun or verb (`%1`, `%2`). Shared by MR1-1 and
/// MR2-1 and read once per process.
#[derive(Debug, Default)]
pub(super) struct SenseCounts {
    per_sense: HashMap<(String, u32), u32>,
    adjective_totals: HashMap<String, u32>,
    noun_verb_totals: HashMap<String, u32>,
    adverb_totals: HashMap<String, u32>,
}

impl SenseCounts {
    /// The counts of `wordnet`'s `index.sense`, read on first use.
    pub(super) fn shared(wordnet: &WordNet) -> Result<Arc<SenseCounts>> {
        static CACHE: Mutex<Option<(PathBuf, Arc<SenseCounts>)>> = Mutex::new(None);
        let path = wordnet.dir().join("index.sense");
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((cached, counts)) = cache.as_ref() {
            if *cached == path {
                return Ok(Arc::clone(counts));
            }
        }
        let counts = Arc::new(SenseCounts::read(&path)?);
        *cache = Some((path, Arc::clone(&counts)));
        Ok(counts)
    }

    fn read(path: &Path) -> Result<SenseCounts> {
        let text = std::fs::read_to_string(path).map_err(|e| metamorph_data::Error::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        let mut counts = SenseCounts::default();
        for line in text.lines() {
            let mut fields = line.split(' ');
            let (Some(key), Some(offset), Some(_), Some(count)) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let Some((lemma, rest)) = key.split_once('%') else {
                continue;
            };
            let (Ok(offset), Ok(count)) = (offset.parse::<u32>(), count.parse::<u32>()) else {
                continue;
            };
            if rest.starts_with('3') || rest.starts_with('5') {
                counts.per_sense.insert((lemma.to_string(), offset), count);
                *counts
                    .adjective_totals
                    .entry(lemma.to_string())
                    .or_default() += count;
            } else if rest.starts_with('4') {
                *counts.adverb_totals.entry(lemma.to_string()).or_default() += count;
            } else if rest.starts_with('1') || rest.starts_with('2') {
                *counts
                    .noun_verb_totals
                    .entry(lemma.to_string())
                    .or_default() += count;
            }
        }
        Ok(counts)
    }

    /// The tag count of `lemma` in the adjective synset at `offset`.
    pub(super) fn count(&self, lemma: &str, offset: u32) -> u32 {
        self.per_sense
            .get(&(lemma.to_string(), offset))
            .copied()
            .unwrap_or(0)
    }

    /// The tag count of `lemma` over its adjective senses.
    pub(super) fn adjective_total(&self, lemma: &str) -> u32 {
        self.adjective_totals.get(lemma).copied().unwrap_or(0)
    }

    /// The tag count of `lemma` over its noun and verb senses.
    pub(super) fn noun_verb_total(&self, lemma: &str) -> u32 {
        self.noun_verb_totals.get(lemma).copied().unwrap_or(0)
    }

    /// The tag count of `lemma` over its adverb senses.
    pub(super) fn adverb_total(&self, lemma: &str) -> u32 {
        self.adverb_totals.get(lemma).copied().unwrap_or(0)
    }
}
