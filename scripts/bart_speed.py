#!/usr/bin/env python3
"""The `transformers` side of the BART generation speed comparison.

Usage (normally run by the Rust side, which writes the checkpoint and the ids first):

    python3 scripts/bart_speed.py --model DIR --ids IDS.json [--threads 2]
        [--batch 1,2,4,8,16,32] [--beams 1,4] [--new-tokens 32] [--reps 3] [--min-seconds 2]

    RAYON_NUM_THREADS=2 cargo run --release -p metamorph-benches --bin generate-vs-torch

Bootstraps `target/venv-torch` like scripts/bart_fixtures.py. `DIR` is the random
bart-base-shaped checkpoint that `metamorph_benches::bart` writes (the same weights the Rust side
loads); `IDS.json` a list of input token-id lists. For every beam count and batch size it runs one
short warm-up `generate()`, then times `generate()` with every output forced to `--new-tokens`
tokens, at least `--reps` times and `--min-seconds` seconds, and prints one JSON line with the
median time and generated tokens (returned sequences × new tokens) per second.
"""

import argparse
import json
import statistics
import time

import bart_fixtures as common


def numbers(text):
    return [int(x) for x in text.split(",") if x]


def main():
    if not common.has_pinned_versions():
        common.bootstrap(__file__)
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--ids", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=numbers, default=[1, 2, 4, 8, 16, 32])
    parser.add_argument("--beams", type=numbers, default=[1, 4])
    parser.add_argument("--new-tokens", type=int, default=32)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--min-seconds", type=float, default=2.0)
    args = parser.parse_args()

    import torch
    from transformers import BartForConditionalGeneration

    torch.set_num_threads(args.threads)
    ids = json.loads(open(args.ids).read())
    model = BartForConditionalGeneration.from_pretrained(args.model).eval()
    for beams in args.beams:
        for batch in args.batch:
            inputs = torch.tensor(ids[:batch])
            with torch.no_grad():
                model.generate(input_ids=inputs, num_beams=beams, max_new_tokens=2)  # warm-up
                times = []
                started = time.perf_counter()
                while len(times) < args.reps or time.perf_counter() - started < args.min_seconds:
                    t0 = time.perf_counter()
                    out = model.generate(input_ids=inputs, num_beams=beams, do_sample=False,
                                         max_new_tokens=args.new_tokens,
                                         min_new_tokens=args.new_tokens)
                    times.append(time.perf_counter() - t0)
                    assert out.shape == (batch, args.new_tokens + 1), out.shape
            seconds = statistics.median(times)
            print(json.dumps({
                "impl": "torch", "threads": args.threads, "batch": batch, "beams": beams,
                "new_tokens": args.new_tokens, "reps": len(times), "seconds": round(seconds, 4),
                "tokens_per_s": round(batch * args.new_tokens / seconds, 2),
            }), flush=True)


if __name__ == "__main__":
    main()
