#!/usr/bin/env python3
"""Build two tiny random-weight GGUF causal LMs (Llama/SmolLM2 layout and Gemma 3 layout) and the
tokenizer ids and token log-probabilities `transformers` computes for them (and, when given, for
the real SmolLM2-135M and Gemma 3 270M GGUF files), which the Rust GGUF causal-LM implementation
is tested against.

Usage: python3 scripts/causal_lm_fixtures.py [--out DIR] [--smollm2 PATH] [--gemma3 PATH]

--smollm2 / --gemma3 name the real GGUF files (e.g. SmolLM2-135M-Instruct Q4_1, Gemma 3 270M
Q4_K_M); without them (or when the path does not exist) the outputs about the real models are
skipped (their keys are missing from tokenizer-ids.json, and real-golden.json is not written).

The script bootstraps itself: unless it already runs in a Python that has the pinned torch,
transformers, gguf, tokenizers, sentencepiece and accelerate (normally `target/venv-torch`), it creates that
virtualenv, installs them into it with pip's default index and re-executes itself there (as
scripts/bart_fixtures.py does).

What it writes into models/tests/fixtures/causal-lm/ (deterministic for the pinned versions):
- llama-tiny.gguf: architecture `llama`, 2 blocks, width 64, 4 heads / 2 KV heads, ffn 128,
  rope dim 16 (theta 1e4), eps 1e-5, tied embeddings (no output.weight); token_embd Q8_0, the
  matrices Q4_1, norms F32 -- the types and tensor names of SmolLM2-135M-Instruct Q4_1. Tokenizer:
  byte-level BPE (vocabulary 512, <|endoftext|>=0 <|im_start|>=1 <|im_end|>=2) trained with
  `tokenizers` on the text of data/samples/ with SmolLM2's pre-tokenizer (Digits individual +
  ByteLevel), stored as tokenizer.ggml.model 'gpt2', pre 'smollm', like SmolLM2's GGUF.
  Weights are written as they are in a GGUF (llama.cpp's q/k row permutation is whatever the
  random values are; transformers un-permutes attn_q/attn_k when it loads the file).
- gemma3-tiny.gguf: architecture `gemma3`, 6 blocks (0-4 sliding, 5 global), width 64, 2 heads /
  1 KV head, head dim 32, ffn 128, sliding window 8, rope theta 1e6 (global; local layers use
  1e4), eps 1e-6; matrices Q8_0/Q5_0, norms F32 stored with llama.cpp's +1 already added
  (transformers' GGUF loader subtracts 1 again, and Gemma3RMSNorm multiplies by 1 + w).
  Tokenizer: SentencePiece BPE with byte fallback (vocabulary 512, <pad>=0 <eos>=1 <bos>=2
  <unk>=3, <0x00>..<0xFF> = 4..259) trained with `sentencepiece` on the samples text, stored as
  tokenizer.ggml.model 'llama' with tokens/scores/token_type, like Gemma 3's GGUF.
- golden.json: per tiny model, ~20 texts with their ids (tokenizer, add_special_tokens=False),
  input_ids (start token + ids; start = <|endoftext|> 0 for llama, <bos> 2 for gemma), the
  log-probability of every next input token from one float32 eager forward pass of
  AutoModelForCausalLM.from_pretrained(out, gguf_file=...), greedy continuations (8 new tokens,
  argmax each step, eos not treated specially) of 4 prompts, the first 8 logits of the last
  position of the first text, and the configs transformers built.
  For gemma3-tiny the model is loaded with query_pre_attn_scalar = head_dim (32): a GGUF does
  not carry that value, transformers' Gemma3TextConfig defaults it to 256 while llama.cpp scales
  queries by 1/sqrt(head_dim) (the same for the real 270M, whose head_dim is 256).
- tokenizer-texts.json: >= 520 texts (every distinct text field of data/samples, truncated to
  ~400 characters at a word boundary, their sentences, and hand-written edge cases).
- tokenizer-ids.json: per tokenizer (llama-tiny, gemma3-tiny, smollm2, gemma3) the ids of every
  text from AutoTokenizer.from_pretrained(dir, gguf_file=...) with add_special_tokens=False;
  "smollm2-digits" / "llama-tiny-digits" additionally hold the ids with the pre-tokenizer set to
  SmolLM2's hub one (Digits individual + ByteLevel), when that differs from the GGUF conversion.
- real-golden.json (only with --smollm2/--gemma3): 20 short sentences per real model with ids,
  input_ids ([0]+ids for smollm2, [2]+ids for gemma3), token_logprobs, greedy for 2 prompts.
"""

import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "target" / "venv-torch"
PINNED = {
    "torch": "2.15.0",
    "transformers": "5.23.0",
    "gguf": "0.19.0",
    "tokenizers": "0.23.3",
    "sentencepiece": "0.2.3",
    "protobuf": "7.36.2",
    "numpy": "2.4.6",
    "accelerate": "1.15.0",
}
OUT = ROOT / "models" / "tests" / "fixtures" / "causal-lm"
SAMPLES = ROOT / "data" / "samples"
VOCAB = 512
SEED = 0
GREEDY_NEW = 8
MAX_CHARS = 400


def has_pinned_versions():
    try:
        from importlib.metadata import version

        return all(version(name).split("+")[0] == want for name, want in PINNED.items())
    except Exception:
        return False


def bootstrap(script=__file__):
    """Re-executes `script` in the venv, creating it and installing the pinned versions first."""
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    check = "; ".join(
        f"assert version('{n}').split('+')[0] == '{v}'" for n, v in PINNED.items()
    )
    probe = subprocess.run(
        [str(python), "-c", "from importlib.metadata import version; " + check],
        capture_output=True,
    )
    if probe.returncode != 0:
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
            + [f"{n}=={v}" for n, v in PINNED.items()],
            check=True,
        )
    os.execv(str(python), [str(python), script, *sys.argv[1:]])


# ---------------------------------------------------------------------------------------------
# Texts


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        if value and all(isinstance(v, str) for v in value) and len(value) > 3:
            yield " ".join(value)  # a token list (tacred)
        else:
            for v in value:
                yield from _strings(v)


def sample_fields():
    """Every text field of every sample file, in file order (conll: one text per sentence)."""
    texts = []
    for path in sorted(SAMPLES.iterdir()):
        if path.suffix == ".tsv":
            with open(path, encoding="utf-8") as f:
                for row in csv.DictReader(f, delimiter="\t"):
                    texts += list(row.values())
        elif path.suffix == ".csv":
            with open(path, encoding="utf-8") as f:
                for row in csv.DictReader(f):
                    texts += list(row.values())
        elif path.suffix == ".jsonl":
            with open(path, encoding="utf-8") as f:
                for line in f:
                    texts += list(_strings(json.loads(line)))
        elif path.suffix == ".json":
            texts += list(_strings(json.loads(path.read_text(encoding="utf-8"))))
        elif path.suffix == ".conll":
            words = []
            for line in path.read_text(encoding="utf-8").splitlines():
                cols = line.split("\t")
                if len(cols) > 3 and not line.startswith("#"):
                    words.append(cols[3])
                elif words:
                    texts.append(" ".join(words))
                    words = []
            if words:
                texts.append(" ".join(words))
        elif path.suffix == ".md":
            texts += [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")]
    return [t for t in texts if t and t.strip()]


def truncate(text, limit=MAX_CHARS):
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return cut[: cut.rfind(" ")] if " " in cut else cut


EXTRA = [
    "café", "naïve", "Zürich", "São Paulo", "Crème brûlée at the café in Zürich.",
    "The naïve coöperation of Ångström and Øresund.", "façade, jalapeño, piñata, résumé",
    "👍", "👍🏽", "🇫🇷", "❤️", "I ❤️ NLP 👍🏽 and 🇫🇷 food 🍕🍕!", "emoji at end 😀", "😀 at start",
    "1234567", "3.14159", "1,000,000", "2026-11-28", "Call 555-0199 or +1 (212) 555-0100.",
    "In 1999 there were 42 cats and 7 dogs.", "x = 12345678901234567890", "0.5% of $1,234.56",
    "v2.0.1", "4th of July", "10:30am", "3/4 cup", "100%",
    'fn main() { println!("hi"); }', "def f(x):\n    return x + 1\n",
    "for i in range(10):\n\tif i % 2:\n\t\tprint(i)", "if (a && b) { return a->c[0]; }",
    "let v: Vec<u8> = vec![1, 2, 3];", "SELECT * FROM users WHERE id = 7;", "<div class=\"a\">x</div>",
    "two  spaces", "three   spaces", "many          spaces", " leading space", "  two leading",
    "trailing space ", "trailing two  ", "   ", " ", "\t", "\n", "line one\nline two",
    "para one\n\npara two", "windows\r\nline", "tab\tseparated\tvalues", "mixed \t \n whitespace",
    "日本語のテキスト", "中文文本测试", "한국어 텍스트", "Привет, мир!", "Москва — столица России.",
    "مرحبا بالعالم", "שלום עולם", "Ελληνικά γράμματα", "हिन्दी पाठ", "ไทย",
    "don't", "I'll", "WE'RE", "she's", "they've", "I'd", "you're", "it's", "DON'T STOP", "O'Neill's",
    "https://en.wikipedia.org/wiki/Ada_Lovelace", "http://example.com/a?b=c&d=e#f",
    "mail me: someone@example.org", "!!!", "?!?!", "...", "---", "Wait... what?!", "(a) [b] {c}",
    "**bold** _it_ `code`", "#hashtag @mention", "a--b", "quote \"in\" 'quotes'", "«guillemets»",
    "“smart quotes” and ‘single’", "en–dash and em—dash", "naïve café 123 👍🏽", "A", "a", "I",
    "ALL CAPS SENTENCE", "camelCaseWord", "snake_case_word", "kebab-case-word", "UPPER lower Mixed",
    "<|im_start|>user\nHello<|im_end|>", "<|endoftext|>", "<bos>text", "hello<eos>",
    "The year 2024 had 366 days.", "Ω≈ç√∫˜µ≤≥÷", "½ ¼ ¾", "© ® ™", "°C and °F", "∑ x_i^2",
    "\u00a0non-breaking\u00a0space", "zero\u200bwidth", "e\u0301 combining", "ﬁ ligature",
]


def tokenizer_texts(fields):
    texts, seen = [], set()

    def add(t):
        if t not in seen:
            seen.add(t)
            texts.append(t)

    for t in fields:
        add(truncate(t))
    for t in fields:
        for s in re.split(r"(?<=[.!?])\s+", t):
            if len(s) > 3:
                add(truncate(s))
    for t in EXTRA:
        add(t)
    # word windows of the passages, with varied casing and spacing, until there are enough
    words = " ".join(fields).split()
    i = 0
    while len(texts) < 560:
        n = 3 + (i % 9)
        chunk = " ".join(words[(i * 7) % len(words):(i * 7) % len(words) + n])
        variant = i % 4
        if variant == 1:
            chunk = chunk.upper()
        elif variant == 2:
            chunk = " " + chunk.lower()
        elif variant == 3:
            chunk = chunk.replace(" ", "  ", 1) + "\n"
        add(chunk)
        i += 1
    return texts


GOLDEN_EXTRA = [
    "In 2026-11-28 we sold 1,234,567 units at 3.14 each.",
    "Crème brûlée in Zürich with a naïve café owner 👍🏽.",
    "Don't stop: WE'RE going to São Paulo! 🇫🇷 ❤️",
    "def add(a, b):\n    return a + b",
    "  Leading and trailing spaces.  ",
]

REAL_TEXTS = [
    "Which river is longer than the Danube in Europe?",
    "The movie was absolutely wonderful and I loved every minute of it.",
    "This was the worst meal I have ever eaten.",
    "Tim Cook, the chief executive of Apple, spoke in Cupertino on Tuesday.",
    "Marie Curie was born in Warsaw and later moved to Paris.",
    "Question: Who wrote the first computer program? Answer:",
    "The capital of France is",
    "Is the sky blue on a clear day?",
    "Barack Obama was the president of the United States.",
    "Paris is the capital and most populous city of France.",
    "The service was slow, but the food was delicious.",
    "Ada Lovelace worked with Charles Babbage on the Analytical Engine.",
    "How many touchdowns did the Packers score in the game?",
    "Amazon was founded by Jeff Bezos in Seattle in 1994.",
    "I can't believe how boring that book was.",
    "The Eiffel Tower is located in",
    "Google is headquartered in Mountain View, California.",
    "She said that she would come to the party tomorrow.",
    "What is the boiling point of water at sea level?",
    "The quick brown fox jumps over the lazy dog.",
]
REAL_PROMPTS = ["The capital of France is", "Once upon a time, there was a"]


# ---------------------------------------------------------------------------------------------
# Tokenizers


def train_bpe(texts):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE(unk_token=None))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    model = json.loads(tokenizer.to_str())["model"]
    vocab = model["vocab"]
    tokens = [None] * len(vocab)
    for token, index in vocab.items():
        tokens[index] = token
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    return tokens, merges


def train_spm(texts):
    import sentencepiece as spm

    lines = [line for t in texts for line in t.split("\n") if line.strip()]
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=model,
        model_type="bpe",
        vocab_size=VOCAB,
        byte_fallback=True,
        pad_id=0,
        eos_id=1,
        bos_id=2,
        unk_id=3,
        pad_piece="<pad>",
        eos_piece="<eos>",
        bos_piece="<bos>",
        unk_piece="<unk>",
        normalization_rule_name="identity",
        add_dummy_prefix=False,
        remove_extra_whitespaces=False,
        split_digits=True,
        allow_whitespace_only_pieces=True,
        character_coverage=0.9995,
        num_threads=1,
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    tokens, scores, types = [], [], []
    for i in range(sp.get_piece_size()):
        tokens.append(sp.id_to_piece(i))
        scores.append(sp.get_score(i))
        if sp.is_unknown(i):
            types.append(2)
        elif sp.is_control(i):
            types.append(3)
        elif sp.is_byte(i):
            types.append(6)
        elif sp.is_unused(i):
            types.append(5)
        else:
            types.append(1)
    return tokens, scores, types


# ---------------------------------------------------------------------------------------------
# GGUF writing


def quant(writer, name, array, qtype):
    import numpy as np
    from gguf import GGMLQuantizationType, quants

    array = np.ascontiguousarray(array, dtype=np.float32)
    if qtype == GGMLQuantizationType.F32:
        writer.add_tensor(name, array)
    else:
        writer.add_tensor(name, quants.quantize(array, qtype), raw_dtype=qtype)


def write_llama_tiny(path, tokens, merges, rng):
    import gguf
    from gguf import GGMLQuantizationType as Q

    d, ff, heads, kv, layers = 64, 128, 4, 2, 2
    hd = d // heads
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("llama tiny random")
    w.add_block_count(layers)
    w.add_context_length(256)
    w.add_embedding_length(d)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(kv)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q4_1)
    w.add_vocab_size(len(tokens))
    w.add_rope_dimension_count(hd)
    w.add_add_space_prefix(False)
    w.add_add_bos_token(False)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("smollm")
    w.add_token_list(tokens)
    w.add_token_types([3, 3, 3] + [1] * (len(tokens) - 3))
    w.add_token_merges(merges)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_pad_token_id(2)
    w.add_chat_template(
        "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content']"
        " + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
    )
    w.add_quantization_version(2)

    def mat(rows, cols, std):
        return rng.normal(0.0, std, size=(rows, cols))

    def norm(n):
        return 1.0 + rng.normal(0.0, 0.1, size=n)

    quant(w, "token_embd.weight", mat(len(tokens), d, 0.2), Q.Q8_0)
    for i in range(layers):
        quant(w, f"blk.{i}.attn_norm.weight", norm(d), Q.F32)
        quant(w, f"blk.{i}.ffn_down.weight", mat(d, ff, 0.12), Q.Q4_1)
        quant(w, f"blk.{i}.ffn_gate.weight", mat(ff, d, 0.2), Q.Q4_1)
        quant(w, f"blk.{i}.ffn_up.weight", mat(ff, d, 0.2), Q.Q4_1)
        quant(w, f"blk.{i}.ffn_norm.weight", norm(d), Q.F32)
        quant(w, f"blk.{i}.attn_k.weight", mat(kv * hd, d, 0.25), Q.Q4_1)
        quant(w, f"blk.{i}.attn_output.weight", mat(d, d, 0.15), Q.Q4_1)
        quant(w, f"blk.{i}.attn_q.weight", mat(d, d, 0.25), Q.Q4_1)
        quant(w, f"blk.{i}.attn_v.weight", mat(kv * hd, d, 0.2), Q.Q4_1)
    quant(w, "output_norm.weight", norm(d), Q.F32)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def write_gemma3_tiny(path, tokens, scores, types, rng):
    import gguf
    from gguf import GGMLQuantizationType as Q

    d, ff, heads, kv, hd, layers = 64, 128, 2, 1, 32, 6
    w = gguf.GGUFWriter(str(path), "gemma3")
    w.add_name("gemma3 tiny random")
    w.add_context_length(256)
    w.add_embedding_length(d)
    w.add_block_count(layers)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_key_length(hd)
    w.add_value_length(hd)
    w.add_rope_freq_base(1e6)
    w.add_sliding_window(8)
    w.add_head_count_kv(kv)
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(2)
    w.add_eos_token_id(1)
    w.add_unk_token_id(3)
    w.add_pad_token_id(0)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_add_space_prefix(False)
    w.add_quantization_version(2)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_Q5_0)

    def mat(rows, cols, std):
        return rng.normal(0.0, std, size=(rows, cols))

    def norm(n):  # as llama.cpp stores Gemma norms: 1 + w
        return 1.0 + rng.normal(0.0, 0.1, size=n)

    quant(w, "output_norm.weight", norm(d), Q.F32)
    quant(w, "token_embd.weight", mat(len(tokens), d, 0.15), Q.Q8_0)
    for i in range(layers):
        quant(w, f"blk.{i}.attn_k.weight", mat(kv * hd, d, 0.25), Q.Q5_0)
        quant(w, f"blk.{i}.attn_k_norm.weight", norm(hd), Q.F32)
        quant(w, f"blk.{i}.attn_norm.weight", norm(d), Q.F32)
        quant(w, f"blk.{i}.attn_output.weight", mat(d, heads * hd, 0.15), Q.Q5_0)
        quant(w, f"blk.{i}.attn_q.weight", mat(heads * hd, d, 0.25), Q.Q5_0)
        quant(w, f"blk.{i}.attn_q_norm.weight", norm(hd), Q.F32)
        quant(w, f"blk.{i}.attn_v.weight", mat(kv * hd, d, 0.2), Q.Q8_0)
        quant(w, f"blk.{i}.ffn_down.weight", mat(d, ff, 0.12), Q.Q8_0)
        quant(w, f"blk.{i}.ffn_gate.weight", mat(ff, d, 0.2), Q.Q5_0)
        quant(w, f"blk.{i}.ffn_norm.weight", norm(d), Q.F32)
        quant(w, f"blk.{i}.ffn_up.weight", mat(ff, d, 0.2), Q.Q5_0)
        quant(w, f"blk.{i}.post_attention_norm.weight", norm(d), Q.F32)
        quant(w, f"blk.{i}.post_ffw_norm.weight", norm(d), Q.F32)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


# ---------------------------------------------------------------------------------------------
# References


def r6(x):
    return round(float(x), 6)


def pipeline(tok):
    """The converted tokenizer's pipeline without vocabulary and merges."""
    spec = json.loads(tok.backend_tokenizer.to_str())
    model = {k: v for k, v in spec["model"].items() if k not in ("vocab", "merges")}
    added = [a["content"] for a in spec.get("added_tokens", [])]
    return {
        "normalizer": spec.get("normalizer"),
        "pre_tokenizer": spec.get("pre_tokenizer"),
        "model": model,
        "decoder": spec.get("decoder"),
        "post_processor": spec.get("post_processor"),
        "added_tokens": added[:20] + (["..."] if len(added) > 20 else []),
        "class": type(tok).__name__,
    }


def load_tokenizer(path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)


def load_model(path, **overrides):
    import torch
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(
        str(path.parent), gguf_file=path.name, dtype=torch.float32, attn_implementation="eager",
        **overrides,
    )
    model.eval()
    return model


def token_logprobs(model, input_ids):
    import torch

    with torch.no_grad():
        logits = model(torch.tensor([input_ids])).logits[0].float()
    logp = torch.log_softmax(logits, dim=-1)
    values = [r6(logp[i - 1, input_ids[i]]) for i in range(1, len(input_ids))]
    return values, logits


def greedy(model, input_ids, steps=GREEDY_NEW):
    """Argmax continuation by full forward passes (eos is not special), checked against generate()."""
    import torch

    ids = list(input_ids)
    with torch.no_grad():
        for _ in range(steps):
            ids.append(int(model(torch.tensor([ids])).logits[0, -1].argmax()))
        new = ids[len(input_ids):]
        out = model.generate(
            torch.tensor([input_ids]), attention_mask=torch.ones(1, len(input_ids), dtype=torch.long),
            max_new_tokens=steps, do_sample=False,
        )[0, len(input_ids):].tolist()
    if out != new[: len(out)]:
        print(f"  warning: generate() {out} differs from the argmax loop {new}", file=sys.stderr)
    return new


def config_summary(model):
    c = model.config
    keys = [
        "model_type", "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
        "num_attention_heads", "num_key_value_heads", "head_dim", "rms_norm_eps", "rope_theta",
        "rope_parameters", "rope_scaling", "hidden_act", "hidden_activation", "query_pre_attn_scalar",
        "sliding_window", "layer_types", "final_logit_softcapping", "attn_logit_softcapping",
        "tie_word_embeddings", "max_position_embeddings", "bos_token_id", "eos_token_id",
        "pad_token_id", "attention_bias", "mlp_bias",
    ]
    out = {k: getattr(c, k) for k in keys if hasattr(c, k)}
    return json.loads(json.dumps(out, default=str))


def model_golden(path, texts, prompts, start, overrides=None, head=True):
    tok = load_tokenizer(path)
    model = load_model(path, **(overrides or {}))
    cases = []
    for n, text in enumerate(texts):
        ids = tok(text, add_special_tokens=False)["input_ids"]
        input_ids = [start] + ids
        lp, logits = token_logprobs(model, input_ids)
        case = {"text": text, "ids": ids, "input_ids": input_ids, "token_logprobs": lp}
        if n == 0 and head:
            case["last_logits_head"] = [r6(v) for v in logits[-1, :8]]
        cases.append(case)
        print(f"  {path.name}: {len(input_ids)} tokens, mean logprob "
              f"{sum(lp) / max(1, len(lp)):.3f}, min {min(lp, default=0):.2f}", file=sys.stderr)
    greedy_cases = []
    for prompt in prompts:
        input_ids = [start] + tok(prompt, add_special_tokens=False)["input_ids"]
        greedy_cases.append({"text": prompt, "input_ids": input_ids, "new_ids": greedy(model, input_ids)})
    return {
        "file": path.name,
        "start_id": start,
        "config_overrides": overrides or {},
        "config": config_summary(model),
        "cases": cases,
        "greedy": greedy_cases,
    }


def with_digits_pretokenizer(tok):
    from tokenizers import pre_tokenizers

    clone = tok.backend_tokenizer.__class__.from_str(tok.backend_tokenizer.to_str())
    clone.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True),
         pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)]
    )
    return clone


# ---------------------------------------------------------------------------------------------
# JSON


def dumps(value, indent=0):
    """JSON with every list of scalars on one line."""
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f'{pad} {json.dumps(k)}: {dumps(v, indent + 1)}' for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        items = [f"{pad} {dumps(v, indent + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def write_json(path, value):
    path.write_text(dumps(value) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------


def main():
    if not has_pinned_versions():
        bootstrap()
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--smollm2", type=Path)
    parser.add_argument("--gemma3", type=Path)
    args = parser.parse_args()

    import numpy as np
    import torch
    import transformers

    torch.manual_seed(SEED)
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    args.out.mkdir(parents=True, exist_ok=True)
    versions = {"torch": torch.__version__, "transformers": transformers.__version__}
    versions.update({k: v for k, v in PINNED.items() if k not in versions})

    fields = sample_fields()
    texts = tokenizer_texts(fields)
    write_json(args.out / "tokenizer-texts.json", texts)
    print(f"{len(texts)} tokenizer texts", file=sys.stderr)

    train_texts = list(dict.fromkeys(fields)) + EXTRA[:30]
    llama_path = args.out / "llama-tiny.gguf"
    gemma_path = args.out / "gemma3-tiny.gguf"
    tokens, merges = train_bpe(train_texts)
    write_llama_tiny(llama_path, tokens, merges, np.random.default_rng(SEED))
    sp_tokens, sp_scores, sp_types = train_spm(train_texts)
    write_gemma3_tiny(gemma_path, sp_tokens, sp_scores, sp_types, np.random.default_rng(SEED + 1))

    real = {}
    if args.smollm2 and args.smollm2.exists():
        real["smollm2"] = args.smollm2.resolve()
    if args.gemma3 and args.gemma3.exists():
        real["gemma3"] = args.gemma3.resolve()

    # tokenizer ids
    ids = {}
    pipelines = {}
    for name, path in [("llama-tiny", llama_path), ("gemma3-tiny", gemma_path), *real.items()]:
        tok = load_tokenizer(path)
        pipelines[name] = pipeline(tok)
        ids[name] = [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
        if name in ("llama-tiny", "smollm2"):
            digits = with_digits_pretokenizer(tok)
            alt = [digits.encode(t, add_special_tokens=False).ids for t in texts]
            diff = [t for t, a, b in zip(texts, alt, ids[name]) if a != b]
            pipelines[name]["differs_from_digits_bytelevel_on"] = diff
            if diff:
                ids[name + "-digits"] = alt
        print(f"{name}: {sum(map(len, ids[name]))} tokens over {len(texts)} texts", file=sys.stderr)
    write_json(args.out / "tokenizer-ids.json", ids)
    write_json(Path(tempfile.gettempdir()) / "causal-lm-pipelines.json", pipelines)

    # tiny model goldens
    questions = [t for t in fields if t.endswith("?")]
    others = [t for t in fields if not t.endswith("?") and len(t) > 40]
    golden_texts = list(dict.fromkeys(
        [truncate(t, 300) for t in questions[:7] + others[:10]] + GOLDEN_EXTRA
    ))
    prompts = [questions[0], "The river", "Q: 12 + 7 =", "Zürich café"]
    golden = {"versions": versions}
    golden["llama-tiny"] = model_golden(llama_path, golden_texts, prompts, start=0)
    golden["gemma3-tiny"] = model_golden(
        gemma_path, golden_texts, prompts, start=2, overrides={"query_pre_attn_scalar": 32}
    )
    write_json(args.out / "golden.json", golden)

    if real:
        real_golden = {"versions": versions}
        starts = {"smollm2": 0, "gemma3": 2}
        for name, path in real.items():
            real_golden[name] = model_golden(path, REAL_TEXTS, REAL_PROMPTS, start=starts[name], head=True)
            real_golden[name]["file"] = path.name
        write_json(args.out / "real-golden.json", real_golden)


if __name__ == "__main__":
    main()
