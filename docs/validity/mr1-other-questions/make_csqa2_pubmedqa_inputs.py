"""Inputs of the fifth reading of docs/validity/mr1-other-questions (issue 39, 2026-12-01):
yes/no questions of two corpora no MT4MRC rule was written against, as BoolQ-format files.

* csqa2.jsonl: every item of CommonsenseQA 2.0's train and dev files (its public repository,
  `dataset/CSQA2_{train,dev}.json.gz`) that is a yes/no question (opens with an auxiliary or a
  modal and ends with "?"; the rest are statements), with its gold answer and no passage
  (the questions ask for common sense);
* pubmedqa.jsonl: every question of PubMedQA's 1,000 expert-labelled items (its public
  repository, `data/ori_pqal.json`), with the abstract's context paragraphs as the passage and
  the expert's yes/no/maybe as the label ("maybe" written as no label).

    python3 make_csqa2_pubmedqa_inputs.py CSQA2_DATASET_DIR ORI_PQAL_JSON OUT_DIR

* csqa2-test.jsonl (the seventh reading): the yes/no questions of CommonsenseQA 2.0's test
  file, which has no answers (`dataset/CSQA2_test_no_answers.json.gz`); no label:

    python3 make_csqa2_pubmedqa_inputs.py --test CSQA2_DATASET_DIR OUT_DIR

then, per file and relation,
    metamorph preview --dataset OUT_DIR/F.jsonl --format boolq --relations R \\
        --sample 100000 --seed 1 --validate --tsv R.tsv
"""
import gzip
import json
import os
import re
import sys

OPENS_YES_NO = re.compile(
    r"^(is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|may|might|must"
    r"|shall)\b",
    re.IGNORECASE,
)


def main(csqa2_dir, pqal, out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "csqa2.jsonl"), "w", encoding="utf-8") as f:
        n = 0
        for split in ("dev", "train"):
            path = os.path.join(csqa2_dir, f"CSQA2_{split}.json.gz")
            with gzip.open(path, "rt", encoding="utf-8") as lines:
                for line in lines:
                    item = json.loads(line)
                    question = " ".join(item["question"].split())
                    if not (OPENS_YES_NO.match(question) and question.endswith("?")):
                        continue
                    f.write(json.dumps({"question": question, "passage": "(no passage)",
                                        "label": item["answer"] == "yes", "idx": n}) + "\n")
                    n += 1
    with open(pqal, encoding="utf-8") as f:
        items = json.load(f)
    with open(os.path.join(out, "pubmedqa.jsonl"), "w", encoding="utf-8") as f:
        for n, item in enumerate(items.values()):
            record = {"question": " ".join(item["QUESTION"].split()),
                      "passage": " ".join(" ".join(item["CONTEXTS"]).split()), "idx": n}
            if item["final_decision"] in ("yes", "no"):
                record["label"] = item["final_decision"] == "yes"
            f.write(json.dumps(record) + "\n")


def test_questions(csqa2_dir, out):
    os.makedirs(out, exist_ok=True)
    path = os.path.join(csqa2_dir, "CSQA2_test_no_answers.json.gz")
    with gzip.open(path, "rt", encoding="utf-8") as lines, \
            open(os.path.join(out, "csqa2-test.jsonl"), "w", encoding="utf-8") as f:
        n = 0
        for line in lines:
            question = " ".join(json.loads(line)["question"].split())
            if OPENS_YES_NO.match(question) and question.endswith("?"):
                f.write(json.dumps({"question": question, "passage": "(no passage)",
                                    "idx": n}) + "\n")
                n += 1


if __name__ == "__main__" and sys.argv[1] != "--contrast":
    if sys.argv[1] == "--test":
        test_questions(*sys.argv[2:4])
    else:
        main(*sys.argv[1:4])


# Reading 8 (2026-12-01): the BoolQ contrast set's questions (Gardner et al. 2020, its public
# repository's `BoolQ/boolq_perturbed.json`): experts' rewrites of BoolQ dev questions, with
# the paragraph and the answer; questions also in the shared BoolQ file are left out.
#
#     python3 make_csqa2_pubmedqa_inputs.py --contrast BOOLQ_PERTURBED_JSON SHARED_BOOLQ_JSONL OUT_DIR
def contrast_questions(path, shared, out):
    with open(shared, encoding="utf-8") as f:
        seen = {" ".join(json.loads(line)["question"].lower().split()) for line in f}
    with open(path, encoding="utf-8") as f:
        items = json.load(f)["data"]
    os.makedirs(out, exist_ok=True)
    n = 0
    with open(os.path.join(out, "boolq-contrast.jsonl"), "w", encoding="utf-8") as f:
        for item in items:
            pairs = [(item["question"], item["answer"])] + [
                (p["perturbed_q"], p["answer"]) for p in item["perturbed_questions"]]
            for question, answer in pairs:
                question = " ".join(question.replace("``", '"').replace("''", '"').split())
                if not question or question.lower() in seen:
                    continue
                seen.add(question.lower())
                f.write(json.dumps({"question": question, "passage": item["paragraph"],
                                    "label": answer.upper() == "TRUE", "idx": n}) + "\n")
                n += 1


if __name__ == "__main__" and sys.argv[1] == "--contrast":
    contrast_questions(*sys.argv[2:5])
