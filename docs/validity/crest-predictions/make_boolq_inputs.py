"""GAP-format coreference snippets from BoolQ passages, for reading CREST on text its rules
were not tuned on (issue 39).

    python3 make_boolq_inputs.py BOOLQ_JSONL OUT_TSV [--second]

For each passage (the title before " -- " dropped), the first "he", "him", "his", "she" or
"her" with two capitalised names before it (one to three words, not a
sentence's first word alone nor a function word) in the same or the two
sentences before gives one row: the text is those sentences (at most three), the pronoun and
the two nearest names are the mentions (A nearest). The corpus states no coreference; A is marked
coreferent (CREST needs a link to keep, and its expectation is the model's own clusters, not
gold), B not. `--second` keeps each passage's next such snippet instead, one that shares no
sentence with the first (reading 6: text reading 5 never showed).
"""
import json
import os
import re
import sys

PRONOUN = re.compile(r"\b(he|him|his|she|her)\b")
NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+){0,2}\b")
NOT_NAMES = {"The", "A", "An", "In", "On", "At", "It", "He", "She", "His", "Her", "This", "That",
             "These", "Those", "After", "Before", "When", "While", "As", "For", "From", "With",
             "By", "Of", "And", "But", "Its", "Their", "They", "There", "During", "Although",
             "You", "January", "April", "May", "June", "July", "August"}
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def given_names():
    """The given names of gender_guesser's dictionary (the `first-names` asset metamorph
    fetches), or of the file `$FIRST_NAMES` points to."""
    path = os.environ.get("FIRST_NAMES") or os.path.expanduser(
        "~/.cache/metamorph/assets/first-names/0.4.0/gender_guesser/data/nam_dict.txt")
    names = set()
    for line in open(path, encoding="iso-8859-1"):
        if line.startswith("#") or len(line) < 30:
            continue
        name = line[3:29].strip()
        if name.isalpha():
            names.add(name)
    return names


def rows(path, second=False):
    known = given_names()
    for n, line in enumerate(open(path, encoding="utf-8")):
        passage = json.loads(line)["passage"]
        text = passage.split(" -- ", 1)[-1]
        sentences = SENTENCE_END.split(text)
        # With `second`, the passage's first snippet is passed over and every later one that
        # shares no sentence with the one before is kept (text reading 5 did not show).
        last_end = None
        kept = 0
        for k, sentence in enumerate(sentences):
            if second and last_end is not None and k - 2 <= last_end:
                continue
            match = PRONOUN.search(sentence)
            if not match:
                continue
            window = sentences[max(0, k - 2) : k + 1]
            snippet = " ".join(window)
            offset = len(" ".join(window[:-1])) + (1 if len(window) > 1 else 0) + match.start()
            names = []
            for m in NAME.finditer(snippet[:offset]):
                first = m.group().split()[0]
                if first in NOT_NAMES or first not in known:
                    continue
                if m.group() not in [x[0] for x in names]:
                    names.append((m.group(), m.start()))
            if len(names) < 2 or len(snippet.split()) < 25:
                continue
            if second and last_end is None:
                last_end = k
                continue
            last_end = k
            kept += 1
            (a, a_off), (b, b_off) = names[-1], names[-2]
            yield [f"boolq-{n}{f'-{kept + 1}' if second else ''}", snippet, match.group(), str(offset), a, str(a_off), "TRUE",
                   b, str(b_off), "FALSE", ""]
            if not second:
                break


def main():
    header = ["ID", "Text", "Pronoun", "Pronoun-offset", "A", "A-offset", "A-coref", "B",
              "B-offset", "B-coref", "URL"]
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write("\t".join(header) + "\n")
        count = 0
        for row in rows(sys.argv[1], second="--second" in sys.argv[3:]):
            assert row[1][int(row[3]):].startswith(row[2])
            out.write("\t".join(c.replace("\t", " ") for c in row) + "\n")
            count += 1
    print(f"{count} rows", file=sys.stderr)


if __name__ == "__main__":
    main()
