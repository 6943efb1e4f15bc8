"""BREAK's test questions as a BoolQ-format file: the text of MR2-1's LM path's second reading.

No MR2-1 reading (of either path) and no rule has used BREAK's test questions. Their files
(the dataset's public repository, `break_dataset/QDMR/test.csv` and
`break_dataset/QDMR-high-level/test.csv`) hold questions from eight datasets without answers or
passages; this keeps every distinct question of HotpotQA, ComplexWebQuestions, DROP, ComQA,
Spider, GeoQuery and ATIS (CLEVR's are mostly "large" and "big" about the same rendered
objects, NLVR2's are statements), draws SIZE of them with SEED, and writes them with "(no
passage)" and no label (MR2-1 expects the same answer; no gold label is needed):

    python3 make_break_test_inputs.py LOW_LEVEL_TEST.csv HIGH_LEVEL_TEST.csv SEED SIZE OUT.jsonl
then
    metamorph preview --config examples/configs/mr2_1_lm.toml --dataset OUT.jsonl \\
        --format boolq --relations MR2-1 --sample 100000 --seed 1 --validate --tsv F.tsv
"""
import csv
import json
import random
import sys

KEPT = ("HOTPOT", "CWQ", "DROP", "COMQA", "SPIDER", "GEO", "ATIS")


def main(low, high, seed, size, out):
    seen, questions = set(), []
    for path in (low, high):
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                source = row["question_id"].split("_")[0]
                question = " ".join(row["question_text"].split())
                if source in KEPT and question and question not in seen:
                    seen.add(question)
                    questions.append((row["question_id"], question))
    random.Random(seed).shuffle(questions)
    with open(out, "w", encoding="utf-8") as f:
        for idx, (qid, question) in enumerate(questions[:size]):
            f.write(json.dumps({"question": question, "passage": "(no passage)",
                                "idx": idx, "break_id": qid}) + "\n")
    print(f"{min(size, len(questions))} of {len(questions)} questions -> {out}")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
