#!/usr/bin/env python3
"""Golden fixtures for metamorph's masked-LM fill (`models/tests/mlm_parity.rs`).

Usage: python3 scripts/mlm_fixtures.py   (or `cargo xtask fixtures mlm`)

Bootstraps `target/venv-torch` (torch 2.15.0, transformers 5.23.0) like
scripts/encoder_fixtures.py, whose tokenizers, configs and corpus it reuses. For each masked-LM
head it writes `models/tests/fixtures/mlm/<name>/`:

* `config.json`, `model.safetensors`: a tiny random `…ForMaskedLM` (hidden 32, 2 layers,
  `initializer_range` 0.2 so that predictions differ clearly), saved by `save_pretrained`
  (tied decoder weights are not stored, as in real checkpoints);
* `tokenizer.json` (+ the tokenizer's other files): the small tokenizer of the architecture's
  kind that encoder_fixtures.py builds (WordPiece for BERT, byte-level BPE for RoBERTa,
  Unigram for DeBERTa-v2);
* `golden.json`: texts holding one to three mask tokens, their input ids, and for every masked
  position the reference top-10 token ids and softmax probabilities (`torch.topk` order).

`python3 scripts/mlm_fixtures.py --pll` writes only `pll.json` into each existing fixture folder
(weights untouched): for texts of the corpus and character spans of words in them, the
pseudo-log-likelihood of the span (Salazar et al., 2020): each non-special token overlapping
the span masked in turn, the natural-log softmax probability of the true token summed, with
the token count — the reference for `CandleMaskedLm::span_pseudo_log_likelihoods`.

Heads: `bert` (BertForMaskedLM), `roberta` (RobertaForMaskedLM), `deberta-v2`
(DebertaV2ForMaskedLM, legacy `cls.predictions` head) and `deberta-v2-lm-predictions`
(`legacy = false`: the `lm_predictions.lm_head` head). Deterministic (fixed seeds).
"""

import json
import re
import shutil

import encoder_fixtures as common

OUT = common.ROOT / "models" / "tests" / "fixtures" / "mlm"
TOP_K = 10
HEADS = [
    ("bert", "bert", "BertForMaskedLM", {}),
    ("roberta", "roberta", "RobertaForMaskedLM", {}),
    ("deberta-v2", "deberta-v2", "DebertaV2ForMaskedLM", {"legacy": True}),
    ("deberta-v2-lm-predictions", "deberta-v2", "DebertaV2ForMaskedLM", {"legacy": False}),
]


def masked_texts(sentences, mask):
    """Texts with one, two and three words replaced by `mask`, of different lengths."""
    def masked(sentence, positions):
        words = sentence[:90].split()
        for p in positions:
            if p < len(words):
                words[p] = mask + ("." if words[p].endswith(".") else "")
        return " ".join(words)

    return [
        masked(sentences[3], [2]),
        masked(sentences[21], [1, 5]),
        f"The {mask} is red.",
        masked(sentences[57], [0, 3, 7]),
    ]


def main():
    if not common.in_venv():
        common.bootstrap(__file__)
    import torch
    import transformers as T

    torch.manual_seed(0)
    sentences = common.corpus()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, arch, cls, overrides in HEADS:
        torch.manual_seed(0)
        tokenizer = common.make_tokenizer(arch, sentences)
        config = common.make_config(arch, "masked-lm", tokenizer)
        for key, value in overrides.items():
            setattr(config, key, value)
        config._attn_implementation = "eager"
        model = getattr(T, cls)(config).eval()
        out = OUT / name
        if out.exists():
            shutil.rmtree(out)
        model.save_pretrained(str(out), safe_serialization=True)
        tokenizer.save_pretrained(str(out))
        texts = masked_texts(sentences, tokenizer.mask_token)
        enc = tokenizer(texts, padding=True, return_tensors="pt")
        feed = {k: enc[k] for k in tokenizer.model_input_names}
        with torch.no_grad():
            logits = model(**feed).logits
        probs = torch.softmax(logits.float(), dim=-1)
        cases = []
        for row, text in enumerate(texts):
            length = int(enc["attention_mask"][row].sum())
            ids = enc["input_ids"][row][:length].tolist()
            masks = []
            for position, token in enumerate(ids):
                if token != tokenizer.mask_token_id:
                    continue
                top = torch.topk(probs[row, position], TOP_K)
                masks.append({
                    "position": position,
                    "ids": top.indices.tolist(),
                    "tokens": tokenizer.convert_ids_to_tokens(top.indices.tolist()),
                    "probs": common.r9(top.values.tolist()),
                })
            assert masks, text
            cases.append({"text": text, "input_ids": ids, "masks": masks})
        golden = {"architecture": cls, "mask_token": tokenizer.mask_token, "top_k": TOP_K, "cases": cases}
        (out / "golden.json").write_text(json.dumps(golden, indent=1) + "\n", encoding="utf-8")
        print(f"{name}: {len(cases)} texts, {sum(len(c['masks']) for c in cases)} masked positions")


def pll_spans(sentences):
    """(text, char start, char end) triples: one to three words of corpus sentences."""
    out = []
    for k, index in enumerate([3, 21, 57, 88]):
        text = sentences[index][:90]
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
        first = words[min(1 + k, len(words) - 1)]
        last = words[min(1 + k + k % 3, len(words) - 1)]
        out.append((text, first[0], last[1]))
    return out


def write_pll():
    if not common.in_venv():
        common.bootstrap(__file__)
    import torch
    import transformers as T

    sentences = common.corpus()
    for name, _arch, cls, _overrides in HEADS:
        out = OUT / name
        tokenizer = T.AutoTokenizer.from_pretrained(str(out))
        model = getattr(T, cls).from_pretrained(str(out), attn_implementation="eager").eval()
        cases = []
        for text, start, end in pll_spans(sentences):
            enc = tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True)
            ids = enc["input_ids"]
            total, pieces = 0.0, 0
            for p, ((a, b), special) in enumerate(zip(enc["offset_mapping"], enc["special_tokens_mask"])):
                if special or not (a < end and b > start):
                    continue
                masked = list(ids)
                masked[p] = tokenizer.mask_token_id
                feed = {"input_ids": torch.tensor([masked])}
                if "token_type_ids" in tokenizer.model_input_names:
                    feed["token_type_ids"] = torch.tensor([enc["token_type_ids"]])
                feed["attention_mask"] = torch.ones(1, len(ids), dtype=torch.long)
                with torch.no_grad():
                    logits = model(**feed).logits[0, p].float()
                total += float(torch.log_softmax(logits, dim=-1)[ids[p]])
                pieces += 1
            cases.append({"text": text, "span": [start, end], "pll": round(total, 6), "pieces": pieces})
        (out / "pll.json").write_text(json.dumps({"architecture": cls, "cases": cases}, indent=1) + "\n", encoding="utf-8")
        print(f"{name}: {len(cases)} spans")


if __name__ == "__main__":
    import sys

    if "--pll" in sys.argv:
        write_pll()
    else:
        main()
