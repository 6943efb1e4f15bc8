"""MR-R1 inputs from KBP37's sentences (2026-12-01, read 9): the sentences of KBP37's
`test.txt` (news and web text of the TAC KBP collections; Zhang and Wang, 2015), in file order,
each once, as FewRel-style instances whose head and tail are the sentence's two marked
entities (`<e1>`, `<e2>`). No MR-R1 rule was written against KBP37.

The relation key is `unlabelled`, as for this folder's other corpora: MR-R1 draws from the
type pool `metamorph pool` builds over the file (the NER's types), and readers judge whether
the follow-up keeps the relation the source sentence expresses between the two. Sentences
whose marked entities are the same words, or overlap, are left out.

    python3 make_kbp37_inputs.py KBP37_TEST_TXT OUT_JSON
then
    metamorph preview --dataset OUT_JSON --format fewrel --relations MR-R1 --sample 100000 \\
        --config metamorph.toml --validate --tsv kbp37.tsv
"""
import json
import re
import sys


def instance(marked):
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
    head, tail = spans.get("e1"), spans.get("e2")
    if not head or not tail or set(head) & set(tail):
        return None
    name = lambda span: " ".join(tokens[i] for i in span).lower()
    if name(head) == name(tail):
        return None
    return {"tokens": tokens, "h": [name(head), "-", [head]], "t": [name(tail), "-", [tail]]}


def main(test_txt, out):
    instances, seen = [], set()
    with open(test_txt, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 2 or not fields[0].isdigit():
                continue
            marked = fields[1].strip().strip('"').strip()
            found = instance(marked)
            if found is None or marked in seen:
                continue
            seen.add(marked)
            instances.append(found)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"unlabelled": instances}, f)
    print(len(instances), "instances ->", out, file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
