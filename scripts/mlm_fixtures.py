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

Heads: `bert` (BertForMaskedLM), `roberta` (RobertaForMaskedLM), `deberta-v2`
(DebertaV2ForMaskedLM, legacy `cls.predictions` head) and `deberta-v2-lm-predictions`
(`legacy = false`: the `lm_predictions.lm_head` head). Deterministic (fixed seeds).
"""

import json
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


if __name__ == "__main__":
    main()
