"""Inputs of MR2-3's reading 31 (2026-12-02): sentences of three corpora no MR2-3 rule was
written against, all from the original (unperturbed) side of the contrast sets of Gardner et
al. (2020), in their public repository:

- `ropes`: ROPES's background passages (science text from textbooks and Wikipedia) and
  situations (short stories crowd workers wrote), `ropes/data/ropes_contrast_set_original_032820.json`;
- `quoref`: Quoref's Wikipedia passages (film plots, biographies, histories),
  `quoref/quoref_original_subset_20191206_merged.json`;
- `ud`: the English Web Treebank test sentences of the UD contrast set (reviews, e-mail,
  newsgroups, blogs), the `# text =` lines of `UD_English/en_combo-ud-test.original_only.*.conllu`.

Each passage is split at sentence-final punctuation before a capital or a quote; sentences of
fewer than four words and repeats are left out. Each sentence becomes the passage of one
BoolQ-format record under a placeholder question (MR2-3 edits only the passage; readers judge
whether the rewritten sentence states what the source sentence states), its `idx` prefixed by
the corpus's name.

    python3 make_contrast_sets_inputs.py OUT_JSONL ROPES_JSON QUOREF_JSON UD_CONLLU...
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv contrast.tsv
"""
import json
import re
import sys


def sentences(text):
    text = " ".join(text.split())
    return re.split(r'(?<=[.!?])\s+(?=["A-Z])', text)


def passages(ropes, quoref, uds):
    with open(ropes, encoding="utf-8") as f:
        for article in json.load(f)["data"]:
            for paragraph in article["paragraphs"]:
                yield "ropes", paragraph["background"]
                yield "ropes", paragraph["situation"]
    with open(quoref, encoding="utf-8") as f:
        for article in json.load(f)["data"]:
            for paragraph in article["paragraphs"]:
                yield "quoref", paragraph["context"]
    for ud in uds:
        with open(ud, encoding="utf-8") as f:
            for line in f:
                if line.startswith("# text = "):
                    yield "ud", line[len("# text = "):]


def main(out, ropes, quoref, *uds):
    seen = set()
    counts = {}
    with open(out, "w", encoding="utf-8") as w:
        for corpus, text in passages(ropes, quoref, uds):
            for sentence in sentences(text):
                if len(sentence.split()) < 4 or sentence in seen:
                    continue
                seen.add(sentence)
                n = counts.get(corpus, 0)
                counts[corpus] = n + 1
                w.write(json.dumps({"question": "is this about a person",
                                    "passage": sentence, "label": True,
                                    "idx": f"{corpus}-{n}"}) + "\n")
    print(counts, "->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
