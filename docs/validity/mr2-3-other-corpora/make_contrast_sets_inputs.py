"""Inputs of MR2-3's readings 31 and 32 (2026-12-02): sentences of corpora no MR2-3 rule was
written against, all from the original (unperturbed) side of the contrast sets of Gardner et
al. (2020), in their public repository:

- `ropes=`: ROPES's background passages (science text from textbooks and Wikipedia) and
  situations (short stories crowd workers wrote), `ropes/data/ropes_contrast_set_original_032820.json`;
- `quoref=`: Quoref's Wikipedia passages (film plots, biographies, histories),
  `quoref/quoref_original_subset_20191206_merged.json`;
- `ud=`: the English Web Treebank test sentences of the UD contrast set (reviews, e-mail,
  newsgroups, blogs), the `# text =` lines of `UD_English/en_combo-ud-test.original_only.*.conllu`
  (the argument may repeat);
- `perspectrum=`: PERSPECTRUM's claims and perspectives (arguments from debate websites),
  `perspectrum/perspectrum_contrast_sets.csv` (`original_claim`, `perspective`);
- `matres=`: MATRES's news sentences (New York Times, 2013), `MATRES/Platinum_subset_original.xml`
  (tokens `word///lemma///tag///role`, joined and detokenised);
- `mctaco=`: MC-TACO's sentences (MultiRC's news, fiction and science text), `MCTACO/original.tsv`
  (the text of `sentence1` before its question).

and one more news corpus, not a contrast set:

- `msrp=`: the Microsoft Research Paraphrase Corpus's test pairs (news sentences of 2003–04),
  `msr_paraphrase_test.txt` (`#1 String`, `#2 String`; a public copy is in the
  galsang/ABCNN repository's `MSRP_Corpus/`).

and short customer reviews:

- `uci=`: Kotzias et al.'s (2015) "sentiment labelled sentences" (UCI), one review sentence and
  its label per line: `amazon_cells_labelled.txt` (phones), `yelp_labelled.txt`
  (restaurants), `imdb_labelled.txt` (films), each prefixed by its file's first word.

Reading 31 took `ropes`, `quoref` and `ud`; reading 32 `perspectrum`, `matres`, `mctaco` and
`msrp`; reading 33 `uci` (Amazon's and Yelp's; IMDb's apart, as reading 30 read films).
Each passage is split at sentence-final punctuation before a capital or a quote; sentences of
fewer than four words and repeats are left out. Each sentence becomes the passage of one
BoolQ-format record under a placeholder question (MR2-3 edits only the passage; readers judge
whether the rewritten sentence states what the source sentence states), its `idx` prefixed by
the corpus's name.

    python3 make_contrast_sets_inputs.py OUT_JSONL ropes=ROPES_JSON quoref=QUOREF_JSON \\
        ud=UD_CONLLU ud=UD_CONLLU
    python3 make_contrast_sets_inputs.py OUT_JSONL perspectrum=CSV matres=XML mctaco=TSV \\
        msrp=MSRP_TEST_TXT msrp=MSRP_TRAIN_TXT
    python3 make_contrast_sets_inputs.py OUT_JSONL uci=AMAZON_TXT uci=YELP_TXT
then
    metamorph preview --dataset OUT_JSONL --format boolq --relations MR2-3 \\
        --sample 100000 --seed 1 --validate --tsv contrast.tsv
"""
import csv
import json
import os
import re
import sys


def sentences(text):
    text = " ".join(text.split())
    return re.split(r'(?<=[.!?])\s+(?=["A-Z])', text)


def detokenise(words):
    text = " ".join(words)
    text = re.sub(r" ([.,;:!?%)\]}]|'s|n't|'re|'ve|'ll|'d|'m)(?=\s|$)", r"\1", text)
    text = re.sub(r"([(\[{$]) ", r"\1", text)
    text = re.sub(r'" (.*?) "', r'"\1"', text)
    return text


def ropes(path):
    with open(path, encoding="utf-8") as f:
        for article in json.load(f)["data"]:
            for paragraph in article["paragraphs"]:
                yield paragraph["background"]
                yield paragraph["situation"]


def quoref(path):
    with open(path, encoding="utf-8") as f:
        for article in json.load(f)["data"]:
            for paragraph in article["paragraphs"]:
                yield paragraph["context"]


def ud(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("# text = "):
                yield line[len("# text = "):]


def perspectrum(path):
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            yield row["original_claim"]
            yield row["perspective"]


def matres(path):
    with open(path, encoding="utf-8") as f:
        xml = f.read()
    for unit in re.findall(r"<SENTENCE [^>]*>(.*?)</SENTENCE>", xml, re.S):
        words = [t.split("///")[0] for t in unit.split()]
        yield detokenise(words).replace("&amp;", "&").replace("&quot;", '"')


def mctaco(path):
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            # `sentence1` is the sentence, then the question after it.
            found = re.match(r"(.*?[.!?\"])\s+[A-Z][^.!?]*\?$", row["sentence1"])
            if found:
                yield found.group(1)


def msrp(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            yield row["#1 String"]
            yield row["#2 String"]


def uci(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            sentence, _, label = line.rstrip("\n").rpartition("\t")
            if label in ("0", "1"):
                yield sentence


READERS = {"ropes": ropes, "quoref": quoref, "ud": ud, "perspectrum": perspectrum,
           "matres": matres, "mctaco": mctaco, "msrp": msrp,
           "uci": uci}


def main(out, *named):
    seen = set()
    counts = {}
    with open(out, "w", encoding="utf-8") as w:
        for argument in named:
            reader, _, path = argument.partition("=")
            corpus = reader
            if reader == "uci":
                corpus = os.path.basename(path).split("_")[0]
            for text in READERS[reader](path):
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
