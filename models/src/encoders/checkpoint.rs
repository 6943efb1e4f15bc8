//! Finding a checkpoint and telling its architecture from `config.json`.
//!
//! A checkpoint is a directory with `config.json`, `tokenizer.json` and its weights as
//! `model.safetensors` or as shards listed in `model.safetensors.index.json` (the layout
//! `transformers`' `save_pretrained` writes and the hub serves). It comes from a
//! [`ModelSource`]: a local directory, a packaged asset (`asset:NAME`) or a hub repo
//! (`hf:ORG/NAME@REVISION`), resolved by [`metamorph_data::assets::resolve`].

use std::path::{Path, PathBuf};

use metamorph_data::assets::{resolve_safetensors_checkpoint, HubOptions, ModelSource};
use metamorph_data::{Error, Result};
use serde::Deserialize;

const CONFIG: &str = "config.json";
const TOKENIZER: &str = "tokenizer.json";

/// The encoder architectures this build runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Architecture {
    /// BERT and checkpoints with its layout (MiniLM, all-MiniLM-L6-v2, …):
    /// `model_type = "bert"`, classes `Bert…`.
    Bert,
    /// DistilBERT: `model_type = "distilbert"`, classes `DistilBert…`.
    DistilBert,
    /// RoBERTa: `model_type = "roberta"`, classes `Roberta…`.
    Roberta,
    /// XLM-RoBERTa: `model_type = "xlm-roberta"`, classes `XLMRoberta…`.
    XlmRoberta,
    /// DeBERTa-v2 and v3: `model_type = "deberta-v2"`, classes `DebertaV2…`.
    DebertaV2,
    /// ModernBERT: `model_type = "modernbert"`, classes `ModernBert…`.
    ModernBert,
}

impl Architecture {
    /// Every architecture, with its `model_type` and class-name prefix.
    const ALL: [(Architecture, &'static str, &'static str); 6] = [
        (Architecture::Bert, "bert", "Bert"),
        (Architecture::DistilBert, "distilbert", "DistilBert"),
        (Architecture::Roberta, "roberta", "Roberta"),
        (Architecture::XlmRoberta, "xlm-roberta", "XLMRoberta"),
        (Architecture::DebertaV2, "deberta-v2", "DebertaV2"),
        (Architecture::ModernBert, "modernbert", "ModernBert"),
    ];

    /// The `model_type` of `config.json` for this architecture.
    pub fn model_type(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(a, ..)| *a == self)
            .map_or("", |(_, t, _)| t)
    }
}

/// The keys of `config.json` that pick the architecture.
#[derive(Deserialize)]
struct ArchitectureKeys {
    #[serde(default)]
    architectures: Vec<String>,
    #[serde(default)]
    model_type: Option<String>,
}

impl Architecture {
    /// The architecture `config.json` (text `json`, read from `path`) describes: its
    /// `model_type`, else the class prefix of its first `architectures` entry (the longest
    /// prefix wins, so `DistilBertModel` is DistilBERT, not BERT).
    ///
    /// # Errors
    /// [`Error::Asset`] naming `path` when the file is not JSON or names an architecture this
    /// build does not run.
    pub fn from_config(json: &str, path: &Path) -> Result<Self> {
        let err = |message: String| Error::Asset {
            name: path.display().to_string(),
            message,
        };
        let keys: ArchitectureKeys =
            serde_json::from_str(json).map_err(|e| err(format!("invalid JSON: {e}")))?;
        let by_type = keys
            .model_type
            .as_deref()
            .and_then(|t| Self::ALL.iter().find(|(_, model_type, _)| *model_type == t));
        let by_class = || {
            keys.architectures.iter().find_map(|class| {
                Self::ALL
                    .iter()
                    .filter(|(_, _, prefix)| class.starts_with(prefix))
                    .max_by_key(|(_, _, prefix)| prefix.len())
            })
        };
        let found = match keys.model_type {
            Some(_) => by_type,
            None => by_class(),
        };
        match found {
            Some((architecture, ..)) => Ok(*architecture),
            None => {
                let supported: Vec<String> = Self::ALL
                    .iter()
                    .map(|(_, t, p)| format!("{t} ({p}…)"))
                    .collect();
                Err(err(format!(
                    "unsupported architecture (model_type {}, architectures [{}]); this build \
                     runs {}",
                    keys.model_type
                        .as_deref()
                        .map_or("missing".to_string(), |t| format!("{t:?}")),
                    keys.architectures.join(", "),
                    supported.join(", ")
                )))
            }
        }
    }
}

/// A checkpoint on disk, ready to load.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// Where it came from (for messages).
    pub source: ModelSource,
    /// The folder holding `config.json` and `tokenizer.json`.
    pub dir: PathBuf,
    /// Text of `config.json`.
    pub config_json: String,
    /// Its architecture.
    pub architecture: Architecture,
    /// The safetensors files, one or several shards.
    pub weights: Vec<PathBuf>,
}

impl Checkpoint {
    /// Resolves `source` (fetching a packaged asset or hub files as needed) and reads its config.
    ///
    /// # Errors
    /// [`Error::Asset`] naming the source and the missing file (no such directory, no
    /// `config.json`, no `tokenizer.json`, no safetensors weights) or `config.json` with an
    /// unsupported architecture; [`Error::Io`] if a file cannot be read.
    pub fn try_resolve(source: &ModelSource, hub: &HubOptions) -> Result<Self> {
        let (dir, weights) = resolve_safetensors_checkpoint(source, &[CONFIG, TOKENIZER], hub)?;
        let config_path = dir.join(CONFIG);
        let config_json =
            std::fs::read_to_string(&config_path).map_err(|e| Error::io(&config_path, e))?;
        let architecture = Architecture::from_config(&config_json, &config_path)?;
        Ok(Checkpoint {
            source: source.clone(),
            dir,
            config_json,
            architecture,
            weights,
        })
    }

    /// The path of `tokenizer.json`.
    pub fn tokenizer_path(&self) -> PathBuf {
        self.dir.join(TOKENIZER)
    }

    /// The path of `config.json`.
    pub fn config_path(&self) -> PathBuf {
        self.dir.join(CONFIG)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architecture_comes_from_model_type_or_architectures() {
        let p = Path::new("m/config.json");
        let bert = |json: &str| Architecture::from_config(json, p);
        assert_eq!(
            bert(r#"{"model_type": "bert"}"#).unwrap(),
            Architecture::Bert
        );
        assert_eq!(
            bert(r#"{"architectures": ["BertForMaskedLM"]}"#).unwrap(),
            Architecture::Bert
        );
        let message = bert(r#"{"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}"#)
            .unwrap_err()
            .to_string();
        assert!(message.contains("m/config.json"), "{message}");
        assert!(message.contains("\"gpt2\"") && message.contains("GPT2LMHeadModel"));
        assert!(bert("{").unwrap_err().to_string().contains("invalid JSON"));
    }

    #[test]
    fn every_architecture_is_found_by_type_and_by_class() {
        let p = Path::new("m/config.json");
        for (architecture, model_type, prefix) in Architecture::ALL {
            let by_type = format!(r#"{{"model_type": "{model_type}"}}"#);
            assert_eq!(
                Architecture::from_config(&by_type, p).unwrap(),
                architecture
            );
            let by_class = format!(r#"{{"architectures": ["{prefix}ForTokenClassification"]}}"#);
            assert_eq!(
                Architecture::from_config(&by_class, p).unwrap(),
                architecture
            );
            assert_eq!(architecture.model_type(), model_type);
        }
        // model_type wins over the class name; an unknown model_type is not guessed from it.
        let json = r#"{"model_type": "roberta", "architectures": ["BertModel"]}"#;
        assert_eq!(
            Architecture::from_config(json, p).unwrap(),
            Architecture::Roberta
        );
        let json = r#"{"model_type": "electra", "architectures": ["BertModel"]}"#;
        let message = Architecture::from_config(json, p).unwrap_err().to_string();
        assert!(
            message.contains("\"electra\"") && message.contains("modernbert"),
            "{message}"
        );
    }

    const WEIGHTS: &str = "model.safetensors";
    const WEIGHTS_INDEX: &str = "model.safetensors.index.json";

    #[test]
    fn sharded_checkpoints_resolve_to_every_shard_once() {
        let dir = tempfile::tempdir().unwrap();
        for file in [CONFIG, TOKENIZER] {
            std::fs::write(dir.path().join(file), "{}").unwrap();
        }
        let index = dir.path().join(WEIGHTS_INDEX);
        std::fs::write(
            &index,
            r#"{"metadata": {}, "weight_map": {"a": "model-00002-of-00002.safetensors",
                "b": "model-00001-of-00002.safetensors", "c": "model-00001-of-00002.safetensors"}}"#,
        )
        .unwrap();
        let source = ModelSource::Local(dir.path().to_path_buf());
        let hub = HubOptions::default();
        // A listed shard is missing: the error names it.
        std::fs::write(dir.path().join("model-00001-of-00002.safetensors"), "").unwrap();
        let err = resolve_safetensors_checkpoint(&source, &[CONFIG, TOKENIZER], &hub).unwrap_err();
        assert!(err.to_string().contains("model-00002-of-00002"), "{err}");
        std::fs::write(dir.path().join("model-00002-of-00002.safetensors"), "").unwrap();
        let (root, weights) =
            resolve_safetensors_checkpoint(&source, &[CONFIG, TOKENIZER], &hub).unwrap();
        assert_eq!(root, dir.path());
        let names: Vec<_> = weights
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "model-00001-of-00002.safetensors",
                "model-00002-of-00002.safetensors"
            ]
        );
        // A single file wins over an index.
        std::fs::write(dir.path().join(WEIGHTS), "").unwrap();
        let (_, weights) =
            resolve_safetensors_checkpoint(&source, &[CONFIG, TOKENIZER], &hub).unwrap();
        assert_eq!(weights, [dir.path().join(WEIGHTS)]);
    }
}
