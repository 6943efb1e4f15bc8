//! Task heads on top of an encoder's last hidden states, laid out as `transformers` defines them
//! per architecture (`modeling_*.py`, `…ForQuestionAnswering` / `…ForSequenceClassification` /
//! `…ForTokenClassification`).
//!
//! A head is an optional pooling (first token, or mean over the attention mask) followed by a
//! short chain of linear layers, activations and layer norms; without pooling the chain runs on
//! every token. Dropout is the identity at inference and is left out.
//!
//! | architecture | QA | sequence classification | token classification |
//! |---|---|---|---|
//! | BERT | `qa_outputs` | first token → `bert.pooler.dense` → tanh → `classifier` | `classifier` |
//! | DistilBERT | `qa_outputs` | first token → `pre_classifier` → ReLU → `classifier` | `classifier` |
//! | RoBERTa, XLM-R | `qa_outputs` | first token → `classifier.dense` → tanh → `classifier.out_proj` | `classifier` |
//! | DeBERTa-v2 | `qa_outputs` | first token → `pooler.dense` → `pooler_hidden_act` → `classifier` | `classifier` |
//! | ModernBERT | `head` → `classifier` | cls or mean (`classifier_pooling`) → `head` → `classifier` | `head` → `classifier` |
//!
//! ModernBERT's `head` is `dense` (bias `classifier_bias`) → `classifier_activation` → `norm`
//! (LayerNorm, bias `norm_bias`, eps `norm_eps`).

use super::{Activation, Architecture};
use candle_core::{DType, Module, Result, Tensor, D};
use candle_nn::{LayerNorm, Linear, VarBuilder};

/// The task head on top of the encoder, chosen from config.json's `architectures` suffix
/// (`…ForQuestionAnswering` / `…ForSequenceClassification` / `…ForTokenClassification`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Head {
    /// Extractive QA: a start and an end logit per token.
    QuestionAnswering,
    /// One label per text or text pair.
    SequenceClassification,
    /// One label per token.
    TokenClassification,
}

impl Head {
    /// Every head, in declaration order.
    pub const ALL: [Head; 3] = [
        Head::QuestionAnswering,
        Head::SequenceClassification,
        Head::TokenClassification,
    ];

    /// The class-name suffix `transformers` gives models with this head.
    pub fn suffix(self) -> &'static str {
        match self {
            Head::QuestionAnswering => "ForQuestionAnswering",
            Head::SequenceClassification => "ForSequenceClassification",
            Head::TokenClassification => "ForTokenClassification",
        }
    }

    /// The head the first `architectures` entry with a known suffix names, if any.
    pub fn from_architectures(architectures: &[String]) -> Option<Head> {
        architectures.iter().find_map(|class| {
            Head::ALL
                .into_iter()
                .find(|head| class.ends_with(head.suffix()))
        })
    }
}

impl std::fmt::Display for Head {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Head::QuestionAnswering => "question answering",
            Head::SequenceClassification => "sequence classification",
            Head::TokenClassification => "token classification",
        })
    }
}

/// How a sequence-level head reduces the tokens to one vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pooling {
    /// The first token (`[CLS]` / `<s>`).
    First,
    /// The mean over the attention mask.
    Mean,
}

/// One layer of a head.
enum Step {
    Linear(Linear),
    Act(Activation),
    Norm(LayerNorm),
}

/// The shapes and settings a head needs from the architecture's config.
#[derive(Debug)]
pub(crate) struct HeadSpec {
    /// Width of the encoder's hidden states.
    pub hidden_size: usize,
    /// Outputs: 2 for QA, the number of labels otherwise.
    pub outputs: usize,
    /// DeBERTa-v2's `pooler_hidden_act`; ModernBERT's `classifier_activation`.
    pub activation: Activation,
    /// ModernBERT's `classifier_pooling`.
    pub pooling: Pooling,
    /// ModernBERT's `classifier_bias`.
    pub classifier_bias: bool,
    /// ModernBERT's `norm_bias`.
    pub norm_bias: bool,
    /// ModernBERT's `norm_eps`.
    pub norm_eps: f64,
}

/// A loaded head: optional pooling, then its layers.
pub(crate) struct TaskHead {
    pooling: Option<Pooling>,
    steps: Vec<Step>,
}

impl TaskHead {
    /// Loads the `head` of `architecture` from the checkpoint's root `vb`.
    pub(crate) fn load(
        architecture: Architecture,
        head: Head,
        spec: &HeadSpec,
        vb: &VarBuilder,
    ) -> Result<Self> {
        let h = spec.hidden_size;
        let linear = |inp: usize, out: usize, name: &str| -> Result<Step> {
            Ok(Step::Linear(candle_nn::linear(inp, out, vb.pp(name))?))
        };
        let (pooling, steps) = match (architecture, head) {
            (Architecture::ModernBert, head) => {
                let dense = candle_nn::linear_b(h, h, spec.classifier_bias, vb.pp("head.dense"))?;
                let norm_vb = vb.pp("head.norm");
                let weight = norm_vb.get(h, "weight")?;
                let norm = if spec.norm_bias {
                    LayerNorm::new(weight, norm_vb.get(h, "bias")?, spec.norm_eps)
                } else {
                    LayerNorm::new_no_bias(weight, spec.norm_eps)
                };
                let pooling = (head == Head::SequenceClassification).then_some(spec.pooling);
                let steps = vec![
                    Step::Linear(dense),
                    Step::Act(spec.activation),
                    Step::Norm(norm),
                    linear(h, spec.outputs, "classifier")?,
                ];
                (pooling, steps)
            }
            (_, Head::QuestionAnswering) => (None, vec![linear(h, spec.outputs, "qa_outputs")?]),
            (_, Head::TokenClassification) => (None, vec![linear(h, spec.outputs, "classifier")?]),
            (Architecture::Bert, Head::SequenceClassification) => (
                Some(Pooling::First),
                vec![
                    linear(h, h, "bert.pooler.dense")?,
                    Step::Act(Activation::Tanh),
                    linear(h, spec.outputs, "classifier")?,
                ],
            ),
            (Architecture::DistilBert, Head::SequenceClassification) => (
                Some(Pooling::First),
                vec![
                    linear(h, h, "pre_classifier")?,
                    Step::Act(Activation::Relu),
                    linear(h, spec.outputs, "classifier")?,
                ],
            ),
            (Architecture::Roberta | Architecture::XlmRoberta, Head::SequenceClassification) => (
                Some(Pooling::First),
                vec![
                    linear(h, h, "classifier.dense")?,
                    Step::Act(Activation::Tanh),
                    linear(h, spec.outputs, "classifier.out_proj")?,
                ],
            ),
            (Architecture::DebertaV2, Head::SequenceClassification) => (
                Some(Pooling::First),
                vec![
                    linear(h, h, "pooler.dense")?,
                    Step::Act(spec.activation),
                    linear(h, spec.outputs, "classifier")?,
                ],
            ),
        };
        Ok(TaskHead { pooling, steps })
    }

    /// Head outputs for hidden states `[rows, width, hidden]` and the mask `[rows, width]`:
    /// `[rows, outputs]` when pooled, else `[rows, width, outputs]`.
    pub(crate) fn forward(&self, hidden: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let mut xs = match self.pooling {
            None => hidden.clone(),
            // Contiguous: the first token's rows are strided in `hidden`, and CUDA's matmul
            // takes contiguous operands only.
            Some(Pooling::First) => hidden.narrow(1, 0, 1)?.squeeze(1)?.contiguous()?,
            Some(Pooling::Mean) => {
                let mask = mask.to_dtype(hidden.dtype())?.unsqueeze(D::Minus1)?;
                let summed = hidden.broadcast_mul(&mask)?.sum(1)?;
                summed.broadcast_div(&mask.sum(1)?)?
            }
        };
        for step in &self.steps {
            xs = match step {
                Step::Linear(linear) => linear.forward(&xs)?,
                Step::Act(act) => act.apply(&xs)?,
                Step::Norm(norm) => norm.forward(&xs)?,
            };
        }
        xs.to_dtype(DType::F32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_head_comes_from_the_class_suffix() {
        let head = |names: &[&str]| Head::from_architectures(&classes(names));
        assert_eq!(
            head(&["BertForQuestionAnswering"]),
            Some(Head::QuestionAnswering)
        );
        assert_eq!(
            head(&["XLMRobertaForSequenceClassification"]),
            Some(Head::SequenceClassification)
        );
        assert_eq!(
            head(&["BertModel", "ModernBertForTokenClassification"]),
            Some(Head::TokenClassification)
        );
        assert_eq!(head(&["BertForMaskedLM"]), None);
        assert_eq!(head(&[]), None);
    }
}
