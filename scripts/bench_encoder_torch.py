#!/usr/bin/env python3
"""PyTorch side of the encoder throughput comparison (benches/benches/execute.rs is the Rust
side; benches/README.md records both).

Usage: python3 scripts/bench_encoder_torch.py [--threads N] [--seq 128,384] [--batch 1,8,32,64]
                                              [--attn eager,sdpa] [--reps R] [--min-seconds S]
                                              [--layers 12]

Not a fixture: it writes nothing and is not registered in `cargo xtask fixtures`.

The script bootstraps itself like scripts/minilm_golden.py: unless it already runs inside the
virtualenv `venv-torch` under the cargo target directory (`$CARGO_TARGET_DIR`, default
`target/`), it creates it, installs torch and transformers (pinned below) with pip's default
index and re-executes itself there.

Model: a BERT-base-shaped `BertModel` (hidden 768, 12 layers, 12 heads, intermediate 3072,
vocab 30522, GELU-erf) with random weights (`torch.manual_seed(0)`), float32, CPU, eval mode,
under `torch.inference_mode()`, `torch.set_num_threads(N)` (and interop threads 1). Inputs are
random token ids with a full attention mask and token type ids 0, the same shape the Rust bench
feeds. Each (attention implementation, sequence length, batch size) gets one warm-up forward and
then at least `--reps` timed forwards and at least `--min-seconds` seconds; the line printed is
the median time per forward.

Output: one JSON object per line, e.g.
`{"impl": "torch", "attn": "sdpa", "threads": 2, "seq": 128, "batch": 8, "seconds": 0.41,
"examples_per_s": 19.5, ...}`.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "venv-torch"
TORCH_VERSION = "2.15.0"
TRANSFORMERS_VERSION = "5.23.0"


def in_venv():
    return Path(sys.prefix).resolve() == VENV.resolve()


def bootstrap():
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import torch, transformers; "
            f"assert torch.__version__.split('+')[0] == '{TORCH_VERSION}'; "
            f"assert transformers.__version__ == '{TRANSFORMERS_VERSION}'",
        ],
        capture_output=True,
    )
    if probe.returncode != 0:
        subprocess.run(
            [
                str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                f"torch=={TORCH_VERSION}", f"transformers=={TRANSFORMERS_VERSION}",
            ],
            check=True,
        )
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def int_list(text):
    return [int(x) for x in text.split(",") if x]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--seq", type=int_list, default=[128, 384])
    parser.add_argument("--batch", type=int_list, default=[1, 8, 32, 64])
    parser.add_argument("--attn", default="eager,sdpa")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--min-seconds", type=float, default=2.0)
    parser.add_argument("--layers", type=int, default=12)
    args = parser.parse_args()
    if not in_venv():
        bootstrap()

    import torch
    import transformers

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)
    for attn in [a for a in args.attn.split(",") if a]:
        torch.manual_seed(0)
        config = transformers.BertConfig(
            vocab_size=30522,
            hidden_size=768,
            num_hidden_layers=args.layers,
            num_attention_heads=12,
            intermediate_size=3072,
            hidden_act="gelu",
            max_position_embeddings=512,
            type_vocab_size=2,
            attn_implementation=attn,
        )
        model = transformers.BertModel(config, add_pooling_layer=False).eval().float()
        generator = torch.Generator().manual_seed(1)
        for seq in args.seq:
            for batch in args.batch:
                ids = torch.randint(1000, 30000, (batch, seq), generator=generator)
                mask = torch.ones_like(ids)
                types = torch.zeros_like(ids)
                with torch.inference_mode():
                    model(input_ids=ids, attention_mask=mask, token_type_ids=types)
                    times = []
                    started = time.perf_counter()
                    while len(times) < args.reps or time.perf_counter() - started < args.min_seconds:
                        t0 = time.perf_counter()
                        model(input_ids=ids, attention_mask=mask, token_type_ids=types)
                        times.append(time.perf_counter() - t0)
                seconds = statistics.median(times)
                print(
                    json.dumps(
                        {
                            "impl": "torch",
                            "attn": attn,
                            "threads": args.threads,
                            "layers": args.layers,
                            "seq": seq,
                            "batch": batch,
                            "reps": len(times),
                            "seconds": round(seconds, 5),
                            "examples_per_s": round(batch / seconds, 3),
                            "torch": torch.__version__,
                            "transformers": transformers.__version__,
                            "machine": platform.processor() or platform.machine(),
                        }
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    main()
