"""Writes the inputs of the NLPLego-MRC predictions reading (docs/validity/mrc-predictions).

- squad_rhine.json: the shared SQuAD 2.0 file's Rhine article alone (498 questions), the rows
  read for the held-out figure; the Normans article (208 questions) is the tuning half.
- squad_normans.json: the Normans article alone.
- boolq_as_squad.json: 150 BoolQ passages with their yes/no question (another corpus: BoolQ's
  Wikipedia passages, no rule of NLPLego-MRC written against them), rows 500-999 of the shared
  BoolQ file drawn with seed 20261130, in SQuAD format without answer spans.
- boolq_fresh_as_squad.json: 150 more, rows 0-499 drawn with seed 20261201, for the second
  reading (text the first reading's rules were not written against).
- boolq_third_as_squad.json: 150 of the rows neither drew, seed 20261202, for the third.

Run from the repository root: python3 docs/validity/mrc-predictions/make_inputs.py OUT_DIR
"""

import json
import random
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "data"


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    squad = json.loads((DATA / "squad_v2" / "dev-v2.0_Normans_Rhine.json").read_text())
    for article in squad["data"]:
        name = article["title"].lower()
        doc = {"version": squad.get("version", "v2.0"), "data": [article]}
        (out / f"squad_{name}.json").write_text(json.dumps(doc))
    rows = [json.loads(line) for line in (DATA / "boolq" / "superglue_boolq_val_first1000.jsonl").open()]
    first = write_boolq(out / "boolq_as_squad.json", rows, range(500, len(rows)), 20261130)
    second = write_boolq(out / "boolq_fresh_as_squad.json", rows, range(0, 500), 20261201)
    rest = [i for i in range(len(rows)) if i not in first and i not in second]
    write_boolq(out / "boolq_third_as_squad.json", rows, rest, 20261202)


def write_boolq(path, rows, among, seed):
    """150 of the BoolQ rows `among`, drawn with `seed`, as a SQuAD file without answers."""
    rng = random.Random(seed)
    picked = sorted(rng.sample(among, 150))
    paragraphs = []
    for i in picked:
        row = rows[i]
        paragraphs.append(
            {
                "context": row["passage"],
                "qas": [
                    {
                        "id": f"boolq-{i}",
                        "question": row["question"].rstrip("?") + "?",
                        "answers": [],
                        "is_impossible": False,
                    }
                ],
            }
        )
    doc = {"version": "v2.0", "data": [{"title": "BoolQ passages", "paragraphs": paragraphs}]}
    path.write_text(json.dumps(doc))
    return set(picked)


if __name__ == "__main__":
    main()
