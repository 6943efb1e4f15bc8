#!/usr/bin/env python3
"""Write golden lemminflect answers that perturb's `lexicon::inflect` is tested against.

Usage: python3 scripts/lemminflect_golden.py [--out FILE] [--full FILE]

The script bootstraps itself: unless it already runs inside `target/venv-lemminflect`, it
creates that virtualenv, installs lemminflect 0.2.3 into it with pip and re-executes itself there.

--out (default perturb/tests/fixtures/lemminflect_golden.tsv) gets, for a fixed list of common
verbs (regular and irregular), auxiliaries and modals, nouns (regular and irregular plurals),
adjectives and adverbs, and a few capitalised and proper-noun variants:
  I <TAB> lemma <TAB> tag <TAB> spellings   getInflection(lemma, tag, inflect_oov=False)
  L <TAB> word <TAB> upos <TAB> lemmas      getLemma(word, upos, lemmatize_oov=False)
with spellings `/`-separated (empty when lemminflect has none). The lemma lines cover every
form the inflection lines produced, under the upos of its tag (and AUX for verbs).

--full FILE (gzip) writes the same two kinds of lines for every word of lemminflect's tables and
every tag / upos: the exhaustive comparison (not committed; run the ignored test
`full_table_agreement` with LEMMINFLECT_FULL=FILE).
"""

import argparse
import gzip
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "target" / "venv-lemminflect"
REQUIREMENTS = ["lemminflect==0.2.3"]

TAGS = ["VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "NN", "NNS", "JJ", "JJR", "JJS", "RB", "RBR", "RBS"]
UPOS = ["VERB", "AUX", "NOUN", "ADJ", "ADV", "PROPN"]

VERBS = """
be have do go say get make know think take see come want look use find give tell work call try
ask need feel become leave put mean keep let begin seem help talk turn start show hear play run
move like live believe hold bring happen write provide sit stand lose pay meet include continue
set learn change lead understand watch follow stop create speak read allow add spend grow open
walk win offer remember love consider appear buy wait serve die send expect build stay fall cut
reach kill remain suggest raise pass sell require report decide pull break eat drink drive fly
swim sing ring sink shrink steal swear tear wear weave wake shake forget forgive freeze hide bite
choose rise lie lay lend bend spend catch teach seek fight think bring sleep sweep weep feed
flee shoot light slide strike hang dig cling fling sting swing spin stick split spread quit bet
burst cost hit hurt shut fit knit leap dream burn spill spoil smell learn prove shave thrive
plan stop drop admire carry marry worry study cry try deny apply copy hurry fix mix wash watch
push kiss buzz pass miss echo veto panic picnic travel label cancel model refer prefer occur
admit commit visit offer open answer happen listen enter agree see flee free die tie lie dye
hoe canoe ski taxi bus focus benefit target
can may will shall must ought dare need used
""".split()

NOUNS = """
cat dog house box church bush fox quiz buzz baby city day key boy toy potato tomato hero photo
piano radio zoo leaf wife knife life wolf roof chief belief child man woman person foot tooth
goose mouse louse ox sheep deer fish series species aircraft cactus fungus radius analysis crisis
thesis phenomenon criterion datum medium bacterium appendix index matrix vertex alumnus
information news advice furniture water money people police cattle scissors trousers data
question answer passage paragraph article book story student teacher team government company
year week time game question president country state university river mountain party business
clergy abdomen aneurysm china lecture soap oil merit mail fit go well good can
""".split()

ADJECTIVES = """
good bad far little much many big small large old young new happy easy early late fast hard
high low long short tall hot cold warm nice fine safe wide thin fat sad red dry shy sly gay
simple clever narrow gentle quiet beautiful important interesting difficult expensive careful
famous modern able real true free sure likely friendly lovely ugly busy funny pretty angry
lesser fit well ill
""".split()

ADVERBS = """
well badly fast hard soon often early late quickly slowly carefully much little far near
""".split()

VARIANTS = [("Walk", "VBD"), ("WALK", "VBD"), ("Go", "VBN"), ("BE", "VBD"), ("Child", "NNS"),
            ("Aaron", "NNP"), ("Aaron", "NNPS"), ("aaron", "NNPS"), ("Abrams", "NNPS"),
            ("Happy", "JJR"), ("GOOD", "JJS"), ("blorp", "VBD"), ("", "VBD"), ("walk", "MD"),
            ("walk", "DT"), ("can", "NNS"), ("dare", "VBD"), ("must", "VBZ")]
LEMMA_VARIANTS = [("Walked", "VERB"), ("WENT", "VERB"), ("Children", "NOUN"),
                  ("Aarons", "PROPN"), ("aarons", "PROPN"), ("better", "ADJ"), ("best", "ADV"),
                  ("'s", "AUX"), ("'d", "VERB"), ("blorped", "VERB"), ("everyone", "NOUN"),
                  ("walked", "DET"), ("walked", "verb"), ("", "NOUN")]


def in_venv():
    return Path(sys.prefix).resolve() == VENV.resolve()


def bootstrap():
    if not (VENV / "bin" / "python").exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
        subprocess.check_call([str(VENV / "bin" / "pip"), "install", "--quiet", *REQUIREMENTS])
    os.execv(str(VENV / "bin" / "python"), [str(VENV / "bin" / "python"), __file__, *sys.argv[1:]])


def upos_of(tag):
    if tag.startswith("V"):
        return ["VERB", "AUX"]
    if tag.startswith("N"):
        return ["NOUN"]
    if tag.startswith("J"):
        return ["ADJ"]
    return ["ADV"]


def lines(lemmas_tags, words_upos):
    import lemminflect

    out = []
    produced = []
    for lemma, tag in lemmas_tags:
        forms = lemminflect.getInflection(lemma, tag, inflect_oov=False)
        out.append(f"I\t{lemma}\t{tag}\t{'/'.join(forms)}")
        produced.extend((f, u) for f in forms for u in upos_of(tag))
    seen = set()
    for word, upos in list(words_upos) + produced:
        if (word, upos) in seen:
            continue
        seen.add((word, upos))
        lemmas = lemminflect.getLemma(word, upos, lemmatize_oov=False)
        out.append(f"L\t{word}\t{upos}\t{'/'.join(lemmas)}")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "perturb/tests/fixtures/lemminflect_golden.tsv"))
    parser.add_argument("--full", default=None)
    args = parser.parse_args()
    if not in_venv():
        bootstrap()
    import lemminflect

    words = []
    for w in dict.fromkeys(VERBS + NOUNS + ADJECTIVES + ADVERBS):
        words.extend((w, t) for t in TAGS)
    golden = lines(words + VARIANTS, LEMMA_VARIANTS)
    Path(args.out).write_text("\n".join(golden) + "\n")
    print(f"{args.out}: {len(golden)} lines")
    if args.full:
        from lemminflect.core.Inflections import Inflections
        from lemminflect.core.Lemmatizer import Lemmatizer

        infl = Inflections()._getInflDict()
        lem = Lemmatizer()._getLemmaDict()
        infl_keys = sorted(set(infl) | set(Inflections()._getOverridesDict()))
        lemma_keys = sorted(set(lem) | set(Lemmatizer()._getOverridesDict()))
        full = []
        for lemma in infl_keys:
            for tag in TAGS + ["NNP", "NNPS"]:
                forms = lemminflect.getInflection(lemma, tag, inflect_oov=False)
                full.append(f"I\t{lemma}\t{tag}\t{'/'.join(forms)}")
        for word in lemma_keys:
            for upos in UPOS:
                lemmas = lemminflect.getLemma(word, upos, lemmatize_oov=False)
                full.append(f"L\t{word}\t{upos}\t{'/'.join(lemmas)}")
        with gzip.open(args.full, "wt") as f:
            f.write("\n".join(full) + "\n")
        print(f"{args.full}: {len(full)} lines")


if __name__ == "__main__":
    main()
