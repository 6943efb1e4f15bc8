"""Does a causal LM see an NLPLego parent cut short by how unlikely its sentence is to end?

A parent NLPLego cut short ("it stops me.", "It is a location.", "Yogyakarta and Jakarta is
situated on the road .") ends where a reader expects more. This script measures one cost per
text: over its sentences, the largest -log P(terminal punctuation | the sentence's words before
it), in nats. It reads every NLPLego-SA and NLPLego-SSM row that fresh readers judged under
docs/validity/ (natural yes/no and the reader's reason), computes the cost of the parent (the
row's `source`) and of the child (`follow_up`), and reports:

* ROC AUC of the cost for the rows judged not natural against the natural ones, and for the
  rows whose reason says the parent is cut short (truncated, incomplete, vacuous, …);
* a limit chosen on a tuning half (rows by a hash of their text, keeping 95% of its natural
  rows) and what it rejects on the other half.

    python ending_costs.py MODEL.gguf [--attached]   (needs llama-cpp-python and numpy)

With `--attached` the punctuation is read attached to the sentence's last word (" ." becomes
"."), as the validity step's `lm_ending` reads it; without it, as the text writes it.
"""
import collections
import csv
import glob
import hashlib
import math
import os
import re
import sys

import numpy as np
from llama_cpp import Llama

HERE = os.path.dirname(os.path.abspath(__file__))
CUT = re.compile(r"truncat|cut short|cut off|incomplete|says nothing|vacuous|dangling|fragment|"
                 r"missing (its|the) (object|complement)|unfinished")


def judged_rows():
    rows = {}
    for path in glob.glob(os.path.join(HERE, "..", "**", "*.tsv"), recursive=True):
        with open(path) as f:
            for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
                case = r.get("case_id") or ""
                relation = r.get("relation") or (case.split(":")[1] if case.count(":") >= 2 else "")
                if relation not in ("NLPLego-SA", "NLPLego-SSM") or r.get("natural") not in ("yes", "no"):
                    continue
                if not r.get("source") or not r.get("follow_up"):
                    continue
                reason = (r.get("reason") or r.get("reader_reason") or "").lower()
                rows[(r["source"], r["follow_up"])] = (relation, r["natural"] == "no", bool(CUT.search(reason)))
    return rows


def texts(field):
    """The sentences of a row's field ("text: …", or two "‖"-separated "text_b: …" parts)."""
    return [p.strip().split(": ", 1)[-1] for p in field.split("‖")]


def main(gguf, attached=False):
    lm = Llama(model_path=gguf, logits_all=True, n_ctx=512, n_threads=2, verbose=False)
    cache = {}

    def ending_cost(text):
        if text in cache:
            return cache[text]
        worst = 0.0
        for m in re.finditer(r"[^.!?]*[.!?]+", text):
            body = text[:m.end()].rstrip()
            k = len(body)
            while k > 0 and body[k - 1] in ".!?":
                k -= 1
            prefix = body[:k].rstrip()
            if len(prefix.split()) < 2:
                continue
            if attached:
                body = prefix + body[k:]
            pid = lm.tokenize(prefix.encode(), add_bos=True, special=False)
            cid = lm.tokenize(body.encode(), add_bos=True, special=False)
            if cid[:len(pid)] != pid:
                continue
            lm.reset()
            lm.eval(cid)
            cost = 0.0
            for i in range(len(pid), len(cid)):
                row = np.array(lm.scores[i - 1], dtype=np.float64)
                top = row.max()
                cost -= row[cid[i]] - (top + math.log(np.exp(row - top).sum()))
            worst = max(worst, cost)
        cache[text] = worst
        return worst

    def auc(pos, neg):
        if not pos or not neg:
            return float("nan")
        return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))

    by_relation = collections.defaultdict(list)
    for (source, follow_up), (relation, bad, cut) in judged_rows().items():
        parent = max(ending_cost(t) for t in texts(source))
        child = max(ending_cost(t) for t in texts(follow_up))
        tuning = hashlib.sha256(source.encode()).digest()[0] % 2 == 0
        by_relation[relation].append((bad, cut, parent, child, tuning))

    print("| relation | rows (not natural; parent cut short) | AUC parent: not natural / cut short | "
          "AUC child: not natural / cut short | limit (tuning half, 95% natural kept) | held out: "
          "natural kept, not natural rejected, cut short rejected |")
    print("|---|---|---|---|---|---|")
    for relation, rows in sorted(by_relation.items()):
        good = [r for r in rows if not r[0]]
        bad = [r for r in rows if r[0]]
        cut = [r for r in rows if r[1]]
        tuning_good = sorted(r[2] for r in good if r[4])
        limit = tuning_good[int(0.95 * len(tuning_good))]
        held = [r for r in rows if not r[4]]
        kept = sum(r[2] <= limit for r in held if not r[0])
        rejected = sum(r[2] > limit for r in held if r[0])
        cut_rejected = sum(r[2] > limit for r in held if r[1])
        print(f"| {relation} | {len(rows)} ({len(bad)}; {len(cut)}) "
              f"| {auc([r[2] for r in bad], [r[2] for r in good]):.2f} / {auc([r[2] for r in cut], [r[2] for r in good]):.2f} "
              f"| {auc([r[3] for r in bad], [r[3] for r in good]):.2f} / {auc([r[3] for r in cut], [r[3] for r in good]):.2f} "
              f"| {limit:.2f} nats "
              f"| {kept}/{sum(not r[0] for r in held)}, {rejected}/{sum(r[0] for r in held)}, "
              f"{cut_rejected}/{sum(r[1] for r in held)} |")


if __name__ == "__main__":
    main(sys.argv[1], "--attached" in sys.argv[2:])
