#!/usr/bin/env python3
"""Time spaCy 3.8's en_core_web_sm on the parse benchmark corpus (the peer figure).

Usage: python3 scripts/bench_spacy.py --corpus FILE [--model DIR] [--batch-size N] [--repeat N]

FILE is JSON Lines of {"text": ...} as written by the `parse-vs-spacy` binary of the benches crate,
so both sides annotate the same texts. Runs in the virtualenv that scripts/spacy_golden.py sets up
(bootstrapped the same way), single-threaded: BLAS thread pools are pinned to one thread, and
`nlp.pipe` runs in one process. Prints one JSON object with tokens/s (best of --repeat runs after
a warm-up run over the first 200 texts).
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ.setdefault(var, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spacy_golden  # noqa: E402  (its venv bootstrap and model location)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--model", default=str(spacy_golden.default_model_dir()))
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not spacy_golden.in_venv():
        spacy_golden.bootstrap(__file__)
    import spacy

    texts = [json.loads(line)["text"] for line in open(args.corpus, encoding="utf-8")]
    nlp = spacy.load(args.model)
    list(nlp.pipe(texts[:200], batch_size=args.batch_size))
    best = None
    tokens = 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        tokens = sum(len(doc) for doc in nlp.pipe(texts, batch_size=args.batch_size))
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    print(json.dumps({
        "peer": f"spaCy {spacy.__version__} nlp.pipe (1 process, batch_size={args.batch_size})",
        "texts": len(texts),
        "tokens": tokens,
        "seconds": round(best, 3),
        "tokens_per_s": round(tokens / best, 1),
    }))


if __name__ == "__main__":
    main()
