#!/usr/bin/env python3
"""Write gender-guesser's own verdicts on a sample of its first names, which the Rust reader
(perturb/src/lexicon/first_names.rs) is tested against.

Usage: python3 scripts/first_names_golden.py [--package DIR] [--out FILE]

DIR is the unpacked `gender-guesser` 0.4.0 wheel, the `first-names` asset's folder above
`gender_guesser/data` (default: ~/.cache/metamorph/assets/first-names/0.4.0, or under
$METAMORPH_HOME; `cargo xtask assets first-names` fetches it). The package is pure Python and
is imported from there, so no virtualenv is needed.

Output: a TSV of `name`, `verdict` (the package's `Detector(case_sensitive=False).get_gender`:
male, mostly_male, female, mostly_female, andy, unknown) for every 97th name of the dictionary
plus the names the Rust tests use by name.
"""

import argparse
import os
import sys

NAMED = ["Anna", "Antonia", "Christopher", "Dorothy", "Elizabeth", "Giuseppe", "Hans",
         "Kirstine", "Michael", "Sam", "Shalini", "Andrea", "Vladimir", "Zzyzx"]


def main():
    home = os.environ.get("METAMORPH_HOME", os.path.expanduser("~/.cache/metamorph"))
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", default=os.path.join(home, "assets", "first-names", "0.4.0"))
    ap.add_argument("--out", default="perturb/tests/fixtures/first_names_golden.tsv")
    args = ap.parse_args()
    sys.path.insert(0, args.package)
    from gender_guesser.detector import Detector

    detector = Detector(case_sensitive=False)
    path = os.path.join(args.package, "gender_guesser", "data", "nam_dict.txt")
    names = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line or line[0] in "#=" or (len(line) > 29 and line[29] == "+"):
                continue
            name = line[3:29].strip()
            if "+" not in name:
                names.append(name)
    sample = sorted(set(names[::97]) | set(NAMED))
    with open(args.out, "w", encoding="utf-8") as out:
        out.write("name\tverdict\n")
        for name in sample:
            out.write(f"{name}\t{detector.get_gender(name)}\n")
    print(f"{len(sample)} names -> {args.out}")


if __name__ == "__main__":
    main()
