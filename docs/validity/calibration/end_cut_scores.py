"""Does the LM expect more where NLPLego cut a parent at the end? Measured on the judged
NLPLego-SA rows of docs/validity that carry their dataset sentence and that both built-in LM
checks of a parent's cuts pass (`lm_ending` −6.281 and `lm_seam` −7.38, as `seam_scores.py`
computes them).

    cargo build --release -p metamorph-models --example continuation_scores
    python3 end_cut_scores.py .. ../../../target/release/examples/continuation_scores [RELATION]

RELATION is NLPLego-SA (the default) or NLPLego-SSM (which has no seam limit: only its ending
check filters the rows).

For each row's parent and child that end with `.`, `!` or `?` after two words or more, the words
are aligned with the dataset sentence's (difflib, without case and without the sentence words'
own final punctuation); where the text's last word is aligned with a sentence word that another
word (with a letter or digit) follows, the *end cut* score is `log p(that next word | the text's
words) − log p(the text's punctuation, glued | the same words)` (SmolLM2-135M): high when the LM
expects the cut words rather than an end. A row's score is its highest. The limit is chosen on
the tuning half (FNV-1a of the case id) to keep 95% or 97% of its good rows, and reported on the
held-out half. The validity step's `lm_end_cut` is the negation (`log p(end) − log p(next)`,
at least −limit to pass; `validate/src/seam.rs`).
"""
import collections
import difflib
import re
import subprocess
import sys

import seam_scores as S

SEAM = {"NLPLego-SA": -7.38}


def end_probes(rows, wanted):
    probes = []
    for n, (_, relation, _, source, follow_up, reference) in enumerate(rows):
        if relation != wanted:
            continue
        sentence = S.strip(reference).split()
        bare = [re.sub(r"[.!?]+$", "", w).lower() for w in sentence]
        for text in (source, follow_up):
            for part in text.split(" | "):
                whole = S.strip(part).rstrip()
                m = re.search(r"\s*([.!?]+)$", whole)
                if not m:
                    continue
                words = whole[:m.start()].split()
                if len(words) < 2:
                    continue
                matcher = difflib.SequenceMatcher(None, [w.lower() for w in words], bare,
                                                  autojunk=False)
                blocks = [b for b in matcher.get_matching_blocks() if b.size > 0]
                if not blocks or blocks[-1].a + blocks[-1].size != len(words):
                    continue
                j = blocks[-1].b + blocks[-1].size
                if j >= len(sentence) or not any(ch.isalnum() for ch in sentence[j]):
                    continue
                prefix = " ".join(words)
                probes.append((n, prefix, prefix, sentence[j]))
                probes.append((n, prefix, prefix, "~" + m.group(1)))
    return probes


def main(validity, binary, wanted="NLPLego-SA"):
    rows = S.judged_rows(validity)
    seams, ends = S.probes(rows)
    seam = {n: min(a - b for a, b in s) for n, s in S.score(binary, seams).items()}
    ending = {n: min(a for a, _ in s) for n, s in S.score(binary, ends).items()}
    probes = end_probes(rows, wanted)
    # Probes come in (next word, punctuation) pairs; a pair counts where both were scored.
    text = "".join(f"{k}:{i}\t{a}\t{b}\t{w}\n" for i, (k, a, b, w) in enumerate(probes))
    out = subprocess.run([binary, "smollm2-135m"], input=text, capture_output=True, text=True,
                         check=True).stdout
    by_probe = {int(line.split("\t")[0].split(":")[1]): float(line.split("\t")[1])
                for line in out.splitlines()}
    cut = collections.defaultdict(list)
    for i in range(0, len(probes), 2):
        if i in by_probe and i + 1 in by_probe:
            cut[probes[i][0]].append(by_probe[i] - by_probe[i + 1])
    passing = [n for n, r in enumerate(rows) if r[1] == wanted
               and ending.get(n, 0.0) >= S.ENDING[wanted]
               and seam.get(n, 0.0) >= SEAM.get(wanted, float("-inf"))]
    print(f"{len(passing)} {wanted} rows pass the ending and seam checks "
          f"({sum(not rows[n][2] for n in passing)} bad, {sum(n in cut for n in passing)} "
          f"with an end cut)")
    score = lambda n: max(cut[n]) if cut.get(n) else float("-inf")  # noqa: E731
    halves = {"tuning": [n for n in passing if S.tuning(rows[n][0])],
              "held-out": [n for n in passing if not S.tuning(rows[n][0])]}
    good = sorted((score(n) for n in halves["tuning"] if rows[n][2]), reverse=True)
    limits = [(f"keep {keep:.2f} of tuning good", good[int((1 - keep) * len(good))])
              for keep in (0.95, 0.97, 0.99)]
    limits += [("fixed", float(limit)) for limit in (4, 5, 6)]
    for label, limit in limits:
        for name, part in halves.items():
            g = [n for n in part if rows[n][2]]
            b = [n for n in part if not rows[n][2]]
            rg = sum(score(n) > limit for n in g)
            rb = sum(score(n) > limit for n in b)
            print(f"{label}, limit {limit:.2f} nats, {name}: bad rejected "
                  f"{rb}/{len(b)}, good {rg}/{len(g)}; natural share {len(g) / len(part):.3f} -> "
                  f"{(len(g) - rg) / (len(part) - rg - rb):.3f}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
