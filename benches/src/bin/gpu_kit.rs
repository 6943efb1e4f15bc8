//! The Rust side of the GPU kit (`cargo xtask gpu-kit`, `gpu-kit/run.py`): one binary, built
//! with `--features cuda`, that a machine with a driver and PyTorch but no Rust runs.
//!
//! ```text
//! gpu-kit parity         --fixtures DIR --device cuda:0 --dtype bf16      > parity.json
//! gpu-kit bench-encoder  --model DIR --device cuda:0 --dtype bf16 --seq 128 --batch 1,32,256
//! gpu-kit bench-generate --model DIR --device cuda:0 --dtype f32 --batch 1,32 --beams 1,4
//! gpu-kit pipeline       --config gpu.toml [--output DIR]
//! gpu-kit bench-lm-yes-no --gguf SmolLM2-135M-Instruct.Q4_1.gguf --questions boolq.jsonl \
//!     --device cuda:0 [--n 1000] [--weights f32|quantized]
//! ```
//!
//! `parity` runs every tiny fixture checkpoint of the test suite (`models/tests/fixtures/`,
//! `generate/tests/fixtures/`, copied into the kit) on the device in the dtype and prints what
//! candle computes from the fixtures' reference ids as one JSON object; `run.py` compares it
//! with the fixtures' PyTorch goldens (f32) or with PyTorch run in the same dtype on the same
//! device (f16/bf16). The benches print JSON lines, one per configuration: the median of timed
//! runs after a warm-up, each run ending with the outputs copied to the host (so the device
//! has finished). `pipeline` is `cargo xtask pipeline` without cargo.

use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::{DType, Device, Tensor};
use clap::{Parser, Subcommand};
use metamorph_benches::cli::{list, median};
use std::sync::Arc;

use metamorph_data::assets::ModelSource;
use metamorph_data::{expand_inputs, load_config, run_stage, Fingerprint, RecordKind, StageArgs};
use metamorph_execute::{ExecuteConfig, ExecuteStage};
use metamorph_generate::decoding::generate_ids;
use metamorph_generate::DecodingOptions;
use metamorph_judge::{JudgeStage, Report};
use metamorph_models::bart::Bart;
use metamorph_models::masked_lm::CandleMaskedLm;
use metamorph_models::seq2seq::{EncoderDecoder, SpecialTokens, StepDecoder};
use metamorph_models::t5::T5;
use metamorph_models::{Checkpoint, LoadOptions, ModelOptions, TaskEncoder};
use serde_json::{json, Value};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[derive(Parser)]
#[command(
    name = "gpu-kit",
    about = "metamorph's GPU kit: parity checks and benchmarks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Candle's outputs on every fixture checkpoint, as one JSON object on stdout.
    Parity {
        /// The kit's `fixtures/` folder (`encoders/`, `encoder-variants/`, `mlm/`,
        /// `bart-tiny/`, `t5-tiny/`).
        #[arg(long)]
        fixtures: PathBuf,
        #[arg(long, default_value = "cpu")]
        device: String,
        #[arg(long, default_value = "f32")]
        dtype: String,
    },
    /// Sequences/s of a sequence-classification checkpoint on random ids (full mask).
    BenchEncoder {
        /// A `transformers` checkpoint directory (`run.py` writes a random BERT-base one).
        #[arg(long)]
        model: PathBuf,
        #[arg(long, default_value = "cpu")]
        device: String,
        #[arg(long, default_value = "f32")]
        dtype: String,
        #[arg(long, default_value = "128")]
        seq: String,
        #[arg(long, default_value = "1,32,256")]
        batch: String,
        #[arg(long, default_value_t = 5)]
        reps: usize,
        #[arg(long, default_value_t = 2.0)]
        min_seconds: f64,
    },
    /// Generated tokens/s of a BART checkpoint, every output forced to `--new-tokens`.
    BenchGenerate {
        #[arg(long)]
        model: PathBuf,
        /// JSON file with the input ids (`[[id, …], …]`, at least the largest batch).
        #[arg(long)]
        inputs: PathBuf,
        #[arg(long, default_value = "cpu")]
        device: String,
        #[arg(long, default_value = "f32")]
        dtype: String,
        #[arg(long, default_value = "1,32")]
        batch: String,
        #[arg(long, default_value = "1,4")]
        beams: String,
        #[arg(long, default_value_t = 32)]
        new_tokens: usize,
        #[arg(long, default_value_t = 3)]
        reps: usize,
        #[arg(long, default_value_t = 2.0)]
        min_seconds: f64,
        /// Copy every step's logits to the host and search there (the path before scores
        /// were reduced on the device), to measure what the device reduction saves.
        #[arg(long)]
        host_scores: bool,
    },
    /// The model stages over `case` shards made elsewhere: execute (the config's
    /// `[[execute.models]]`), then judge, then `summary.json` and `report.html` in `--output`,
    /// as `metamorph-execute` and `metamorph-judge` run them.
    Cases {
        /// Configuration file with the models.
        #[arg(long)]
        config: PathBuf,
        /// `case` Parquet files (a glob, quoted).
        #[arg(long)]
        input: String,
        /// Output directory (`prediction/`, `verdict/`, `summary.json`, `report.html`).
        #[arg(long)]
        output: PathBuf,
        /// Rows per record batch.
        #[arg(long, default_value_t = 1024)]
        batch_size: usize,
    },
    /// BoolQ questions/s of a GGUF language model under test (`kind = "causal-lm"`): each
    /// question's prompt run once and `yes`/`no` scored after it, as the model under test does;
    /// one JSON line with the figure, the prompts' ids (for a peer to run the same) and p(yes).
    BenchLmYesNo {
        /// The GGUF file.
        #[arg(long)]
        gguf: PathBuf,
        /// BoolQ JSON lines (SuperGLUE's or the bundled sample's layout).
        #[arg(long)]
        questions: PathBuf,
        /// Questions (the file's, repeated when it has fewer).
        #[arg(long, default_value_t = 1000)]
        n: usize,
        #[arg(long, default_value = "cpu")]
        device: String,
        /// `f32` (dequantized at load) or `quantized` (the file's blocks).
        #[arg(long, default_value = "f32")]
        weights: String,
        /// Timed runs after a warm-up on the first 8 questions (the median is reported).
        #[arg(long, default_value_t = 1)]
        reps: usize,
    },
    /// The whole pipeline of a config file, as `cargo xtask pipeline --config` runs it.
    Pipeline {
        #[arg(long)]
        config: PathBuf,
        #[arg(long)]
        output: Option<PathBuf>,
        /// Recompute every unit, ignoring outputs already complete.
        #[arg(long)]
        force: bool,
    },
}

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse().command) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gpu-kit: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<()> {
    match command {
        Command::Parity {
            fixtures,
            device,
            dtype,
        } => parity(&fixtures, &device, &dtype),
        Command::BenchEncoder {
            model,
            device,
            dtype,
            seq,
            batch,
            reps,
            min_seconds,
        } => bench_encoder(
            &model,
            &device,
            &dtype,
            &list(&seq).map_err(|e| format!("--seq {e}"))?,
            &list(&batch).map_err(|e| format!("--batch {e}"))?,
            (reps, min_seconds),
        ),
        Command::BenchGenerate {
            model,
            inputs,
            device,
            dtype,
            batch,
            beams,
            new_tokens,
            reps,
            min_seconds,
            host_scores,
        } => bench_generate(
            &model,
            &inputs,
            (&device, &dtype),
            &list(&batch).map_err(|e| format!("--batch {e}"))?,
            &list(&beams).map_err(|e| format!("--beams {e}"))?,
            new_tokens,
            (reps, min_seconds),
            host_scores,
        ),
        Command::Cases {
            config,
            input,
            output,
            batch_size,
        } => cases(&config, &input, &output, batch_size),
        Command::Pipeline {
            config,
            output,
            force,
        } => pipeline(&config, output, force),
        Command::BenchLmYesNo {
            gguf,
            questions,
            n,
            device,
            weights,
            reps,
        } => bench_lm_yes_no(&gguf, &questions, n, (&device, &weights), reps),
    }
}

/// See [`Command::BenchLmYesNo`].
fn bench_lm_yes_no(
    gguf: &Path,
    questions: &Path,
    n: usize,
    (device, weights): (&str, &str),
    reps: usize,
) -> Result<()> {
    use metamorph_data::{DatasetFormat, DatasetReader, Example, ReadOptions, Task};
    use metamorph_execute::causal_lm::{CausalLmConfig, CausalLmModel};
    use metamorph_models::causal_lm::{CausalLm, LmOptions, WeightFormat};

    let weights = match weights {
        "f32" => WeightFormat::F32,
        "quantized" => WeightFormat::Quantized,
        other => return Err(format!("--weights is f32 or quantized, not {other:?}").into()),
    };
    let all: Vec<Example> =
        DatasetReader::open(questions, DatasetFormat::Boolq, ReadOptions::default())?
            .examples()
            .collect::<std::result::Result<_, _>>()?;
    if all.is_empty() {
        return Err(format!("{}: no questions", questions.display()).into());
    }
    let examples: Vec<Example> = all.iter().cycle().take(n.max(1)).cloned().collect();
    let lm = CausalLm::from_file(
        gguf,
        LmOptions {
            device: metamorph_models::device(device)?,
            weights,
            ..LmOptions::default()
        },
    )?;
    let (yes, no) = (lm.encode("yes")?, lm.encode("no")?);
    let model = CausalLmModel::try_new("lm", lm, &[Task::BoolQ], CausalLmConfig::default())?;
    let prompts = examples
        .iter()
        .map(|e| model.prompt_for(e))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let refs: Vec<&Example> = examples.iter().collect();
    let answer =
        |refs: &[&Example]| -> Result<Vec<f32>> { Ok(metamorph_benches::lm::p_yes(&model, refs)?) };
    answer(&refs[..refs.len().min(8)])?;
    let mut times = Vec::new();
    let mut p_yes = Vec::new();
    for _ in 0..reps.max(1) {
        let t0 = Instant::now();
        p_yes = answer(&refs)?;
        times.push(t0.elapsed().as_secs_f64());
    }
    let seconds = median(times);
    println!(
        "{}",
        json!({
            "impl": "metamorph", "device": device, "weights": format!("{weights:?}"),
            "questions": refs.len(), "seconds": seconds,
            "examples_per_s": refs.len() as f64 / seconds,
            "prompts": prompts, "yes": yes, "no": no, "p_yes": p_yes,
        })
    );
    Ok(())
}

fn placement(device: &str, dtype: &str) -> Result<(Device, DType)> {
    Ok((
        metamorph_models::device(device)?,
        metamorph_models::parse_dtype(dtype)?,
    ))
}

fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?)
}

fn ids(value: &Value) -> Vec<Vec<u32>> {
    value
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|row| {
                    row.as_array()
                        .map(|r| {
                            r.iter()
                                .filter_map(Value::as_u64)
                                .map(|v| v as u32)
                                .collect()
                        })
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `{"dims": [...], "values": [...]}` of a tensor, in f32 on the host.
fn tensor_json(tensor: &Tensor) -> Result<Value> {
    let values: Vec<f32> = tensor
        .to_dtype(DType::F32)?
        .flatten_all()?
        .to_device(&Device::Cpu)?
        .to_vec1()?;
    Ok(json!({"dims": tensor.dims(), "values": values}))
}

/// The fixture directories under `root` that hold a golden.json, sorted.
fn fixture_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("golden.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn parity(fixtures: &Path, device: &str, dtype: &str) -> Result<()> {
    let (device, dtype) = placement(device, dtype)?;
    let started = Instant::now();
    let mut encoders = serde_json::Map::new();
    for group in ["encoders", "encoder-variants"] {
        for dir in fixture_dirs(&fixtures.join(group)) {
            let golden = read_json(&dir.join("golden.json"))?;
            let name = golden["model"].as_str().unwrap_or_default().to_string();
            let checkpoint =
                Checkpoint::try_resolve(&ModelSource::Local(dir.clone()), &Default::default())?;
            let options = LoadOptions {
                device: device.clone(),
                dtype,
            };
            let key = format!(
                "{group}/{}",
                dir.file_name().unwrap_or_default().to_string_lossy()
            );
            // A dtype an architecture does not support is a documented refusal, not a failure
            // of the whole run: recorded as such and reported by run.py.
            let encoder = match TaskEncoder::try_load(&name, &checkpoint, None, &options) {
                Ok(encoder) => encoder,
                Err(e) if dtype != DType::F32 => {
                    encoders.insert(key, json!({"unsupported": e.to_string()}));
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            // A failure of one model is recorded and the others still run.
            let run = || -> Result<Value> {
                let mut batches = Vec::new();
                for batch in golden["inputs"].as_array().into_iter().flatten() {
                    let (input_ids, types, mask) = (
                        ids(&batch["input_ids"]),
                        ids(&batch["token_type_ids"]),
                        ids(&batch["attention_mask"]),
                    );
                    let (rows, width) = (input_ids.len(), input_ids.first().map_or(0, Vec::len));
                    let logits = encoder.logits(
                        &input_ids.concat(),
                        &types.concat(),
                        &mask.concat(),
                        rows,
                        width,
                    )?;
                    batches.push(tensor_json(&logits)?);
                }
                Ok(Value::Array(batches))
            };
            encoders.insert(
                key,
                run().unwrap_or_else(|e| json!({"error": e.to_string()})),
            );
        }
    }
    let mut mlm = serde_json::Map::new();
    let model_options = ModelOptions {
        device: device.clone(),
        dtype,
    };
    for dir in fixture_dirs(&fixtures.join("mlm")) {
        let golden = read_json(&dir.join("golden.json"))?;
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let model = match CandleMaskedLm::load_dir(&dir, &name, &model_options) {
            Ok(model) => model,
            Err(e) if dtype != DType::F32 => {
                mlm.insert(format!("mlm/{name}"), json!({"unsupported": e.to_string()}));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let texts: Vec<&str> = golden["cases"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["text"].as_str())
            .collect();
        let top_k = golden["top_k"].as_u64().unwrap_or(10) as usize;
        let got = match model.top_k_ids(&texts, top_k) {
            Ok(got) => serde_json::to_value(got)?,
            Err(e) => json!({"error": e.to_string()}),
        };
        mlm.insert(format!("mlm/{name}"), got);
    }
    let mut seq2seq = serde_json::Map::new();
    for name in ["bart-tiny", "t5-tiny"] {
        let dir = fixtures.join(name);
        let golden = read_json(&dir.join("golden.json"))?;
        let inputs = ids(&golden["input_ids"]);
        let decoder_ids = ids(&golden["forward"]["decoder_input_ids"]);
        let run = || -> Result<Value> {
            let tokens = Tensor::new(decoder_ids.clone(), &device)?;
            let (hidden, logits, generated) = if name.starts_with("bart") {
                let model = Bart::load(&dir, name, model_options.clone())?;
                let encoded = model.encode(&inputs)?;
                let logits = model.session(&encoded, 1)?.forward(&tokens)?;
                let generated = generations(&model, &inputs, &golden)?;
                (encoded.hidden, logits, generated)
            } else {
                let model = T5::load(&dir, name, model_options.clone())?;
                let encoded = model.encode(&inputs)?;
                let logits = model.session(&encoded, 1)?.forward(&tokens)?;
                let generated = generations(&model, &inputs, &golden)?;
                (encoded.hidden, logits, generated)
            };
            Ok(json!({
                "encoder_hidden": tensor_json(&hidden)?,
                "logits": tensor_json(&logits)?,
                "generated": generated,
            }))
        };
        let result = run().unwrap_or_else(|e| json!({"error": e.to_string()}));
        seq2seq.insert(name.to_string(), result);
    }
    let out = json!({
        "device": format!("{device:?}"),
        "dtype": format!("{dtype:?}").to_lowercase(),
        "seconds": started.elapsed().as_secs_f64(),
        "encoders": encoders,
        "mlm": mlm,
        "seq2seq": seq2seq,
    });
    println!("{out}");
    Ok(())
}

/// `generate_ids` over the whole batch for every decoding case of a seq2seq golden.
fn generations(model: &dyn EncoderDecoder, inputs: &[Vec<u32>], golden: &Value) -> Result<Value> {
    let mut out = serde_json::Map::new();
    for case in golden["cases"].as_array().into_iter().flatten() {
        let name = case["name"].as_str().unwrap_or_default().to_string();
        let options = DecodingOptions::from_generate_kwargs(&case["options"])?;
        out.insert(
            name,
            serde_json::to_value(generate_ids(model, inputs, &options)?)?,
        );
    }
    Ok(Value::Object(out))
}

/// Times `run` (one warm-up call, then at least `reps` calls and `min_seconds`); the median.
fn time(
    reps: usize,
    min_seconds: f64,
    mut run: impl FnMut() -> Result<()>,
) -> Result<(f64, usize)> {
    run()?;
    let mut times = Vec::new();
    let started = Instant::now();
    while times.len() < reps || started.elapsed().as_secs_f64() < min_seconds {
        let t0 = Instant::now();
        run()?;
        times.push(t0.elapsed().as_secs_f64());
    }
    let n = times.len();
    Ok((median(times), n))
}

fn bench_encoder(
    model: &Path,
    device: &str,
    dtype: &str,
    seqs: &[usize],
    batches: &[usize],
    (reps, min_seconds): (usize, f64),
) -> Result<()> {
    let (device_, dtype_) = placement(device, dtype)?;
    let checkpoint = Checkpoint::try_resolve(
        &ModelSource::Local(model.to_path_buf()),
        &Default::default(),
    )?;
    let options = LoadOptions {
        device: device_,
        dtype: dtype_,
    };
    let encoder = TaskEncoder::try_load("bench-encoder", &checkpoint, None, &options)?;
    let vocab = encoder.tokenizer().get_vocab_size(true) as u64;
    for &seq in seqs {
        for &batch in batches {
            // Random ids (1000..30000 for a BERT vocabulary, as run.py feeds PyTorch; past the
            // special tokens for a tiny one), type ids 0, full mask.
            let (low, high) = if vocab > 30_000 {
                (1000, 30_000)
            } else {
                (5, vocab)
            };
            let mut state = 1u64;
            let ids: Vec<u32> = (0..batch * seq)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    (low + (state >> 33) % (high - low)) as u32
                })
                .collect();
            let (types, mask) = (vec![0u32; batch * seq], vec![1u32; batch * seq]);
            let (seconds, n) = time(reps, min_seconds, || {
                let logits = encoder.logits(&ids, &types, &mask, batch, seq)?;
                std::hint::black_box(logits.to_device(&Device::Cpu)?.to_vec2::<f32>()?);
                Ok(())
            })?;
            println!(
                "{}",
                json!({"bench": "encoder", "impl": "candle", "device": device, "dtype": dtype,
                       "seq": seq, "batch": batch, "reps": n, "seconds": seconds,
                       "sequences_per_s": batch as f64 / seconds})
            );
        }
    }
    Ok(())
}

/// A model whose decoder sessions offer only [`StepDecoder::step`], so the search copies every
/// step's logits to the host (`--host-scores`).
struct HostScores<'a>(&'a dyn EncoderDecoder);

struct HostStep<'a>(Box<dyn StepDecoder + 'a>);

impl StepDecoder for HostStep<'_> {
    fn step(&mut self, tokens: &[u32]) -> metamorph_data::Result<Vec<f32>> {
        self.0.step(tokens)
    }

    fn reorder(&mut self, rows: &[usize]) -> metamorph_data::Result<()> {
        self.0.reorder(rows)
    }
}

impl EncoderDecoder for HostScores<'_> {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn vocab_size(&self) -> usize {
        self.0.vocab_size()
    }

    fn special_tokens(&self) -> SpecialTokens {
        self.0.special_tokens()
    }

    fn check_output_length(&self, max_new_tokens: usize) -> metamorph_data::Result<()> {
        self.0.check_output_length(max_new_tokens)
    }

    fn tokenize(&self, texts: &[&str]) -> metamorph_data::Result<Vec<Vec<u32>>> {
        self.0.tokenize(texts)
    }

    fn start(
        &self,
        inputs: &[Vec<u32>],
        beams: usize,
    ) -> metamorph_data::Result<Box<dyn StepDecoder + '_>> {
        Ok(Box::new(HostStep(self.0.start(inputs, beams)?)))
    }

    fn detokenize(&self, outputs: &[Vec<u32>]) -> metamorph_data::Result<Vec<String>> {
        self.0.detokenize(outputs)
    }
}

#[allow(clippy::too_many_arguments)]
fn bench_generate(
    model: &Path,
    inputs: &Path,
    (device, dtype): (&str, &str),
    batches: &[usize],
    beams: &[usize],
    new_tokens: usize,
    (reps, min_seconds): (usize, f64),
    host_scores: bool,
) -> Result<()> {
    let (device_, dtype_) = placement(device, dtype)?;
    let all_inputs = ids(&read_json(inputs)?);
    let largest = batches.iter().copied().max().unwrap_or(1);
    if all_inputs.len() < largest {
        return Err(format!(
            "{}: {} inputs, fewer than batch {largest}",
            inputs.display(),
            all_inputs.len()
        )
        .into());
    }
    let bart = Bart::load(
        model,
        "bench-bart",
        ModelOptions {
            device: device_,
            dtype: dtype_,
        },
    )?;
    let host = HostScores(&bart);
    let searched: &dyn EncoderDecoder = if host_scores { &host } else { &bart };
    let implementation = if host_scores {
        "candle-host-scores"
    } else {
        "candle"
    };
    for &num_beams in beams {
        for &batch in batches {
            let options = DecodingOptions {
                num_beams,
                max_new_tokens: new_tokens,
                min_new_tokens: new_tokens,
                ..DecodingOptions::default()
            };
            let rows = &all_inputs[..batch];
            let (seconds, n) = time(reps, min_seconds, || {
                let out = generate_ids(searched, rows, &options)?;
                if out.iter().any(|row| row.len() != new_tokens + 1) {
                    return Err("an output does not have the forced length".into());
                }
                Ok(())
            })?;
            println!(
                "{}",
                json!({"bench": "generate", "impl": implementation, "device": device, "dtype": dtype,
                       "batch": batch, "beams": num_beams, "new_tokens": new_tokens, "reps": n,
                       "seconds": seconds, "tokens_per_s": (batch * new_tokens) as f64 / seconds})
            );
        }
    }
    Ok(())
}

fn cases(config: &Path, input: &str, output: &Path, batch_size: usize) -> Result<()> {
    let started = Instant::now();
    let stage_args = |inputs: Vec<String>| StageArgs {
        input: inputs,
        output: output.to_path_buf(),
        shard: "1/1".parse().expect("a shard spec"),
        config: Some(config.to_path_buf()),
        batch_size,
        workers: 1,
        channel_capacity: 4,
        force: true,
        quiet: true,
    };
    let execute_args = stage_args(vec![input.to_string()]);
    let file = load_config(&execute_args)?;
    let execute: ExecuteConfig = file.section("execute")?;
    let base = config.parent().unwrap_or(Path::new("."));
    let settings = file.fingerprint(&["execute"]);
    run_stage(&execute_args, "execute", &[], settings, || {
        Ok(Arc::new(ExecuteStage::from_config(&execute, base, true)?))
    })?;
    let executed = started.elapsed().as_secs_f64();
    let predictions = output.join("prediction").join("*.parquet");
    let judge_args = stage_args(vec![input.to_string(), predictions.display().to_string()]);
    run_stage(
        &judge_args,
        "judge",
        &[RecordKind::Prediction],
        Fingerprint::new(1),
        || Ok(Arc::new(JudgeStage::new())),
    )?;
    // The verdicts under `output`, the examples from the input cases (as `metamorph-judge`).
    let report = Report::from_run_dir_with_cases(output, &expand_inputs(&[input.to_string()])?)?;
    let (summary, html) = report.write_all(output)?;
    println!(
        "{}",
        json!({"bench": "cases", "seconds": started.elapsed().as_secs_f64(),
               "execute_seconds": executed, "summary": summary, "report": html})
    );
    Ok(())
}

fn pipeline(config: &Path, output: Option<PathBuf>, force: bool) -> Result<()> {
    let options = metamorph::PipelineOptions {
        output,
        force,
        progress: true,
        no_cache: true,
    };
    let started = Instant::now();
    let report = metamorph::run_pipeline(config, &options)?;
    println!(
        "{}",
        json!({"bench": "pipeline", "seconds": started.elapsed().as_secs_f64(),
               "summary": report.summary_path, "report": report.report_path})
    );
    Ok(())
}
