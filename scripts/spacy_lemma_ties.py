#!/usr/bin/env python3
"""Write spaCy's rule-lemmatizer answers on words where several of its suffix rules hit the index.

Usage: python3 scripts/spacy_lemma_ties.py [--model DIR] [--lemminflect DIR] [--out FILE]

--lemminflect is the asset's unpacked wheel (default ~/.cache/metamorph/assets/lemminflect/0.2.3).

Runs itself in the spaCy virtualenv that scripts/spacy_golden.py sets up (same bootstrap, same
pinned spaCy, same en_core_web_sm 3.8.0 directory from the asset cache).

Candidates are every inflected form lemminflect 0.2.3 gives: the package is imported from the
`lemminflect` asset (the unpacked wheel whose tables perturb's `lexicon::inflect` reads) and, as in
`scripts/lemminflect_golden.py --full`, `getInflection(lemma, tag, inflect_oov=False)` is asked for
every lemma of its inflection table and overrides and every tag VBD, VBN, VBG, VBZ, NNS, JJR, JJS,
RBR, RBS, plus NNPS taken as NNS (so a regular verb's VBN is its VBD, by lemminflect's tag
alternates); forms lower-cased, those with whitespace dropped. Each form gets the universal POS
and morphology that the model's attribute ruler assigns to its fine tag: the ruler's tag-map pattern `[{"TAG": tag}]`
(e.g. VBZ -> VERB, Number=Sing|Person=3|Tense=Pres|VerbForm=Fin). A form is kept when applying
`lemma_rules[pos]` (as `rule_lemmatize` does) yields at least two distinct forms that are in
`lemma_index[pos]`: a tie, which spaCy >= 3.8.8 resolves to the last such form in rule order.
(ADV's only rule is the identity, so adverbs never tie.)

Each kept form, and its Title-case variant (first letter upper-cased), becomes one JSON line
`{"text", "pos", "morph", "lemma", "forms"}`: `lemma` is what the lemmatizer component sets on a
one-token Doc with that POS and morphology, `forms` is `rule_lemmatize(token)`. Lines are sorted
by (text, pos, morph).
"""

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import spacy_golden  # noqa: E402  (the spaCy virtualenv and the model's location)

TAGS = ["VBD", "VBN", "VBG", "VBZ", "NNS", "JJR", "JJS", "RBR", "RBS"]


def default_lemminflect_dir():
    home = os.environ.get("METAMORPH_HOME") or os.path.join(Path.home(), ".cache", "metamorph")
    return Path(home) / "assets" / "lemminflect" / "0.2.3"


def inflected_forms(wheel):
    """(form, Penn tag) for every inflection lemminflect gives a lemma of its tables."""
    sys.path.insert(0, str(wheel))
    import lemminflect
    from lemminflect.core.Inflections import Inflections

    assert Path(lemminflect.__file__).resolve().is_relative_to(Path(wheel).resolve()), lemminflect.__file__
    lemmas = set(Inflections()._getInflDict()) | set(Inflections()._getOverridesDict())
    out = set()
    for lemma in lemmas:
        for tag in TAGS + ["NNPS"]:  # proper-noun plurals (Morses) count as NNS: spaCy lower-cases
            forms = lemminflect.getInflection(lemma, tag, inflect_oov=False)
            out.update((f.lower(), "NNS" if tag == "NNPS" else tag) for f in forms)
    return {(f, tag) for f, tag in out if f and not any(c.isspace() for c in f)}


def tag_map(nlp):
    """Fine tag -> (POS, MORPH) from the attribute ruler's single-token `{"TAG": tag}` patterns."""
    out = {}
    for p in nlp.get_pipe("attribute_ruler").patterns:
        for pattern in p["patterns"]:
            if len(pattern) == 1 and set(pattern[0]) == {"TAG"}:
                out[pattern[0]["TAG"]] = (p["attrs"]["POS"], p["attrs"].get("MORPH", ""))
    return out


def is_tie(form, rules, index):
    hits = {form[: len(form) - len(old)] + new for old, new in rules if form.endswith(old)}
    return len({h for h in hits if h and h in index}) >= 2


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(spacy_golden.default_model_dir()))
    parser.add_argument("--lemminflect", default=str(default_lemminflect_dir()))
    parser.add_argument("--out", default=str(spacy_golden.ROOT / "parse/tests/fixtures/spacy_lemma_ties.jsonl"))
    args = parser.parse_args()
    if not spacy_golden.in_venv():
        spacy_golden.bootstrap(__file__)
    import spacy
    from spacy.tokens import Doc

    nlp = spacy.load(args.model)
    lemmatizer = nlp.get_pipe("lemmatizer")
    rules_table = lemmatizer.lookups.get_table("lemma_rules")
    index_table = lemmatizer.lookups.get_table("lemma_index")
    tags = tag_map(nlp)
    index = {}
    kept = set()
    for form, tag in inflected_forms(Path(args.lemminflect)):
        pos, morph = tags[tag]
        upos = pos.lower()
        if upos not in index:
            index[upos] = set(index_table.get(upos, []))
        if is_tie(form, rules_table.get(upos, []), index[upos]):
            kept.update({(form, pos, morph), (form[:1].upper() + form[1:], pos, morph)})
    lines = []
    for text, pos, morph in sorted(kept):
        doc = lemmatizer(Doc(nlp.vocab, words=[text], pos=[pos], morphs=[morph]))
        token = doc[0]
        assert token.pos_ == pos and str(token.morph) == morph, (text, pos, morph)
        row = {"text": text, "pos": pos, "morph": morph, "lemma": token.lemma_,
               "forms": lemmatizer.rule_lemmatize(token)}
        lines.append(json.dumps(row, ensure_ascii=False) + "\n")
    out = Path(args.out)
    out.write_text("".join(lines), encoding="utf-8")
    print(f"wrote {out}: {len(lines)} lines (spaCy {spacy.__version__})")


if __name__ == "__main__":
    main()
