"""Inputs of docs/validity/mr1-boolq-unread (issue 39, 2026-12-01): BoolQ's dev questions
outside the shared 1,000, as a BoolQ-format file.

BoolQ's dev split has 3,270 questions; `../shared/data/boolq/` holds its first 1,000, the
questions MT4MRC's rules were first written against. The other 2,270 no rule was written
against. They are taken from a public copy of the dev split that keeps every field (a BoolQ
project's `data/valid.csv` and `data/test.csv`, which split the dev set in two; columns
`question`, `title`, `answer`, `passage`), every question not in the shared file, title
prefixed to the passage as in SuperGLUE's BoolQ ("Title -- passage"):

    python3 make_inputs.py VALID_CSV TEST_CSV SHARED_BOOLQ_JSONL OUT.jsonl
then
    metamorph preview --dataset OUT.jsonl --format boolq --relations R \\
        --sample 100000 --seed 1 --validate --tsv R.tsv
"""
import csv
import json
import sys


def main(valid, test, shared, out):
    with open(shared, encoding="utf-8") as f:
        seen = {json.loads(line)["question"] for line in f}
    rows = []
    for path in (valid, test):
        with open(path, encoding="utf-8", newline="") as f:
            rows += list(csv.DictReader(f))
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        for row in rows:
            question = " ".join(row["question"].split())
            if question in seen:
                continue
            seen.add(question)
            passage = " ".join(row["passage"].split())
            title = row["title"].strip()
            f.write(json.dumps({"question": question,
                                "passage": f"{title} -- {passage}" if title else passage,
                                "label": row["answer"] == "True", "idx": n}) + "\n")
            n += 1
    print(f"{n} questions written to {out}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
