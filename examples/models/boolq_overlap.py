#!/usr/bin/env python3
"""A lexical-overlap baseline for BoolQ, served over metamorph's JSONL subprocess protocol.

It answers "yes" when most content words of the question occur in the passage and no negation
cue sits next to them. It is a weak, honest baseline (a bag-of-words model, blind to word order),
bundled so that `cargo xtask pipeline` runs end to end on any machine; replace it with your own
model by changing `[[execute.models]]` in metamorph.toml. Standard library only.

Protocol: one JSON request per line on stdin, one JSON response per line on stdout, matched by
"id". Logs go to stderr.
"""
import json
import math
import re
import sys

STOPWORDS = set(
    """a an the is are was were be been being do does did has have had can could will would shall
    should may might must of in on at to for from by with about as into than then that this these
    those it its and or but if not no there their they he she his her them what which who whom
    whose when where why how same any all some more most such""".split()
)
NEGATIONS = {"not", "no", "never", "none", "nor", "without", "neither"}
WORD = re.compile(r"[a-z0-9]+")


def content_words(text):
    return [w for w in WORD.findall(text.lower()) if w not in STOPWORDS]


def predict(request):
    if request.get("task") != "boolq":
        return {"id": request["id"], "error": "this baseline only answers boolq"}
    passage = request.get("context") or ""
    question = request.get("question") or ""
    passage_words = WORD.findall(passage.lower())
    vocabulary = set(passage_words)
    words = content_words(question)
    if not words:
        overlap = 0.0
    else:
        overlap = sum(1 for w in words if w in vocabulary) / len(words)
    negated = any(
        passage_words[i] in NEGATIONS and (passage_words[i + 1] if i + 1 < len(passage_words) else "") in words
        for i in range(len(passage_words))
    )
    score = 6.0 * (overlap - 0.6) - (1.5 if negated else 0.0)
    p_yes = 1.0 / (1.0 + math.exp(-score))
    return {
        "id": request["id"],
        "label": "yes" if p_yes >= 0.5 else "no",
        "probabilities": {"yes": round(p_yes, 6), "no": round(1.0 - p_yes, 6)},
    }


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            response = predict(json.loads(line))
        except Exception as error:  # report, keep serving
            response = {"id": json.loads(line).get("id", ""), "error": str(error)}
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
