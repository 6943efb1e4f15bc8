//! The fluency check without a masked LM: does a substituted word fit its neighbours as well as
//! the word it replaced? Words are embedded with the encoder's own input (word-piece) embedding
//! table — the static vectors of the checkpoint the meaning check already loads, so no second
//! asset — a word being the mean of its pieces.
//!
//! **Why not `en_core_web_md`.** The substitution issue measured its vectors too coarse to tell
//! senses apart (684,830 keys share 20,000 rows; "dog" and "cat" have one row), see
//! `metamorph_perturb::lexicon::in_context`.

use std::collections::HashMap;

use candle_core::{DType, Device};
use metamorph_data::{Error, Result};
use metamorph_models::Checkpoint;
use tokenizers::Tokenizer;

/// Function words left out of a word's neighbours: they co-occur with everything.
const STOPWORDS: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "with", "and", "or", "but", "is",
    "are", "was", "were", "be", "been", "it", "its", "this", "that", "as", "from", "he", "she",
    "they", "his", "her", "their", "has", "had", "have", "not", "do", "does", "did", "i", "you",
    "we", "which", "who",
];

/// Static word vectors: the input embedding table of a BERT-family checkpoint.
pub struct WordVectors {
    tokenizer: Tokenizer,
    table: Vec<f32>,
    dim: usize,
    rows: usize,
}

impl WordVectors {
    /// Reads the word-piece embedding table and tokenizer of `checkpoint`.
    ///
    /// # Errors
    /// [`Error::Asset`] naming the file when the tokenizer or the table does not load.
    pub fn load(checkpoint: &Checkpoint) -> Result<Self> {
        let tokenizer_path = checkpoint.dir.join("tokenizer.json");
        let tokenizer = Tokenizer::from_file(&tokenizer_path).map_err(|e| Error::Asset {
            name: tokenizer_path.display().to_string(),
            message: format!("tokenizer does not load: {e}"),
        })?;
        for path in &checkpoint.weights {
            let asset = |message: String| Error::Asset {
                name: path.display().to_string(),
                message,
            };
            // Only the one table is read, from a memory map of the file.
            // SAFETY: the file is an asset the process does not write; candle's loaders map
            // checkpoints the same way.
            let tensors = unsafe { candle_core::safetensors::MmapedSafetensors::new(path) }
                .map_err(|e| asset(format!("weights do not load: {e}")))?;
            let Some(name) = tensors
                .tensors()
                .into_iter()
                .map(|(name, _)| name)
                .find(|name| name.ends_with("word_embeddings.weight"))
            else {
                continue;
            };
            let table = tensors
                .load(&name, &Device::Cpu)
                .map_err(|e| asset(format!("word embedding table: {e}")))?;
            let (rows, dim) = table
                .dims2()
                .map_err(|e| asset(format!("word embedding table: {e}")))?;
            let table = table
                .to_dtype(DType::F32)
                .and_then(|t| t.flatten_all())
                .and_then(|t| t.to_vec1::<f32>())
                .map_err(|e| asset(format!("word embedding table: {e}")))?;
            return Ok(WordVectors {
                tokenizer,
                table,
                dim,
                rows,
            });
        }
        Err(Error::Asset {
            name: checkpoint.dir.display().to_string(),
            message: "no `word_embeddings.weight` table in the safetensors weights".into(),
        })
    }

    /// The vector of `word` (the mean of its pieces', unit length), `None` for a word the
    /// tokenizer gives no piece for.
    pub fn vector(&self, word: &str) -> Option<Vec<f32>> {
        let encoding = self.tokenizer.encode(word, false).ok()?;
        // Real pieces only: a tokenizer.json may pad every encoding (all-MiniLM-L6-v2's does).
        let ids: Vec<usize> = encoding
            .get_ids()
            .iter()
            .zip(encoding.get_attention_mask())
            .zip(encoding.get_special_tokens_mask())
            .filter(|((_, &attend), &special)| attend == 1 && special == 0)
            .map(|((&id, _), _)| id as usize)
            .filter(|&id| id < self.rows)
            .collect();
        if ids.is_empty() {
            return None;
        }
        let mut v = vec![0f32; self.dim];
        for id in ids {
            for (x, y) in v
                .iter_mut()
                .zip(&self.table[id * self.dim..(id + 1) * self.dim])
            {
                *x += y;
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        v.iter_mut().for_each(|x| *x /= norm);
        Some(v)
    }
}

/// Scores substitutions against their neighbours, memoising word vectors.
pub struct WordFit<'a> {
    vectors: &'a WordVectors,
    cache: HashMap<String, Option<Vec<f32>>>,
}

impl<'a> WordFit<'a> {
    /// A scorer over `vectors`.
    pub fn new(vectors: &'a WordVectors) -> Self {
        WordFit {
            vectors,
            cache: HashMap::new(),
        }
    }

    fn vector(&mut self, word: &str) -> Option<Vec<f32>> {
        let key = word.to_lowercase();
        if let Some(v) = self.cache.get(&key) {
            return v.clone();
        }
        let v = self.vectors.vector(&key);
        self.cache.insert(key, v.clone());
        v
    }

    /// Mean cosine of `words` (as one phrase vector) with each neighbour.
    fn fit(&mut self, words: &str, neighbours: &[String]) -> Option<f32> {
        let v = self.vector(words)?;
        let sims: Vec<f32> = neighbours
            .iter()
            .filter_map(|n| self.vector(n))
            .map(|n| v.iter().zip(&n).map(|(a, b)| a * b).sum::<f32>())
            .collect();
        (!sims.is_empty()).then(|| sims.iter().sum::<f32>() / sims.len() as f32)
    }

    /// How much better (positive) or worse `after` fits `neighbours` than `before` did; `None`
    /// when either side has no vector or there are no neighbours.
    pub fn gain(&mut self, before: &str, after: &str, neighbours: &[String]) -> Option<f32> {
        let old = self.fit(before, neighbours)?;
        let new = self.fit(after, neighbours)?;
        Some(new - old)
    }
}

/// Up to `n` content words either side of the character range `words` of `text`.
pub fn neighbours(text: &str, words: std::ops::Range<usize>, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let side = |range: &[char]| -> Vec<String> {
        range
            .iter()
            .collect::<String>()
            .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
            .filter(|w| w.chars().count() > 1 && w.chars().any(char::is_alphabetic))
            .filter(|w| !STOPWORDS.contains(&w.to_lowercase().as_str()))
            .map(str::to_string)
            .collect()
    };
    let mut left = side(&chars[..words.start.min(chars.len())]);
    let right = side(&chars[words.end.min(chars.len())..]);
    let left: Vec<String> = left.split_off(left.len().saturating_sub(n));
    left.into_iter().chain(right.into_iter().take(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::neighbours;

    #[test]
    fn neighbours_skip_function_words() {
        let text = "He made a phone call to his old friend yesterday";
        let start = text.find("call").unwrap();
        let got = neighbours(text, start..start + 4, 2);
        assert_eq!(got, ["made", "phone", "old", "friend"]);
    }
}
