#!/usr/bin/env python3
"""Build a tiny random-weight T5 checkpoint and the token ids `transformers`' `generate()`
produces with it, which the candle T5 of `metamorph-generate` is tested against
(generate/tests/t5_parity.rs).

Usage: python3 scripts/t5_fixtures.py [--out DIR]

Bootstraps `target/venv-torch` like scripts/bart_fixtures.py, whose corpus, inputs and decoding
cases it shares (T5 has no forced BOS/EOS). Writes into generate/tests/fixtures/t5-tiny/:
tokenizer.json (byte-level BPE as for BART, with T5's special tokens <pad> </s> <unk> at 0-2 and
`… </s>` post-processing), config.json, generation_config.json, model.safetensors
(`T5ForConditionalGeneration`: d_model 32, d_kv 8, 4 heads, d_ff 37, 2+2 layers, gated-gelu,
8 relative-attention buckets up to distance 20, seeded weights with initializer_factor 2, query weights scaled by 0.25 so that float32
stays accurate, and the end-of-sequence embedding scaled by 5 so that outputs end at different
lengths) and golden.json as
for BART.
"""

import argparse
import json
import sys
from pathlib import Path

import bart_fixtures as common

OUT = common.ROOT / "generate" / "tests" / "fixtures" / "t5-tiny"
SEED = 0
EOS_SCALE = 5.0
# beam4_never gives the same ids as beam4 on this model, so it is left out.
CASES = [c for c in common.CASES if c[0] != "beam4_never"]
QUERY_SCALE = 0.25


def train_tokenizer(texts):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE(unk_token=None))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=common.VOCAB,
        special_tokens=["<pad>", "</s>", "<unk>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    tokenizer.post_processor = processors.TemplateProcessing(
        single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", 1)]
    )
    return tokenizer


def main():
    if not common.has_pinned_versions():
        common.bootstrap(__file__)
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    import torch
    import transformers
    from transformers import GenerationConfig, T5Config, T5ForConditionalGeneration

    torch.manual_seed(SEED)
    texts = common.corpus()
    tokenizer = train_tokenizer(texts)
    config = T5Config(
        vocab_size=tokenizer.get_vocab_size(),
        d_model=32,
        d_kv=8,
        d_ff=37,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        relative_attention_num_buckets=8,
        relative_attention_max_distance=20,
        feed_forward_proj="gated-gelu",
        initializer_factor=2.0,
        pad_token_id=0,
        eos_token_id=1,
        decoder_start_token_id=0,
    )
    model = T5ForConditionalGeneration(config).eval()
    with torch.no_grad():
        # End-of-sequence likely enough that hypotheses end at different lengths (the LM head
        # is tied to the embeddings, so this scales both).
        model.lm_head.weight[1] *= EOS_SCALE
        # Smaller queries keep attention scores moderate: with initializer_factor 2 alone the
        # model is so ill-conditioned that float32 PyTorch differs from float64 by 1e-3.
        for name, parameter in model.named_parameters():
            if name.endswith(".q.weight"):
                parameter.mul_(QUERY_SCALE)
    model.generation_config = GenerationConfig(
        eos_token_id=1, pad_token_id=0, decoder_start_token_id=0
    )
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(args.out), safe_serialization=True)
    tokenizer.save(str(args.out / "tokenizer.json"))

    sources = common.inputs(texts)
    ids = [e.ids for e in tokenizer.encode_batch(sources)]
    width = max(len(i) for i in ids)
    input_ids = torch.tensor([i + [0] * (width - len(i)) for i in ids])
    attention_mask = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i in ids])
    decoder_input_ids = torch.tensor([[0, 10 + k, 40 + 3 * k, 7] for k in range(len(ids))])
    with torch.no_grad():
        out = model(input_ids=input_ids, attention_mask=attention_mask,
                    decoder_input_ids=decoder_input_ids)
    forward = {
        "decoder_input_ids": decoder_input_ids.tolist(),
        "encoder_hidden": common.rounded(
            [out.encoder_last_hidden_state[b, : len(ids[b])].tolist() for b in range(len(ids))]
        ),
        "logits": common.rounded(out.logits.tolist()),
    }
    cases = []
    for name, kwargs in CASES:
        kwargs = dict(kwargs)
        kwargs.setdefault("max_new_tokens", common.MAX_NEW_TOKENS)
        options = dict(do_sample=False, **kwargs)
        with torch.no_grad():
            batched = model.generate(input_ids=input_ids, attention_mask=attention_mask, **options).tolist()
            single = [model.generate(input_ids=torch.tensor([i]), **options)[0].tolist() for i in ids]
        cases.append({"name": name, "options": kwargs, "batched": batched, "single": single})
    by_output = {}
    for case in cases:
        by_output.setdefault(json.dumps(case["batched"]), []).append(case["name"])
    same = [names for names in by_output.values() if len(names) > 1]
    golden = {
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "inputs": sources,
        "input_ids": ids,
        "forward": forward,
        "cases": cases,
    }
    (args.out / "golden.json").write_text(json.dumps(golden, separators=(",", ":")) + "\n")
    for case in cases:
        print(case["name"], [len(s) for s in case["single"]], case["batched"][0][:10])
    if same:
        sys.exit(f"cases with identical outputs {same}: change the seed or EOS_SCALE")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
