"""Inputs for the fifth NLPLego-SA reading (the `lm_end_cut` check), on text no reading used.

* `wordnet_sa5.tsv`: WordNet 3.1 usage examples, the fifth disjoint sample of
  `../nlplego-wordnet-examples/make_inputs.py` (seed 20261215); not written here.
* `boolq_sa5.tsv` (this script): one sentence (8-35 words, ending with `.`, `!` or `?`) of each
  BoolQ passage (Wikipedia) in a seeded order (seed 20261215), none of them a sentence that
  `../nlplego-other-corpora/make_inputs.py` or `make_heldout_inputs.py` wrote (the SA readings'
  sentences and the SSM pairs'), 300 in all. Several questions share a passage; each passage
  gives one sentence at most.
* `wiki_sa6.tsv` (this script): the sixth reading's, Wikipedia text of two other files: 150
  FewRel sentences and one sentence of each of 150 GAP snippets (8-35 words), none drawn by
  `make_heldout_inputs.py`'s third or fourth reading (seed 20261216).

    python make_inputs.py SHARED_DATA_DIR OUT_DIR
"""
import csv
import json
import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nlplego-other-corpora"))

import make_heldout_inputs  # noqa: E402
import make_inputs as first_reading  # noqa: E402


def used_sentences(shared):
    """Every sentence the earlier NLPLego readings' input files hold."""
    used = set()
    with tempfile.TemporaryDirectory() as tmp:
        first_reading.main(shared, tmp)
        make_heldout_inputs.main(shared, tmp)
        for name in os.listdir(tmp):
            with open(os.path.join(tmp, name)) as f:
                for line in f.read().splitlines()[1:]:
                    used.update(part for part in line.split("\t") if len(part.split()) > 2)
    return used


def main(shared, out):
    used = used_sentences(shared)
    rng = random.Random(20261215)
    with open(os.path.join(shared, "boolq", "superglue_boolq_val_first1000.jsonl")) as f:
        passages = list(dict.fromkeys(json.loads(line)["passage"].split(" -- ", 1)[-1]
                                      for line in f))
    rng.shuffle(passages)
    chosen = []
    for passage in passages:
        fresh = [s for s in make_heldout_inputs.passage_sentences(passage)
                 if s not in used and not any(s in u or u in s for u in used if len(u) > 40)]
        if fresh:
            chosen.append(rng.choice(fresh))
        if len(chosen) == 300:
            break
    os.makedirs(out, exist_ok=True)
    make_heldout_inputs.write_sentences(os.path.join(out, "boolq_sa5.tsv"), chosen)
    print(len(chosen), "BoolQ sentences no earlier reading used")
    wiki = wiki_sentences(shared, used)
    make_heldout_inputs.write_sentences(os.path.join(out, "wiki_sa6.tsv"), wiki)
    print(len(wiki), "FewRel and GAP sentences no earlier reading used")


def wiki_sentences(shared, used):
    """150 FewRel sentences and one sentence of each of 150 GAP snippets, none used before."""
    rng = random.Random(20261216)
    with open(os.path.join(shared, "fewrel", "fewrel_val_wiki_first62_per_relation.json")) as f:
        fewrel = json.load(f)
    sentences = sorted({first_reading.detokenize(instance["tokens"])
                        for instances in fewrel.values() for instance in instances})
    sentences = [s for s in sentences
                 if 8 <= len(s.split()) <= 35 and s[-1] in ".!?" and s not in used]
    chosen = rng.sample(sentences, 150)
    with open(os.path.join(shared, "coref", "gap", "gap-validation.tsv")) as f:
        snippets = [row["Text"] for row in csv.DictReader(f, delimiter="\t")]
    rng.shuffle(snippets)
    for snippet in snippets:
        fresh = [s for s in make_heldout_inputs.passage_sentences(snippet) if s not in used]
        if fresh:
            chosen.append(rng.choice(fresh))
            used.add(chosen[-1])
        if len(chosen) == 300:
            break
    return chosen


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
