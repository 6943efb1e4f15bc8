//! The weights of a `TransitionBasedParser.v2` model and its forward pass.

use super::super::linalg::Linear;
use super::super::msgpack::ThincModel;
use super::super::packed::PackedWeights;
use super::super::tok2vec::{Tok2Vec, TokenVectors};
use super::super::LoadError;

/// Scoring model of a parser or NER component.
#[derive(Clone, Debug)]
pub struct StateModel {
    /// The component's own tok2vec (NER), or `None` when it listens to the shared one.
    pub tok2vec: Option<Tok2Vec>,
    /// Token vectors → hidden width.
    projection: Linear,
    /// Precomputable affine weights, `(n_feats·n_hidden·n_pieces) × n_hidden`.
    lower_w: PackedWeights,
    /// Its bias, `n_hidden·n_pieces`.
    lower_b: Vec<f32>,
    /// Its padding vectors for missing feature tokens, `n_feats × n_hidden·n_pieces`.
    pad: Vec<f32>,
    /// Hidden → action scores.
    upper: Linear,
    /// Feature slots per state.
    pub n_feats: usize,
    /// Hidden width.
    pub n_hidden: usize,
    /// Maxout pieces.
    pub n_pieces: usize,
}

impl StateModel {
    /// Reads a parser or NER `model` file.
    pub fn read(model: &ThincModel) -> Result<Self, LoadError> {
        Self::build(model).map_err(|m| model.error(m))
    }

    fn build(model: &ThincModel) -> Result<Self, String> {
        let root = model
            .named("parser_model")
            .next()
            .ok_or("no `parser_model` layer")?;
        let node = |name: &str| -> Result<&super::super::msgpack::ThincNode, String> {
            let index = *root
                .refs
                .get(name)
                .ok_or_else(|| format!("`parser_model` has no `{name}` reference"))?;
            model
                .nodes
                .get(index)
                .ok_or_else(|| format!("reference `{name}` points past the node list"))
        };
        let lower = node("lower")?;
        let upper = Linear::from_node(node("upper")?)?;
        let shape = &lower.param("W")?.shape;
        let [n_feats, n_hidden, n_pieces, n_in] = shape[..] else {
            return Err(format!("precomputable_affine W has shape {shape:?}"));
        };
        let lower_w =
            super::super::linalg::expect_shape(lower, "W", &[n_feats, n_hidden, n_pieces, n_in])?;
        let lower_b = super::super::linalg::expect_shape(lower, "b", &[n_hidden, n_pieces])?;
        let pad =
            super::super::linalg::expect_shape(lower, "pad", &[1, n_feats, n_hidden, n_pieces])?;
        let upper_index = root.refs["upper"];
        let projection = model
            .named("linear")
            .find(|n| n.index != upper_index)
            .ok_or("no projection `linear` layer")
            .and_then(|n| Linear::from_node(n).map_err(|_| "bad projection layer"))?;
        if projection.n_out != n_in || upper.n_in != n_hidden {
            return Err(format!(
                "layer widths disagree: projection {}→{}, lower {n_in}→{n_hidden}, upper {}→{}",
                projection.n_in, projection.n_out, upper.n_in, upper.n_out
            ));
        }
        let tok2vec = if model.named("hashembed").next().is_some() {
            Some(Tok2Vec::from_model(model).map_err(|e| e.message)?)
        } else {
            None
        };
        Ok(Self {
            tok2vec,
            projection,
            lower_w: PackedWeights::new(lower_w, n_feats * n_hidden * n_pieces, n_in),
            lower_b,
            pad,
            upper,
            n_feats,
            n_hidden,
            n_pieces,
        })
    }

    /// Number of actions the model scores.
    pub fn n_actions(&self) -> usize {
        self.upper.n_out
    }

    /// Width of the token vectors it reads.
    pub fn input_width(&self) -> usize {
        self.projection.n_in
    }

    /// Every token's contribution to every feature slot: `len × (n_feats·n_hidden·n_pieces)`.
    pub fn precompute(&self, vectors: &TokenVectors) -> Vec<f32> {
        let n = vectors.len();
        let projected = self.projection.forward(&vectors.data, n);
        let width = self.n_feats * self.n_hidden * self.n_pieces;
        let mut cached = vec![0.0; n * width];
        self.lower_w.matmul(&projected, n, &mut cached, false);
        cached
    }

    /// The hidden layer of one state whose feature tokens are `ids`.
    pub fn hidden_state(&self, cached: &[f32], ids: &[i32], out: &mut [f32]) {
        let slot = self.n_hidden * self.n_pieces;
        let width = self.n_feats * slot;
        let mut unmaxed = [0.0f32; 1024];
        let mut heap;
        let unmaxed: &mut [f32] = if slot <= unmaxed.len() {
            &mut unmaxed[..slot]
        } else {
            heap = vec![0.0; slot];
            &mut heap
        };
        unmaxed.fill(0.0);
        for (f, &id) in ids.iter().enumerate() {
            let feature = if id < 0 {
                &self.pad[f * slot..(f + 1) * slot]
            } else {
                let base = id as usize * width + f * slot;
                &cached[base..base + slot]
            };
            for (u, v) in unmaxed.iter_mut().zip(feature) {
                *u += v;
            }
        }
        for (u, b) in unmaxed.iter_mut().zip(&self.lower_b) {
            *u += b;
        }
        for (h, pieces) in out.iter_mut().zip(unmaxed.chunks_exact(self.n_pieces)) {
            let mut best = pieces[0];
            for &p in &pieces[1..] {
                if p > best {
                    best = p;
                }
            }
            *h = best;
        }
    }

    /// Action scores for `n` hidden rows.
    pub fn scores(&self, hidden: &[f32], n: usize, out: &mut Vec<f32>) {
        *out = self.upper.forward(hidden, n);
    }
}
