"""Inputs of MR2-3's reading of computer-science abstracts (2026-12-01): the sentences of
SciERC (Luan et al. 2018), abstracts of AI conference papers, as the SciBERT repository ships
its NER parts (`data/ner/sciie/{train,dev,test}.txt`, one token per line,
documents separated by `-DOCSTART-`). No MR2-3 rule was written against them: the research
prose read before was biomedical.

Each document (abstract) becomes the passage of one BoolQ-format record (tokens detokenized)
under a placeholder question (MR2-3 edits only the passage; readers judge whether the
rewritten sentence states what the source sentence states).

    python3 make_scierc_inputs.py SCIIE_TRAIN_TXT SCIIE_DEV_TXT SCIIE_TEST_TXT OUT_JSONL
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv scierc.tsv
"""
import json
import re
import sys


def detokenize(tokens):
    text = " ".join(tokens).replace("-LRB-", "(").replace("-RRB-", ")")
    text = text.replace("``", '"').replace("''", '"')
    text = re.sub(r" ([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r"([(\[]) ", r"\1", text)
    text = re.sub(r" (n't|'s|'ll|'re|'ve|'d|'m)\b", r"\1", text)
    return re.sub(r'" (.*?) "', r'"\1"', text)


def documents(path):
    sentences, tokens = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("-DOCSTART-"):
                if sentences:
                    yield sentences
                sentences = []
            elif not line.strip():
                if tokens:
                    sentences.append(detokenize(tokens))
                tokens = []
            else:
                tokens.append(line.split(" ")[0])
    if tokens:
        sentences.append(detokenize(tokens))
    if sentences:
        yield sentences


def main(*args):
    *inputs, out = args
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        for path in inputs:
            for sentences in documents(path):
                f.write(json.dumps({"question": "is this about a person",
                                    "passage": " ".join(sentences), "label": True,
                                    "idx": n}) + "\n")
                n += 1
    print(n, "abstracts ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
