"""Inputs of MR2-3's reading of CoNLL04's sentences (2026-12-01, reading 30): every sentence of
CoNLL04 (news of TREC's AP and WSJ collections, annotated for entities and relations; Roth and
Yih, 2004) in the token-per-line files of its multi-head selection release (`#doc N` opens a
sentence; the second column is the token), in the order of the files given. No MR2-3 rule was
written against CoNLL04; it was read under the session's final code.

Each sentence becomes the passage of one BoolQ-format record (tokens detokenized), under a
placeholder question (MR2-3 edits only the passage; readers judge whether the rewritten
sentence states what the source sentence states).

    python3 make_conll04_inputs.py OUT_JSONL TRAIN_TXT DEV_TXT TEST_TXT
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv conll04.tsv
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


def sentences(path):
    tokens = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#doc"):
                if tokens:
                    yield tokens
                tokens = []
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 2 and fields[0].isdigit():
                tokens.append(fields[1])
    if tokens:
        yield tokens


def main(out, *paths):
    n = 0
    seen = set()
    with open(out, "w", encoding="utf-8") as w:
        for path in paths:
            for tokens in sentences(path):
                sentence = detokenize(tokens)
                if sentence in seen:
                    continue
                seen.add(sentence)
                w.write(json.dumps({"question": "is this about a person", "passage": sentence,
                                    "label": True, "idx": n}) + "\n")
                n += 1
    print(n, "sentences ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
