#!/usr/bin/env python3
"""Build a tiny random-weight BART checkpoint and the token ids `transformers`' `generate()`
produces with it, which the candle BART and the decoding code of `metamorph-generate` are tested
against (generate/tests/bart_parity.rs).

Usage: python3 scripts/bart_fixtures.py [--out DIR]

The script bootstraps itself: unless it already runs in a Python that has the pinned torch and
transformers (normally `target/venv-torch`), it creates that virtualenv, installs them into it
with pip's default index and re-executes itself there (as scripts/minilm_golden.py does).

What it writes into generate/tests/fixtures/bart-tiny/ (deterministic for the pinned versions):
- tokenizer.json: a byte-level BPE (vocabulary 384, BART's special tokens <s> <pad> </s> <unk>
  <mask> at ids 0-4, `<s> … </s>` post-processing) trained with `tokenizers` on the text of
  data/samples/.
- config.json, generation_config.json, model.safetensors: `BartForConditionalGeneration` with
  d_model 32, 2 encoder + 2 decoder layers, 4 heads, ffn 37, gelu, scale_embedding, seeded random
  weights drawn with a large init_std so that logits are peaky and settings change the outputs.
- golden.json: the inputs, their token ids, the encoder states and decoder logits of one forward
  pass (batched with padding), and for every decoding case the output ids of `generate()` over the
  whole batch (right-padded inputs) and over each input alone.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "target" / "venv-torch"
TORCH_VERSION = "2.15.0"
TRANSFORMERS_VERSION = "5.23.0"
OUT = ROOT / "generate" / "tests" / "fixtures" / "bart-tiny"
SAMPLES = ROOT / "data" / "samples"
VOCAB = 384
SEED = 0
MAX_NEW_TOKENS = 24
EOS_BIAS = 5.0

# (name, generate() keyword arguments); every case also gets max_new_tokens unless it sets it.
CASES = [
    ("greedy", dict(num_beams=1)),
    ("greedy_rep", dict(num_beams=1, repetition_penalty=1.3)),
    ("greedy_ngram3", dict(num_beams=1, no_repeat_ngram_size=3)),
    ("greedy_min", dict(num_beams=1, min_new_tokens=12, max_new_tokens=16)),
    ("beam4", dict(num_beams=4)),
    ("beam4_rep", dict(num_beams=4, repetition_penalty=1.3)),
    ("beam4_ngram2", dict(num_beams=4, no_repeat_ngram_size=2)),
    ("beam4_lp06_early", dict(num_beams=4, length_penalty=0.6, early_stopping=True)),
    ("beam4_lp2_early", dict(num_beams=4, length_penalty=2.0, early_stopping=True)),
    ("beam4_never", dict(num_beams=4, length_penalty=1.0, early_stopping="never")),
    ("beam3_min", dict(num_beams=3, min_new_tokens=8, max_new_tokens=12)),
    ("beam4_short", dict(num_beams=4, max_new_tokens=5)),
]


def has_pinned_versions():
    try:
        import torch
        import transformers
    except ImportError:
        return False
    return (
        torch.__version__.split("+")[0] == TORCH_VERSION
        and transformers.__version__ == TRANSFORMERS_VERSION
    )


def bootstrap(script=__file__):
    """Re-executes `script` in the venv, creating it and installing the pinned versions first."""
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
    os.execv(str(python), [str(python), script, *sys.argv[1:]])


def corpus():
    """Every text field of the sample files, in file order."""
    texts = []
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix == ".tsv":
            with open(path, encoding="utf-8") as f:
                for row in csv.DictReader(f, delimiter="\t"):
                    texts += [v for k, v in row.items() if k in ("sentence", "question1", "question2")]
        elif path.suffix == ".csv":
            with open(path, encoding="utf-8") as f:
                for row in csv.DictReader(f):
                    texts += [row["question_text"], row["decomposition"]]
        elif path.suffix in (".jsonl",):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    record = json.loads(line)
                    texts += [record.get("question", ""), record.get("passage", "")]
    return [t for t in texts if t.strip()]


def inputs(texts):
    """Eight inputs of different lengths: short and long questions, reviews, a decomposition."""
    questions = [t for t in texts if t.endswith("?")]
    others = [t for t in texts if not t.endswith("?")]
    chosen = [questions[0], "Why?", questions[1], others[0], questions[2][:40], others[1][:150],
              questions[3] + " " + questions[4], "return #1"]
    assert len(set(chosen)) == len(chosen)
    return chosen


def train_tokenizer(texts):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE(unk_token=None))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    tokenizer.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    return tokenizer


def rounded(values):
    if isinstance(values, list):
        return [rounded(v) for v in values]
    return float(f"{values:.7g}")


def main():
    if not has_pinned_versions():
        bootstrap()
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    import torch
    import transformers
    from transformers import BartConfig, BartForConditionalGeneration, GenerationConfig

    torch.manual_seed(SEED)
    texts = corpus()
    tokenizer = train_tokenizer(texts)
    vocab = tokenizer.get_vocab_size()
    config = BartConfig(
        vocab_size=vocab,
        d_model=32,
        encoder_layers=2,
        decoder_layers=2,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=37,
        decoder_ffn_dim=37,
        activation_function="gelu",
        max_position_embeddings=128,
        scale_embedding=True,
        init_std=0.35,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        decoder_start_token_id=2,
        forced_bos_token_id=0,
        forced_eos_token_id=2,
    )
    model = BartForConditionalGeneration(config).eval()
    with torch.no_grad():
        # A non-zero logits bias, so that adding it is tested too.
        model.final_logits_bias.normal_(0.0, 0.5)
        # End-of-sequence likely enough that hypotheses finish at different lengths, so that
        # length penalty and early stopping matter.
        model.final_logits_bias[0, 2] += EOS_BIAS
    generation_config = GenerationConfig(
        bos_token_id=0,
        eos_token_id=2,
        pad_token_id=1,
        decoder_start_token_id=2,
        forced_bos_token_id=0,
        forced_eos_token_id=2,
    )
    model.generation_config = generation_config

    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(args.out), safe_serialization=True)
    tokenizer.save(str(args.out / "tokenizer.json"))

    sources = inputs(texts)
    ids = [e.ids for e in tokenizer.encode_batch(sources)]
    width = max(len(i) for i in ids)
    input_ids = torch.tensor([i + [1] * (width - len(i)) for i in ids])
    attention_mask = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i in ids])

    decoder_input_ids = torch.tensor([[2, 0, 10 + k, 40 + 3 * k] for k in range(len(ids))])
    with torch.no_grad():
        out = model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            decoder_input_ids=decoder_input_ids,
        )
    forward = {
        "decoder_input_ids": decoder_input_ids.tolist(),
        "encoder_hidden": rounded(
            [out.encoder_last_hidden_state[b, : len(ids[b])].tolist() for b in range(len(ids))]
        ),
        "logits": rounded(out.logits.tolist()),
    }

    cases = []
    for name, kwargs in CASES:
        kwargs = dict(kwargs)
        kwargs.setdefault("max_new_tokens", MAX_NEW_TOKENS)
        options = dict(do_sample=False, **kwargs)
        with torch.no_grad():
            batched = model.generate(
                input_ids=input_ids, attention_mask=attention_mask, **options
            ).tolist()
            single = [
                model.generate(input_ids=torch.tensor([i]), **options)[0].tolist() for i in ids
            ]
        cases.append({"name": name, "options": kwargs, "batched": batched, "single": single})

    # Settings must change outputs, or a wrong processor would go unnoticed.
    by_output = {}
    for case in cases:
        by_output.setdefault(json.dumps(case["batched"]), []).append(case["name"])
    same = [names for names in by_output.values() if len(names) > 1]
    if same:
        sys.exit(f"cases with identical outputs {same}: change the seed or EOS_BIAS")

    golden = {
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "inputs": sources,
        "input_ids": ids,
        "forward": forward,
        "cases": cases,
    }
    (args.out / "golden.json").write_text(json.dumps(golden, separators=(",", ":")) + "\n")
    for case in cases:
        print(case["name"], case["batched"][0][:12])
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
