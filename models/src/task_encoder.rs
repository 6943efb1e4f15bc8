//! An encoder checkpoint with its task head, any supported architecture: the one type the QA,
//! classification and token-classification models under test run on.
//!
//! [`TaskEncoder`] stops at logits on purpose: tokenization policy (pairs, windows, truncation),
//! batching and post-processing (spans, softmax, label mapping) belong to the models built on
//! it, which can then batch across examples freely. It hands out its tokenizer (from
//! `tokenizer.json`, padding and truncation off) and what they need to pad and window
//! ([`pad_id`](TaskEncoder::pad_id), [`max_positions`](TaskEncoder::max_positions),
//! [`uses_token_type_ids`](TaskEncoder::uses_token_type_ids)).
//!
//! The head is the one `config.json`'s `architectures` names (`…ForQuestionAnswering`,
//! `…ForSequenceClassification`, `…ForTokenClassification`) unless the caller asks for one;
//! labels come from `id2label` (ids must be exactly `0..n`), else `num_labels` as
//! `LABEL_0…` like `transformers`.

use std::collections::BTreeMap;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use metamorph_data::{Error, Result};
use serde::Deserialize;
use tokenizers::Tokenizer;

use crate::checkpoint::model_error;
use crate::encoders::backbone::{Backbone, BackboneInfo, LoadError};
use crate::encoders::heads::{HeadSpec, Pooling, TaskHead};
use crate::encoders::{Activation, Architecture, Checkpoint, Head};

/// How a model is placed: device + dtype.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Where weights and activations live (see [`super::device()`]).
    pub device: Device,
    /// The dtype of weights and activations; logits are returned as f32 whatever it is.
    pub dtype: DType,
}

impl Default for LoadOptions {
    /// CPU, f32.
    fn default() -> Self {
        LoadOptions {
            device: Device::Cpu,
            dtype: DType::F32,
        }
    }
}

/// The keys of `config.json` the heads read.
#[derive(Deserialize)]
struct HeadKeys {
    #[serde(default)]
    architectures: Vec<String>,
    id2label: Option<BTreeMap<String, String>>,
    num_labels: Option<usize>,
    pooler_hidden_act: Option<String>,
    pooler_hidden_size: Option<usize>,
    classifier_activation: Option<String>,
    classifier_pooling: Option<String>,
    classifier_bias: Option<bool>,
    norm_bias: Option<bool>,
    norm_eps: Option<f64>,
}

/// An encoder checkpoint with its task head, any supported architecture.
pub struct TaskEncoder {
    name: String,
    architecture: Architecture,
    head: Head,
    labels: Vec<String>,
    backbone: Backbone,
    task_head: TaskHead,
    info: BackboneInfo,
    tokenizer: Tokenizer,
    device: Device,
    span: tracing::Span,
}

impl TaskEncoder {
    /// Loads `checkpoint` with `head` (`None`: the head `config.json` names) for the model
    /// called `name` (used in messages).
    ///
    /// # Errors
    /// [`Error::Asset`] naming the file: `config.json` names no head (and none was asked for),
    /// has a bad `id2label` or settings this build does not run; `tokenizer.json` does not
    /// load; the weights lack a tensor of the encoder or the head or have the wrong shape.
    /// [`Error::Config`] for a dtype other than f32/f16/bf16, and for f16/bf16 with
    /// DeBERTa-v2, which runs in f32 only.
    pub fn try_load(
        name: &str,
        checkpoint: &Checkpoint,
        head: Option<Head>,
        options: &LoadOptions,
    ) -> Result<Self> {
        let config_path = checkpoint.config_path();
        let config_err = |message: String| Error::Asset {
            name: config_path.display().to_string(),
            message,
        };
        let weights_err = |e: candle_core::Error| Error::Asset {
            name: checkpoint.weights[0].display().to_string(),
            message: format!("weights do not fit {}: {e}", config_path.display()),
        };
        let keys: HeadKeys = serde_json::from_str(&checkpoint.config_json)
            .map_err(|e| config_err(format!("invalid JSON: {e}")))?;
        let head = match head.or_else(|| Head::from_architectures(&keys.architectures)) {
            Some(head) => head,
            None => {
                return Err(config_err(format!(
                    "no task head: `architectures` [{}] names no …ForQuestionAnswering, \
                     …ForSequenceClassification or …ForTokenClassification class, and none was \
                     asked for",
                    keys.architectures.join(", ")
                )))
            }
        };
        let labels = match head {
            Head::QuestionAnswering => Vec::new(),
            _ => labels(&keys).map_err(config_err)?,
        };
        let spec =
            head_spec(checkpoint.architecture, head, &keys, labels.len()).map_err(config_err)?;

        if !matches!(options.dtype, DType::F32 | DType::F16 | DType::BF16) {
            return Err(Error::Config(format!(
                "model `{name}`: dtype {:?} is not supported (f32, f16 or bf16)",
                options.dtype
            )));
        }
        if options.dtype != DType::F32 && checkpoint.architecture == Architecture::DebertaV2 {
            return Err(Error::Config(format!(
                "model `{name}`: dtype {:?} is not supported for {} (candle-transformers' \
                 implementation mixes f32 tensors into its attention); use dtype = \"f32\"",
                options.dtype,
                checkpoint.architecture.model_type()
            )));
        }
        let tokenizer_path = checkpoint.tokenizer_path();
        let tokenizer_err = |message: String| Error::Asset {
            name: tokenizer_path.display().to_string(),
            message,
        };
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| tokenizer_err(format!("cannot load the tokenizer: {e}")))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| tokenizer_err(format!("cannot turn truncation off: {e}")))?;

        // SAFETY: the files are memory-mapped read-only; like every safetensors loader this
        // assumes nobody rewrites them while the model is loaded.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(&checkpoint.weights, options.dtype, &options.device)
        }
        .map_err(|e| Error::Asset {
            name: checkpoint.weights[0].display().to_string(),
            message: format!("cannot read the safetensors weights: {e}"),
        })?;
        let (backbone, info) =
            Backbone::load(checkpoint.architecture, &checkpoint.config_json, &vb).map_err(|e| {
                match e {
                    LoadError::Config(message) => config_err(message),
                    LoadError::Weights(e) => weights_err(e),
                }
            })?;
        let pooler_size = match checkpoint.architecture {
            Architecture::DebertaV2 => keys.pooler_hidden_size,
            _ => None,
        };
        if let Some(pooler) = pooler_size.filter(|&p| p != info.hidden_size) {
            return Err(config_err(format!(
                "pooler_hidden_size {pooler} differs from hidden_size {} (not supported)",
                info.hidden_size
            )));
        }
        let spec = HeadSpec {
            hidden_size: info.hidden_size,
            ..spec
        };
        let task_head =
            TaskHead::load(checkpoint.architecture, head, &spec, &vb).map_err(weights_err)?;
        Ok(TaskEncoder {
            name: name.to_string(),
            architecture: checkpoint.architecture,
            head,
            labels,
            backbone,
            task_head,
            info,
            tokenizer,
            device: options.device.clone(),
            span: tracing::span!(tracing::Level::TRACE, "task-encoder"),
        })
    }

    /// The task head.
    pub fn head(&self) -> Head {
        self.head
    }

    /// The encoder architecture.
    pub fn architecture(&self) -> Architecture {
        self.architecture
    }

    /// `id2label` in id order (empty for QA).
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Tokens per sequence the model accepts, special tokens included.
    pub fn max_positions(&self) -> usize {
        self.info.max_positions
    }

    /// The padding token id.
    pub fn pad_id(&self) -> u32 {
        self.info.pad_id
    }

    /// Whether segment ids matter (BERT; DeBERTa-v2 with token types); others ignore them.
    pub fn uses_token_type_ids(&self) -> bool {
        self.info.token_types
    }

    /// The tokenizer from `tokenizer.json`, padding and truncation off.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Logits for a padded batch: `ids`, `type_ids` and `mask` are row-major `[rows, width]`
    /// (mask 1 = token, 0 = padding). Returns f32 logits on the CPU: QuestionAnswering →
    /// `[rows, width, 2]` (start, end); SequenceClassification → `[rows, num_labels]`;
    /// TokenClassification → `[rows, width, num_labels]`. Per-token logits at padding
    /// positions are unspecified (finite, but DeBERTa-v2's and ModernBERT's differ from
    /// `transformers`' there); callers read real tokens only.
    ///
    /// # Errors
    /// [`Error::Model`] when the slices do not hold `rows × width` values, `width` exceeds
    /// [`max_positions`](Self::max_positions), or the forward pass fails (e.g. an id outside
    /// the vocabulary).
    pub fn logits(
        &self,
        ids: &[u32],
        type_ids: &[u32],
        mask: &[u32],
        rows: usize,
        width: usize,
    ) -> Result<Tensor> {
        let _enter = self.span.enter();
        let bad = |message: String| Error::Model {
            model: self.name.clone(),
            message,
        };
        let cells = rows * width;
        for (field, values) in [("ids", ids), ("type_ids", type_ids), ("mask", mask)] {
            if values.len() != cells {
                return Err(bad(format!(
                    "{field} holds {} values, not rows × width = {rows} × {width}",
                    values.len()
                )));
            }
        }
        if rows == 0 || width == 0 {
            return Err(bad(format!("empty batch ({rows} × {width})")));
        }
        if width > self.info.max_positions {
            return Err(bad(format!(
                "{width} tokens per row exceed the model's {} positions",
                self.info.max_positions
            )));
        }
        self.forward(ids, type_ids, mask, rows, width)
            .map_err(|e| model_error(&self.name, "forward pass failed", e))
    }

    fn forward(
        &self,
        ids: &[u32],
        type_ids: &[u32],
        mask: &[u32],
        rows: usize,
        width: usize,
    ) -> candle_core::Result<Tensor> {
        let ids = Tensor::from_slice(ids, (rows, width), &self.device)?;
        let mask = Tensor::from_slice(mask, (rows, width), &self.device)?;
        let type_ids = if self.info.token_types {
            Tensor::from_slice(type_ids, (rows, width), &self.device)?
        } else {
            ids.zeros_like()?
        };
        let hidden = self.backbone.forward(&ids, &type_ids, &mask)?;
        self.task_head
            .forward(&hidden, &mask)?
            .to_dtype(DType::F32)?
            .to_device(&Device::Cpu)
    }
}

// Models under test are shared across worker threads (`Model: Send + Sync`).
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<TaskEncoder>();
};

/// `id2label` in id order, or `LABEL_i` for `num_labels`; the message says what is wrong.
fn labels(keys: &HeadKeys) -> std::result::Result<Vec<String>, String> {
    match (&keys.id2label, keys.num_labels) {
        (Some(map), _) if !map.is_empty() => {
            let mut pairs = Vec::with_capacity(map.len());
            for (id, label) in map {
                let id: usize = id
                    .parse()
                    .map_err(|_| format!("id2label: key {id:?} is not a label id"))?;
                pairs.push((id, label.clone()));
            }
            pairs.sort();
            if pairs.iter().enumerate().any(|(i, (id, _))| *id != i) {
                let ids: Vec<String> = pairs.iter().map(|(id, _)| id.to_string()).collect();
                return Err(format!(
                    "id2label ids must be 0..{} without gaps, found [{}]",
                    pairs.len(),
                    ids.join(", ")
                ));
            }
            Ok(pairs.into_iter().map(|(_, label)| label).collect())
        }
        (_, Some(n)) if n > 0 => Ok((0..n).map(|i| format!("LABEL_{i}")).collect()),
        _ => Err("a classification head needs `id2label` (or `num_labels`)".into()),
    }
}

/// The head settings of `config.json` (hidden size filled in once the encoder is loaded).
fn head_spec(
    architecture: Architecture,
    head: Head,
    keys: &HeadKeys,
    labels: usize,
) -> std::result::Result<HeadSpec, String> {
    let activation = |key: &str, name: Option<&str>| -> std::result::Result<Activation, String> {
        let name = name.unwrap_or("gelu");
        Activation::from_name(name).ok_or_else(|| format!("{key} {name:?} is not supported"))
    };
    let activation = match architecture {
        Architecture::DebertaV2 => {
            activation("pooler_hidden_act", keys.pooler_hidden_act.as_deref())?
        }
        Architecture::ModernBert => activation(
            "classifier_activation",
            keys.classifier_activation.as_deref(),
        )?,
        _ => Activation::Tanh,
    };
    let pooling = match keys.classifier_pooling.as_deref() {
        None | Some("cls") => Pooling::First,
        Some("mean") => Pooling::Mean,
        Some(other) => {
            return Err(format!(
                "classifier_pooling {other:?} is not supported (cls or mean)"
            ))
        }
    };
    Ok(HeadSpec {
        hidden_size: 0,
        outputs: if head == Head::QuestionAnswering {
            2
        } else {
            labels
        },
        activation,
        pooling,
        classifier_bias: keys.classifier_bias.unwrap_or(false),
        norm_bias: keys.norm_bias.unwrap_or(false),
        norm_eps: keys.norm_eps.unwrap_or(1e-5),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(json: &str) -> HeadKeys {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn labels_follow_id2label_in_id_order() {
        let k = keys(
            r#"{"id2label": {"2": "c", "0": "a", "1": "b", "10": "k", "3": "d",
            "4": "e", "5": "f", "6": "g", "7": "h", "8": "i", "9": "j"}}"#,
        );
        assert_eq!(
            labels(&k).unwrap(),
            ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]
        );
        assert_eq!(
            labels(&keys(r#"{"num_labels": 2}"#)).unwrap(),
            ["LABEL_0", "LABEL_1"]
        );
    }

    #[test]
    fn bad_id2label_is_refused() {
        let gap = labels(&keys(r#"{"id2label": {"0": "a", "2": "c"}}"#)).unwrap_err();
        assert!(gap.contains("0..2") && gap.contains("[0, 2]"), "{gap}");
        let word = labels(&keys(r#"{"id2label": {"zero": "a"}}"#)).unwrap_err();
        assert!(word.contains("\"zero\""), "{word}");
        assert!(labels(&keys("{}")).unwrap_err().contains("id2label"));
    }

    #[test]
    fn head_settings_come_from_the_config() {
        let k = keys(r#"{"classifier_pooling": "mean", "classifier_activation": "gelu_new"}"#);
        let spec = head_spec(
            Architecture::ModernBert,
            Head::SequenceClassification,
            &k,
            3,
        )
        .unwrap();
        assert_eq!(spec.pooling, Pooling::Mean);
        assert_eq!(spec.activation, Activation::GeluTanh);
        assert_eq!(spec.outputs, 3);
        let qa = head_spec(Architecture::Bert, Head::QuestionAnswering, &keys("{}"), 0).unwrap();
        assert_eq!(qa.outputs, 2);
        let k = keys(r#"{"classifier_pooling": "max"}"#);
        assert!(head_spec(
            Architecture::ModernBert,
            Head::SequenceClassification,
            &k,
            3
        )
        .unwrap_err()
        .contains("\"max\""));
        let k = keys(r#"{"pooler_hidden_act": "mish"}"#);
        assert!(
            head_spec(Architecture::DebertaV2, Head::SequenceClassification, &k, 3)
                .unwrap_err()
                .contains("pooler_hidden_act")
        );
    }
}
