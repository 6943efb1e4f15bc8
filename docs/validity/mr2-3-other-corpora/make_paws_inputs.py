"""Inputs of MR2-3's reading 27 (2026-12-01), under the final code: the first sentence of each
pair of the shared PAWS dev sample (`../shared/data/paraphrase/`; Wikipedia sentences, some of
them PAWS's word-swapped variants), detokenized, one sentence per BoolQ-format record under a
placeholder question. No MR2-3 rule was written against PAWS.

    python3 make_paws_inputs.py SHARED_DATA_DIR OUT_JSONL
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv paws.tsv
"""
import csv
import json
import os
import re
import sys


def detokenize(text):
    text = text.replace("``", '"').replace("''", '"')
    text = re.sub(r" ([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r"([(\[$]) ", r"\1", text)
    text = re.sub(r" (n't|'s|'ll|'re|'ve|'d|'m)\b", r"\1", text)
    text = re.sub(r" - ", "-", text)
    return re.sub(r'" (.*?) "', r'"\1"', text)


def main(shared, out):
    path = os.path.join(shared, "paraphrase", "paws_wiki_labeled_final_dev_first1000.tsv")
    seen = []
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            sentence = detokenize(row["sentence1"])
            if sentence not in seen:
                seen.append(sentence)
    with open(out, "w", encoding="utf-8") as f:
        for n, sentence in enumerate(seen):
            f.write(json.dumps({"question": "is this about a person", "passage": sentence,
                                "label": True, "idx": n}) + "\n")
    print(len(seen), "sentences ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
