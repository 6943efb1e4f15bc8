#!/usr/bin/env python3
"""A sentiment-lexicon baseline for binary sentiment, served over metamorph's JSONL subprocess
protocol.

It sums the polarity of the opinion words it knows (a small hand-written lexicon), flips a word
that follows a negation within three words, doubles one after an intensifier, and turns the sum
into P(positive) with a logistic function. It is a weak, honest baseline, bundled so that
`cargo xtask pipeline` runs NLPLego's sentiment relation (which needs class probabilities) end
to end on any machine; replace it with your own model in `[[execute.models]]`. Standard library
only.

Protocol: one JSON request per line on stdin, one JSON response per line on stdout, matched by
"id". Labels: "positive" / "negative".
"""
import json
import math
import re
import sys

POSITIVE = set(
    """good great excellent wonderful amazing awesome fantastic superb outstanding brilliant
    charming moving delightful enjoyable fun funny beautiful lovely nice pleasant perfect best
    better fresh friendly helpful tasty delicious love loved loves like liked enjoy enjoyed
    recommend recommended happy glad impressive impressed remarkable solid strong clever smart
    warm touching gripping engaging entertaining satisfying fine favorite favourite terrific
    genuine honest inspired inspiring rich smooth clean quick worth worthy uniformly excellent
    masterpiece gem thoughtful powerful elegant""".split()
)
NEGATIVE = set(
    """bad poor terrible awful horrible worst worse boring tedious dull overlong bland slow rude
    dirty cold stale hate hated hates dislike disliked disappointing disappointed disappointment
    mediocre mess messy weak ugly annoying annoyed angry sad unpleasant painful pointless
    stupid silly dumb lame flat waste wasted overpriced expensive greasy burnt broken wrong
    problem problems fail failed fails failure sucked sucks lacking lacks confusing forgettable
    predictable clumsy awkward tired unfunny noisy crowded self-indulgence self-indulgent
    nothing never""".split()
)
NEGATIONS = {"not", "no", "never", "n't", "nt", "without", "hardly", "barely", "nothing", "cannot"}
INTENSIFIERS = {"very", "really", "so", "extremely", "incredibly", "truly", "totally", "too", "quite"}
WORD = re.compile(r"[a-z]+(?:-[a-z]+)*|n't")


def p_positive(text):
    words = WORD.findall(text.lower().replace("n't", " n't"))
    score = 0.0
    for i, word in enumerate(words):
        polarity = (1.0 if word in POSITIVE else 0.0) - (1.0 if word in NEGATIVE and word not in NEGATIONS else 0.0)
        if polarity == 0.0:
            continue
        window = words[max(0, i - 3):i]
        if any(w in NEGATIONS for w in window):
            polarity = -polarity
        if i > 0 and words[i - 1] in INTENSIFIERS:
            polarity *= 2.0
        score += polarity
    return 1.0 / (1.0 + math.exp(-1.5 * score))


def predict(request):
    if request.get("task") != "sentiment":
        return {"id": request["id"], "error": "this baseline only classifies sentiment"}
    p = p_positive(request.get("text") or "")
    return {
        "id": request["id"],
        "label": "positive" if p >= 0.5 else "negative",
        "probabilities": {"positive": round(p, 6), "negative": round(1.0 - p, 6)},
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
