"""Inputs of MR2-3's reading of FewRel's Wikipedia sentences (2026-12-01, reading 25): the
sentences of FewRel 1.0's `val_wiki.json` (16 relations × 700, from Wikipedia) that are not in
the shared sample (`../shared/data/fewrel/`, its first 62 per relation), in file order. No
MR2-3 rule was written against FewRel; it was read after the rules of reading 24 (GAP, HotpotQA
and SQuAD paragraphs).

Each sentence becomes the passage of one BoolQ-format record (tokens detokenized), under a
placeholder question (MR2-3 edits only the passage; readers judge whether the rewritten
sentence states what the source sentence states).

Any file of FewRel's format works the same way: reading 26 (2026-12-01) took the cases of
`val_wiki.json` that reading 25 had not drawn, with those of `val_nyt.json` (2,500 New York
Times sentences, none in the shared sample).

    python3 make_fewrel_inputs.py SHARED_DATA_DIR VAL_WIKI_JSON OUT_JSONL
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv fewrel.tsv
"""
import json
import os
import re
import sys


def detokenize(tokens):
    text = " ".join(tokens).replace("``", '"').replace("''", '"')
    text = re.sub(r" ([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r"([(\[$]) ", r"\1", text)
    text = re.sub(r" (n't|'s|'ll|'re|'ve|'d|'m)\b", r"\1", text)
    text = re.sub(r" - ", "-", text)
    return re.sub(r'" (.*?) "', r'"\1"', text)


def main(shared, val_wiki, out):
    with open(os.path.join(shared, "fewrel", "fewrel_val_wiki_first62_per_relation.json"),
              encoding="utf-8") as f:
        read = {" ".join(x["tokens"]) for xs in json.load(f).values() for x in xs}
    with open(val_wiki, encoding="utf-8") as f:
        relations = json.load(f)
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        for instances in relations.values():
            for instance in instances:
                if " ".join(instance["tokens"]) in read:
                    continue
                f.write(json.dumps({"question": "is this about a person",
                                    "passage": detokenize(instance["tokens"]),
                                    "label": True, "idx": n}) + "\n")
                n += 1
    print(n, "sentences ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
