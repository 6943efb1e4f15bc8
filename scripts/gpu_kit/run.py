#!/usr/bin/env python3
"""metamorph's GPU kit: parity checks and side-by-side benchmarks of the cuda-built Rust binary
against PyTorch `transformers`, on a machine with a driver and PyTorch but no Rust.

Usage (inside the kit folder that `cargo xtask gpu-kit` builds):

    python3 run.py [--device cuda|cpu] [--out DIR] [--quick] [--only parity,encoder,generate,pipeline,lm]

What it does, each part recorded in `$OUT/results.json` and `$OUT/results.md`:

* parity: `bin/gpu-kit parity` runs every tiny fixture checkpoint of the test suite (6 encoder
  architectures × 3 heads and 4 config variants, 4 masked LMs, BART, T5) on the device in f32,
  f16 and bf16. f32 is compared with the fixtures' goldens (PyTorch's own float32 outputs,
  written by scripts/*_fixtures.py) and must be within 1e-3 everywhere, with identical
  top-k ids and identical generated ids. f16/bf16 are compared with PyTorch run from the same
  checkpoint in the same dtype on the same device. Half precision has no exact answer, so the
  tolerance is relative to what PyTorch itself loses: candle's difference from PyTorch in the
  same dtype must stay within `HALF_FACTOR` × PyTorch's own difference from its float32 output
  (plus `HALF_FLOOR` × the output's scale, for outputs PyTorch happens to round exactly).
* encoder: sequences/s of a BERT-base-shaped sequence classifier (random weights, written
  here with PyTorch) at seq 128 × batch {1, 32, 256}, f32 and bf16, candle and PyTorch (sdpa
  attention), and the fraction of the bf16 roofline (989.5 TFLOP/s dense on an H100 SXM).
* generate: tokens/s of a BART-base-shaped model (random weights) at batch {1, 32} × beams
  {1, 4}, 32 new tokens forced, candle and PyTorch `generate()`.
* pipeline: `bin/gpu-kit cases`, the model stages of the pipeline (execute, judge, summary and
  report) over the MT4MRC cases in `data/cases/` (BoolQ questions parsed and perturbed on the
  CPU by `cargo xtask gpu-kit`: perturbing reads WordNet and all-MiniLM-L6-v2, which do not fit
  in the kit), the BERT-base classifier as the model under test on the device, bf16; cases/s
  and, where `nvidia-smi` answers, GPU utilisation.
* lm: `bin/gpu-kit bench-lm-yes-no`, a GGUF language model as a BoolQ model under test
  (`kind = "causal-lm"`, f32 and quantized weights) on `--lm-questions` questions (the kit's
  BoolQ sample, repeated), questions/s; beside it llama.cpp (`llama-cpp-python`, every layer
  on the GPU) on the same prompt ids when it is installed, with how often the two agree. The
  GGUF is not in the kit (SmolLM2-135M-Instruct's is 98 MB): put it in `lm/` or pass `--gguf`.

`--device cpu` runs the same steps on the CPU; `--quick` shrinks them (the tiny fixtures stand
in for the BERT-base and BART-base models, fewer repetitions) so that the test suite can run
the kit (`benches/tests/gpu_kit.rs`). Without PyTorch the steps that need it are skipped and
say so; f32 parity against the goldens still runs.
"""

import argparse
import json
import lzma
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

KIT = Path(__file__).resolve().parent
F32_TOLERANCE = 1e-3
# Half precision: candle vs PyTorch in the same dtype, against PyTorch's own rounding error.
HALF_FACTOR = 4.0
HALF_FLOOR = {"f16": 2e-3, "bf16": 1.6e-2}
BF16_PEAK_TFLOPS = 989.5  # H100 SXM, dense bf16 tensor cores


def log(message):
    print(f"[gpu-kit] {message}", file=sys.stderr, flush=True)


def binary():
    """The kit's binary, decompressed from `bin/gpu-kit.xz` on first use."""
    path = KIT / "bin" / "gpu-kit"
    packed = KIT / "bin" / "gpu-kit.xz"
    if not path.exists() and packed.exists():
        with lzma.open(packed) as src, open(str(path) + ".tmp", "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.chmod(str(path) + ".tmp", 0o755)
        os.replace(str(path) + ".tmp", path)
    if not path.exists():
        sys.exit(f"gpu-kit: {path} is missing (build the kit with `cargo xtask gpu-kit`)")
    return str(path)


def cuda_library_dirs():
    """Folders holding the CUDA 13 runtime libraries the binary links (cuBLAS, cuRAND, NVRTC,
    the runtime): those of pip's `nvidia-*` wheels that PyTorch brings, if any."""
    dirs = []
    for entry in sys.path:
        base = Path(entry) / "nvidia"
        if base.is_dir():
            dirs += sorted(str(p) for p in base.glob("*/lib") if p.is_dir())
    return dirs


def kit_env(extra=None):
    env = dict(os.environ, **(extra or {}))
    dirs = cuda_library_dirs()
    if dirs:
        env["LD_LIBRARY_PATH"] = os.pathsep.join(dirs + [env.get("LD_LIBRARY_PATH", "")]).rstrip(os.pathsep)
    return env


def run_kit(args, env=None):
    """Runs the kit binary; returns its stdout. Fails loudly with its stderr."""
    log("gpu-kit " + " ".join(args))
    proc = subprocess.run([binary(), *args], capture_output=True, text=True, env=kit_env(env))
    if proc.returncode != 0:
        raise RuntimeError(f"gpu-kit {args[0]} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc.stdout


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def torch_or_none():
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401

        return torch
    except ImportError:
        return None


def torch_dtype(torch, name):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[name]


def sync(torch, device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def flatten(value):
    if isinstance(value, list):
        out = []
        for v in value:
            out.extend(flatten(v))
        return out
    return [float(value)]


def max_diff(a, b, keep=None):
    if len(a) != len(b):
        raise ValueError(f"lengths differ: {len(a)} vs {len(b)}")
    worst = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        if keep is None or keep(i):
            worst = max(worst, abs(x - y))
    return worst


# ---------------------------------------------------------------- parity


def fixture_dirs(root):
    return sorted(p for p in root.iterdir() if (p / "golden.json").is_file()) if root.is_dir() else []


def padding_filter(golden_batch, dims, per_token):
    """For per-token heads: keep only cells at real tokens (padding positions are unspecified)."""
    if not per_token:
        return None
    mask = flatten(golden_batch["attention_mask"])
    per_cell = 1
    for d in dims[2:]:
        per_cell *= d
    return lambda i: mask[i // per_cell] != 0


def compare_f32(candle):
    """candle f32 on the device vs the fixtures' PyTorch float32 goldens."""
    rows = []
    fixtures = KIT / "fixtures"
    for key, batches in candle["encoders"].items():
        if isinstance(batches, dict):
            rows.append({"model": key, "error": batches.get("error") or batches.get("unsupported"), "ok": False})
            continue
        golden = json.loads((fixtures / key / "golden.json").read_text())
        per_token = not golden["architecture"].endswith("ForSequenceClassification")
        worst = 0.0
        for got, want in zip(batches, golden["inputs"]):
            keep = padding_filter(want, got["dims"], per_token)
            worst = max(worst, max_diff(got["values"], flatten(want["logits"]), keep))
        rows.append({"model": key, "max_abs_diff": worst, "ok": worst <= F32_TOLERANCE})
    for key, tops in candle["mlm"].items():
        if isinstance(tops, dict):
            rows.append({"model": key, "error": tops.get("error") or tops.get("unsupported"), "ok": False})
            continue
        golden = json.loads((fixtures / key / "golden.json").read_text())
        worst, same_ids = 0.0, True
        for got_case, case in zip(tops, golden["cases"]):
            for got, want in zip(got_case, case["masks"]):
                ids = [i for i, _ in got]
                same_ids &= ids == want["ids"]
                worst = max(worst, max_diff([p for _, p in got], [float(p) for p in want["probs"]]))
        rows.append({"model": key, "max_abs_diff": worst, "same_top_ids": same_ids,
                     "ok": same_ids and worst <= F32_TOLERANCE})
    for name, out in candle["seq2seq"].items():
        if "error" in out:
            rows.append({"model": name, "error": out["error"], "ok": False})
            continue
        golden = json.loads((fixtures / name / "golden.json").read_text())
        lengths = [len(r) for r in golden["input_ids"]]
        hidden = hidden_rows(out["encoder_hidden"], lengths)
        worst_hidden = max_diff(hidden, flatten(golden["forward"]["encoder_hidden"]))
        worst_logits = max_diff(out["logits"]["values"], flatten(golden["forward"]["logits"]))
        same = all(out["generated"][c["name"]] == c["batched"] for c in golden["cases"])
        worst = max(worst_hidden, worst_logits)
        rows.append({"model": name, "max_abs_diff": worst, "same_generated_ids": same,
                     "ok": same and worst <= F32_TOLERANCE})
    return rows


def hidden_rows(tensor, lengths):
    """The encoder states of each row's real tokens, flattened ([batch, len, d] padded)."""
    _, width, d = tensor["dims"]
    values = tensor["values"]
    out = []
    for b, n in enumerate(lengths):
        start = b * width * d
        out.extend(values[start:start + n * d])
    return out


def torch_encoder(torch, dir, golden, device, dtype):
    import inspect

    import transformers as T

    arch = golden["architecture"]
    cls = getattr(T, arch)
    model = cls.from_pretrained(str(dir), dtype=dtype, attn_implementation="eager").to(device).eval()
    accepts_types = "token_type_ids" in inspect.signature(model.forward).parameters
    outs = []
    for batch in golden["inputs"]:
        kwargs = {
            "input_ids": torch.tensor(batch["input_ids"], device=device),
            "attention_mask": torch.tensor(batch["attention_mask"], device=device),
        }
        if accepts_types and model.config.model_type in ("bert", "deberta-v2"):
            kwargs["token_type_ids"] = torch.tensor(batch["token_type_ids"], device=device)
        with torch.inference_mode():
            out = model(**kwargs)
        if arch.endswith("ForQuestionAnswering"):
            logits = torch.stack([out.start_logits, out.end_logits], dim=-1)
        else:
            logits = out.logits
        outs.append(logits.float().cpu().flatten().tolist())
    return outs


def torch_mlm(torch, dir, golden, device, dtype):
    from transformers import AutoModelForMaskedLM

    model = AutoModelForMaskedLM.from_pretrained(str(dir), dtype=dtype).to(device).eval()
    mask_id = None
    tok = json.loads((dir / "tokenizer.json").read_text())
    for added in tok.get("added_tokens", []):
        if added["content"] == golden["mask_token"]:
            mask_id = added["id"]
    probs = []
    for case in golden["cases"]:
        ids = torch.tensor([case["input_ids"]], device=device)
        with torch.inference_mode():
            logits = model(input_ids=ids).logits[0]
        positions = (ids[0] == mask_id).nonzero().flatten().tolist()
        probs.append([torch.softmax(logits[p].float(), -1).cpu().tolist() for p in positions])
    return probs


def torch_seq2seq(torch, dir, golden, device, dtype):
    from transformers import AutoModelForSeq2SeqLM

    model = AutoModelForSeq2SeqLM.from_pretrained(str(dir), dtype=dtype).to(device).eval()
    pad = model.config.pad_token_id
    ids = golden["input_ids"]
    width = max(len(r) for r in ids)
    input_ids = torch.tensor([r + [pad] * (width - len(r)) for r in ids], device=device)
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in ids], device=device)
    decoder = torch.tensor(golden["forward"]["decoder_input_ids"], device=device)
    with torch.inference_mode():
        out = model(input_ids=input_ids, attention_mask=mask, decoder_input_ids=decoder)
    hidden = out.encoder_last_hidden_state.float().cpu()
    rows = []
    for b, r in enumerate(ids):
        rows.extend(hidden[b, : len(r)].flatten().tolist())
    return rows, out.logits.float().cpu().flatten().tolist()


def compare_half(torch, candle, dtype_name, device):
    """candle in f16/bf16 vs PyTorch in the same dtype, both on `device`."""
    rows = []
    fixtures = KIT / "fixtures"
    dtype = torch_dtype(torch, dtype_name)
    floor = HALF_FLOOR[dtype_name]

    def judge(key, got, ours_ref, ref32, keep=None, extra=None):
        scale = max(1.0, max(abs(x) for x in ref32))
        vs_torch = max_diff(got, ours_ref, keep)
        torch_drift = max_diff(ours_ref, ref32, keep)
        limit = HALF_FACTOR * torch_drift + floor * scale
        row = {"model": key, "max_abs_diff": vs_torch, "torch_vs_f32": torch_drift,
               "limit": limit, "ok": vs_torch <= limit}
        row.update(extra or {})
        rows.append(row)

    for key, batches in candle["encoders"].items():
        if isinstance(batches, dict):
            rows.append({"model": key, **batches, "ok": False})
            continue
        dir = fixtures / key
        golden = json.loads((dir / "golden.json").read_text())
        per_token = not golden["architecture"].endswith("ForSequenceClassification")
        half = torch_encoder(torch, dir, golden, device, dtype)
        full = torch_encoder(torch, dir, golden, device, torch.float32)
        got, ref, ref32, cells = [], [], [], []
        for batch, want, h, f in zip(batches, golden["inputs"], half, full):
            keep = padding_filter(want, batch["dims"], per_token)
            for i, (a, b, c) in enumerate(zip(batch["values"], h, f)):
                if keep is None or keep(i):
                    got.append(a)
                    ref.append(b)
                    ref32.append(c)
        judge(key, got, ref, ref32)
    for key, tops in candle["mlm"].items():
        if isinstance(tops, dict):
            rows.append({"model": key, **tops, "ok": False})
            continue
        dir = fixtures / key
        golden = json.loads((dir / "golden.json").read_text())
        half = torch_mlm(torch, dir, golden, device, dtype)
        full = torch_mlm(torch, dir, golden, device, torch.float32)
        got, ref, ref32, top1 = [], [], [], []
        for got_case, h_case, f_case in zip(tops, half, full):
            for g, h, f in zip(got_case, h_case, f_case):
                for token, p in g:
                    got.append(p)
                    ref.append(h[token])
                    ref32.append(f[token])
                top1.append(g[0][0] == max(range(len(h)), key=h.__getitem__))
        judge(key, got, ref, ref32, extra={"same_top1": sum(top1) / len(top1)})
    for name, out in candle["seq2seq"].items():
        if "error" in out:
            rows.append({"model": name, "error": out["error"], "ok": False})
            continue
        dir = fixtures / name
        golden = json.loads((dir / "golden.json").read_text())
        lengths = [len(r) for r in golden["input_ids"]]
        h_hidden, h_logits = torch_seq2seq(torch, dir, golden, device, dtype)
        f_hidden, f_logits = torch_seq2seq(torch, dir, golden, device, torch.float32)
        judge(f"{name} encoder", hidden_rows(out["encoder_hidden"], lengths), h_hidden, f_hidden)
        judge(f"{name} logits", out["logits"]["values"], h_logits, f_logits)
    return rows


def parity(args, torch, results):
    device = "cuda:0" if args.device == "cuda" else "cpu"
    section = {}
    for dtype in ["f32", "f16", "bf16"]:
        started = time.perf_counter()
        candle = json.loads(run_kit(["parity", "--fixtures", str(KIT / "fixtures"),
                                     "--device", device, "--dtype", dtype]))
        if dtype == "f32":
            rows = compare_f32(candle)
            against = "PyTorch float32 goldens (fixtures)"
        elif torch is None:
            section[dtype] = {"skipped": "PyTorch is not installed"}
            continue
        else:
            rows = compare_half(torch, candle, dtype, "cuda" if args.device == "cuda" else "cpu")
            against = f"PyTorch {dtype} on the same device"
        checked = [r for r in rows if "unsupported" not in r]
        section[dtype] = {
            "against": against,
            "models": rows,
            "unsupported": [r["model"] for r in rows if "unsupported" in r],
            "errors": {r["model"]: r["error"] for r in rows if "error" in r},
            "all_ok": all(r["ok"] for r in checked),
            "worst": max((r["max_abs_diff"] for r in checked if "max_abs_diff" in r), default=float("nan")),
            "seconds": round(time.perf_counter() - started, 2),
        }
        log(f"parity {dtype}: {'ok' if section[dtype]['all_ok'] else 'FAILED'} "
            f"(worst {section[dtype]['worst']:.2e})")
    results["parity"] = section


# ---------------------------------------------------------------- models for the benches


def write_bert_base(torch, dir, layers):
    """A BERT-base-shaped sequence classifier (labels no/yes) with random weights, and the
    bert-base-uncased WordPiece tokenizer (all-MiniLM-L6-v2's, vocabulary 30522)."""
    from transformers import BertConfig, BertForSequenceClassification

    if (dir / "model.safetensors").exists():
        return dir
    torch.manual_seed(0)
    config = BertConfig(num_hidden_layers=layers, num_labels=2, id2label={0: "no", 1: "yes"},
                        label2id={"no": 0, "yes": 1})
    model = BertForSequenceClassification(config).eval()
    dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(dir), safe_serialization=True)
    for name in ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"]:
        if (KIT / "tokenizer" / name).exists():
            shutil.copy(KIT / "tokenizer" / name, dir / name)
    return dir


def write_bart_base(torch, dir):
    """A BART-base-shaped model with random weights (config of facebook/bart-base)."""
    from transformers import BartConfig, BartForConditionalGeneration

    if (dir / "model.safetensors").exists():
        return dir
    torch.manual_seed(0)
    config = BartConfig(vocab_size=50265, d_model=768, encoder_layers=6, decoder_layers=6,
                        encoder_attention_heads=12, decoder_attention_heads=12,
                        encoder_ffn_dim=3072, decoder_ffn_dim=3072, max_position_embeddings=1024,
                        pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                        forced_bos_token_id=0, forced_eos_token_id=2, scale_embedding=False)
    model = BartForConditionalGeneration(config).eval()
    dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(dir), safe_serialization=True)
    # The benches feed ids; candle's loader still reads a tokenizer (the tiny fixture's).
    shutil.copy(KIT / "fixtures" / "bart-tiny" / "tokenizer.json", dir / "tokenizer.json")
    return dir


# ---------------------------------------------------------------- benches


def bench_encoder(args, torch, results, work):
    device = "cuda:0" if args.device == "cuda" else "cpu"
    if args.quick:
        model = KIT / "fixtures" / "encoders" / "bert-sequence"
        seq, batches, reps, min_s = 32, [1, 4], 2, 0.0
    elif torch is None:
        results["encoder"] = {"skipped": "PyTorch is not installed (it writes the BERT-base model)"}
        return
    else:
        model = write_bert_base(torch, work / "bert-base-random", layers=12)
        seq, batches, reps, min_s = 128, [1, 32, 256], 5, 1.0
    config = json.loads((model / "config.json").read_text())
    rows = []
    for dtype in ["f32", "bf16"]:
        out = run_kit(["bench-encoder", "--model", str(model), "--device", device, "--dtype", dtype,
                       "--seq", str(seq), "--batch", ",".join(map(str, batches)),
                       "--reps", str(reps), "--min-seconds", str(min_s)])
        rows += json_lines(out)
        if torch is not None:
            rows += torch_encoder_bench(torch, model, args.device, dtype, seq, batches, reps, min_s,
                                        config["vocab_size"])
    flops = encoder_flops(config, seq)
    for row in rows:
        row["tflops"] = row["sequences_per_s"] * flops / 1e12
        row["roofline"] = row["tflops"] / BF16_PEAK_TFLOPS if args.device == "cuda" else None
    results["encoder"] = {"model": str(model.name), "seq": seq, "gflop_per_sequence": flops / 1e9,
                          "rows": rows}


def encoder_flops(config, seq):
    """Forward FLOPs of one sequence: 2 × multiply-adds of the projections, FFN and attention."""
    h, i, layers = config["hidden_size"], config["intermediate_size"], config["num_hidden_layers"]
    per_layer = 2 * seq * (4 * h * h + 2 * h * i) + 2 * 2 * seq * seq * h
    return layers * per_layer


def torch_encoder_bench(torch, model_dir, device_kind, dtype_name, seq, batches, reps, min_s, vocab):
    from transformers import AutoModelForSequenceClassification

    device = "cuda" if device_kind == "cuda" else "cpu"
    model = AutoModelForSequenceClassification.from_pretrained(
        str(model_dir), dtype=torch_dtype(torch, dtype_name), attn_implementation="sdpa").to(device).eval()
    rows = []
    gen = torch.Generator().manual_seed(1)
    for batch in batches:
        low, high = (1000, 30000) if vocab > 30000 else (5, vocab)  # as gpu-kit bench-encoder
        ids = torch.randint(low, high, (batch, seq), generator=gen).to(device)
        mask = torch.ones_like(ids)

        def once():
            with torch.inference_mode():
                model(input_ids=ids, attention_mask=mask).logits.float().cpu()

        seconds, n = timed(once, reps, min_s)
        rows.append({"bench": "encoder", "impl": "torch-sdpa", "device": device, "dtype": dtype_name,
                     "seq": seq, "batch": batch, "reps": n, "seconds": seconds,
                     "sequences_per_s": batch / seconds})
    return rows


def timed(run, reps, min_seconds):
    run()
    times = []
    started = time.perf_counter()
    while len(times) < reps or time.perf_counter() - started < min_seconds:
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), len(times)


def generation_inputs(path, count, length, vocab):
    """`count` rows of `length` ids: <s>, random ids in 4..vocab, </s> (seeded)."""
    import random

    rng = random.Random(1)
    rows = [[0] + [rng.randrange(4, vocab) for _ in range(length - 2)] + [2] for _ in range(count)]
    path.write_text(json.dumps(rows))
    return rows


def bench_generate(args, torch, results, work):
    device = "cuda:0" if args.device == "cuda" else "cpu"
    if args.quick:
        model = KIT / "fixtures" / "bart-tiny"
        batches, beams, new, length, reps, min_s = [1, 2], [1, 2], 8, 12, 2, 0.0
    elif torch is None:
        results["generate"] = {"skipped": "PyTorch is not installed (it writes the BART-base model)"}
        return
    else:
        model = write_bart_base(torch, work / "bart-base-random")
        batches, beams, new, length, reps, min_s = [1, 32], [1, 4], 32, 32, 3, 1.0
    vocab = json.loads((model / "config.json").read_text())["vocab_size"]
    ids_path = work / "generation-ids.json"
    ids = generation_inputs(ids_path, max(batches), length, vocab)
    rows = []
    for dtype in ["f32", "bf16"]:
        common = ["bench-generate", "--model", str(model), "--inputs", str(ids_path),
                  "--device", device, "--dtype", dtype, "--batch", ",".join(map(str, batches)),
                  "--beams", ",".join(map(str, beams)), "--new-tokens", str(new),
                  "--reps", str(reps), "--min-seconds", str(min_s)]
        rows += json_lines(run_kit(common))
        if args.device == "cuda" and dtype == "f32":
            # The search as it was before scores were reduced on the device.
            rows += json_lines(run_kit(common + ["--host-scores"]))
        if torch is not None:
            rows += torch_generate_bench(torch, model, args.device, dtype, ids, batches, beams, new,
                                         reps, min_s)
    results["generate"] = {"model": model.name, "input_len": length, "new_tokens": new, "rows": rows}


def torch_generate_bench(torch, model_dir, device_kind, dtype_name, ids, batches, beams, new, reps, min_s):
    from transformers import AutoModelForSeq2SeqLM

    device = "cuda" if device_kind == "cuda" else "cpu"
    model = AutoModelForSeq2SeqLM.from_pretrained(
        str(model_dir), dtype=torch_dtype(torch, dtype_name)).to(device).eval()
    rows = []
    for b in beams:
        for batch in batches:
            inputs = torch.tensor(ids[:batch], device=device)

            def once():
                with torch.inference_mode():
                    out = model.generate(input_ids=inputs, num_beams=b, do_sample=False,
                                         max_new_tokens=new, min_new_tokens=new)
                    out.cpu()
                assert out.shape == (batch, new + 1), out.shape

            seconds, n = timed(once, reps, min_s)
            rows.append({"bench": "generate", "impl": "torch", "device": device, "dtype": dtype_name,
                         "batch": batch, "beams": b, "new_tokens": new, "reps": n,
                         "seconds": seconds, "tokens_per_s": batch * new / seconds})
    return rows


# ---------------------------------------------------------------- pipeline


class GpuSampler:
    """Samples `nvidia-smi`'s GPU utilisation every 200 ms while the pipeline runs."""

    def __init__(self):
        self.samples = []
        self.proc = None

    def __enter__(self):
        if shutil.which("nvidia-smi"):
            self.proc = subprocess.Popen(
                ["nvidia-smi", "--query-gpu=utilization.gpu,memory.used", "--format=csv,noheader,nounits",
                 "-lms", "200"], stdout=subprocess.PIPE, text=True)
            self.thread = threading.Thread(target=self._read, daemon=True)
            self.thread.start()
        return self

    def _read(self):
        for line in self.proc.stdout:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) == 2 and parts[0].isdigit():
                self.samples.append((int(parts[0]), int(parts[1])))

    def __exit__(self, *exc):
        if self.proc:
            self.proc.terminate()
            self.proc.wait()

    def summary(self):
        if not self.samples:
            return None
        util = [u for u, _ in self.samples]
        return {"samples": len(util), "mean_util_pct": statistics.mean(util),
                "busy_fraction": sum(u > 0 for u in util) / len(util),
                "max_memory_mib": max(m for _, m in self.samples)}


def pipeline(args, torch, results, work):
    """The model stages (execute, judge, summary and report) over the kit's MT4MRC cases."""
    device = "cuda:0" if args.device == "cuda" else "cpu"
    made = json.loads((KIT / "data" / "cases" / "cases.json").read_text())
    if args.quick:
        model = KIT / "fixtures" / "encoders" / "bert-sequence"
        label_map = 'label_map = { negative = "no", neutral = "no", positive = "yes" }'
        dtype, max_length = "f32", 128
    elif torch is None:
        results["pipeline"] = {"skipped": "PyTorch is not installed (it writes the BERT-base model)"}
        return
    else:
        model = write_bert_base(torch, work / "bert-base-random", layers=12)
        label_map = ""
        dtype, max_length = "bf16", 256
    out_dir = work / "pipeline-out"
    config = work / "pipeline.toml"
    config.write_text(f"""
[[execute.models]]
name = "bert-base-random"
kind = "sequence-classification"
model = "{model}"
device = "{device}"
dtype = "{dtype}"
max_length = {max_length}
batch_size = 256
tasks = ["boolq"]
{label_map}
""")
    with GpuSampler() as sampler:
        started = time.perf_counter()
        out = json_lines(run_kit(["cases", "--config", str(config), "--input",
                                  str(KIT / "data" / "cases" / "*.parquet"), "--output", str(out_dir)]))
        seconds = time.perf_counter() - started
    summary = json.loads(Path(out[-1]["summary"]).read_text())
    cases = count_cases(summary)
    results["pipeline"] = {"sources": made["sources"], "copies": made["copies"], "cases": cases,
                           "seconds": seconds, "execute_seconds": out[-1]["execute_seconds"],
                           "cases_per_s": cases / seconds, "dtype": dtype, "device": device,
                           "gpu": sampler.summary(),
                           "perturbed_on": {"cores": made["cores"], "seconds": made["seconds"],
                                            "cases_per_s": made["cases"] / made["seconds"]}}
    log(f"pipeline: {cases} cases in {seconds:.1f} s")


def count_cases(summary):
    """Total cases over the summary's relations (whatever nesting the summary uses)."""
    total = 0
    for relation in summary.get("relations", []):
        total += int(relation.get("cases", 0))
    return total


# ---------------------------------------------------------------- language model under test


def lm_peer(prompts, yes, no, gguf, device):
    """llama.cpp (llama-cpp-python, all layers on the GPU) on the same prompt ids, each from an
    empty cache, p(yes) from the two label logits; None when llama-cpp-python is missing."""
    try:
        import numpy as np
        from llama_cpp import Llama
    except ImportError:
        return None
    llm = Llama(model_path=str(gguf), n_ctx=max(512, max(len(p) for p in prompts) + 8), n_batch=512,
                n_gpu_layers=-1 if device == "cuda" else 0, logits_all=False, verbose=False)

    def run(batch):
        out = []
        for p in batch:
            llm.reset()
            llm.eval(p)
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
            y, n = float(logits[yes]), float(logits[no])
            m = max(y, n)
            out.append(math.exp(y - m) / (math.exp(y - m) + math.exp(n - m)))
        return out

    run(prompts[:8])
    started = time.perf_counter()
    p_yes = run(prompts)
    return {"impl": "llama.cpp", "examples_per_s": len(prompts) / (time.perf_counter() - started), "p_yes": p_yes}


def bench_lm(args, torch, results, work):
    """BoolQ questions/s of the causal-lm model under test: the kit's binary on the device, and
    llama.cpp on the same GGUF and prompt ids when llama-cpp-python is installed."""
    if args.quick:
        gguf, n = KIT / "fixtures" / "causal-lm" / "llama-tiny.gguf", 16
    else:
        found = sorted((KIT / "lm").glob("*.gguf")) if (KIT / "lm").is_dir() else []
        if args.gguf:
            found = [Path(args.gguf)]
        if not found:
            results["lm"] = {"skipped": "no GGUF: put one in the kit's lm/ folder or pass --gguf"}
            return
        gguf, n = found[0], args.lm_questions
    device = "cuda:0" if args.device == "cuda" else "cpu"
    rows = []
    for weights in ["f32", "quantized"]:
        out = json_lines(run_kit(["bench-lm-yes-no", "--gguf", str(gguf), "--questions",
                                  str(KIT / "data" / "boolq.jsonl"), "--n", str(n), "--device", device,
                                  "--weights", weights]))[-1]
        rows.append({"impl": "metamorph", "weights": weights, "examples_per_s": out["examples_per_s"]})
        log(f"lm: metamorph {weights}: {out['examples_per_s']:.2f} questions/s")
    single = len(out["yes"]) == 1 and len(out["no"]) == 1
    peer = lm_peer(out["prompts"], out["yes"][0], out["no"][0], gguf, args.device) if single else None
    if peer is not None:
        agree = sum((a >= 0.5) == (b >= 0.5) for a, b in zip(peer["p_yes"], out["p_yes"]))
        rows.append({"impl": "llama.cpp", "weights": "file", "examples_per_s": peer["examples_per_s"],
                     "same_answer": f"{agree}/{len(out['p_yes'])}"})
    results["lm"] = {"model": gguf.name, "questions": n, "device": device, "rows": rows,
                     "peer": "llama.cpp" if peer is not None else
                     ("none: llama-cpp-python is not installed" if single else "none: label words are not single tokens")}


# ---------------------------------------------------------------- report


def markdown(results):
    lines = [f"# metamorph GPU kit — {results['machine']['gpu'] or results['machine']['cpu']}", "",
             f"{results['date']}, device `{results['device']}`, torch {results['machine']['torch']}, "
             f"transformers {results['machine']['transformers']}", ""]
    parity = results.get("parity", {})
    if parity:
        lines += ["## Parity", "", "| dtype | against | models checked | all within tolerance | worst abs diff | not supported in this dtype |",
                  "|---|---|---|---|---|---|"]
        for dtype, s in parity.items():
            if "skipped" in s:
                lines.append(f"| {dtype} | — | — | skipped: {s['skipped']} | — | — |")
            else:
                checked = len(s["models"]) - len(s["unsupported"])
                lines.append(f"| {dtype} | {s['against']} | {checked} | {s['all_ok']} | {s['worst']:.2e} | "
                             f"{', '.join(s['unsupported']) or '—'} |")
        lines.append("")
        for dtype, s in parity.items():
            bad = [r for r in s.get("models", []) if "unsupported" not in r and not r["ok"]]
            for r in bad:
                if "error" in r:
                    lines.append(f"- {dtype} failed: {r['model']}: {r['error'][:300]}")
                else:
                    lines.append(f"- {dtype} out of tolerance: {r['model']} ({r['max_abs_diff']:.2e} > {r.get('limit', F32_TOLERANCE):.2e})")
        lines.append("")
    enc = results.get("encoder", {})
    if "rows" in enc:
        lines += [f"## Encoder ({enc['model']}, seq {enc['seq']}, {enc['gflop_per_sequence']:.1f} GFLOP/sequence)", "",
                  "| impl | dtype | batch | sequences/s | TFLOP/s | of bf16 roofline |", "|---|---|---|---|---|---|"]
        for r in enc["rows"]:
            roof = f"{100 * r['roofline']:.1f}%" if r.get("roofline") is not None else "—"
            lines.append(f"| {r['impl']} | {r['dtype']} | {r['batch']} | {r['sequences_per_s']:.1f} | {r['tflops']:.1f} | {roof} |")
        lines.append("")
    elif enc:
        lines += [f"## Encoder: skipped ({enc['skipped']})", ""]
    gen = results.get("generate", {})
    if "rows" in gen:
        lines += [f"## Generation ({gen['model']}, {gen['input_len']} input ids, {gen['new_tokens']} new tokens forced)", "",
                  "| impl | dtype | batch | beams | tokens/s |", "|---|---|---|---|---|"]
        for r in gen["rows"]:
            lines.append(f"| {r['impl']} | {r['dtype']} | {r['batch']} | {r['beams']} | {r['tokens_per_s']:.1f} |")
        lines.append("")
    elif gen:
        lines += [f"## Generation: skipped ({gen['skipped']})", ""]
    lm = results.get("lm", {})
    if "rows" in lm:
        lines += [f"## Language model under test ({lm['model']}, {lm['questions']} BoolQ questions, {lm['device']}; peer: {lm['peer']})", "",
                  "| impl | weights | questions/s | same answer |", "|---|---|---|---|"]
        for r in lm["rows"]:
            lines.append(f"| {r['impl']} | {r['weights']} | {r['examples_per_s']:.2f} | {r.get('same_answer', '—')} |")
        lines.append("")
    elif lm:
        lines += [f"## Language model under test: skipped ({lm['skipped']})", ""]
    pipe = results.get("pipeline", {})
    if "cases" in pipe:
        gpu = pipe["gpu"]
        util = f"{gpu['mean_util_pct']:.0f}% mean utilisation, busy {100 * gpu['busy_fraction']:.0f}% of samples" if gpu else "nvidia-smi not available"
        cpu = pipe["perturbed_on"]
        lines += ["## Pipeline (execute + judge)", "",
                  f"{pipe['sources']} BoolQ sources → {pipe['cases']} MT4MRC cases through execute and judge in "
                  f"{pipe['seconds']:.1f} s (execute {pipe['execute_seconds']:.1f} s): **{pipe['cases_per_s']:.0f} cases/s** "
                  f"({pipe['dtype']}, {pipe['device']}; {util}). Parse and perturb made them on "
                  f"{cpu['cores']} CPU cores at {cpu['cases_per_s']:.0f} cases/s.", ""]
    elif pipe:
        lines += [f"## Pipeline: skipped ({pipe['skipped']})", ""]
    return "\n".join(lines)


def machine(torch):
    gpu = None
    if shutil.which("nvidia-smi"):
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                           capture_output=True, text=True)
        gpu = q.stdout.strip() or None
    versions = {"torch": None, "transformers": None}
    if torch is not None:
        import transformers

        versions = {"torch": torch.__version__, "transformers": transformers.__version__}
    return {"gpu": gpu, "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
            "python": platform.python_version(), **versions}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--out", default=os.environ.get("OUT", str(KIT / "results")))
    parser.add_argument("--work", default=str(KIT / "work"),
                        help="models, inputs and pipeline outputs (several GB for the full run)")
    parser.add_argument("--quick", action="store_true", help="tiny models, few repetitions (tests)")
    parser.add_argument("--only", default="parity,encoder,generate,pipeline,lm")
    parser.add_argument("--gguf", help="the language model of the lm step (default: the kit's lm/*.gguf)")
    parser.add_argument("--lm-questions", type=int, default=1000, help="BoolQ questions of the lm step")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    torch = torch_or_none()
    if torch is None:
        log("PyTorch is not installed: the steps that compare with it are skipped")
    elif args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu-kit: --device cuda, but PyTorch sees no GPU")
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "device": args.device,
               "quick": args.quick, "machine": machine(torch)}
    steps = {"parity": lambda: parity(args, torch, results),
             "encoder": lambda: bench_encoder(args, torch, results, work),
             "generate": lambda: bench_generate(args, torch, results, work),
             "pipeline": lambda: pipeline(args, torch, results, work),
             "lm": lambda: bench_lm(args, torch, results, work)}
    failed = []
    for name in args.only.split(","):
        started = time.perf_counter()
        try:
            steps[name]()
        except Exception as e:  # one step's failure must not lose the others' results
            failed.append(name)
            results.setdefault("errors", {})[name] = f"{type(e).__name__}: {e}"
            log(f"{name} failed: {e}")
        log(f"{name}: {time.perf_counter() - started:.1f} s")
        (out / "results.json").write_text(json.dumps(results, indent=1))
        (out / "results.md").write_text(markdown(results))
    print(markdown(results))
    parity_ok = all(s.get("all_ok", True) for s in results.get("parity", {}).values())
    if failed or not parity_ok:
        sys.exit(f"gpu-kit: failed steps {failed}, parity {'ok' if parity_ok else 'FAILED'}")


if __name__ == "__main__":
    main()
