"""Join a reading's drawn rows (`make_sheets.py`'s `draw.tsv`) with two readers' verdicts.

    python3 merge_verdicts.py DRAW_TSV OUT_TSV A=JUDGED.tsv[,JUDGED.tsv] B=… \\
        [--now PREVIEW_TSV ...]

Each reader's `judged.tsv` has `sheet_id natural valid reason`; a drawn row takes the verdicts
of the sheet row it was read as. Each sheet (one per relation) has two readers of its own: `A`
and `B` name the first and second reader of every sheet, their files separated by commas. With `--now`, `emitted_now` says whether the code of the
day still writes the row's follow-up (any of the given preview TSVs holds it). Prints, per
relation and path, the rows both readers found natural, valid, and both.
"""
import csv
import sys
from collections import defaultdict

csv.field_size_limit(sys.maxsize)


def main(argv):
    draw_path, out_path, *rest = argv
    readers = []
    now_files = []
    it = iter(rest)
    for arg in it:
        if arg == "--now":
            now_files.extend(it)
            break
        name, paths = arg.split("=", 1)
        verdicts = {}
        for path in paths.split(","):
            with open(path, encoding="utf-8") as f:
                verdicts.update({r["sheet_id"]: r for r in csv.DictReader(f, delimiter="\t")})
        readers.append((name, verdicts))
    now = set()
    for path in now_files:
        with open(path, encoding="utf-8") as f:
            now |= {r["follow_up"] for r in csv.DictReader(f, delimiter="\t")}
    with open(draw_path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    fields = ["case_id", "sheet_id", "path", "validity_passed"]
    fields += ["emitted_now"] if now_files else []
    fields += ["relation", "source", "follow_up", "reference"]
    for name, _ in readers:
        fields += [f"natural_{name}", f"valid_{name}", f"reason_{name}"]
    tally = defaultdict(lambda: [0, 0, 0, 0])
    with open(out_path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, delimiter="\t", lineterminator="\n")
        w.writeheader()
        for row in rows:
            out = {k: row[k] for k in ("case_id", "sheet_id", "path", "validity_passed",
                                       "relation", "source", "follow_up", "reference")}
            if now_files:
                out["emitted_now"] = "true" if row["follow_up"] in now else "false"
            natural = valid = True
            for name, verdicts in readers:
                v = verdicts[row["sheet_id"]]
                out[f"natural_{name}"] = v["natural"]
                out[f"valid_{name}"] = v["valid"]
                out[f"reason_{name}"] = v.get("reason", "")
                natural &= v["natural"] == "yes"
                valid &= v["valid"] == "yes"
            w.writerow(out)
            for key in [(row["relation"], row["path"], "all")] + (
                [(row["relation"], row["path"], "emitted now")]
                if now_files and out["emitted_now"] == "true" else []
            ):
                t = tally[key]
                t[0] += 1
                t[1] += natural
                t[2] += valid
                t[3] += natural and valid
    for (relation, path, part), (n, nat, val, both) in sorted(tally.items()):
        print(f"{relation}\t{path}\t{part}\trows {n}\tnatural {nat} ({100 * nat / n:.0f}%)\t"
              f"valid {val} ({100 * val / n:.0f}%)\tboth {both} ({100 * both / n:.0f}%)")


if __name__ == "__main__":
    main(sys.argv[1:])
