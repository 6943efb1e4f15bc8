//! A loaded spaCy pipeline: reads `config.cfg`/`meta.json`, loads every enabled component from
//! its directory, and annotates texts in batches on all cores.
//!
//! Supported factories: `tok2vec`, `tagger`, `parser`, `attribute_ruler`, `lemmatizer` (rule
//! mode) and `ner` — the components of spaCy's `en_core_web_sm`-style pipelines. Components run
//! in the configured order; disabled ones (`senter` in en_core_web_sm) are skipped, and any other
//! enabled factory is a load error naming it, rather than a silently partial annotation.
//!
//! Texts are processed in batches (`batch_size` documents): within a batch every neural layer is
//! one matrix product over all tokens, and batches run in parallel on rayon's thread pool.
//! Output does not depend on batching or threads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::attribute_ruler::AttributeRuler;
use super::lemmatizer::Lemmatizer;
use super::lexeme::Vocab;
use super::msgpack::ThincModel;
use super::parser::{DependencyParser, EntityRecognizer};
use super::tagger::Tagger;
use super::tok2vec::Tok2Vec;
use super::tokenizer::Tokenizer;
use super::{Doc, LoadError};

/// spaCy's default `nlp.max_length`, in characters.
pub const DEFAULT_MAX_LENGTH: usize = 1_000_000;

/// A text the pipeline refuses to process.
#[derive(Clone, Debug, thiserror::Error)]
pub enum TextError {
    /// Longer than the pipeline's `max_length`.
    #[error("text {index} has {chars} characters, more than the limit of {max} (raise `max_length` to allow it)")]
    TooLong {
        /// Position of the text in the batch.
        index: usize,
        /// Its length in characters.
        chars: usize,
        /// The limit.
        max: usize,
    },
}

enum Component {
    Tok2Vec(Tok2Vec),
    Tagger(Tagger),
    Parser(DependencyParser),
    AttributeRuler(AttributeRuler),
    Lemmatizer(Lemmatizer),
    Ner(EntityRecognizer),
}

/// A spaCy v3 pipeline loaded from its directory.
pub struct Pipeline {
    name: String,
    dir: PathBuf,
    tokenizer: Tokenizer,
    vocab: Vocab,
    components: Vec<(String, Component)>,
    /// Documents per internal batch.
    pub batch_size: usize,
    /// Longest text accepted, in characters.
    pub max_length: usize,
}

/// The parts of `config.cfg` the loader needs: component order, disabled components, factories.
#[derive(Debug, Default)]
struct Config {
    pipeline: Vec<String>,
    disabled: Vec<String>,
    settings: BTreeMap<String, BTreeMap<String, String>>,
}

impl Config {
    /// Parses spaCy's INI-style config: `[section]` headers and `key = value` lines.
    fn read(path: &Path) -> Result<Self, LoadError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| LoadError::new(path, e.to_string()))?;
        let mut config = Config::default();
        let mut section = String::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = name.to_string();
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(LoadError::new(
                    path,
                    format!("line {}: expected `key = value`", n + 1),
                ));
            };
            config
                .settings
                .entry(section.clone())
                .or_default()
                .insert(key.trim().to_string(), value.trim().to_string());
        }
        let list = |key: &str| -> Result<Vec<String>, LoadError> {
            let Some(raw) = config.settings.get("nlp").and_then(|s| s.get(key)) else {
                return Ok(Vec::new());
            };
            serde_json::from_str(raw)
                .map_err(|e| LoadError::new(path, format!("field `nlp.{key}`: {e}")))
        };
        config.pipeline = list("pipeline")?;
        config.disabled = list("disabled")?;
        if config.pipeline.is_empty() {
            return Err(LoadError::new(
                path,
                "field `nlp.pipeline` is missing or empty",
            ));
        }
        Ok(config)
    }

    fn get(&self, section: &str, key: &str) -> Option<String> {
        let raw = self.settings.get(section)?.get(key)?;
        Some(serde_json::from_str::<String>(raw).unwrap_or_else(|_| raw.clone()))
    }
}

impl Pipeline {
    /// Loads the pipeline in `dir` (the unpacked package, e.g. `en_core_web_sm-3.8.0/`).
    pub fn load(dir: &Path) -> Result<Self, LoadError> {
        if !dir.is_dir() {
            return Err(LoadError::new(dir, "no such pipeline directory"));
        }
        let config = Config::read(&dir.join("config.cfg"))?;
        let meta_path = dir.join("meta.json");
        let meta: serde_json::Value = std::fs::read_to_string(&meta_path)
            .map_err(|e| LoadError::new(&meta_path, e.to_string()))
            .and_then(|t| {
                serde_json::from_str(&t)
                    .map_err(|e| LoadError::new(&meta_path, format!("invalid JSON: {e}")))
            })?;
        let field = |k: &str| {
            meta.get(k)
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string()
        };
        let name = format!("{}_{}-{}", field("lang"), field("name"), field("version"));
        let tokenizer = Tokenizer::from_file(&dir.join("tokenizer"))?;
        let vocab = Vocab::load(dir)?;
        let mut components = Vec::new();
        for component in &config.pipeline {
            if config.disabled.contains(component) {
                continue;
            }
            let section = format!("components.{component}");
            let factory = config
                .get(&section, "factory")
                .unwrap_or_else(|| component.clone());
            let cdir = dir.join(component);
            let loaded = match factory.as_str() {
                "tok2vec" => Component::Tok2Vec(Tok2Vec::from_model(&ThincModel::read(&cdir.join("model"))?)?),
                "tagger" => Component::Tagger(Tagger::from_dir(&cdir)?),
                "parser" => Component::Parser(DependencyParser::from_dir(&cdir)?),
                "attribute_ruler" => Component::AttributeRuler(AttributeRuler::from_dir(&cdir)?),
                "lemmatizer" => {
                    let mode = config.get(&section, "mode").unwrap_or_default();
                    if mode != "rule" {
                        return Err(LoadError::new(
                            &dir.join("config.cfg"),
                            format!("component `{component}`: lemmatizer mode {mode:?} is not supported (only \"rule\")"),
                        ));
                    }
                    Component::Lemmatizer(Lemmatizer::from_dir(&cdir)?)
                }
                "ner" => Component::Ner(EntityRecognizer::from_dir(&cdir)?),
                other => {
                    return Err(LoadError::new(
                        &dir.join("config.cfg"),
                        format!("component `{component}` has factory `{other}`, which this port does not support"),
                    ))
                }
            };
            components.push((component.clone(), loaded));
        }
        let pipeline = Self {
            name,
            dir: dir.to_path_buf(),
            tokenizer,
            vocab,
            components,
            batch_size: 64,
            max_length: DEFAULT_MAX_LENGTH,
        };
        pipeline.check_widths()?;
        Ok(pipeline)
    }

    /// Listeners (tagger, parser) must read what the shared tok2vec produces.
    fn check_widths(&self) -> Result<(), LoadError> {
        let mut width = None;
        for (name, component) in &self.components {
            let needed = match component {
                Component::Tok2Vec(t) => {
                    width = Some(t.width());
                    continue;
                }
                Component::Tagger(t) => t.input_width(),
                Component::Parser(p) => p.input_width(),
                _ => continue,
            };
            if width != Some(needed) {
                return Err(LoadError::new(
                    &self.dir.join(name),
                    format!(
                        "reads {needed}-wide token vectors, but no earlier tok2vec produces them"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `<lang>_<name>-<version>`, e.g. `en_core_web_sm-3.8.0`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The enabled components, in order.
    pub fn component_names(&self) -> Vec<&str> {
        self.components.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// The tokenizer alone.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Annotates texts, batches in parallel; one [`Doc`] per text, in order.
    pub fn process(&self, texts: &[&str]) -> Result<Vec<Doc>, TextError> {
        self.check_lengths(texts)?;
        let batches: Vec<Vec<Doc>> = texts
            .par_chunks(self.batch_size.max(1))
            .map(|chunk| self.annotate_texts(chunk))
            .collect();
        Ok(batches.into_iter().flatten().collect())
    }

    /// Annotates texts on the calling thread only.
    pub fn process_serial(&self, texts: &[&str]) -> Result<Vec<Doc>, TextError> {
        self.check_lengths(texts)?;
        Ok(texts
            .chunks(self.batch_size.max(1))
            .flat_map(|chunk| self.annotate_texts(chunk))
            .collect())
    }

    fn check_lengths(&self, texts: &[&str]) -> Result<(), TextError> {
        for (index, text) in texts.iter().enumerate() {
            // Cheap test first: a text can only have more chars than max_length if it has more bytes.
            if text.len() > self.max_length {
                let chars = text.chars().count();
                if chars > self.max_length {
                    return Err(TextError::TooLong {
                        index,
                        chars,
                        max: self.max_length,
                    });
                }
            }
        }
        Ok(())
    }

    fn annotate_texts(&self, texts: &[&str]) -> Vec<Doc> {
        let mut docs: Vec<Doc> = texts.iter().map(|t| self.tokenizer.tokenize(t)).collect();
        self.annotate(&mut docs);
        docs
    }

    /// Runs every component after the tokenizer over already tokenised documents.
    pub fn annotate(&self, docs: &mut [Doc]) {
        let features: Vec<Vec<_>> = docs
            .iter()
            .map(|d| (0..d.len()).map(|i| self.vocab.features(d, i)).collect())
            .collect();
        let feature_refs: Vec<&[_]> = features.iter().map(Vec::as_slice).collect();
        let mut vectors = Vec::new();
        for (_, component) in &self.components {
            match component {
                Component::Tok2Vec(t) => vectors = t.forward(&feature_refs),
                Component::Tagger(t) => {
                    for (doc, v) in docs.iter_mut().zip(&vectors) {
                        t.apply(doc, v);
                    }
                }
                Component::Parser(p) => p.apply(docs, &vectors),
                Component::AttributeRuler(r) => docs.iter_mut().for_each(|d| r.apply(d)),
                Component::Lemmatizer(l) => docs.iter_mut().for_each(|d| l.apply(d)),
                Component::Ner(n) => n.apply(docs, &feature_refs),
            }
        }
    }

    /// The token norms the neural components read (special-case norm, else lexeme norm).
    pub fn norm(&self, doc: &Doc, i: usize) -> String {
        self.vocab.token_norm(doc, i)
    }
}
