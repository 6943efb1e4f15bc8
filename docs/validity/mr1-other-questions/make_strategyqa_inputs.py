"""StrategyQA's yes/no questions as BoolQ-format files, for the question relations' readings
of 2026-12-01 (docs/validity/mr1-other-questions/README.md).

StrategyQA (Geva et al., 2021) asks yes/no questions whose answer needs several facts ("Are
more people today related to Genghis Khan than Julius Caesar?"); each question comes with its
gold answer and the facts an annotator wrote for it. No MT4MRC rule was written against it.
This joins the train and dev files (in the dataset's public repository under
`data/strategyqa/`; 2,061 + 229 questions), the facts joined as the passage, and writes every
question alternately into a tuning half (rules may be written against it) and a held-out half
(figures only):

    python3 make_strategyqa_inputs.py TRAIN.json DEV.json OUT_DIR
        -> OUT_DIR/strategyqa-tuning.jsonl, OUT_DIR/strategyqa-heldout.jsonl
then
    metamorph preview --dataset OUT_DIR/strategyqa-heldout.jsonl --format boolq \\
        --relations MR1-1,MR1-2,MR1-3,MR2-1 --sample 100000 --seed 1 --validate --tsv F.tsv
"""
import json
import os
import sys


def main(train, dev, out):
    questions = []
    for path in (train, dev):
        with open(path, encoding="utf-8") as f:
            questions += json.load(f)
    os.makedirs(out, exist_ok=True)
    halves = ([], [])
    for n, q in enumerate(questions):
        passage = " ".join(" ".join(fact.split()) for fact in q["facts"])
        halves[n % 2].append({"question": " ".join(q["question"].split()),
                              "passage": passage or "(no passage)",
                              "label": bool(q["answer"]), "idx": len(halves[n % 2])})
    for name, rows in zip(("tuning", "heldout"), halves):
        with open(os.path.join(out, f"strategyqa-{name}.jsonl"), "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        print(f"{len(rows)} questions -> strategyqa-{name}.jsonl")


if __name__ == "__main__":
    main(*sys.argv[1:4])
