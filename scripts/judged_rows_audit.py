"""Measure a rule both ways against every judged row (issue 39: "remove rules whose only effect
now is lost yield, measure both ways").

Give the follow-ups a relation makes without a rule and with it (`metamorph preview --relations
R --sample 100000 --tsv F` run with each build, on as many inputs as you like). The script
finds, among the rows blind readers have judged anywhere under docs/validity/ (any TSV with a
`follow_up` column and one or more `natural_*` columns), those the rule removes and those it
adds, and prints how many each reader pair found natural and valid. A rule whose removed
judged rows are mostly natural costs more than it saves.

    python3 scripts/judged_rows_audit.py --relation MR2-3 \\
        --before old-boolq.tsv old-wordnet.tsv --after new-boolq.tsv new-wordnet.tsv [--show]

Rows count as natural (valid) when every reader said yes; a row judged in several sheets
counts once (the last sheet read wins).
"""
import argparse
import csv
import glob
import os
import sys

csv.field_size_limit(sys.maxsize)


def follow_ups(paths):
    found = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            found |= {row["follow_up"] for row in csv.DictReader(f, delimiter="\t")}
    return found


def judged_rows(root, relation):
    rows = {}
    for path in sorted(glob.glob(os.path.join(root, "**", "*.tsv"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            reader = csv.DictReader(f, delimiter="\t")
            fields = reader.fieldnames or []
            natural = [k for k in fields if k.startswith("natural_")]
            valid = [k for k in fields if k.startswith("valid_")]
            if "follow_up" not in fields or not natural:
                continue
            for row in reader:
                if relation and row.get("relation") not in (None, relation):
                    continue
                rows[row["follow_up"]] = (
                    all(row[k] == "yes" for k in natural),
                    all(row[k] == "yes" for k in valid) if valid else None,
                    os.path.relpath(path, root),
                )
    return rows


def report(label, texts, judged, show):
    hits = [(t, judged[t]) for t in sorted(texts) if t in judged]
    natural = sum(1 for _, j in hits if j[0])
    valid = sum(1 for _, j in hits if j[1])
    print(f"{label}: {len(texts)} follow-ups, {len(hits)} judged: {natural} natural, {valid} valid")
    if show:
        for text, (nat, val, sheet) in hits:
            print(f"  natural={'yes' if nat else 'no'} valid={'yes' if val else 'no'} {sheet}: {text[:160]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--relation", help="only judged rows of this relation (e.g. MR2-3)")
    parser.add_argument("--before", nargs="+", required=True, help="preview TSVs without the rule")
    parser.add_argument("--after", nargs="+", required=True, help="preview TSVs with the rule")
    parser.add_argument("--judged", default=os.path.join(os.path.dirname(__file__), "..", "docs", "validity"),
                        help="folder of judged sheets (default: docs/validity)")
    parser.add_argument("--show", action="store_true", help="print each judged row removed or added")
    args = parser.parse_args()
    before, after = follow_ups(args.before), follow_ups(args.after)
    judged = judged_rows(args.judged, args.relation)
    print(f"{len(judged)} judged rows under {os.path.normpath(args.judged)}")
    report("removed by the rule", before - after, judged, args.show)
    report("added by the rule", after - before, judged, args.show)
    report("kept", before & after, judged, False)


if __name__ == "__main__":
    main()
