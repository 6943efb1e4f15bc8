//! spaCy's `Tok2Vec.v2` = `MultiHashEmbed.v2` + `MaxoutWindowEncoder.v2`, inference only.
//!
//! Embedding: for each feature column (NORM, PREFIX, …) a thinc `HashEmbed` hashes the 64-bit
//! attribute value with MurmurHash3 (its own seed) into four 32-bit keys, takes each modulo the
//! table's row count and sums those four rows; the columns' vectors are concatenated, mixed by a
//! Maxout and layer-normalised. Encoding: `depth` residual blocks of window expansion (each row
//! concatenated with its neighbours), Maxout and LayerNorm.
//!
//! Padding is reproduced exactly: thinc's `with_array(pad=depth)` lays documents out as
//! `[pad, doc₁, pad, doc₂, …, pad]` with `pad` zero rows, and those rows go through the residual
//! blocks too, so the tokens near a document's edge see the pad rows' (non-zero) activations.
//! Documents are therefore batched in that same layout, which also makes each block one GEMM.
//!
//! A token's embedding depends on its feature values only, so it is computed once per distinct
//! value tuple and kept (up to [`EMBEDDING_CACHE_LIMIT`] tuples per model, shared by the
//! threads behind a lock taken once per batch): most tokens of running text are repeats, and
//! the table gathers — 16 rows of 288 floats per token from 12 MB of tables — were the largest
//! cost after the matrix products (issue 23). A copy is the same bits as a recomputation, so
//! output does not change.

use std::collections::HashMap;
use std::sync::Mutex;

use foldhash::fast::FixedState;

use super::hash::hash_embed_keys;
use super::lexeme::{feature_columns, FeatureAttr, TokenFeatures};
use super::linalg::{expect_shape, matmul_transposed, LayerNorm, Maxout};
use super::msgpack::ThincModel;
use super::LoadError;

/// Distinct tokens whose embedding a model keeps (37 MB at width 96); the cache is emptied
/// when full.
const EMBEDDING_CACHE_LIMIT: usize = 100_000;

/// Embedded rows by feature values, shared by the threads that run one model.
#[derive(Debug, Default)]
struct EmbeddingCache {
    /// The features a model reads (the others zero) → row in `rows`.
    index: HashMap<TokenFeatures, usize, FixedState>,
    /// Embedded rows, `width` floats each.
    rows: Vec<f32>,
}

/// One hash-embedding table, stored already multiplied by its slice of the mixer's weights.
///
/// The mixer is linear before its max, and a hash embedding is a sum of table rows, so
/// `W·[e₁; …; eₖ] = Σⱼ Σ_rows Wⱼ·Eⱼ[row]`: with `Pⱼ = Eⱼ·Wⱼᵀ` computed once at load time, mixing a
/// token is a sum of 4k rows of `P` instead of a (k·width)-wide matrix product. The sums are the
/// same up to float rounding order.
#[derive(Clone, Debug)]
struct HashEmbed {
    /// `rows × (n_pieces·width)`: the table times the mixer's weights for this column.
    projected: Vec<f32>,
    rows: usize,
    seed: u32,
    attr: FeatureAttr,
}

/// A loaded `Tok2Vec` model.
#[derive(Debug)]
pub struct Tok2Vec {
    width: usize,
    embeds: Vec<HashEmbed>,
    mix: Maxout,
    mix_norm: LayerNorm,
    blocks: Vec<(Maxout, LayerNorm)>,
    window: usize,
    pad: usize,
    cache: Mutex<EmbeddingCache>,
}

impl Clone for Tok2Vec {
    /// A clone shares the weights' values, not the cache.
    fn clone(&self) -> Self {
        Self {
            width: self.width,
            embeds: self.embeds.clone(),
            mix: self.mix.clone(),
            mix_norm: self.mix_norm.clone(),
            blocks: self.blocks.clone(),
            window: self.window,
            pad: self.pad,
            cache: Mutex::default(),
        }
    }
}

/// Token vectors of one document, `len × width`, row-major.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TokenVectors {
    /// Vector width.
    pub width: usize,
    /// Row-major data.
    pub data: Vec<f32>,
}

impl TokenVectors {
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.width).unwrap_or(0)
    }

    /// Whether there are no tokens.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The vector of token `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.width..(i + 1) * self.width]
    }
}

impl Tok2Vec {
    /// Reads the embedding and encoding layers out of a serialised model: a `tok2vec` component
    /// model, or a parser/NER model that embeds its own.
    pub fn from_model(model: &ThincModel) -> Result<Self, LoadError> {
        Self::build(model).map_err(|m| model.error(m))
    }

    fn build(model: &ThincModel) -> Result<Self, String> {
        let extractor = model
            .named("extract_features")
            .next()
            .ok_or("no `extract_features` layer")?;
        let columns = feature_columns(
            extractor
                .attrs
                .get("columns")
                .ok_or("`extract_features` has no `columns` attribute")?,
        )?;
        let mut embeds = Vec::new();
        for node in model.named("hashembed") {
            let column = node
                .attr_int("column")
                .ok_or("`hashembed` without `column`")? as usize;
            let seed = node.attr_int("seed").ok_or("`hashembed` without `seed`")? as u32;
            let attr = *columns
                .get(column)
                .ok_or_else(|| format!("`hashembed` column {column} out of range"))?;
            let shape = &node.param("E")?.shape;
            let [rows, width] = shape[..] else {
                return Err(format!("hashembed E has shape {shape:?}"));
            };
            embeds.push(HashEmbed {
                projected: expect_shape(node, "E", &[rows, width])?,
                rows,
                seed,
                attr,
            });
        }
        let width = model
            .named("hashembed")
            .next()
            .and_then(|n| n.dim("nO"))
            .ok_or("no `hashembed` layer")?;
        let maxouts: Vec<_> = model.named("maxout").collect();
        let norms: Vec<_> = model.named("layernorm").collect();
        if maxouts.is_empty() || maxouts.len() != norms.len() {
            return Err(format!(
                "expected matching maxout/layernorm layers, got {} and {}",
                maxouts.len(),
                norms.len()
            ));
        }
        let mix = Maxout::from_node(maxouts[0])?;
        if mix.n_in != width * embeds.len() || mix.n_out != width {
            return Err(format!(
                "embedding mixer is {}→{}, expected {}→{width}",
                mix.n_in,
                mix.n_out,
                width * embeds.len()
            ));
        }
        let mix_norm = LayerNorm::from_node(norms[0], width)?;
        // Fold the mixer's weights into each table (see `HashEmbed`).
        let mixed = mix.n_out * mix.n_pieces;
        for (j, embed) in embeds.iter_mut().enumerate() {
            let w_j: Vec<f32> = mix
                .w
                .weights()
                .chunks_exact(mix.n_in)
                .flat_map(|row| &row[j * width..(j + 1) * width])
                .copied()
                .collect();
            let mut projected = vec![0.0; embed.rows * mixed];
            matmul_transposed(
                &embed.projected,
                embed.rows,
                width,
                &w_j,
                mixed,
                &mut projected,
                false,
            );
            embed.projected = projected;
        }
        let window = model
            .named("expand_window")
            .find_map(|n| n.attr_int("window_size"))
            .unwrap_or(1) as usize;
        let mut blocks = Vec::new();
        for (m, n) in maxouts[1..].iter().zip(&norms[1..]) {
            let maxout = Maxout::from_node(m)?;
            if maxout.n_in != width * (2 * window + 1) || maxout.n_out != width {
                return Err(format!(
                    "encoder layer #{} is {}→{}",
                    m.index, maxout.n_in, maxout.n_out
                ));
            }
            blocks.push((maxout, LayerNorm::from_node(n, width)?));
        }
        let pad = model
            .nodes
            .iter()
            .find(|n| n.name.starts_with("with_array(residual("))
            .and_then(|n| n.attr_int("pad"))
            .unwrap_or(blocks.len() as i64) as usize;
        Ok(Self {
            width,
            embeds,
            mix,
            mix_norm,
            blocks,
            window,
            pad,
            cache: Mutex::default(),
        })
    }

    /// Output width.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The attributes this model reads.
    pub fn attrs(&self) -> Vec<FeatureAttr> {
        self.embeds.iter().map(|e| e.attr).collect()
    }

    /// `features` with only the attributes this model reads: what its embedding depends on.
    fn cache_key(&self, features: &TokenFeatures) -> TokenFeatures {
        let mut key = TokenFeatures { values: [0; 8] };
        for embed in &self.embeds {
            key.values[embed.attr as usize] = features.get(embed.attr);
        }
        key
    }

    /// Token vectors for a batch of documents, each given as its tokens' features.
    pub fn forward(&self, docs: &[&[TokenFeatures]]) -> Vec<TokenVectors> {
        let w = self.width;
        let total_rows = self.pad + docs.iter().map(|d| d.len() + self.pad).sum::<usize>();
        // Embed and mix every token row; pad rows stay zero (thinc pads after embedding).
        let mixed = self.mix.n_out * self.mix.n_pieces;
        // `window` zero rows before and after the batch: the encoder reads each row's window
        // of neighbours in place from `x` (row stride `w`), and neighbours outside the batch
        // are zero.
        let margin = self.window * w;
        let mut x = vec![0.0f32; total_rows * w + 2 * margin];
        let mut acc = vec![0.0f32; mixed];
        let mut row = self.pad;
        let mut starts = Vec::with_capacity(docs.len());
        // A token's embedding is a function of its feature values alone, and text repeats
        // most of its tokens ("the", ","): embedded rows are kept across calls and copied.
        // A poisoned lock only bypasses the cache.
        let mut cache = self.cache.lock().ok();
        if let Some(cache) = cache.as_mut() {
            if cache.index.len() >= EMBEDDING_CACHE_LIMIT {
                cache.index.clear();
                cache.rows.clear();
            }
        }
        for doc in docs {
            starts.push(row);
            for features in doc.iter() {
                let key = self.cache_key(features);
                let out = &mut x[margin + row * w..margin + (row + 1) * w];
                if let Some(cache) = cache.as_ref() {
                    if let Some(&at) = cache.index.get(&key) {
                        out.copy_from_slice(&cache.rows[at * w..(at + 1) * w]);
                        row += 1;
                        continue;
                    }
                }
                acc.fill(0.0);
                for embed in &self.embeds {
                    for key in hash_embed_keys(features.get(embed.attr), embed.seed) {
                        let r = key as usize % embed.rows;
                        for (a, p) in acc
                            .iter_mut()
                            .zip(&embed.projected[r * mixed..(r + 1) * mixed])
                        {
                            *a += p;
                        }
                    }
                }
                self.mix.max_pieces(&acc, out);
                self.mix_norm.forward_inplace(out);
                if let Some(cache) = cache.as_mut() {
                    let at = cache.index.len();
                    cache.index.insert(key, at);
                    cache.rows.extend_from_slice(out);
                }
                row += 1;
            }
            row += self.pad;
        }
        drop(cache);
        let mut scratch = Vec::new();
        for (maxout, norm) in &self.blocks {
            let mut y = maxout.forward_strided(&x, total_rows, w, &mut scratch);
            norm.forward_inplace(&mut y);
            for (a, b) in x[margin..margin + total_rows * w].iter_mut().zip(&y) {
                *a += b;
            }
        }
        let x = &x[margin..];
        docs.iter()
            .zip(&starts)
            .map(|(doc, &start)| TokenVectors {
                width: w,
                data: x[start * w..(start + doc.len()) * w].to_vec(),
            })
            .collect()
    }
}
