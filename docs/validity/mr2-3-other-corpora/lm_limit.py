"""The MR2-3 limit of the validity step's `lm` check (2026-12-02): how much less likely the
rewritten sentence may be than the source sentence, read by SmolLM2-135M.

Takes every MR2-3 row fresh readers judged in this folder (and the MR2-3 rows of
`../mr1-other-questions/read6-…` and `read8-…`) that the final code still emits and whose
rewrite changed exactly one sentence of the shown text, writes the pairs for
`continuation_scores`, then, given its scores, picks the limit that keeps 97% of the good
rows (natural and valid to both readers) of the tuning half (even rows) and reports the
held-out half (odd rows).

    python3 lm_limit.py pairs PAIRS_TSV META_TSV
    cargo run -p metamorph-models --example continuation_scores -- smollm2-135m \\
        < PAIRS_TSV > SCORES_TSV
    python3 lm_limit.py limit META_TSV SCORES_TSV [KEEP=0.97]

The scores equal the `lm` column of `metamorph preview --validate` for a passage of one
sentence (the changed sentence, read after the model's start token).
"""
import csv
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHEETS = sorted(glob.glob(os.path.join(HERE, "read*.tsv"))) + [
    os.path.join(HERE, "../mr1-other-questions/read6-csqa2-pubmedqa-heldout.tsv"),
    os.path.join(HERE, "../mr1-other-questions/read8-boolq-contrast.tsv"),
]


def sentences(text):
    return re.split(r'(?<=[.!?])\s+(?=[A-Z"(])', text)


def pairs(pairs_tsv, meta_tsv):
    n = 0
    with open(pairs_tsv, "w", encoding="utf-8") as out, open(meta_tsv, "w", encoding="utf-8") as meta:
        for sheet in SHEETS:
            with open(sheet, encoding="utf-8", newline="") as f:
                rows = list(csv.DictReader(f, delimiter="\t"))
            verdicts = [k for k in rows[0] if k.startswith(("natural_", "valid_"))]
            for row in rows:
                if row.get("relation", "MR2-3") != "MR2-3" or row.get("emitted_now", "true") != "true":
                    continue
                source, follow_up = (re.sub(r"^context: ", "", row[k]).strip("…")
                                     for k in ("source", "follow_up"))
                a, b = sentences(source), sentences(follow_up)
                changed = [(x, y) for x, y in zip(a, b) if x != y]
                if len(a) != len(b) or len(changed) != 1:
                    continue
                x, y = (t.strip("…") for t in changed[0])
                good = all(row[k] == "yes" for k in verdicts)
                natural = all(row[k] == "yes" for k in verdicts if k.startswith("natural_"))
                out.write(f"{n}s\t\t\t{x}\n{n}f\t\t\t{y}\n")
                meta.write(f"{n}\t{os.path.basename(sheet)}\t{int(good)}\t{int(natural)}\t{x}\t{y}\n")
                n += 1
    print(n, "rows", file=sys.stderr)


def limit(meta_tsv, scores_tsv, keep="0.97"):
    keep = float(keep)
    score = {}
    with open(scores_tsv, encoding="utf-8") as f:
        for line in f:
            key, lp, _ = line.rstrip("\n").split("\t")
            score[key] = float(lp)
    rows = []
    with open(meta_tsv, encoding="utf-8") as f:
        for line in f:
            key, _, good, natural, _, _ = line.rstrip("\n").split("\t")
            rows.append((int(key), good == "1", natural == "1", score[key + "f"] - score[key + "s"]))
    tuning = sorted(d for k, good, _, d in rows if k % 2 == 0 and good)
    cut = tuning[int(len(tuning) * (1 - keep))]
    held = [r for r in rows if r[0] % 2 == 1]
    kept = [r for r in held if r[3] >= cut]
    bad = [r for r in held if not r[1]]
    good = [r for r in held if r[1]]
    print(f"limit {cut:.2f} nats (keeps {keep:.0%} of the tuning half's {len(tuning)} good rows)")
    print(f"held-out half: {sum(r[3] < cut for r in bad)} of {len(bad)} bad rows rejected, "
          f"{sum(r[3] < cut for r in good)} of {len(good)} good")
    print(f"natural share {sum(r[2] for r in held) / len(held):.1%} -> "
          f"{sum(r[2] for r in kept) / len(kept):.1%}; natural and valid "
          f"{sum(r[1] for r in held) / len(held):.1%} -> {sum(r[1] for r in kept) / len(kept):.1%}")


if __name__ == "__main__":
    {"pairs": pairs, "limit": limit}[sys.argv[1]](*sys.argv[2:])
