"""Inputs for reading NLPLego-SA and NLPLego-SSM on corpora no rule of theirs was written for.

* SA: every sentence of 6-45 tokens of the two LitBank excerpts (`../shared/data/coref/litbank`,
  the openings of Austen's *Emma* and *Pride and Prejudice*), detokenized, then sentences of
  BoolQ passages (`../shared/data/boolq`, Wikipedia; 8-35 words, one per passage) to 400,
  drawn with seed 20261129, written as a `sentiment-tsv` file (the label column is a
  placeholder: NLPLego-SA's oracle compares the model's outputs on parent and adjunct, never
  the gold label).
* SSM: 300 pairs of consecutive sentences of other BoolQ passages (8-35 words, one pair per
  passage), drawn with the same seed, written as a `paraphrase-tsv` file labelled 0 (each text
  is a seed sentence of its own; the pair's label is not what the relation tests).

    python make_inputs.py SHARED_DATA_DIR OUT_DIR
"""
import csv
import glob
import json
import os
import random
import re
import sys


def detokenize(tokens):
    text = " ".join(tokens)
    text = text.replace("``", '"').replace("''", '"')
    text = re.sub(r" ([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r"([(\[$]) ", r"\1", text)
    text = re.sub(r" (n't|'s|'ll|'re|'ve|'d|'m)\b", r"\1", text)
    text = re.sub(r'" (.*?) "', r'"\1"', text)
    return text


def litbank_sentences(folder):
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "*.conll"))):
        tokens = []
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                cells = line.rstrip("\n").split("\t")
                if len(cells) < 4:
                    if tokens:
                        out.append(tokens)
                    tokens = []
                    continue
                tokens.append(cells[3])
        if tokens:
            out.append(tokens)
    ends = (".", "!", "?", "''")
    return [detokenize(t) for t in out
            if 6 <= len(t) <= 45 and t[-1] in ends and (t[0][:1].isupper() or t[0] == "``")]


# A sentence ends at . ! ? before a capital, but not after an abbreviation or an initial.
SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\bSt\.)(?<!\bMr\.)(?<!\bDr\.)(?<!\bJr\.)(?<!\bSr\.)"
                          r"(?<!\bNo\.)(?<!\bCo\.)(?<!\bvs\.)(?<!\bMrs\.)(?<!\bInc\.)(?<!\bLtd\.)"
                          r"(?<!\bU\.S\.)(?<!\b[A-Z]\.)\s+(?=[A-Z])")


def boolq_pairs(path, rng):
    pairs = []
    with open(path) as f:
        for line in f:
            passage = json.loads(line)["passage"].split(" -- ", 1)[-1]
            sentences = [s for s in re.split(SENTENCE_END, passage)
                         if 8 <= len(s.split()) <= 35 and s[-1] in ".!?"]
            consecutive = [(a, b) for a, b in zip(sentences, sentences[1:])]
            if consecutive:
                pairs.append(rng.choice(consecutive))
    return pairs


def main(shared, out):
    rng = random.Random(20261129)
    sentences = litbank_sentences(os.path.join(shared, "coref", "litbank"))
    pairs = boolq_pairs(os.path.join(shared, "boolq", "superglue_boolq_val_first1000.jsonl"), rng)
    rng.shuffle(pairs)
    # The SSM pairs, then one sentence of each of the next passages for SA.
    ssm, rest = pairs[:300], pairs[300:]
    chosen = sentences + [a for a, _ in rest[:400 - len(sentences)]]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "sa_sentences.tsv"), "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["sentence", "label"])
        for s in chosen:
            w.writerow([s.replace("\t", " "), 1])
    with open(os.path.join(out, "boolq_pairs.tsv"), "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["id", "qid1", "qid2", "question1", "question2", "is_duplicate"])
        for i, (a, b) in enumerate(ssm):
            w.writerow([i + 1, 2 * i + 1, 2 * i + 2, a, b, 0])
    print(len(sentences), "LitBank sentences and", len(chosen) - len(sentences), "BoolQ sentences for SA;",
          len(ssm), "BoolQ pairs for SSM")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
