#!/usr/bin/env python3
"""The peers' side of `lm-vs-peers` (benches/src/bin/lm_vs_peers.rs): scoring and generation
throughput of a GGUF causal LM in llama.cpp (`llama-cpp-python`) and in `transformers` (f32,
the GGUF dequantized as `from_pretrained(..., gguf_file=...)` does), on the token ids the Rust
side wrote, with the same thread count.

Usage: python3 scripts/lm_speed.py --model FILE.gguf --ids IDS.json --threads N
           [--impl llama.cpp,transformers] [--batch 1,32] [--new-tokens 32] [--reps 3]

IDS.json holds {"score": [[ids]...], "prompts": [[ids]...]}: the scoring rows (each scored
whole: log p of every token after the first) and the generation prompts. Output: one JSON line
per figure: {"impl", "task": "score"|"generate", "batch", "tokens_per_s"} where scoring counts
scored tokens and generation counts generated tokens (every row forced to --new-tokens tokens).

llama.cpp scores each row as one `eval` of all its tokens (logits of every position; the
high-level API evaluates one sequence at a time), and generates one prompt at a time (its
Python API has no batched generation), so its batch-32 generation figure is 32 sequential
runs. The script bootstraps itself into target/venv-torch as the other scripts do, adding
llama-cpp-python (built from source by pip, a few minutes once).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "target" / "venv-torch"
PINS = ["torch==2.15.0", "transformers==5.23.0", "gguf==0.19.0", "llama-cpp-python==0.3.36"]


def bootstrap():
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run(
        [str(python), "-c", "import torch, transformers, gguf, llama_cpp"], capture_output=True
    )
    if probe.returncode != 0:
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *PINS],
            check=True,
        )
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def timed(fn, reps):
    fn()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def llama_cpp_figures(args, ids):
    from llama_cpp import Llama

    longest = max(len(r) for r in ids["score"] + ids["prompts"]) + args.new_tokens + 8
    llm = Llama(
        model_path=args.model,
        n_ctx=max(512, longest),
        n_batch=512,
        n_threads=args.threads,
        n_threads_batch=args.threads,
        logits_all=True,
        verbose=False,
    )
    rows = ids["score"]

    def score():
        for r in rows:
            llm.reset()
            llm.eval(r)

    t = timed(score, args.reps)
    tokens = sum(len(r) - 1 for r in rows)
    yield {"impl": "llama.cpp", "task": "score", "batch": len(rows), "tokens_per_s": tokens / t}
    for batch in args.batch:
        prompts = ids["prompts"][:batch]

        def generate():
            for p in prompts:
                llm.reset()
                n = 0
                for _ in llm.generate(p, temp=0.0, top_k=1, reset=True):
                    n += 1
                    if n == args.new_tokens:
                        break

        t = timed(generate, args.reps)
        yield {
            "impl": "llama.cpp",
            "task": "generate",
            "batch": batch,
            "tokens_per_s": batch * args.new_tokens / t,
        }


def transformers_figures(args, ids):
    import torch
    from transformers import AutoModelForCausalLM

    torch.set_num_threads(args.threads)
    path = Path(args.model)
    model = AutoModelForCausalLM.from_pretrained(
        str(path.parent), gguf_file=path.name, dtype=torch.float32
    ).eval()
    rows = ids["score"]
    width = max(len(r) for r in rows)
    pad = 0
    input_ids = torch.tensor([r + [pad] * (width - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])

    def score():
        with torch.inference_mode():
            logits = model(input_ids=input_ids, attention_mask=mask).logits
            lp = torch.log_softmax(logits[:, :-1].float(), -1)
            lp.gather(-1, input_ids[:, 1:, None])

    t = timed(score, args.reps)
    tokens = sum(len(r) - 1 for r in rows)
    yield {"impl": "transformers", "task": "score", "batch": len(rows), "tokens_per_s": tokens / t}
    for batch in args.batch:
        prompts = ids["prompts"][:batch]
        width = max(len(p) for p in prompts)
        # Left padding, as generation of a batch needs.
        input_ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts])
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])

        def generate():
            with torch.inference_mode():
                model.generate(
                    input_ids=input_ids,
                    attention_mask=mask,
                    max_new_tokens=args.new_tokens,
                    min_new_tokens=args.new_tokens,
                    do_sample=False,
                    pad_token_id=pad,
                )

        t = timed(generate, args.reps)
        yield {
            "impl": "transformers",
            "task": "generate",
            "batch": batch,
            "tokens_per_s": batch * args.new_tokens / t,
        }


def main():
    bootstrap()
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--ids", required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--impl", default="llama.cpp,transformers")
    parser.add_argument("--batch", default="1,32")
    parser.add_argument("--new-tokens", type=int, default=32)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    args.batch = [int(b) for b in args.batch.split(",")]
    ids = json.loads(Path(args.ids).read_text())
    for impl in args.impl.split(","):
        figures = {"llama.cpp": llama_cpp_figures, "transformers": transformers_figures}[impl]
        for line in figures(args, ids):
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
