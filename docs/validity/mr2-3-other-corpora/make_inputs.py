"""Inputs of the MR2-3 reading on other corpora (docs/validity/mr2-3-other-corpora).

MR2-3 rewrites the passage, so any text can be its passage. This writes three BoolQ-format
files from ../shared/data: every GAP validation snippet (Wikipedia, 454), every paragraph of
the shared SQuAD file with its first question (83), every DynaSent round-2 dev sentence
(restaurant and product reviews, 720). GAP's and DynaSent's texts have no question; a
placeholder fills the field, and readers judge validity as "the rewritten sentence states
exactly what the source sentence states".

    python3 make_inputs.py SHARED_DATA_DIR OUT_DIR
then, per file,
    metamorph preview --dataset OUT_DIR/F.jsonl --format boolq --relations MR2-3 \
        --sample 100000 --seed 1 --validate --tsv F.tsv
"""
import csv
import json
import sys
from pathlib import Path


def main():
    data, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "dynasent.jsonl", "w", encoding="utf-8") as f:
        path = data / "sentiment" / "dynasent-v1.1-round02-dynabench-dev.jsonl"
        for n, line in enumerate(open(path, encoding="utf-8")):
            sentence = json.loads(line)["sentence"]
            f.write(json.dumps({"question": "is the review positive", "passage": sentence,
                                "label": True, "idx": n}) + "\n")
    with open(out / "gap.jsonl", "w", encoding="utf-8") as f:
        path = data / "coref" / "gap" / "gap-validation.tsv"
        rows = csv.DictReader(open(path, encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE)
        for n, row in enumerate(rows):
            f.write(json.dumps({"question": "is this about a person", "passage": row["Text"],
                                "label": True, "idx": n}) + "\n")
    with open(out / "squad.jsonl", "w", encoding="utf-8") as f:
        squad = json.load(open(data / "squad_v2" / "dev-v2.0_Normans_Rhine.json", encoding="utf-8"))
        n = 0
        for article in squad["data"]:
            for paragraph in article["paragraphs"]:
                f.write(json.dumps({"question": paragraph["qas"][0]["question"],
                                    "passage": paragraph["context"], "label": True,
                                    "idx": n}) + "\n")
                n += 1


if __name__ == "__main__":
    main()
