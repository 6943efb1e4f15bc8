"""Does the LM see a seam where NLPLego removed a phrase? Measured on every judged NLPLego-SA
and -SSM row of docs/validity that carries its dataset sentence (`reference` starting
"dataset sentence:").

    cargo build --release -p metamorph-models --example continuation_scores
    python3 seam_scores.py .. ../../../target/release/examples/continuation_scores [RELATIONS]

For each row's parent and child (the source and follow-up texts), the words are aligned with
the dataset sentence's (difflib); where a run of the sentence's words was left out between two
kept words, the *seam* score is `log p(next two words | the text's words before them) − log
p(same words | the sentence's words before them)` (SmolLM2-135M): how much less likely the
words after the gap become without what was removed. A row's score is its lowest seam (0 with
none). The ending check (`lm_ending`, `log p(final punctuation | words)`, glued) is computed
the same way with the built-in limits (NLPLego-SA −6.281, -SSM −8.266), and the seam limit is
chosen on the tuning half (FNV-1a of the case id, as `metamorph-validate calibrate` splits) of
the rows the ending check passes, then reported on the held-out half.
"""
import collections
import csv
import difflib
import glob
import os
import re
import subprocess
import sys

ENDING = {"NLPLego-SA": -6.281, "NLPLego-SSM": -8.266}


def tuning(case_id):
    h = 0xCBF29CE484222325
    for b in case_id.encode():
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h & 1 == 0


def strip(text):
    return text.split(": ", 1)[1] if ": " in text[:20] else text


def judged_rows(validity):
    seen = {}
    for path in sorted(glob.glob(os.path.join(validity, "**/*.tsv"), recursive=True)):
        with open(path) as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        if not rows or "reference" not in rows[0] or "source" not in rows[0]:
            continue
        for r in rows:
            case_id = r.get("case_id", "")
            relation = r.get("relation") or (case_id.split(":")[1] if case_id.count(":") >= 2 else "")
            if relation not in ENDING or not r["reference"].startswith("dataset sentence:"):
                continue
            labels = [k for k in r if k.split("_")[0] in ("natural", "valid")]
            if not labels or any(r[k] not in ("yes", "no") for k in labels):
                continue
            good = all(r[k] == "yes" for k in labels)
            seen.setdefault((r["source"], r["follow_up"]),
                            (case_id, relation, good, r["source"], r["follow_up"], r["reference"]))
    return list(seen.values())


def probes(rows):
    seams, ends = [], []
    for n, (_, _, _, source, follow_up, reference) in enumerate(rows):
        sentence = strip(reference).split()
        for text in (source, follow_up):
            for part in text.split(" | "):
                words = strip(part).split()
                matcher = difflib.SequenceMatcher(
                    None, [w.lower() for w in words], [w.lower() for w in sentence], autojunk=False)
                blocks = [b for b in matcher.get_matching_blocks() if b.size > 0]
                for before, block in zip(blocks, blocks[1:]):
                    i, j = block.a, block.b
                    if j == before.b + before.size:
                        continue  # nothing of the sentence left out here
                    if not any(ch.isalnum() for ch in " ".join(words[i:i + 2])):
                        continue  # punctuation after the gap: an ending, `lm_ending`'s
                    seams.append((n, " ".join(words[:i]), " ".join(sentence[:j]),
                                  " ".join(words[i:i + 2])))
                whole = strip(part).rstrip()
                m = re.search(r"\s*([.!?]+)$", whole)
                if m and len(whole[:m.start()].split()) >= 2:
                    ends.append((n, whole[:m.start()], whole[:m.start()], "~" + m.group(1)))
    return seams, ends


def score(binary, probes_):
    text = "".join(f"{k}:{i}\t{a}\t{b}\t{w}\n" for i, (k, a, b, w) in enumerate(probes_))
    out = subprocess.run([binary, "smollm2-135m"], input=text, capture_output=True, text=True,
                         check=True).stdout
    scores = collections.defaultdict(list)
    for line in out.splitlines():
        key, a, b = line.split("\t")
        scores[int(key.split(":")[0])].append((float(a), float(b)))
    return scores


def main(validity, binary):
    rows = judged_rows(validity)
    seams, ends = probes(rows)
    seam = {n: min(a - b for a, b in s) for n, s in score(binary, seams).items()}
    ending = {n: min(a for a, _ in s) for n, s in score(binary, ends).items()}
    bad = sum(not r[2] for r in rows)
    print(f"{len(rows)} judged rows ({bad} bad), {len(seams)} seams")
    relations = sys.argv[3].split(",") if len(sys.argv) > 3 else list(ENDING)
    passing = [n for n, r in enumerate(rows)
               if ending.get(n, 0.0) >= ENDING[r[1]] and r[1] in relations]
    halves = {"tuning": [n for n in passing if tuning(rows[n][0])],
              "held-out": [n for n in passing if not tuning(rows[n][0])]}
    good = sorted(seam.get(n, 0.0) for n in halves["tuning"] if rows[n][2])
    for keep in (0.95, 0.97, 0.98):
        limit = good[int((1 - keep) * len(good))]
        for name, part in halves.items():
            g = [n for n in part if rows[n][2]]
            b = [n for n in part if not rows[n][2]]
            rg = sum(seam.get(n, 0.0) < limit for n in g)
            rb = sum(seam.get(n, 0.0) < limit for n in b)
            print(f"keep {keep:.2f} of tuning good, limit {limit:.2f} nats, {name}: "
                  f"bad rejected {rb}/{len(b)}, good {rg}/{len(g)}; natural share of the rows "
                  f"the ending check passes {len(g) / len(part):.3f} -> "
                  f"{(len(g) - rg) / (len(part) - rg - rb):.3f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
