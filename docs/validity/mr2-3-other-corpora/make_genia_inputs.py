"""Inputs of MR2-3's reading of research prose no rule was written against (2026-12-01): the
GENIA treebank's MEDLINE abstracts (titles and sentences of biomedical research abstracts), as
the SciBERT repository ships their development and test parts in CoNLL-U
(`data/parsing/genia/{dev,test}.txt`). PubMedQA's abstracts, read before, led to rules; these
are other abstracts, by other authors, on molecular biology rather than clinical research.

Every sentence that ends with a full stop and has at least six tokens (titles mostly lack the
stop) becomes the passage of one BoolQ-format record (tokens joined by spaces, as FewRel's
sentences are), under a placeholder question (MR2-3 edits only the passage; readers judge
whether the rewritten sentence states what the source sentence states).

    python3 make_genia_inputs.py GENIA_DEV_CONLLU GENIA_TEST_CONLLU OUT_JSONL
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv genia.tsv
"""
import json
import sys


def sentences(path):
    tokens = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if tokens:
                    yield tokens
                tokens = []
            elif not line.startswith("#"):
                tokens.append(line.split("\t")[1])
    if tokens:
        yield tokens


def main(*args):
    *inputs, out = args
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        for path in inputs:
            for tokens in sentences(path):
                if len(tokens) < 6 or tokens[-1] != ".":
                    continue
                f.write(json.dumps({"question": "is this about a person", "passage": " ".join(tokens),
                                    "label": True, "idx": n}) + "\n")
                n += 1
    print(n, "sentences ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
