#!/usr/bin/env python3
"""llama.cpp's side of benches/src/bin/lm_under_test_vs_llama_cpp.rs: BoolQ yes/no answering
with the same GGUF, the same prompt ids and the same thread count.

Usage: target/venv-torch/bin/python scripts/lm_yes_no_speed.py IDS.json MODEL.gguf THREADS [RUNS]

IDS.json holds {"prompts": [[ids...], ...], "yes": id, "no": id}. Each prompt is evaluated from
an empty cache (`reset`, then `eval`), and p(yes) is read from the last position's logits of
the two label tokens, normalised over the two, as metamorph's causal-lm model under test does.
Prints one JSON line: examples per second (median of RUNS runs, default 3, after a warm-up on
the first 8 prompts) and the p(yes).
"""
import json
import math
import statistics
import sys
import time


def main():
    import numpy as np
    from llama_cpp import Llama

    ids = json.load(open(sys.argv[1]))
    threads = int(sys.argv[3])
    prompts = ids["prompts"]
    llm = Llama(
        model_path=sys.argv[2],
        n_ctx=max(512, max(len(p) for p in prompts) + 8),
        n_batch=512,
        n_threads=threads,
        n_threads_batch=threads,
        logits_all=False,
        verbose=False,
    )

    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3

    def run(prompts):
        out = []
        for p in prompts:
            llm.reset()
            llm.eval(p)
            # The last evaluated position's logits (only that row is computed).
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
            y, n = float(logits[ids["yes"]]), float(logits[ids["no"]])
            m = max(y, n)
            out.append(math.exp(y - m) / (math.exp(y - m) + math.exp(n - m)))
        return out

    run(prompts[:8])  # warm-up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        p_yes = run(prompts)
        times.append(time.perf_counter() - start)
    t = statistics.median(times)
    print(json.dumps({"impl": "llama.cpp", "examples_per_s": len(prompts) / t, "p_yes": p_yes}))


if __name__ == "__main__":
    main()
