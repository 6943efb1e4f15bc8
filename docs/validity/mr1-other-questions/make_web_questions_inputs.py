"""Inputs of the ninth reading of docs/validity/mr1-other-questions (issue 39, 2026-12-03):
yes/no questions people typed into a search engine or asked on a forum, from corpora no MT4MRC
rule was written against, as one BoolQ-format file.

The questions are the query files ("topics") that the Anserini project publishes for its
retrieval benchmarks (its public `anserini-tools` repository, `topics/`):

* MS MARCO: Bing queries of the passage and document ranking tasks (`topics.msmarco-*.txt`,
  `topics.dl2*.txt`), lower case like BoolQ's (BoolQ's questions are Google queries);
* BEIR's test queries of Natural Questions (Google queries), HotpotQA (written multi-hop
  questions, many of them comparisons), Quora (forum questions), FiQA (finance forum
  questions) and CQADupStack (StackExchange question titles): `topics.beir-v1.0.0-*.test.tsv.gz`.

A question is kept when it opens with an auxiliary or a modal (the relations need a yes/no
question); duplicates (case and final "?" ignored) and any question that appears in a sheet
already under `docs/validity/` are left out. No passage goes with these questions, so the
readers judge validity from the wording, as in readings 1 and 5–7.

    python3 make_web_questions_inputs.py ANSERINI_TOOLS_DIR VALIDITY_DIR OUT_JSONL
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR1-1,MR1-2,MR1-3,MR2-1 \\
        --sample 100000 --seed 1 --validate --tsv web.tsv

The record's `idx` is its row; `source` names the file it came from.
"""
import glob
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


def key(question):
    return " ".join(question.lower().rstrip("?").split())


def topic_files(tools):
    """(source name, path) of every query file read, in a fixed order."""
    topics = os.path.join(tools, "topics")
    files = sorted(glob.glob(os.path.join(topics, "topics.msmarco-*.txt")))
    files += sorted(glob.glob(os.path.join(topics, "topics.dl2[0-9].txt")))
    files += sorted(
        path for path in glob.glob(os.path.join(topics, "topics.beir-v1.0.0-*.test.tsv.gz"))
        if not path.endswith(".wp.tsv.gz")
        and re.search(r"beir-v1\.0\.0-(nq|hotpotqa|quora|fiqa|cqadupstack-[a-z]+)\.test", path))
    for path in files:
        name = os.path.basename(path)
        name = re.sub(r"^topics\.(beir-v1\.0\.0-)?", "", name)
        name = re.sub(r"(\.test)?\.(txt|tsv\.gz)$", "", name)
        yield name, path


def read_queries(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 2:
                yield " ".join(fields[1].split())


def already_read(validity):
    """Every question-like field of the sheets already judged, as keys."""
    seen = set()
    for path in glob.glob(os.path.join(validity, "**", "*.tsv"), recursive=True):
        with open(path, encoding="utf-8") as f:
            for line in f:
                for field in line.rstrip("\n").split("\t"):
                    seen.add(key(field))
    return seen


def main(tools, validity, out):
    seen = already_read(validity)
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        for source, path in topic_files(tools):
            for question in read_queries(path):
                if not OPENS_YES_NO.match(question) or key(question) in seen:
                    continue
                seen.add(key(question))
                f.write(json.dumps({"question": question, "passage": "(no passage)",
                                    "idx": n, "source": source}) + "\n")
                n += 1
    print(f"{out}: {n} questions", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:4])
