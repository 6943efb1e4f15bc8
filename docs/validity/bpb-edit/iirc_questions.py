"""IIRC's questions as a BREAK file: a corpus no `edit` builder rule was written against.

The BPB authors' repository (`mega002/qdmr-based-question-generation`, `data/iirc_data.zip`)
ships their IIRC contrast set; its `iirc_dev_example_info_contrast_set.json` gives, for each of
587 IIRC dev questions (Wikipedia biographies and their linked articles), the question and the
QDMR their parser predicted for it. This writes those as BREAK's CSV
(`question_id,question_text,decomposition,split`; no operators column: BPB finds each
step's operator from its text) so that
`cargo run -p metamorph-generate --example bpb_edit_questions -- iirc.csv out.tsv --source IIRC`
perturbs and builds them as it does BREAK's own questions. Ids are `IIRC_dev_<passage>_<qid>`,
so BPB applies its IIRC rules (ChangeLast "the same as" only).

    python3 iirc_questions.py iirc_dev_example_info_contrast_set.json iirc.csv
"""

import csv
import json
import sys


def main(source, out):
    rows = {}
    for info in json.load(open(source, encoding="utf-8")):
        qid = info["orig_qid"]
        if qid in rows:
            continue
        passage = info["passage_id"].split("+", 1)[0]
        steps = " ;".join("return " + step for step in info["decomposition"])
        rows[qid] = (f"IIRC_dev_{passage}_{qid}", info["question"], steps, "dev")
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["question_id", "question_text", "decomposition", "split"])
        writer.writerows(rows.values())
    print(f"{len(rows)} questions -> {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
