"""Inputs of MR2-3's reading of KBP37's sentences (2026-12-01, reading 29): the sentences of
KBP37's `test.txt` (news and web text of the TAC KBP slot-filling collections, annotated for
relation classification; Zhang and Wang, 2015), in file order, their `<e1>`/`<e2>` entity marks
removed. No MR2-3 rule was written against KBP37; it was read under the final code of the
session, with and without the LM choosing where a phrase after the object goes.

Each sentence becomes the passage of one BoolQ-format record (tokens detokenized), under a
placeholder question (MR2-3 edits only the passage; readers judge whether the rewritten
sentence states what the source sentence states).

    python3 make_kbp37_inputs.py KBP37_TEST_TXT OUT_JSONL
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv kbp37.tsv
"""
import json
import re
import sys


def detokenize(text):
    text = re.sub(r"</?e[12]>", " ", text)
    text = " ".join(text.split()).replace("``", '"').replace("''", '"')
    text = re.sub(r" ([,.;:!?%)\]])", r"\1", text)
    text = re.sub(r"([(\[$]) ", r"\1", text)
    text = re.sub(r" (n't|'s|'ll|'re|'ve|'d|'m)\b", r"\1", text)
    text = re.sub(r" - ", "-", text)
    return re.sub(r'" (.*?) "', r'"\1"', text)


def main(test_txt, out):
    n = 0
    seen = set()
    with open(test_txt, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as w:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 2 or not fields[0].isdigit():
                continue
            sentence = detokenize(fields[1].strip().strip('"'))
            if sentence in seen:
                continue
            seen.add(sentence)
            w.write(json.dumps({"question": "is this about a person", "passage": sentence,
                                "label": True, "idx": n}) + "\n")
            n += 1
    print(n, "sentences ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
