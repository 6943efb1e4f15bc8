#!/usr/bin/env python3
"""The validity step measured on the follow-ups fresh readers judged in the review rounds.

Usage: scripts/validity_on_reviews.py PREVIEW_TSV... [--reviews DIR] [--out FILE]

Each PREVIEW_TSV is what `metamorph preview --validate --sample N --tsv FILE` wrote at
the commit being measured, over every case of a shared sample (N larger than any relation's
case count). The judged rows are the review rounds' files (`docs/validity/second-review/*.tsv`
and `docs/validity/*.tsv`): a judged row counts when the commit still emits it, that is when
a preview row has the same case id, source and follow-up text. A case judged in several rounds
keeps its latest judgement (by the round's seed). An item is bad when it is not natural or not
valid. None of these rows chose a threshold: the built-in thresholds were tuned on half of
`docs/validity/calibration/labelled.tsv`.

Prints, per relation and overall: judged rows still emitted, bad ones, bad ones the step
rejects (recall), good ones it keeps; and per check, the bad and good rows it fails.
"""
import argparse
import collections
import csv
import glob
import os
import re
import sys

csv.field_size_limit(sys.maxsize)


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def seed_of(path):
    m = re.search(r"seed(\d+)", os.path.basename(path))
    return int(m.group(1)) if m else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("previews", nargs="+")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--reviews", default=os.path.join(root, "docs", "validity"))
    ap.add_argument("--out")
    args = ap.parse_args()

    scored = {}
    for path in args.previews:
        for row in read_tsv(path):
            scored[(row["case_id"], row["source"], row["follow_up"])] = row

    files = sorted(
        glob.glob(os.path.join(args.reviews, "second-review", "*.tsv"))
        + glob.glob(os.path.join(args.reviews, "*.tsv")),
        key=seed_of,
    )
    judged = {}
    for path in files:
        for row in read_tsv(path):
            if row.get("natural") not in ("yes", "no") or row.get("valid") not in ("yes", "no"):
                continue
            key = (row["case_id"], row["source"], row["follow_up"])
            judged[key] = row  # later seeds overwrite earlier ones

    per = collections.defaultdict(collections.Counter)
    checks = collections.defaultdict(collections.Counter)
    lines = []
    for key, row in judged.items():
        s = scored.get(key)
        if s is None:
            continue
        rel = s["relation"]
        bad = row["natural"] == "no" or row["valid"] == "no"
        rejected = s["passed"] == "false"
        c = per[rel]
        c["rows"] += 1
        c["bad"] += bad
        c["bad rejected"] += bad and rejected
        c["good"] += not bad
        c["good kept"] += (not bad) and not rejected
        for reason in filter(None, s.get("reasons", "").split("; ")):
            check = reason.split(":", 1)[0]
            checks[check]["bad" if bad else "good"] += 1
        if rejected:
            lines.append(f"{'BAD ' if bad else 'good'}\t{rel}\t{row['case_id']}\t{s['reasons']}")

    total = collections.Counter()
    out = ["| relation | judged rows still emitted | bad | bad rejected | good kept |", "|---|---|---|---|---|"]
    for rel in sorted(per):
        c = per[rel]
        total.update(c)
        out.append(
            f"| {rel} | {c['rows']} | {c['bad']} | {c['bad rejected']} | {c['good kept']} of {c['good']} |"
        )
    pct = lambda a, b: f"{100 * a / b:.0f}%" if b else "–"
    out.append(
        f"| **all** | {total['rows']} | {total['bad']} | {total['bad rejected']} ({pct(total['bad rejected'], total['bad'])}) "
        f"| {total['good kept']} of {total['good']} ({pct(total['good kept'], total['good'])}) |"
    )
    out.append("")
    out.append("| check | bad rows it fails | good rows it fails |")
    out.append("|---|---|---|")
    for check in sorted(checks):
        out.append(f"| {check} | {checks[check]['bad']} | {checks[check]['good']} |")
    text = "\n".join(out) + "\n"
    print(text)
    print("\n".join(sorted(lines)))
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
