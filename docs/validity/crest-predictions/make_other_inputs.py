"""GAP-format coreference snippets from the shared SQuAD, DROP and FewRel files and from BoolQ
passages past each passage's first snippet: reading 6 of CREST on text its rules were not
tuned on (issue 39).

    python3 make_other_inputs.py SHARED_DATA_DIR OUT_TSV

Reading 7 (2026-12-01): the same snippets from HotpotQA's Wikipedia paragraphs (the dev
set's distractor file; a public copy holds its first 53 questions whole, 521 distinct
paragraphs, and is cut short after them, so the items are read one by one until it ends):

    python3 make_other_inputs.py --hotpot HOTPOT_DEV_DISTRACTOR_JSON OUT_TSV

The snippets are cut as `make_boolq_inputs.py` cuts them (the first "he", "him", "his",
"she" or "her" with two given names before it, up to three sentences, A the nearer name
marked coreferent): from every SQuAD 2.0 paragraph (Normans, Rhine), DROP passage and FewRel
sentence (ids `other-N` for the first snippet of text N, `other-N-K` for a later one that
shares no sentence with the one before), then BoolQ's later snippets (`boolq-N-K`, text
reading 5 never showed).
"""
import json
import os
import sys
import tempfile

import make_boolq_inputs as snippets


def passages(shared):
    squad = json.load(open(f"{shared}/squad_v2/dev-v2.0_Normans_Rhine.json", encoding="utf-8"))
    for article in squad["data"]:
        for paragraph in article["paragraphs"]:
            yield paragraph["context"]
    drop = json.load(open(f"{shared}/drop/drop_dataset_dev_sample.json", encoding="utf-8"))
    for passage in drop.values():
        yield passage["passage"]
    fewrel = json.load(
        open(f"{shared}/fewrel/fewrel_val_wiki_first62_per_relation.json", encoding="utf-8"))
    for instances in fewrel.values():
        for instance in instances:
            text = " ".join(instance["tokens"])
            for spaced, glued in [(" ,", ","), (" .", "."), (" 's", "'s"), ("( ", "("), (" )", ")")]:
                text = text.replace(spaced, glued)
            yield text


def main():
    shared, out_path = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = os.path.join(tmp, "passages.jsonl")
        with open(jsonl, "w", encoding="utf-8") as f:
            for text in passages(shared):
                f.write(json.dumps({"passage": text}) + "\n")
        rows = [("other", r) for r in snippets.rows(jsonl)]
        rows += [("other", r) for r in snippets.rows(jsonl, second=True)]
        boolq = f"{shared}/boolq/superglue_boolq_val_first1000.jsonl"
        rows += [("boolq", r) for r in snippets.rows(boolq, second=True)]
    header = ["ID", "Text", "Pronoun", "Pronoun-offset", "A", "A-offset", "A-coref", "B",
              "B-offset", "B-coref", "URL"]
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("\t".join(header) + "\n")
        for prefix, row in rows:
            row[0] = prefix + row[0][len("boolq"):]
            out.write("\t".join(c.replace("\t", " ") for c in row) + "\n")
    print(f"{len(rows)} rows", file=sys.stderr)


def hotpot_paragraphs(path):
    """Each distinct context paragraph of the HotpotQA items the file holds whole."""
    text = open(path, encoding="utf-8").read()
    decoder, i, seen = json.JSONDecoder(), text.index("[") + 1, set()
    while True:
        try:
            item, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            return
        for _title, sentences in item["context"]:
            paragraph = "".join(sentences).strip()
            if paragraph not in seen:
                seen.add(paragraph)
                yield paragraph
        while i < len(text) and text[i] in ", \n":
            i += 1


def hotpot(path, out_path):
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = os.path.join(tmp, "passages.jsonl")
        with open(jsonl, "w", encoding="utf-8") as f:
            for paragraph in hotpot_paragraphs(path):
                f.write(json.dumps({"passage": paragraph}) + "\n")
        rows = list(snippets.rows(jsonl)) + list(snippets.rows(jsonl, second=True))
    header = ["ID", "Text", "Pronoun", "Pronoun-offset", "A", "A-offset", "A-coref", "B",
              "B-offset", "B-coref", "URL"]
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("\t".join(header) + "\n")
        for row in rows:
            row[0] = "hotpot" + row[0][len("boolq"):]
            out.write("\t".join(c.replace("\t", " ") for c in row) + "\n")
    print(f"{len(rows)} rows", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1] == "--hotpot":
        hotpot(sys.argv[2], sys.argv[3])
    else:
        main()
