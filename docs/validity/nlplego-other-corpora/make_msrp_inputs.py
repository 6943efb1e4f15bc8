"""Inputs of NLPLego-SSM's reading on news paraphrase pairs (2026-12-02): the first N pairs
(default 500) of the Microsoft Research Paraphrase Corpus's test file (`msr_paraphrase_test.txt`:
`Quality`, `#1 ID`, `#2 ID`, `#1 String`, `#2 String`; news sentences of 2003–04; a public copy
is in the galsang/ABCNN repository's `MSRP_Corpus/`), none of which any NLPLego rule or limit
was written against, written as a `paraphrase-tsv` file in PAWS's columns (`id`, `sentence1`,
`sentence2`, `label`).

    python3 make_msrp_inputs.py OUT_TSV MSRP_TEST_TXT [N]
then
    metamorph preview --dataset OUT_TSV --format paraphrase-tsv --relations NLPLego-SSM \\
        --sample 100000 --seed 1 --validate --tsv msrp.tsv
"""
import csv
import sys


def main(out, path, n="500"):
    with open(path, encoding="utf-8-sig", newline="") as f, \
            open(out, "w", encoding="utf-8", newline="") as w:
        # The strings hold quotation marks but no tabs: written as they are, unquoted.
        w.write("id\tsentence1\tsentence2\tlabel\n")
        rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        for i, row in zip(range(int(n)), rows):
            w.write(f"{i + 1}\t{row['#1 String']}\t{row['#2 String']}\t{row['Quality']}\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
