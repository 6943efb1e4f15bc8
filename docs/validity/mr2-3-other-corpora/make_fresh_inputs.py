"""Inputs of MR2-3's second reading on other corpora (docs/validity/mr2-3-other-corpora).

The rules of 2026-11-30 were written against the first reading's rows (GAP, SQuAD, DynaSent),
so this reading uses text neither those rules nor BoolQ's saw, written as BoolQ-format files
from ../shared/data:

* fewrel.jsonl: every distinct FewRel validation sentence (Wikipedia, one sentence each);
* paws.jsonl: every distinct first sentence of the PAWS dev pairs (Wikipedia), and the second
  sentence of the pairs labelled paraphrases (reworded, still fluent), where it differs;
* litbank.jsonl: the two LitBank novel excerpts (Pride and Prejudice, Emma) cut into passages
  of three consecutive sentences, so that pronouns keep their antecedents;
* drop.jsonl: the DROP passages (NFL game summaries and history), with their first question.

    python3 make_fresh_inputs.py SHARED_DATA_DIR OUT_DIR
then, per file,
    metamorph preview --dataset OUT_DIR/F.jsonl --format boolq --relations MR2-3 \
        --sample 100000 --seed 1 --validate --tsv F.tsv
"""
import csv
import glob
import json
import os
import re
import sys


def detokenize(tokens):
    text = " ".join(tokens)
    text = text.replace("``", '"').replace("''", '"')
    text = re.sub(r" ([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r"([(\[$]) ", r"\1", text)
    text = re.sub(r" (n't|'s|'ll|'re|'ve|'d|'m)\b", r"\1", text)
    text = re.sub(r'" (.*?) "', r'"\1"', text)
    text = re.sub(r" - ", "-", text)
    return text


def litbank_passages(folder, size=3):
    passages = []
    for path in sorted(glob.glob(os.path.join(folder, "*.conll"))):
        sentences, tokens = [], []
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                cells = line.rstrip("\n").split("\t")
                if len(cells) < 4:
                    if tokens:
                        sentences.append(detokenize(tokens))
                    tokens = []
                    continue
                tokens.append(cells[3])
        if tokens:
            sentences.append(detokenize(tokens))
        for i in range(0, len(sentences), size):
            passages.append(" ".join(sentences[i:i + size]))
    return passages


def write(path, passages, question):
    with open(path, "w", encoding="utf-8") as f:
        for n, (passage, q) in enumerate(passages):
            f.write(json.dumps({"question": q or question, "passage": passage, "label": True,
                                "idx": n}) + "\n")


def main():
    data, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    placeholder = "is this about a person"
    with open(os.path.join(data, "fewrel", "fewrel_val_wiki_first62_per_relation.json"),
              encoding="utf-8") as f:
        fewrel = json.load(f)
    sentences = sorted({detokenize(i["tokens"]) for rows in fewrel.values() for i in rows})
    write(os.path.join(out, "fewrel.jsonl"), [(s, None) for s in sentences], placeholder)
    path = os.path.join(data, "paraphrase", "paws_wiki_labeled_final_dev_first1000.tsv")
    with open(path, encoding="utf-8") as f:
        rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        seen, paws = set(), []
        for row in rows:
            sentence = detokenize(row["sentence1"].split())
            if sentence not in seen:
                seen.add(sentence)
                paws.append((sentence, None))
            second = detokenize(row["sentence2"].split())
            if row["label"] == "1" and second not in seen:
                seen.add(second)
                paws.append((second, None))
    write(os.path.join(out, "paws.jsonl"), paws, placeholder)
    write(os.path.join(out, "litbank.jsonl"),
          [(p, None) for p in litbank_passages(os.path.join(data, "coref", "litbank"))],
          placeholder)
    with open(os.path.join(data, "drop", "drop_dataset_dev_sample.json"), encoding="utf-8") as f:
        drop = json.load(f)
    write(os.path.join(out, "drop.jsonl"),
          [(" ".join(v["passage"].split()), v["qa_pairs"][0]["question"]) for v in drop.values()],
          placeholder)


if __name__ == "__main__":
    main()
