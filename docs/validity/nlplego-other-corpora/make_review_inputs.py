"""Inputs of NLPLego-SA's reading on customer reviews (2026-12-02): Kotzias et al.'s (2015)
"sentiment labelled sentences" (UCI; `amazon_cells_labelled.txt`, `yelp_labelled.txt`,
`imdb_labelled.txt`, one review sentence and its 0/1 label per line), none of which any
NLPLego rule or limit was written against, joined in that order into one `sentiment-tsv` file
(`sentence`, `label`).

    python3 make_review_inputs.py OUT_TSV AMAZON_TXT YELP_TXT IMDB_TXT
then
    metamorph preview --dataset OUT_TSV --format sentiment-tsv --relations NLPLego-SA \\
        --sample 100000 --seed 1 --validate --tsv reviews.tsv

A case's id (`sentiment-lineN`) names the output file's line, header included.
"""
import sys


def main(out, *paths):
    with open(out, "w", encoding="utf-8") as w:
        w.write("sentence\tlabel\n")
        for path in paths:
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    sentence, _, label = line.rstrip("\r\n").rpartition("\t")
                    if label in ("0", "1") and sentence:
                        w.write(f"{sentence}\t{label}\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
