//! `metamorph-execute`: runs the model under test on every source and follow-up input of the
//! cases it receives, and records one `prediction` per (input, model).
//!
//! * [`Model`] is the one trait a model implements: a batch of examples in, one prediction per
//!   example out.
//! * [`SubprocessModel`] is the JSONL subprocess adapter: any program (typically a few lines of
//!   Python around the user's model) that reads one JSON request per line on stdin and writes
//!   one JSON response per line on stdout. The protocol is in [`protocol`] and the README.
//! * [`OpenAiModel`] is the OpenAI-compatible HTTP adapter (config `kind = "openai"`): each
//!   example becomes a `POST {base_url}/chat/completions` request to vLLM, llama.cpp's server,
//!   Ollama or OpenAI, with a per-task prompt template, and the reply is read back as yes/no, a
//!   label of the configured set or an answer span with character offsets; timeouts, retries
//!   with backoff and a bound on requests in flight. Design notes in [`openai`].
//! * [`HttpModel`] is the plain HTTP adapter (config `kind = "http"`): the same protocol's
//!   objects, a batch per `POST {url}` as a JSON array, answered by a JSON array; for models
//!   served elsewhere (e.g. a coreference system behind a web app). Retries and bounded
//!   concurrency as the OpenAI-compatible adapter's.
//! * [`causal_lm::CausalLmModel`] is a GGUF language model under test, in-process (config
//!   `kind = "causal-lm"`): label tasks read as the probabilities of each label's words after
//!   the prompt, QA by greedy generation located in the context. Design notes in [`causal_lm`].
//! * [`ModelConfig`] is one `[[execute.models]]` table, typed by its `kind` ([`ModelKind`]):
//!   each kind carries only its own keys, so a key of another kind is refused naming the table,
//!   the key and the kind; the HTTP kinds share
//!   [`HttpTransportConfig`](metamorph_data::http::HttpTransportConfig) with the `openai`
//!   generator.
//! * [`ExecuteStage`] computes each source's prediction once, however many follow-ups it has,
//!   runs identical inputs once, answers what the [`ResponseCache`] holds without a model
//!   call, counts each model's predictions, cache hits and spending ([`ModelUsage`](metamorph_data::usage::ModelUsage)), and
//!   forwards the case batches so the judge sees them.
//! * [`response_cache`] stores every prediction by the model's fingerprint
//!   ([`model_fingerprint`]: what it runs, with which settings) and the request's fields, so a
//!   rerun, a new relation or another config over the same data asks the model nothing twice.
//!
//! * [`candle`] runs checkpoints in-process on candle: [`TaskEncoder`], an encoder of any
//!   supported architecture with its task [`Head`] (logits for padded batches); BERT-family
//!   sentence embedders ([`SentenceEncoder`]) and, on top, a paraphrase model under test
//!   ([`SentenceSimilarityModel`], config `kind = "sentence-similarity"`).
//! * The models under test on [`TaskEncoder`]:
//!   [`QuestionAnsweringModel`](candle::QuestionAnsweringModel) (`kind = "extractive-qa"`:
//!   SQuAD, DROP; transformers' (4.57) QA pipeline rule for rule: windows with `doc_stride`,
//!   12 candidate spans per window within `max_answer_len`, equal answers across windows
//!   merged by summed score, SQuAD 2.0 null answer past `null_threshold`,
//!   answers as text plus character offsets into the context) and
//!   [`SequenceClassificationModel`](candle::SequenceClassificationModel)
//!   (`kind = "sequence-classification"`: sentiment, paraphrase, BoolQ as question–passage pair
//!   classification, relations as their sentence with typed entity markers; `id2label` translated to the task's labels by
//!   [`LabelMap`](candle::labels::LabelMap) and `label_map`; probabilities returned).
//!   `kind = "candle"` takes whichever of the two heads `config.json` names; a token
//!   classification head answers no task of the stage: it is the library API
//!   [`TokenClassifier`](candle::TokenClassifier) (per-token labels and the pipeline's
//!   "simple" spans, character offsets). `metamorph-execute --model
//!   <dir|asset:NAME|hf:ORG/NAME>` runs one checkpoint without a config file (`--kind`,
//!   `--device`, `--dtype`, `--task` optional).
//!
//! # Design of the candle models
//! * **Architectures × heads**: BERT, DistilBERT, RoBERTa, XLM-R, DeBERTa-v2/v3 and ModernBERT,
//!   each with extractive QA, sequence classification and token classification, the heads laid
//!   out as `transformers` defines them per architecture (see `candle::heads`). Every
//!   combination is checked against PyTorch `transformers` on tiny random-weight checkpoints
//!   (`tests/encoder_parity.rs`, max |Δlogit| ≤ 1e-4 in f32 at every real token).
//! * **Reuse, do not port — unless it is wrong**: the encoders are candle-transformers'
//!   `bert` layers, `xlm_roberta` (also for RoBERTa: its positions start after `padding_idx`
//!   like `transformers'`) and `debertav2`; this crate adds loading (weight prefixes, configs of
//!   newer `transformers` versions, refusing variants it does not implement), batching, pooling
//!   and the heads. Where candle's code disagreed with `transformers` it is replaced by our own
//!   module: DistilBERT (candle runs the tanh GELU), ModernBERT (f32 masks break f16/bf16) and
//!   BERT's embeddings and mask (candle's give NaN in f16/bf16). DeBERTa-v2 runs in f32 only.
//! * **Speed on the CPU**: BERT in f32 on the CPU runs on [`candle::FastBert`], our own forward
//!   pass written for throughput (fused QKV, copy-free attention, vectorized softmax, GELU and
//!   layer norm, gemm's AVX-512 kernels) with the same outputs; GPUs and half precision use
//!   candle's layers.
//! * **Logits are the boundary**: [`TaskEncoder::logits`] takes padded id/type/mask rows and
//!   returns f32 logits on the CPU whatever the device and dtype; tokenization policy
//!   (pairs, QA windows), batching and post-processing live in the models built on it.
//!   Per-token logits at padding positions are unspecified.
//! * **One loader for every source**: a local directory, a packaged asset (`asset:NAME`) or a hub
//!   repo (`hf:ORG/NAME@REV`, offline mode and cache dir via
//!   [`HubOptions`](metamorph_data::assets::HubOptions)) all go through
//!   [`metamorph_data::assets::resolve`]; weights are `model.safetensors` or the shards a
//!   `model.safetensors.index.json` lists, memory-mapped.
//! * **The architecture comes from `config.json`** (`model_type`, else `architectures`); any
//!   other is an [`Error::Asset`](metamorph_data::Error::Asset) naming the file.
//! * **Length buckets**: texts are tokenized unpadded, sorted by length and padded per batch,
//!   so padding waste stays small (logged at debug level); distinct texts are embedded once per
//!   call.
//! * **Throughput batching of the task models** ([`candle::batching`]): a worker thread
//!   tokenizes the next chunk of examples while the model runs the current one; rows (a QA
//!   example's windows are separate rows) are sorted by length and packed so that rows × padded
//!   width stays within `batch_tokens` (default 8192) and rows within `batch_size` (default 64),
//!   cut where the padding saved outweighs a forward pass (`batch_cost`, default 128 tokens);
//!   padding waste is logged at debug level per call and totalled per model
//!   (`padding_stats()`). Identical inputs are run once by the stage.
//! * **CPU by default**, f32 by default; `cuda`/`metal` cargo features forward to candle, and
//!   f16/bf16 are a config switch (pooling stays f32).
//! * **Errors are the workspace's** [`metamorph_data::Error`]: loading problems are `Asset`
//!   (naming the file), bad settings `Config`, run-time failures and bad inputs (missing or empty
//!   text, naming the example and field) `Model`.
#![deny(missing_docs)]

pub mod candle;
pub mod causal_lm;
pub mod http;
mod model_config;
pub mod model_fingerprint;
pub mod openai;
pub mod protocol;
pub mod response_cache;
mod stage;
mod subprocess;

pub use candle::{Head, LoadOptions, SentenceEncoder, SentenceSimilarityModel, TaskEncoder};
pub use http::{HttpConfig, HttpModel};
pub use model_config::{
    AnyHeadModelConfig, CausalLmModelConfig, CheckpointConfig, ClassifierKeys,
    ClassifierModelConfig, HttpModelConfig, ModelConfig, ModelKind, OpenAiModelConfig,
    PackingConfig, QaKeys, QaModelConfig, SimilarityModelConfig, SubprocessModelConfig,
    MODEL_KINDS,
};
pub use model_fingerprint::ConfiguredModel;
pub use openai::{OpenAiConfig, OpenAiModel};
pub use response_cache::ResponseCache;
pub use stage::{ExecuteConfig, ExecuteStage, ForTasks};
pub use subprocess::{SubprocessConfig, SubprocessModel};

use metamorph_data::usage::Spent;
use metamorph_data::{Example, Prediction, Result, Task};

/// A model under test.
pub trait Model: Send + Sync {
    /// The model's name, recorded in every prediction.
    fn name(&self) -> &str;

    /// Predicts every example of `batch`, returning predictions in the same order.
    ///
    /// # Errors
    /// [`metamorph_data::Error::Model`] when the model fails or answers something unusable.
    fn predict(&self, batch: &[&Example]) -> Result<Vec<Prediction>>;

    /// Whether the model answers examples of `task` (default: every task).
    fn handles(&self, _task: Task) -> bool {
        true
    }

    /// The largest batch the model wants at once.
    fn max_batch(&self) -> usize {
        32
    }

    /// What a metered endpoint has spent since the model started (requests, tokens); `None`
    /// for a model that spends nothing countable (default).
    fn spent(&self) -> Option<Spent> {
        None
    }

    /// Requests a metered endpoint's budget still allows (`None`: no request bound, default):
    /// the stage never hands it more inputs at once, so no answer paid for is lost when the
    /// budget runs out.
    fn requests_left(&self) -> Option<u64> {
        None
    }

    /// The model's fingerprint for the response cache: a hash of everything its answers depend
    /// on (see [`model_fingerprint`]). `None` (default): its answers are never cached.
    ///
    /// # Errors
    /// IO errors hashing its files.
    fn fingerprint(&self) -> Result<Option<String>> {
        Ok(None)
    }
}
