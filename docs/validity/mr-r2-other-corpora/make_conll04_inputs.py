"""MR-R2 inputs from CoNLL04 (Roth and Yih 2004): news sentences (TREC's AP and WSJ articles)
with people, organisations and locations and the relations between them, in the token-per-line
form of a public joint-extraction repository (`data/CoNLL04/{train,dev,test}.txt`: index,
token, BIO tag, relations, head indices; a relation sits on the last token of its head entity
and points at the last token of its tail entity). No MR-R2 rule was written against them.

Its three place relations become FewRel-style instances under the Wikidata property that says
the same: Live_In (a person lives in a place) → P551 residence, OrgBased_In (an organisation is
based in a place) → P159 headquarters location, Located_In (a place lies in another) → P131.
One instance per labelled pair (the sentence's tokens, head and tail spans from the BIO tags);
a sentence holds its first such pair of each relation only, so that one sentence does not
dominate.

    python make_conll04_inputs.py CONLL04_DIR OUT_FILE
"""
import ast
import json
import os
import sys

RELATIONS = {"Live_In": "P551", "OrgBased_In": "P159", "Located_In": "P131"}


def documents(path):
    doc = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#doc"):
                if doc:
                    yield doc
                doc = []
            elif line.strip():
                index, token, tag, relations, heads = line.split("\t")
                doc.append((token, tag, ast.literal_eval(relations), ast.literal_eval(heads)))
    if doc:
        yield doc


def entity_spans(doc):
    """Last token index → [start, …, last] of the entity it ends."""
    spans, start = {}, None
    for i, (_, tag, _, _) in enumerate(doc):
        if tag.startswith("B-"):
            start = i
        if tag == "O":
            start = None
        if start is not None and (i + 1 == len(doc) or not doc[i + 1][1].startswith("I-")):
            spans[i] = list(range(start, i + 1))
            start = None
    return spans


def main(root, out_path):
    out = {}
    for part in ["train", "dev", "test"]:
        for doc in documents(os.path.join(root, f"{part}.txt")):
            tokens = [t for t, _, _, _ in doc]
            spans = entity_spans(doc)
            taken = set()
            for i, (_, _, relations, heads) in enumerate(doc):
                for relation, j in zip(relations, heads):
                    wikidata = RELATIONS.get(relation)
                    if wikidata is None or wikidata in taken or i not in spans or j not in spans:
                        continue
                    taken.add(wikidata)
                    head, tail = spans[i], spans[j]
                    name = lambda span: " ".join(tokens[k] for k in span)
                    out.setdefault(wikidata, []).append({
                        "tokens": tokens,
                        "h": [name(head), "", [head]],
                        "t": [name(tail), "", [tail]],
                    })
    with open(out_path, "w") as f:
        json.dump(out, f)
    for relation, rows in out.items():
        print(relation, len(rows), file=sys.stderr)
    print("total", sum(len(r) for r in out.values()), file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
