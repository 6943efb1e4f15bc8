"""Inputs of MR2-3's reading of Wikipedia prose from three sources no MR2-3 rule was written
against (2026-12-01, reading 24), after the rules that Re-DocRED's and WebNLG's readings led to:

* `gap`: the 454 GAP validation snippets (`../shared/data/coref/gap/gap-validation.tsv`;
  Wikipedia paragraphs chosen for their pronouns), titled by their article's URL;
* `hotpot`: every distinct paragraph of HotpotQA's dev distractor file (a public copy holds
  its first 53 questions whole; the path given as HOTPOT_JSON), titled by its article;
* `squad`: the paragraphs of a SQuAD 2.0 file's articles that are not in the shared file
  (Normans, Rhine): a public copy of the dev set holds its first five articles, four of them
  unread (Computational complexity theory, Southern California, Sky (United Kingdom),
  Victoria (Australia)).

Each text becomes the passage of one BoolQ-format record ("Title -- text", as BoolQ writes its
passages), under a placeholder question (MR2-3 edits only the passage; readers judge whether
the rewritten sentence states what the source sentence states).

    python3 make_wikipedia_inputs.py SHARED_DATA_DIR HOTPOT_JSON SQUAD_DEV_JSON OUT_JSONL
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv wikipedia.tsv
"""
import csv
import json
import os
import sys
import urllib.parse


def gap(shared):
    with open(os.path.join(shared, "coref", "gap", "gap-validation.tsv"), encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            title = urllib.parse.unquote(row["URL"].rsplit("/", 1)[-1]).replace("_", " ")
            yield "gap", title, row["Text"]


def hotpot(path):
    text = open(path, encoding="utf-8").read()
    decoder, i = json.JSONDecoder(), text.index("[") + 1
    while True:
        try:
            item, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            return
        for title, sentences in item["context"]:
            yield "hotpot", title, "".join(sentences).strip()
        while i < len(text) and text[i] in ", \n":
            i += 1


def squad(shared, path):
    with open(os.path.join(shared, "squad_v2", "dev-v2.0_Normans_Rhine.json"), encoding="utf-8") as f:
        read = {a["title"] for a in json.load(f)["data"]}
    with open(path, encoding="utf-8") as f:
        for article in json.load(f)["data"]:
            if article["title"] not in read:
                for paragraph in article["paragraphs"]:
                    yield "squad", article["title"].replace("_", " "), paragraph["context"]


def main(shared, hotpot_json, squad_json, out):
    seen, counts = set(), {}
    with open(out, "w", encoding="utf-8") as f:
        for corpus, title, text in [*gap(shared), *hotpot(hotpot_json), *squad(shared, squad_json)]:
            if text in seen:
                continue
            seen.add(text)
            f.write(json.dumps({"question": "is this about a person",
                                "passage": f"{title} -- {text}",
                                "label": True, "idx": len(seen) - 1, "corpus": corpus}) + "\n")
            counts[corpus] = counts.get(corpus, 0) + 1
    print(counts, "->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
