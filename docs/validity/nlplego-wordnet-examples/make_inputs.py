"""NLPLego-SA inputs from WordNet 3.1's usage examples, text no NLPLego rule was written for.

Reads the BoolQ-style JSON Lines file that `../mr2-3-other-corpora/make_heldout_inputs.py`
writes (every usage example of six words or more, one per line as `passage`), keeps the
examples of 8-35 words, and writes five disjoint seeded samples of 500 as `sentiment-tsv`
files (the label column is a placeholder; NLPLego-SA's expectation does not read it):

* `wordnet_sa.tsv` (seed 20261205): the first reading, before any rule from it;
* `wordnet_sa2.tsv` (seed 20261207, sentences not in the first): the second reading, after the
  rules from the first;
* `wordnet_sa3.tsv` (seed 20261209, sentences in neither): the third reading, after the rules
  from the first two;
* `wordnet_sa4.tsv` (seed 20261211, in none of the first three): the fourth reading, with the
  `lm_seam` check;
* `wordnet_sa5.tsv` (seed 20261215, in none of the first four): the fifth reading, with the
  `lm_end_cut` check.

    python make_inputs.py WORDNET_EXAMPLES_JSONL OUT_DIR
"""
import json
import os
import random
import sys


def write(path, sentences):
    with open(path, "w") as f:
        f.write("sentence\tlabel\n")
        for s in sentences:
            f.write(s + "\t1\n")


def main(examples, out_dir):
    with open(examples) as f:
        sentences = [json.loads(line)["passage"] for line in f]
    sentences = [s for s in sentences if 8 <= len(s.split()) <= 35 and "\t" not in s]
    used = set()
    for name, seed in [("wordnet_sa.tsv", 20261205), ("wordnet_sa2.tsv", 20261207),
                       ("wordnet_sa3.tsv", 20261209), ("wordnet_sa4.tsv", 20261211),
                       ("wordnet_sa5.tsv", 20261215)]:
        rest = [s for s in sentences if s not in used]
        random.seed(seed)
        pick = random.sample(rest, 500)
        used.update(pick)
        write(os.path.join(out_dir, name), pick)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
