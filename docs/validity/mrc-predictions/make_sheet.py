"""Draws the blind reading's rows from `metamorph preview --tsv` outputs of NLPLego-MRC.

For each drawn case the sheet shows the whole changed sentence before and after (the preview's
window cut wider), and the reference gives the question, the gold answers and the whole source
paragraph, so that a reader can judge both natural and valid.

python3 make_sheet.py [--exclude READ.tsv]... SEED N OUT.tsv KEY.tsv (LABEL PREVIEW.tsv DATASET.json ARTICLE)...
  draws N passing cases per (LABEL, PREVIEW) from those whose question is in ARTICLE (a
  SQuAD title; "-" for all), shuffles all rows together, writes the sheet to OUT and
  the case -> label key to KEY. With --exclude, no case and no rewrite an earlier reading's
  rows (READ.tsv) hold is drawn again.
"""

import csv
import json
import random
import re
import sys
from pathlib import Path

csv.field_size_limit(10**9)


def sentences(text):
    """Sentence spans: a split after . ! ? followed by a space and a capital or quote."""
    spans, start = [], 0
    for m in re.finditer(r'(?<=[.!?])["\')\]]*\s+(?=["\'(\[]?[A-Z0-9])', text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return spans


def window(field):
    text = field.split(": ", 1)[1]
    return text.strip("…")


def main():
    args = sys.argv[1:]
    excluded = set()
    while args[0] == "--exclude":
        # Rows an earlier reading showed: neither their cases nor their rewrites again.
        for r in csv.DictReader(open(args[1]), delimiter="\t"):
            excluded.add(r["case_id"])
            excluded.add((r["source"], r["follow_up"]))
        args = args[2:]
    seed, n, out, key = int(args[0]), int(args[1]), args[2], args[3]
    groups, rest = [], args[4:]
    while rest:
        label, preview, dataset, article = rest[:4]
        rest = rest[4:]
        groups.append((label, preview, dataset, None if article == "-" else article))
    rng = random.Random(seed)
    boolq_path = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "boolq" / "superglue_boolq_val_first1000.jsonl"
    boolq = [json.loads(line) for line in boolq_path.open()] if boolq_path.exists() else []
    rows = []
    for label, preview, dataset, article in groups:
        doc = json.load(open(dataset))
        by_id = {}
        for a in doc["data"]:
            if article and a["title"] != article:
                continue
            for p in a["paragraphs"]:
                for q in p["qas"]:
                    by_id[q["id"]] = (p["context"], q)
        cases = [
            r
            for r in csv.DictReader(open(preview), delimiter="\t")
            if r["passed"] == "true" and r["case_id"].split(":")[0] in by_id
        ]
        # Without exclusions, the first reading's draw exactly; with them, a whole shuffle.
        drawn = rng.sample(cases, len(cases) if excluded else min(n, len(cases)))
        taken = 0
        for r in drawn:
            if taken == n:
                break
            context, q = by_id[r["case_id"].split(":")[0]]
            before, after = window(r["source"]), window(r["follow_up"])
            assert before in context, r["case_id"]
            followup = context.replace(before, after, 1)
            old = [context[a:b] for a, b in sentences(context)]
            new = [followup[a:b] for a, b in sentences(followup)]
            changed = [(o, f) for o, f in zip(old, new) if o != f]
            assert len(old) == len(new) and changed, r["case_id"]
            source_text = "context: " + " … ".join(o for o, _ in changed)
            followup_text = "context: " + " … ".join(f for _, f in changed)
            if r["case_id"] in excluded or (source_text, followup_text) in excluded:
                continue
            answers = " / ".join(sorted({a["text"] for a in q.get("answers", [])}))
            if q["id"].startswith("boolq-"):
                answers = "a yes/no question; BoolQ's answer: " + ("yes" if boolq[int(q["id"][6:])]["label"] else "no")
            elif not answers:
                answers = "none: the paragraph does not answer the question (SQuAD 2.0 unanswerable)"
            rows.append(
                {
                    "case_id": r["case_id"],
                    "relation": "NLPLego-MRC",
                    "source": source_text,
                    "follow_up": followup_text,
                    "reference": f"question: {q['question']} ‖ gold answers: {answers} ‖ whole source paragraph: {context}",
                    "label": label,
                }
            )
            taken += 1
    rng.shuffle(rows)
    fields = ["case_id", "relation", "source", "follow_up", "reference"]
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fields, delimiter="\t", extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    with open(key, "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["case_id", "label"])
        for r in rows:
            w.writerow([r["case_id"], r["label"]])


if __name__ == "__main__":
    main()
