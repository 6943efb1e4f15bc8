"""Inputs of a reading of MT4MRC's question relations on TriviaQA's questions (issue 39,
2026-12-03): trivia questions written by quiz enthusiasts, a corpus no MT4MRC rule was written
against, as one BoolQ-format file per split.

Halves: the **dev** file is the tuning half. Its cases were read blind first, under the code of
the day (reading 1, before any rule), and rules may then be written against its rows; the
**test** file is held out, for figures only (reading 2).

The questions are the ones the Anserini project publishes for its dense-retrieval replications
(its public `anserini-tools` repository, `topics/topics.dpr.trivia.dev.txt` and
`topics.dpr.trivia.test.txt`: TriviaQA's unfiltered dev and test questions as DPR used them,
one question and its answer list per line).

Every question is kept (MR2-1 and MR2-2 keep the answer whatever the question's kind), minus
duplicates (case and final "?" ignored) and any question that appears in a sheet already under
`docs/validity/`. No passage goes with them; the answer TriviaQA gives is kept in `answer_text`
(its first three aliases that read as words) so that a reader can see what the question asks.

    python3 make_inputs.py ANSERINI_TOOLS_DIR VALIDITY_DIR dev OUT_JSONL
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-1,MR2-2 \\
        --sample 100000 --seed 1 --validate --tsv trivia.tsv

The record's `idx` is its row.
"""
import ast
import glob
import json
import os
import re
import sys


def key(question):
    return " ".join(question.lower().rstrip("?").split())


def already_read(validity):
    """Every question-like field of the sheets already judged, as keys."""
    seen = set()
    for path in glob.glob(os.path.join(validity, "**", "*.tsv"), recursive=True):
        with open(path, encoding="utf-8") as f:
            for line in f:
                for field in line.rstrip("\n").split("\t"):
                    seen.add(key(field.split("question: ", 1)[-1]))
    return seen


def aliases(field):
    """The answer's aliases, as the file lists them (a Python list, sometimes quoted once
    more as a string), the ones that read as words first."""
    value = field.strip()
    for _ in range(2):
        if not isinstance(value, str):
            break
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            # A list quoted for CSV with its own quotes doubled: take the quoted items.
            value = re.findall(r"'([^']+)'", field)
            break
    if isinstance(value, str):
        value = [value]
    words = [a for a in value if any(c.isalpha() for c in a) and a.isascii()]
    return words or list(value)


def main(tools, validity, split, out):
    path = os.path.join(tools, "topics", f"topics.dpr.trivia.{split}.txt")
    seen = already_read(validity)
    n = 0
    with open(path, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as o:
        for line in f:
            question, _, answers = line.rstrip("\n").partition("\t")
            question = " ".join(question.split())
            if not question or key(question) in seen:
                continue
            seen.add(key(question))
            answer = "; ".join(aliases(answers)[:3])
            o.write(json.dumps({"question": question, "passage": "(no passage)", "idx": n,
                                "answer_text": answer}) + "\n")
            n += 1
    print(f"{out}: {n} questions", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:5])
