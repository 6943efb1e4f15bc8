"""Draw the rows of a blind reading from `metamorph preview --tsv` outputs (issue 39).

    python3 make_sheets.py INPUT_JSONL SEED OUT_DIR QUOTAS PREVIEW_TSV:PATH [PREVIEW_TSV:PATH ...]

QUOTAS is `RELATION:PATH:N,…` (N rows of that relation drawn uniformly, seeded, from the cases
the validity step passed; `all` for every one), each path drawn on its own. A follow-up that
two drawn rows share is read once: `draw.tsv` gives each drawn row the `sheet_id` of the row
readers saw (a row number: the case id names the path). Writes `OUT_DIR/draw.tsv` (every drawn row, with the path and
whether the validity step passed it, for the record) and one shuffled reader sheet per relation,
`OUT_DIR/sheet-RELATION.tsv`, holding only what a reader may see: row id, relation, source,
follow-up, reference (what the relation promises, and TriviaQA's answer).
"""
import csv
import json
import os
import random
import sys

csv.field_size_limit(sys.maxsize)

PROMISES = {
    "MR2-1": "an adjective replaced by a synonym",
    "MR2-2": "an adverbial phrase or clause moved to the front or the end",
}


def main(inputs, seed, out_dir, quotas, *previews):
    answers = {}
    with open(inputs, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            answers[record["question"]] = record.get("answer_text", "")
    by_key = {}
    for spec in previews:
        path_file, path = spec.rsplit(":", 1)
        with open(path_file, encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                row["path"] = path
                by_key.setdefault((row["relation"], path), []).append(row)
    rng = random.Random(int(seed))
    drawn = []
    for quota in quotas.split(","):
        relation, path, n = quota.split(":")
        rows = [r for r in by_key.get((relation, path), []) if r["passed"] == "true"]
        rows.sort(key=lambda r: r["case_id"])
        take = rows if n == "all" else rng.sample(rows, min(int(n), len(rows)))
        drawn += take
    os.makedirs(out_dir, exist_ok=True)
    fields = ["case_id", "sheet_id", "path", "validity_passed", "relation", "source", "follow_up", "reference"]
    sheets = {}
    sheet_ids = {}
    records = []
    for row in drawn:
        question = row["source"].split("question: ", 1)[-1]
        reference = (
            f"valid = the rewritten question asks exactly what the source question asks "
            f"({PROMISES.get(row['relation'], row['relation'])}), so it has the same answer"
            f" ‖ TriviaQA's answer: {answers.get(question) or '(none given)'}"
        )
        record = {
            "case_id": f"{row['path']}/{row['case_id']}",
            "path": row["path"],
            "validity_passed": row["passed"],
            "relation": row["relation"],
            "source": row["source"],
            "follow_up": row["follow_up"],
            "reference": reference,
        }
        records.append(record)
        if row["follow_up"] not in sheet_ids:
            sheet_ids[row["follow_up"]] = None
            sheets.setdefault(row["relation"], []).append(record)
    # Readers see a row number, not the case id (which names the path).
    for relation, rows in sheets.items():
        rng.shuffle(rows)
        for n, record in enumerate(rows, 1):
            sheet_ids[record["follow_up"]] = f"{relation}-{n:03d}"
    for record in records:
        record["sheet_id"] = sheet_ids[record["follow_up"]]
    with open(os.path.join(out_dir, "draw.tsv"), "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(records)
    for relation, rows in sheets.items():
        path = os.path.join(out_dir, f"sheet-{relation}.tsv")
        with open(path, "w", encoding="utf-8", newline="") as f:
            w = csv.DictWriter(
                f,
                fieldnames=["sheet_id", "relation", "source", "follow_up", "reference"],
                delimiter="\t",
                lineterminator="\n",
                extrasaction="ignore",
            )
            w.writeheader()
            w.writerows(rows)
        print(f"{path}: {len(rows)} rows", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
