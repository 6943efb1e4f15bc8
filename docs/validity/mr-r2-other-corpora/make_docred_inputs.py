"""MR-R2 inputs from a corpus no MR-R2 rule was written against: Re-DocRED's Wikipedia
documents (Tan et al. 2022, the revised DocRED annotation; its public repository's
`data/dev_revised.json` and `data/test_revised.json`).

MR-R2 needs a place relation whose tail is a city (Wikidata P19 place of birth, P20 place of
death, P551 residence, P159 headquarters location, P740 location of formation, P937 work
location, P131 located in the administrative territorial entity); none of the 16 relations of
the shared FewRel sample is one, so it made no case there. Re-DocRED labels these relations
between entities of whole documents, with the sentences that support each label (`evidence`).
A label supported by one sentence alone, where the tail is mentioned once and a head mention
too, becomes one FewRel-style instance (the sentence's tokens, the first such head mention, the
tail mention; entity ids left empty), under its Wikidata property: so the sentence itself
states the relation, as FewRel's sentences do. (A first version took every pair of mentions
in one sentence; on the tuning half, readers found a third of its rows stating no such
relation: a statue of Lloyd George "in London" as his work location, the first of two
"Paris" in "( 1815 in Paris - 1851 , Paris )" as a place of death.)
Documents in file order, labels in document order. The development file is the tuning half (its
reading led to the rules of 2026-12-01), the test file the held-out half.

    python make_inputs.py DEV_REVISED_JSON|TEST_REVISED_JSON OUT_FILE
"""
import json
import sys

PLACE_RELATIONS = ["P19", "P20", "P551", "P159", "P740", "P937", "P131"]


def instances(path):
    with open(path) as f:
        documents = json.load(f)
    out = {r: [] for r in PLACE_RELATIONS}
    for doc in documents:
        vertices = doc["vertexSet"]
        seen = set()
        for label in doc["labels"]:
            relation = label["r"]
            if relation not in out:
                continue
            heads, tails = vertices[label["h"]], vertices[label["t"]]
            evidence = label.get("evidence") or []
            if len(evidence) != 1:
                continue
            sent = evidence[0]
            in_sentence = lambda mentions: [m for m in mentions if m["sent_id"] == sent]
            sentence_heads, sentence_tails = in_sentence(heads), in_sentence(tails)
            if len(sentence_tails) != 1:
                continue
            pair = next(
                ((h, t) for h in sentence_heads for t in sentence_tails
                 if h["pos"][1] <= t["pos"][0] or t["pos"][1] <= h["pos"][0]),
                None,
            )
            if pair is None:
                continue
            head, tail = pair
            tokens = doc["sents"][head["sent_id"]]
            key = (relation, head["sent_id"], tuple(head["pos"]), tuple(tail["pos"]))
            if key in seen:
                continue
            seen.add(key)
            span = lambda m: list(range(m["pos"][0], m["pos"][1]))
            text = lambda m: " ".join(tokens[m["pos"][0]:m["pos"][1]])
            out[relation].append({
                "tokens": tokens,
                "h": [text(head), "", [span(head)]],
                "t": [text(tail), "", [span(tail)]],
            })
    return out


def main(argv):
    _, in_path, out_path = argv
    merged = {r: rows for r, rows in instances(in_path).items() if rows}
    with open(out_path, "w") as f:
        json.dump(merged, f)
    for relation, rows in merged.items():
        print(relation, len(rows), file=sys.stderr)
    print("total", sum(len(r) for r in merged.values()), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
