"""Inputs of MR2-3's reading of Wikipedia prose no rule was written against (2026-12-01): the
documents of Re-DocRED (Tan et al. 2022; `data/dev_revised.json` and `data/test_revised.json`
of its public repository), the lead paragraphs of Wikipedia articles that DocRED annotated
for relations. No MR2-3 rule was written against them: BoolQ's Wikipedia passages, read
before, led to rules; these are other articles.

Each document becomes the passage of one BoolQ-format record ("Title -- text", as BoolQ writes
its passages; tokens detokenized), under a placeholder question (MR2-3 edits only the passage;
readers judge whether the rewritten sentence states what the source sentence states).

    python3 make_docred_inputs.py DEV_REVISED_JSON TEST_REVISED_JSON OUT_JSONL
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv docred.tsv
"""
import json
import re
import sys


def detokenize(tokens):
    text = " ".join(tokens).replace("``", '"').replace("''", '"')
    text = re.sub(r" ([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r"([(\[$]) ", r"\1", text)
    text = re.sub(r" (n't|'s|'ll|'re|'ve|'d|'m)\b", r"\1", text)
    text = re.sub(r" - ", "-", text)
    return re.sub(r'" (.*?) "', r'"\1"', text)


def main(*args):
    *inputs, out = args
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        for path in inputs:
            with open(path, encoding="utf-8") as g:
                documents = json.load(g)
            for document in documents:
                text = " ".join(detokenize(sentence) for sentence in document["sents"])
                f.write(json.dumps({"question": "is this about a person",
                                    "passage": f"{document['title']} -- {text}",
                                    "label": True, "idx": n}) + "\n")
                n += 1
    print(n, "documents ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
