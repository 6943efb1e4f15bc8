//! The `parser` and `ner` pipeline components: a transition system plus its scoring model.

use std::path::Path;

use super::lexeme::TokenFeatures;
use super::msgpack::ThincModel;
use super::tok2vec::TokenVectors;
use super::transition::arc_eager::ArcEager;
use super::transition::ner::Biluo;
use super::transition::nonproj::{deprojectivize, set_sentence_starts};
use super::transition::{greedy_decode, StateModel, TransitionSystem};
use super::{Doc, LoadError};

fn read_model(dir: &Path, n_actions: usize) -> Result<StateModel, LoadError> {
    let path = dir.join("model");
    let model = StateModel::read(&ThincModel::read(&path)?)?;
    if model.n_actions() != n_actions {
        return Err(LoadError::new(
            &path,
            format!(
                "model scores {} actions but `moves` defines {n_actions}",
                model.n_actions()
            ),
        ));
    }
    Ok(model)
}

/// The dependency parser: arc-eager transitions, greedy decoding, pseudo-projective decoding.
#[derive(Clone, Debug)]
pub struct DependencyParser {
    system: ArcEager,
    model: StateModel,
}

impl DependencyParser {
    /// Reads a `parser` component directory (`moves`, `model`).
    pub fn from_dir(dir: &Path) -> Result<Self, LoadError> {
        let system = ArcEager::from_moves(&dir.join("moves"))?;
        let model = read_model(dir, system.n_actions())?;
        Ok(Self { system, model })
    }

    /// Width of the token vectors it reads (the shared tok2vec's).
    pub fn input_width(&self) -> usize {
        self.model.input_width()
    }

    /// Parses every document: sets `head`, `dep` and `sent_start`.
    pub fn apply(&self, docs: &mut [Doc], vectors: &[TokenVectors]) {
        let cached: Vec<Vec<f32>> = vectors.iter().map(|v| self.model.precompute(v)).collect();
        let mut states: Vec<_> = docs
            .iter()
            .map(|d| self.system.init_state(d.len()))
            .collect();
        greedy_decode(&self.system, &self.model, &mut states, &cached);
        for (doc, state) in docs.iter_mut().zip(&states) {
            self.system.set_annotations(state, doc);
            deprojectivize(doc);
            set_sentence_starts(doc);
        }
    }
}

/// The entity recogniser: BILUO transitions over its own tok2vec.
#[derive(Clone, Debug)]
pub struct EntityRecognizer {
    system: Biluo,
    model: StateModel,
}

impl EntityRecognizer {
    /// Reads an `ner` component directory (`moves`, `model`).
    pub fn from_dir(dir: &Path) -> Result<Self, LoadError> {
        let system = Biluo::from_moves(&dir.join("moves"))?;
        let model = read_model(dir, system.n_actions())?;
        if model.tok2vec.is_none() {
            return Err(LoadError::new(
                &dir.join("model"),
                "NER models that listen to a shared tok2vec are not supported",
            ));
        }
        Ok(Self { system, model })
    }

    /// Sets `ent_iob` and `ent_type` on every document (sentence starts must be set).
    pub fn apply(&self, docs: &mut [Doc], features: &[&[TokenFeatures]]) {
        let tok2vec = self.model.tok2vec.as_ref().expect("checked when loading");
        let vectors = tok2vec.forward(features);
        let cached: Vec<Vec<f32>> = vectors.iter().map(|v| self.model.precompute(v)).collect();
        let mut states: Vec<_> = docs.iter().map(|d| self.system.init_state(d)).collect();
        greedy_decode(&self.system, &self.model, &mut states, &cached);
        for (doc, state) in docs.iter_mut().zip(&states) {
            self.system.set_annotations(state, doc);
        }
    }
}
