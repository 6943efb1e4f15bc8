"""Inputs of MR2-3's reading of IMDb movie reviews (2026-12-01, reading 30): the sentences of
the original reviews of the IMDb contrast set (Gardner et al., 2020: `IMDb/data/dev_original.tsv`
and `test_original.tsv`, 589 reviews of Maas et al.'s corpus), split at sentence-final
punctuation before a capital, line breaks (`<br />`) removed, in file order, each once. No
MR2-3 rule was written against movie reviews; they were read under the session's final code.

Each sentence becomes the passage of one BoolQ-format record, under a placeholder question
(MR2-3 edits only the passage; readers judge whether the rewritten sentence states what the
source sentence states).

    python3 make_imdb_inputs.py OUT_JSONL DEV_ORIGINAL_TSV TEST_ORIGINAL_TSV
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv imdb.tsv
"""
import csv
import json
import re
import sys


def main(out, *paths):
    n = 0
    seen = set()
    with open(out, "w", encoding="utf-8") as w:
        for path in paths:
            with open(path, encoding="utf-8", newline="") as f:
                for row in csv.DictReader(f, delimiter="\t"):
                    text = " ".join(re.sub(r"<br\s*/?>", " ", row["Text"]).split())
                    for sentence in re.split(r'(?<=[.!?])\s+(?=["A-Z])', text):
                        if len(sentence.split()) < 4 or sentence in seen:
                            continue
                        seen.add(sentence)
                        w.write(json.dumps({"question": "is this about a person",
                                            "passage": sentence, "label": True,
                                            "idx": n}) + "\n")
                        n += 1
    print(n, "sentences ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
