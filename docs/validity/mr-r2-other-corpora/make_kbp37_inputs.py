"""MR-R2 inputs from KBP37 (Zhang and Wang, 2015; 2026-12-01, read 8): news and web sentences
of the TAC KBP collections with two marked entities (`<e1>`, `<e2>`) and their relation, from
its `test.txt` (a sentence line, then its label line). No MR-R2 rule was written against them
before read 8; the rules of 2026-12-02 were written against `test.txt` and `dev.txt`, and
`train.txt` (6,139 place sentences) was read for figures only (reads 9 and 10).

Its place relations become FewRel-style instances under the Wikidata property that says the
same, the person or organisation as head and the place as tail (the label's `(e1,e2)` or
`(e2,e1)` gives the order): `per:cities_of_residence`, `per:stateorprovinces_of_residence`,
`per:countries_of_residence` → P551 residence; `per:city_of_birth`,
`per:stateorprovince_of_birth`, `per:country_of_birth` → P19 place of birth;
`org:city_of_headquarters`, `org:stateorprovince_of_headquarters`,
`org:country_of_headquarters` → P159 headquarters location. Each sentence once.

    python3 make_kbp37_inputs.py KBP37_TEST_TXT OUT_FILE     (or its dev.txt / train.txt)
then
    metamorph preview --dataset OUT_FILE --format fewrel --relations MR-R2 --sample 100000 \\
        --tsv kbp37.tsv
"""
import json
import re
import sys

PROPERTIES = {
    "per:cities_of_residence": "P551",
    "per:stateorprovinces_of_residence": "P551",
    "per:countries_of_residence": "P551",
    "per:city_of_birth": "P19",
    "per:stateorprovince_of_birth": "P19",
    "per:country_of_birth": "P19",
    "org:city_of_headquarters": "P159",
    "org:stateorprovince_of_headquarters": "P159",
    "org:country_of_headquarters": "P159",
}


def marked_spans(marked):
    tokens, spans, open_at = [], {}, {}
    for word in re.sub(r"(</?e[12]>)", r" \1 ", marked).split():
        tag = re.fullmatch(r"<(/?)(e[12])>", word)
        if tag:
            if tag.group(1):
                spans[tag.group(2)] = list(range(open_at[tag.group(2)], len(tokens)))
            else:
                open_at[tag.group(2)] = len(tokens)
            continue
        tokens.append(word)
    return tokens, spans


def main(test_txt, out):
    with open(test_txt, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    by_property, seen = {}, set()
    for sentence_line, label_line in zip(lines, lines[1:]):
        fields = sentence_line.split("\t")
        label = re.fullmatch(r"([a-z]+:[a-z_]+)\((e[12]),(e[12])\)", label_line.strip())
        if len(fields) != 2 or not fields[0].isdigit() or not label:
            continue
        prop = PROPERTIES.get(label.group(1))
        marked = fields[1].strip().strip('"').strip()
        if prop is None or marked in seen:
            continue
        tokens, spans = marked_spans(marked)
        head, tail = spans.get(label.group(2)), spans.get(label.group(3))
        if not head or not tail or set(head) & set(tail):
            continue
        seen.add(marked)
        name = lambda span: " ".join(tokens[i] for i in span)
        by_property.setdefault(prop, []).append(
            {"tokens": tokens, "h": [name(head), "-", [head]], "t": [name(tail), "-", [tail]]}
        )
    with open(out, "w", encoding="utf-8") as f:
        json.dump(by_property, f)
    print({p: len(v) for p, v in by_property.items()}, "->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
