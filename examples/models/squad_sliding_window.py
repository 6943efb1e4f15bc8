#!/usr/bin/env python3
"""A sliding-window baseline for extractive reading comprehension (SQuAD 1.1/2.0), served over
metamorph's JSONL subprocess protocol.

It picks the passage sentence whose words overlap the question's most (each overlapping word
weighted by its inverse frequency in the passage, as in MCTest's sliding-window baseline), and
answers with the run of at most four non-question content words in that sentence that lies
closest to the overlapping words. With no overlap at all it abstains (SQuAD 2.0's empty
answer, `{"text": ""}`). A weak, honest baseline, bundled so that `cargo xtask pipeline` runs NLPLego's
reading-comprehension relation end to end on any machine; replace it with your own model in
`[[execute.models]]`. Standard library only.

Protocol: one JSON request per line on stdin, one JSON response per line on stdout, matched by
"id"; answers as {"text", "start"} with `start` a character offset into the context.
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
WORD = re.compile(r"\w+(?:[-']\w+)*")
SENTENCE = re.compile(r"[^.!?]+[.!?]*")


def stem(word):
    """A crude stem (the first six letters), so that "settle" meets "settled"."""
    return word.lower()[:6]


def answer(context, question):
    q_words = {stem(w) for w in WORD.findall(question) if w.lower() not in STOPWORDS}
    sentences = [(m.start(), m.group()) for m in SENTENCE.finditer(context)]
    frequency = {}
    for _, s in sentences:
        for w in {stem(w) for w in WORD.findall(s)}:
            frequency[w] = frequency.get(w, 0) + 1
    best, best_score = None, 0.0
    for start, s in sentences:
        words = {stem(w) for w in WORD.findall(s)}
        score = sum(math.log(1.0 + len(sentences) / frequency[w]) for w in words & q_words)
        if score > best_score:
            best, best_score = (start, s), score
    if best is None:
        return {"text": ""}
    start, sentence = best
    tokens = [(m.start(), m.end(), m.group().lower()) for m in WORD.finditer(sentence)]
    anchors = [i for i, (_, _, w) in enumerate(tokens) if stem(w) in q_words]
    runs, run = [], []
    for i, (_, _, w) in enumerate(tokens):
        skip = stem(w) in q_words or w in STOPWORDS
        if skip or len(run) == 4:
            if run:
                runs.append(run)
            run = [] if skip else [i]
        else:
            run.append(i)
    if run:
        runs.append(run)
    if not runs:
        return {"text": ""}
    distance = lambda r: min(abs(i - a) for i in r for a in anchors) if anchors else 0
    chosen = min(runs, key=lambda r: (distance(r), r[0]))
    a, b = tokens[chosen[0]][0], tokens[chosen[-1]][1]
    return {"text": sentence[a:b], "start": start + a}


def predict(request):
    if request.get("task") != "squad":
        return {"id": request["id"], "error": "this baseline only answers squad"}
    return {"id": request["id"], "answer": answer(request.get("context") or "", request.get("question") or "")}


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
