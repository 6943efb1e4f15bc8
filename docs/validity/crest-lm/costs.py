"""How well a causal LM's cost separates natural from unnatural CREST substitutions.

For each judged row of judged.tsv (source and follow-up windows differing in one word), the
cost is log p(original word + 5 words | 24 words before) - log p(replacement + 5 words | same),
in nats, as `perturb/src/lexicon/lm_choice.rs` computes it; the table gives, per cost limit,
how many rows it keeps and the share both readers judged natural.

    python costs.py judged.tsv MODEL.gguf      (needs llama-cpp-python and numpy)
"""
import csv
import math
import sys

import numpy as np
from llama_cpp import Llama


def main(judged, gguf):
    lm = Llama(model_path=gguf, logits_all=True, n_ctx=512, n_threads=2, verbose=False)

    def logp(ids):
        lm.reset()
        lm.eval(ids)
        out = []
        for i in range(1, len(ids)):
            row = np.array(lm.scores[i - 1], dtype=np.float64)
            top = row.max()
            out.append(row[ids[i]] - (top + math.log(np.exp(row - top).sum())))
        return out

    def cost(source, follow_up):
        a, b = source.split(" "), follow_up.split(" ")
        diff = [i for i in range(min(len(a), len(b))) if a[i] != b[i]]
        if len(a) != len(b) or len(diff) != 1:
            return None
        i = diff[0]
        prefix = " ".join(a[max(0, i - 24):i])
        pid = lm.tokenize(prefix.encode(), add_bos=True, special=False)

        def score(words):
            cid = lm.tokenize((" " + " ".join(words[i:i + 6])).encode(), add_bos=False, special=False)
            return sum(logp(pid + cid)[len(pid) - 1:])

        return score(a) - score(b)

    rows = []
    for r in csv.DictReader(open(judged), delimiter="\t", quoting=csv.QUOTE_NONE):
        window = lambda t: t.split(": ", 1)[1].strip("…")
        c = cost(window(r["source"]), window(r["follow_up"]))
        if c is not None:
            rows.append((c, r["natural_a"] == "yes" and r["natural_b"] == "yes"))
    print("| cost limit (nats) | rows kept | natural (both readers) |")
    print("|---|---|---|")
    for limit in [8, 6, 4, 3, 2, 1.5, 1, 0.5, 0]:
        kept = [n for c, n in rows if c <= limit]
        if kept:
            print(f"| {limit} | {len(kept)} of {len(rows)} | {100 * sum(kept) / len(kept):.0f}% |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
