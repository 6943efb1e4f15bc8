"""BREAK's *test* DROP questions as AppendBool sources: the text of round 16.

Every DROP question of BREAK's dev files has been read, and BREAK's train file is not in the
dataset's public repository snapshot. Its high-level test file
(`break_dataset/QDMR-high-level/test.csv`, in the same repository) holds 1,284 DROP questions
no rule was written against, but without decompositions (BREAK keeps the test labels hidden).

AppendBool's question is written from the question and the appended comparison only (the
builder never reads the decomposition's step texts for it), so a "how many" question whose
decomposition would end in a count or a sum is a fair AppendBool source without its real
decomposition. This script keeps the "how many" questions whose decomposition would end in an
aggregate, by a word filter checked on BREAK's high-level dev file: of its 714 DROP "how many"
questions, the filter keeps 269 of the 316 whose last step is `number of` / `sum of` and 41 of
the 398 whose last step is something else (a difference, a margin, "yards of #1"), so about 87%
of the kept questions are ones BPB's code would append to. Each kept question gets a two-step
stand-in decomposition (`return <what is counted> ;return number of #1`); only AppendBool's rows
of the example's output are read (the stand-in's other perturbations mean nothing).

    python3 break_test_questions.py TEST.csv OUT.csv
    cargo run -p metamorph-generate --example bpb_edit_questions -- OUT.csv built.tsv \
        --source DROP --half tuning      # rules were written against these
    cargo run -p metamorph-generate --example bpb_edit_questions -- OUT.csv built.tsv \
        --source DROP --half held-out    # the blind readers' rows
    python3 break_test_questions.py draw built.tsv SEED N SAMPLE_DIR [JUDGED.tsv ...]
        draws N written AppendBool questions, one per source question, none of them in the
        given judged files (an earlier round's rows), and writes the
        readers' SAMPLE_DIR/sheet.tsv and SAMPLE_DIR/rows.tsv. The sheet shows the perturbed
        decomposition as "(1) the number the original question asks for (2) if #1 is higher
        than 17": the stand-in's first step says nothing a reader needs.

Round 16 used seed 16 and 80 rows of the held-out half; round 17 seed 17, every other
held-out question (`draw built.tsv 17 200 SAMPLE round16-judged.tsv`: 83 rows).
"""

import csv
import os
import random
import re
import sys

# Words that mark a "how many" question whose answer is a difference, a margin, an age or a
# single measure rather than a count or a sum (checked on the dev file, see above).
NOT_A_COUNT = re.compile(
    r"\b(more|fewer|less|longer|shorter|than|difference|after|before|between|apart|passed|"
    r"elapsed|not|percent|percentage|%|age|old|younger|older|higher|lower|bigger|larger|"
    r"smaller|greater|into|since|each|average|rounded|compared|lead|margin)\b"
    r"|n't|\bby\s*\?|\bby (in|at|during|against|when)\b",
    re.IGNORECASE,
)


def is_count_question(question: str) -> bool:
    q = question.strip()
    if not q.lower().startswith("how many "):
        return False
    return NOT_A_COUNT.search(q[len("how many ") :]) is None


def draw(built: str, seed: int, n: int, sample_dir: str, exclude: list[str]) -> None:
    # Questions an earlier round read (its judged rows' `id` column) are not drawn again.
    read = {
        r["id"]
        for path in exclude
        for r in csv.DictReader(open(path, encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE)
    }
    rows = [
        r
        for r in csv.DictReader(open(built, encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE)
        if r["perturbation"] == "AppendBool" and r["built"] and r["id"] not in read
    ]
    rng = random.Random(seed)
    rng.shuffle(rows)
    chosen, used = [], set()
    for r in rows:
        if len(chosen) == n:
            break
        if r["id"] not in used:
            used.add(r["id"])
            chosen.append(r)
    os.makedirs(sample_dir, exist_ok=True)
    with open(f"{sample_dir}/rows.tsv", "w") as f, open(f"{sample_dir}/sheet.tsv", "w") as g:
        f.write("row\tsource\tid\tperturbation\tdetail\toriginal_question\tperturbed_decomposition\tquestion\n")
        g.write("id\toriginal_question\tperturbed_decomposition\tquestion\n")
        for i, r in enumerate(chosen, 1):
            comparison, value = r["detail"].split(":")
            decomposition = (
                "(1) the number the original question asks for "
                f"(2) if #1 is {comparison.replace('-', ' ')} {value}"
            )
            f.write("\t".join([str(i), "DROP", r["id"], r["perturbation"], r["detail"], r["question"], decomposition, r["built"]]) + "\n")
            g.write("\t".join([str(i), r["question"], decomposition, r["built"]]) + "\n")
    print(f"{len(chosen)} rows, one per question -> {sample_dir}")


def main() -> None:
    if len(sys.argv) >= 6 and sys.argv[1] == "draw":
        draw(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6:])
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    test, out = sys.argv[1:]
    kept = 0
    total = 0
    with open(test, newline="") as f, open(out, "w", newline="") as g:
        writer = csv.writer(g)
        writer.writerow(["question_id", "question_text", "decomposition", "split"])
        for row in csv.DictReader(f):
            if not row["question_id"].startswith("DROP"):
                continue
            total += 1
            question = row["question_text"].strip()
            if not is_count_question(question):
                continue
            counted = question[len("how many ") :].rstrip(" ?").replace("#", "")
            decomposition = f"return {counted} ;return number of #1"
            writer.writerow([row["question_id"], question, decomposition, "test"])
            kept += 1
    print(f"{kept} of {total} DROP questions kept -> {out}")


if __name__ == "__main__":
    main()
