"""BREAK's dev questions outside the shared sample: the text of rounds 8-11.

The shared sample (`break_qdmr_high_level_dev_sample.csv`, 995 questions) has been read to the
last question. BREAK's full high-level dev file (3,130 questions, in the dataset's public
repository under `break_dataset/QDMR-high-level/dev.csv`) holds 2,135 more that no rule was
written against. This script keeps those, splits them into halves and draws blind samples.

    python3 fresh_questions.py split DEV.csv SHARED_SAMPLE.csv OUT_DIR
        writes OUT_DIR/outside_sample.csv (drops a row whose decomposition refers to a step
        that is not an earlier one; BREAK's dev file has one), then run per source
            cargo run -p metamorph-generate --example bpb_edit_questions -- \
                OUT_DIR/outside_sample.csv OUT_DIR/built_SOURCE.tsv --source SOURCE
        for SOURCE in DROP, HOTPOT, CWQ.
    python3 fresh_questions.py draw OUT_DIR SEED EXCLUDE_IDS QUOTA SAMPLE_DIR
        draws one row per question from the held-out half (odd positions among a source's
        questions, as the example's `--half held-out`), never a question in EXCLUDE_IDS (a file
        of ids, one per line, or `-`), QUOTA like `AppendBool:DROP:20,PruneStep:CWQ:15`;
        writes SAMPLE_DIR/rows.tsv and the readers' SAMPLE_DIR/sheet.tsv.

    python3 fresh_questions.py draw DIR SEED - QUOTA SAMPLE_DIR --all
        draws from every question of DIR/built_SOURCE.tsv (no halves): round 12, on the
        low-level QDMR dev file's Spider, GeoQuery, ATIS and ComQA questions (`split` is not
        needed there; the example reads that file directly, `--source SPIDER` etc.).

    python3 fresh_questions.py draw DIR 13 EXCLUDE_IDS QUOTA SAMPLE_DIR
        round 13: DIR holds outside_sample.csv, the built_SOURCE.tsv of DROP, HOTPOT and CWQ
        (from outside_sample.csv, held-out half) and those of SPIDER, GEO, ATIS, COMQA and
        CLEVR (from the low-level dev file, every question: they have no halves).

    python3 fresh_questions.py draw DIR 15 EXCLUDE_IDS QUOTA SAMPLE_DIR --all
        round 15: DIR/built_IIRC.tsv holds the held-out half of IIRC's questions
        (`iirc_questions.py`, then the example with `--source IIRC --half held-out`); `--all`
        because the half is already taken.

Rounds 8-11 used seeds 8, 9, 10, 11, rounds 13 and 14 seeds 13 and 14, with the quotas in
README.md, each excluding the ids of the rounds before (the low-level file read without its
NLVR2 statements and the two rows whose decomposition refers forward). The judged files here keep BREAK's question id and the built question;
the original question and decomposition are joined back by id from BREAK's file.
"""

import csv
import os
import random
import re
import sys

SOURCES = {
    "DROP": "DROP",
    "HOTPOT": "HotpotQA",
    "CWQ": "CWQ",
    "SPIDER": "Spider",
    "GEO": "GeoQuery",
    "ATIS": "ATIS",
    "COMQA": "ComQA",
    "CLEVR": "CLEVR",
    "IIRC": "IIRC",
}


def split(dev, sample, out_dir):
    shared = {r["question_id"] for r in csv.DictReader(open(sample, encoding="utf-8"))}
    os.makedirs(out_dir, exist_ok=True)
    rows = csv.reader(open(dev, encoding="utf-8"))
    header = next(rows)
    kept = dropped = 0
    with open(f"{out_dir}/outside_sample.csv", "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f)
        out.writerow(header)
        for row in rows:
            if row[0] in shared:
                continue
            steps = row[2].split(";")
            forward = any(
                int(m) > i for i, s in enumerate(steps) for m in re.findall(r"#(\d+)", s)
            )
            if forward:
                dropped += 1
                continue
            out.writerow(row)
            kept += 1
    print(f"{kept} questions outside the sample ({dropped} dropped: a forward reference)")


def positions(out_dir):
    pos, count = {}, {}
    for r in csv.DictReader(open(f"{out_dir}/outside_sample.csv", encoding="utf-8")):
        source = r["question_id"].split("_")[0]
        pos[r["question_id"]] = count.get(source, 0)
        count[source] = count.get(source, 0) + 1
    return pos


def draw(out_dir, seed, exclude, quota, sample_dir, every=False):
    pos = None if every else positions(out_dir)
    excluded = set() if exclude == "-" else set(open(exclude).read().split())
    rows = []
    sources = dict.fromkeys(part.split(":")[1] for part in quota.split(","))
    for source in sources:
        path = f"{out_dir}/built_{source}.tsv"
        for r in csv.DictReader(open(path, encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE):
            # A question of another file (the low-level dev file's corpora) has no halves.
            held_out = every or r["id"] not in pos or pos[r["id"]] % 2 == 1
            if r["built"] and r["id"] not in excluded and held_out:
                rows.append(r)
    rng = random.Random(seed)
    chosen, used = [], set()
    for part in quota.split(","):
        kind, source, n = part.split(":")
        n = int(n)
        candidates = [r for r in rows if r["perturbation"] == kind and r["id"].startswith(source)]
        rng.shuffle(candidates)
        for r in candidates:
            if n == 0:
                break
            if r["id"] not in used:
                used.add(r["id"])
                chosen.append(r)
                n -= 1
    rng.shuffle(chosen)
    os.makedirs(sample_dir, exist_ok=True)

    def steps(p):
        return " ".join(f"({i + 1}) {s.strip()}" for i, s in enumerate(p.split(";")))

    with open(f"{sample_dir}/rows.tsv", "w") as f, open(f"{sample_dir}/sheet.tsv", "w") as g:
        f.write("row\tsource\tid\tperturbation\tdetail\toriginal_question\tperturbed_decomposition\tquestion\n")
        g.write("id\toriginal_question\tperturbed_decomposition\tquestion\n")
        for i, r in enumerate(chosen, 1):
            source = SOURCES[r["id"].split("_")[0]]
            decomposition = steps(r["perturbed"])
            f.write("\t".join([str(i), source, r["id"], r["perturbation"], r["detail"], r["question"], decomposition, r["built"]]) + "\n")
            g.write("\t".join([str(i), r["question"], decomposition, r["built"]]) + "\n")
    print(f"{len(chosen)} rows, one per question")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "split":
        split(*sys.argv[2:])
    elif len(sys.argv) in (7, 8) and sys.argv[1] == "draw":
        every = sys.argv[7:] == ["--all"]
        if len(sys.argv) == 8 and not every:
            sys.exit(__doc__)
        draw(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6], every)
    else:
        sys.exit(__doc__)
