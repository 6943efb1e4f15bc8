#!/usr/bin/env python3
"""The `transformers` side of the BART generation speed comparison, and the model both sides use.

Usage: python3 scripts/bart_speed.py [--threads N]

Bootstraps `target/venv-torch` like scripts/bart_fixtures.py. Writes a seeded random BART with
bart-base's shape (d_model 768, 6+6 layers, 12 heads, ffn 3072, vocabulary 50265; ~560 MB) to
target/bart-speed/model/ (the tiny fixture's tokenizer.json is copied next to it: the speed runs
feed token ids) and 8 inputs of 32 random token ids to target/bart-speed/ids.json, then times
`generate()` for batch 1 and 8, beams 1 and 4, every output forced to 32 new tokens, at
`--threads` threads (default 2). The Rust side on the same files:

    cargo run --release -p metamorph-generate --example bart_speed -- \\
        target/bart-speed/model target/bart-speed/ids.json

Run the two on an otherwise idle machine with the same number of cores available.
"""

import argparse
import json
import shutil
import time

import bart_fixtures as common

OUT = common.ROOT / "target" / "bart-speed"
NEW_TOKENS = 32


def main():
    if not common.has_pinned_versions():
        common.bootstrap(__file__)
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    import torch
    from transformers import BartConfig, BartForConditionalGeneration

    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    model_dir = OUT / "model"
    if not (model_dir / "model.safetensors").is_file():
        config = BartConfig(
            d_model=768, encoder_layers=6, decoder_layers=6, encoder_attention_heads=12,
            decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072,
            forced_bos_token_id=0,
        )
        BartForConditionalGeneration(config).save_pretrained(str(model_dir), safe_serialization=True)
        shutil.copy(common.OUT / "tokenizer.json", model_dir / "tokenizer.json")
    generator = torch.Generator().manual_seed(1)
    ids = [[0] + torch.randint(5, 50000, (30,), generator=generator).tolist() + [2] for _ in range(8)]
    (OUT / "ids.json").write_text(json.dumps(ids))

    model = BartForConditionalGeneration.from_pretrained(str(model_dir)).eval()
    for batch in (1, 8):
        for beams in (1, 4):
            inputs = torch.tensor(ids[:batch])
            with torch.no_grad():
                model.generate(input_ids=inputs, num_beams=beams, max_new_tokens=2)  # warm-up
                started = time.perf_counter()
                out = model.generate(input_ids=inputs, num_beams=beams, do_sample=False,
                                     max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS)
                seconds = time.perf_counter() - started
            print(f"transformers batch {batch} beams {beams}: {batch * NEW_TOKENS / seconds:.1f} "
                  f"tokens/s ({seconds:.2f} s, out {out.shape[0]}x{out.shape[1]})", flush=True)


if __name__ == "__main__":
    main()
