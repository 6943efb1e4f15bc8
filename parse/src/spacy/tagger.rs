//! spaCy's `tagger` component (`Tagger.v2`): a softmax layer over the shared tok2vec output.
//! Inference only needs the argmax, so the softmax itself is skipped.

use std::path::Path;

use super::linalg::{argmax, Linear};
use super::msgpack::ThincModel;
use super::tok2vec::TokenVectors;
use super::{Doc, LoadError};

/// A loaded tagger: labels from `cfg`, the output layer from `model`.
#[derive(Clone, Debug)]
pub struct Tagger {
    labels: Vec<String>,
    output: Linear,
}

impl Tagger {
    /// Reads `<dir>/cfg` and `<dir>/model` of a tagger component.
    pub fn from_dir(dir: &Path) -> Result<Self, LoadError> {
        let labels = read_cfg_labels(&dir.join("cfg"))?;
        let model = ThincModel::read(&dir.join("model"))?;
        let node = model
            .named("softmax")
            .next()
            .ok_or_else(|| model.error("no `softmax` layer"))?;
        let output = Linear::from_node(node).map_err(|m| model.error(m))?;
        if output.n_out != labels.len() {
            return Err(model.error(format!(
                "softmax has {} outputs for {} labels in cfg",
                output.n_out,
                labels.len()
            )));
        }
        Ok(Self { labels, output })
    }

    /// Width of the token vectors it reads.
    pub fn input_width(&self) -> usize {
        self.output.n_in
    }

    /// The tag set, in model order.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Sets `tag` on every token from its vector.
    pub fn apply(&self, doc: &mut Doc, vectors: &TokenVectors) {
        let scores = self.output.forward(&vectors.data, vectors.len());
        for (token, row) in doc
            .tokens
            .iter_mut()
            .zip(scores.chunks_exact(self.output.n_out))
        {
            token.tag.clone_from(&self.labels[argmax(row)]);
        }
    }
}

/// Reads the `labels` list of a component's JSON `cfg`.
fn read_cfg_labels(path: &Path) -> Result<Vec<String>, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| LoadError::new(path, e.to_string()))?;
    let cfg: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| LoadError::new(path, format!("invalid JSON: {e}")))?;
    let labels = cfg
        .get("labels")
        .and_then(|l| l.as_array())
        .ok_or_else(|| LoadError::new(path, "no `labels` list"))?;
    labels
        .iter()
        .map(|l| {
            l.as_str()
                .map(str::to_string)
                .ok_or_else(|| LoadError::new(path, "field `labels`: non-string label"))
        })
        .collect()
}
