"""Inputs of MR2-3's reading of WebNLG (Gardent et al. 2017; version 1.6 of its public
repository: `data/v1.6/en/{dev,test}/{1,2}triples/*.xml`), 2026-12-01: crowd-written English
texts that verbalise one or two DBpedia triples ("The Acharya Institute of Technology is
affiliated with the Visvesvaraya Technological University."), a corpus no MR2-3 rule was
written against.

Each distinct text (`lex`) becomes the passage of one BoolQ-format record under a placeholder
question (MR2-3 edits only the passage; readers judge whether the rewritten sentence states
what the source sentence states).

    python3 make_webnlg_inputs.py WEBNLG_V1_6_EN_DIR OUT_JSONL [SPLIT ...]
(splits `dev test` unless named; the sixth reading used `train`, leaving out texts that dev or
test also hold), then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv webnlg.tsv
"""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET


def texts(root, split):
    for path in sorted(glob.glob(os.path.join(root, split, "*triples", "*.xml"))):
        for lex in ET.parse(path).getroot().iter("lex"):
            text = " ".join((lex.findtext("text") or lex.text or "").split())
            if text:
                yield text


def main(root, out, *splits):
    splits = splits or ("dev", "test")
    seen = set()
    if "train" in splits:
        seen = {t for split in ("dev", "test") for t in texts(root, split)}
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        for split in splits:
            for text in texts(root, split):
                if text in seen:
                    continue
                seen.add(text)
                f.write(json.dumps({"question": "is this about a person", "passage": text,
                                    "label": True, "idx": n}) + "\n")
                n += 1
    print(n, "texts ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
