#!/usr/bin/env python3
"""Writes the held-out GAP slice of the CREST-predictions readings: GAP validation rows
301-400 (1-based, after the header), which no CREST rule and no earlier reading of this path
had drawn from.

    python3 docs/validity/crest-predictions/make_inputs.py ../shared/data/coref/gap/gap-validation.tsv /tmp/gap301_400.tsv
    metamorph preview --config examples/configs/crest_predictions.toml --relations CREST \
        --dataset /tmp/gap301_400.tsv --format gap --sample 100000 --seed 7 --validate --tsv cases.tsv
"""
import sys


def main(source: str, target: str) -> None:
    with open(source, encoding="utf-8") as f:
        lines = f.read().split("\n")
    header, rows = lines[0], [line for line in lines[1:] if line.strip()]
    with open(target, "w", encoding="utf-8") as f:
        f.write("\n".join([header] + rows[300:400]) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: make_inputs.py GAP_VALIDATION_TSV OUT_TSV")
    main(sys.argv[1], sys.argv[2])
