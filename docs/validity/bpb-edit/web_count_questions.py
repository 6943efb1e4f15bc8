"""Search-engine and forum "how many" questions as AppendBool sources: the text of round 18.

Every held-out DROP question BREAK publishes has been read (rounds 8–17). AppendBool's question
is written from the question and the appended comparison only, so any "how many" question
whose answer is a count is a fair source for it (see `break_test_questions.py`, whose word
filter and two-step stand-in decomposition this script reuses). These come from corpora no BPB
rule was written against: the query files the Anserini project publishes for its retrieval
benchmarks (its public `anserini-tools` repository, `topics/`): BEIR's test queries of Natural
Questions (Google queries, lower case, no question mark), HotpotQA (written questions), Quora
and FiQA (forum questions). MS MARCO's Bing queries in the same folder are left out: most are
keyword strings ("how many steps a day healthy"), not questions a DROP reader would ask.
Duplicates (case and a final "?" ignored) are written once; ids are `WEB_<file>_<n>`.

    python3 web_count_questions.py ANSERINI_TOOLS_DIR OUT.csv
    cargo run -p metamorph-generate --example bpb_edit_questions -- OUT.csv built.tsv \
        --source WEB --half tuning      # rules may be written against these
    cargo run -p metamorph-generate --example bpb_edit_questions -- OUT.csv built.tsv \
        --source WEB --half held-out    # the blind readers' rows
    python3 break_test_questions.py draw built.tsv SEED N SAMPLE_DIR
"""

import csv
import glob
import gzip
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from break_test_questions import is_count_question  # noqa: E402


def topic_files(tools):
    topics = os.path.join(tools, "topics")
    files = sorted(
        path for path in glob.glob(os.path.join(topics, "topics.beir-v1.0.0-*.test.tsv.gz"))
        if re.search(r"beir-v1\.0\.0-(nq|hotpotqa|quora|fiqa)\.test\.tsv\.gz$", path))
    for path in files:
        name = re.sub(r"^topics\.(beir-v1\.0\.0-)?", "", os.path.basename(path))
        yield re.sub(r"(\.test)?\.(txt|tsv\.gz)$", "", name).replace(".", "-"), path


def main(tools, out):
    seen, kept = set(), 0
    with open(out, "w", newline="", encoding="utf-8") as g:
        writer = csv.writer(g)
        writer.writerow(["question_id", "question_text", "decomposition", "split"])
        for name, path in topic_files(tools):
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8") as f:
                for line in f:
                    fields = line.rstrip("\n").split("\t")
                    if len(fields) < 2:
                        continue
                    question = " ".join(fields[1].split())
                    key = question.lower().rstrip("?").strip()
                    if key in seen or not is_count_question(question):
                        continue
                    seen.add(key)
                    counted = question[len("how many "):].rstrip(" ?").replace("#", "")
                    writer.writerow([f"WEB_{name}_{kept}", question,
                                     f"return {counted} ;return number of #1", "test"])
                    kept += 1
    print(f"{kept} questions kept -> {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
