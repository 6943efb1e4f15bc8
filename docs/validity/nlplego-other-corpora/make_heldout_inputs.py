"""Held-out input for NLPLego-SA: sentences no reader and no rule has seen.

`make_inputs.py` drew the first reading's sentences (LitBank, and one or two sentences of 626
BoolQ passages). The rules written after that reading answer its rows, so their effect is
measured here on other text:

* one sentence (8-35 words) of each BoolQ passage that `make_inputs.py` did not touch, in a
  seeded order (seed 20261130);
* every sentence (8-35 words) of the four DROP passages (`../shared/data/drop`: NFL game
  reports and a history passage), which no NLPLego rule or reading has used.

Written as a `sentiment-tsv` file (the label column is a placeholder, as in `make_inputs.py`):
`sa_heldout_sentences.tsv`, the second reading's input.

The rules written after the second reading answer its rows in turn, so a third file,
`sa_third_sentences.tsv`, holds text that neither reading nor any NLPLego rule has used: 200
FewRel sentences (`../shared/data/fewrel`, Wikipedia) and one sentence of each of 150 GAP
snippets (`../shared/data/coref/gap`, Wikipedia), 8-35 words each, drawn with seed 20261131.

    python make_heldout_inputs.py SHARED_DATA_DIR OUT_DIR
"""
import csv
import json
import os
import random
import re
import sys

from make_inputs import SENTENCE_END


def passage_sentences(passage):
    return [s for s in re.split(SENTENCE_END, passage)
            if 8 <= len(s.split()) <= 35 and s[-1] in ".!?"]


def first_reading_passages(path):
    """The BoolQ passages `make_inputs.py` drew from (SSM pairs and SA sentences), as text: several
    questions share a passage, and a shared passage counts as drawn for all of them."""
    rng = random.Random(20261129)
    with_pairs = []
    with open(path) as f:
        for line in f:
            passage = json.loads(line)["passage"].split(" -- ", 1)[-1]
            sentences = passage_sentences(passage)
            consecutive = list(zip(sentences, sentences[1:]))
            if consecutive:
                rng.choice(consecutive)
                with_pairs.append(passage)
    rng.shuffle(with_pairs)
    # make_inputs.py: 300 pairs for SSM, then one sentence of each of the next passages for SA
    # (326 of them, after LitBank's 74 sentences).
    return set(with_pairs[:300 + 326])


def write_sentences(path, sentences):
    """A `sentiment-tsv` file: unquoted tab-separated text, as metamorph reads it."""
    with open(path, "w") as f:
        f.write("sentence\tlabel\n")
        for s in sentences:
            f.write(s.replace("\t", " ") + "\t1\n")


def main(shared, out):
    boolq = os.path.join(shared, "boolq", "superglue_boolq_val_first1000.jsonl")
    used = first_reading_passages(boolq)
    rng = random.Random(20261130)
    chosen, seen = [], set()
    with open(boolq) as f:
        for line in f:
            passage = json.loads(line)["passage"].split(" -- ", 1)[-1]
            if passage in used or passage in seen:
                continue
            seen.add(passage)
            # A sentence can recur in another passage (a series' seasons): not one read before.
            sentences = [s for s in passage_sentences(passage) if not any(s in u for u in used)]
            if sentences:
                chosen.append(rng.choice(sentences))
    boolq_count = len(chosen)
    with open(os.path.join(shared, "drop", "drop_dataset_dev_sample.json")) as f:
        drop = json.load(f)
    for key in sorted(drop):
        chosen.extend(passage_sentences(drop[key]["passage"]))
    os.makedirs(out, exist_ok=True)
    write_sentences(os.path.join(out, "sa_heldout_sentences.tsv"), chosen)
    print(boolq_count, "BoolQ sentences and", len(chosen) - boolq_count, "DROP sentences for SA")
    third = third_reading_sentences(shared)
    write_sentences(os.path.join(out, "sa_third_sentences.tsv"), third)
    print(len(third), "FewRel and GAP sentences for the third reading")
    fourth = third_reading_sentences(shared, reading=4)
    write_sentences(os.path.join(out, "sa_fourth_sentences.tsv"), fourth)
    print(len(fourth), "FewRel and GAP sentences for the fourth reading")


def third_reading_sentences(shared, reading=3):
    """200 FewRel sentences, then one sentence of each of 150 GAP snippets (see the module docs);
    `reading=4` gives the next 200 and 150, which the third reading did not draw."""
    from make_inputs import detokenize
    rng = random.Random(20261131)
    with open(os.path.join(shared, "fewrel", "fewrel_val_wiki_first62_per_relation.json")) as f:
        fewrel = json.load(f)
    sentences = sorted({detokenize(instance["tokens"]) for instances in fewrel.values()
                        for instance in instances})
    sentences = [s for s in sentences if 8 <= len(s.split()) <= 35 and s[-1] in ".!?"]
    chosen = rng.sample(sentences, 200)
    if reading == 4:
        third = set(chosen)
        chosen = random.Random(20261201).sample([s for s in sentences if s not in third], 200)
    with open(os.path.join(shared, "coref", "gap", "gap-validation.tsv")) as f:
        snippets = [row["Text"] for row in csv.DictReader(f, delimiter="\t")]
    rng.shuffle(snippets)
    for snippet in snippets[150:300] if reading == 4 else snippets[:150]:
        in_snippet = passage_sentences(snippet)
        if in_snippet:
            chosen.append(rng.choice(in_snippet))
    return chosen


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
