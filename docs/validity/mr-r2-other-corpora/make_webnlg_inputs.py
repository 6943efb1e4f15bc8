"""MR-R2 inputs from WebNLG (Gardent et al. 2017; version 1.6 of its public repository, the last
whose texts keep their entity references: `data/v1.6/en/{train,dev,test}/{1,2}triples/*.xml`): crowd-written English texts that each
verbalise one or two DBpedia triples, with the words that name each entity marked
(`references`, `template`). No MR-R2 rule was written against them.

Every text whose triples include a place property with a one-mention object becomes one
FewRel-style instance under the Wikidata property it corresponds to (birthPlace/placeOfBirth
→ P19, deathPlace/placeOfDeath → P20, residence/hometown → P551, headquarter(s) → P159,
foundationPlace → P740, location/city/locationCity → P131): tokens from the text's
`template` with each tag replaced by its reference's words, head = the subject's mention, tail
= the object's, up to a comma ("Harrietstown , New York": the city, then its state). A text where the subject or object is not mentioned exactly once, or the
template does not match the references, is left out.

    python make_webnlg_inputs.py WEBNLG_V1_6_EN_DIR OUT_FILE [SIZES]

SIZES is a glob over the number of triples, `[12]` by default (reads 3–7); `[3-7]` takes the
longer texts of three to seven triples, several sentences each (read 11, 2026-12-02).
"""
import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

PROPERTIES = {
    "birthPlace": "P19", "placeOfBirth": "P19",
    "deathPlace": "P20", "placeOfDeath": "P20",
    "residence": "P551", "hometown": "P551",
    "headquarter": "P159", "headquarters": "P159",
    "foundationPlace": "P740",
    "location": "P131", "city": "P131", "locationCity": "P131",
}


def words(text):
    return re.findall(r"'s\b|\w+(?:[-.'’]\w+)*\.?|[^\w\s]", text.replace("'s", " 's"))


def instance(lex, subject, obj):
    references = {r.get("tag"): r for r in lex.iter("reference")}
    template = lex.findtext("template")
    if not template or not references:
        return None
    tokens, spans = [], {}
    for piece in template.split():
        reference = references.get(piece)
        if reference is None:
            # A tag glued to punctuation ("PATIENT-1's") has no reference to fill it.
            if re.search(r"(AGENT|PATIENT|BRIDGE)-\d+", piece):
                return None
            tokens.append(piece)
            continue
        mention = words(reference.text or "")
        if not mention:
            return None
        spans.setdefault(reference.get("entity"), []).append(
            list(range(len(tokens), len(tokens) + len(mention))))
        tokens += mention
    heads, tails = spans.get(subject, []), spans.get(obj, [])
    if len(heads) != 1 or len(tails) != 1:
        return None
    # "Harrietstown , New York": the object is the city, the rest its appositive (FewRel's
    # spans stop at the comma too).
    if "," in (tokens[i] for i in tails[0]):
        tails = [tails[0][:[tokens[i] for i in tails[0]].index(",")]]
    name = lambda span: " ".join(tokens[i] for i in span)
    return {"tokens": tokens, "h": [name(heads[0]), "", heads], "t": [name(tails[0]), "", tails]}


def main(root, out_path, sizes="[12]"):
    out = {}
    for path in sorted(glob.glob(os.path.join(root, "*", sizes + "triples", "*.xml"))):
        for entry in ET.parse(path).getroot().iter("entry"):
            triples = [t.text.split(" | ") for t in entry.iter("mtriple")]
            for subject, prop, obj in triples:
                relation = PROPERTIES.get(prop)
                if relation is None:
                    continue
                for lex in entry.findall("lex"):
                    found = instance(lex, subject, obj)
                    if found and found not in out.setdefault(relation, []):
                        out[relation].append(found)
    with open(out_path, "w") as f:
        json.dump(out, f)
    for relation, rows in out.items():
        print(relation, len(rows), file=sys.stderr)
    print("total", sum(len(r) for r in out.values()), file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
