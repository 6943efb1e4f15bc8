"""Inputs of MR2-3's held-out reading of research prose (2026-12-01): the BioCreative V CDR
corpus's PubMed abstracts (chemicals, diseases and their interactions; clinical and
toxicological research), as the SciBERT repository ships its test part one token per line
(`data/ner/bc5cdr/test.txt`). No MR2-3 rule was written against them before their reading:
the rules of 2026-12-01 came from GENIA's molecular-biology abstracts and, before, PubMedQA's.
The same script reads the NCBI disease corpus's test abstracts in the same form
(`data/ner/NCBI-disease/test.txt`), read after the rules BC5CDR's reading led to.

Every sentence that ends with a full stop and has at least six tokens (titles mostly lack the
stop) becomes the passage of one BoolQ-format record (tokens joined by spaces), under a
placeholder question (MR2-3 edits only the passage).

    python3 make_bc5cdr_inputs.py BC5CDR_TEST_TXT OUT_JSONL
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv bc5cdr.tsv
"""
import json
import sys


def sentences(path):
    tokens = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("-DOCSTART-") or not line.strip():
                if tokens:
                    yield tokens
                tokens = []
            else:
                tokens.append(line.split("\t")[0])
    if tokens:
        yield tokens


def main(path, out):
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        for tokens in sentences(path):
            if len(tokens) < 6 or tokens[-1] != ".":
                continue
            f.write(json.dumps({"question": "is this about a person", "passage": " ".join(tokens),
                                "label": True, "idx": n}) + "\n")
            n += 1
    print(n, "sentences ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
