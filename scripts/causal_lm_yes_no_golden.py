#!/usr/bin/env python3
"""Golden yes/no probabilities of SmolLM2-135M-Instruct as a BoolQ model under test
(`kind = "causal-lm"`), from `transformers` in f32, for execute/tests/causal_lm_real.rs.

Usage: target/venv-torch/bin/python scripts/causal_lm_yes_no_golden.py SMOLLM2.gguf
(the venv of scripts/causal_lm_fixtures.py: torch, transformers, gguf; `cargo xtask assets
smollm2-135m` fetches the GGUF).

For the first 20 questions of data/samples/boolq.jsonl it writes
execute/tests/fixtures/causal-lm-yes-no-golden.json: each example's prompt ids, built as
metamorph builds them — the start token `<|endoftext|>`, then one ChatML user turn holding the
built-in BoolQ template of execute/src/openai/prompt.rs, then `<|im_start|>assistant\\n`, each
piece tokenized on its own — and the probabilities of the label words `yes` and `no`,
normalised over the two (the continuation log-probabilities read off the last position).
"""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "execute" / "tests" / "fixtures" / "causal-lm-yes-no-golden.json"
# execute/src/openai/prompt.rs, Template::builtin(Task::BoolQ).
TEMPLATE = (
    "Read the passage and answer the question with yes or no.\n\n"
    "Passage: {context}\n\nQuestion: {question}\n\n"
    "Answer with one word: yes or no."
)
COUNT = 20


def main():
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = Path(sys.argv[1]).resolve()
    tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(
        str(path.parent), gguf_file=path.name, dtype=torch.float32, attn_implementation="eager"
    )
    model.eval()
    enc = lambda s: tok(s, add_special_tokens=False)["input_ids"]
    im_start = tok.convert_tokens_to_ids("<|im_start|>")
    im_end = tok.convert_tokens_to_ids("<|im_end|>")
    start = tok.convert_tokens_to_ids("<|endoftext|>")
    rows = []
    lines = (ROOT / "data" / "samples" / "boolq.jsonl").read_text().splitlines()
    for i, line in enumerate(lines[:COUNT]):
        record = json.loads(line)
        prompt = TEMPLATE.format(context=record["passage"], question=record["question"])
        ids = [start, im_start] + enc("user\n" + prompt) + [im_end] + enc("\n")
        ids += [im_start] + enc("assistant\n")
        scores = []
        for word in ["yes", "no"]:
            cont = enc(word)
            full = ids + cont
            with torch.no_grad():
                logits = model(torch.tensor([full])).logits[0].float()
            logp = torch.log_softmax(logits, dim=-1)
            scores.append(sum(float(logp[len(ids) - 1 + k, t]) for k, t in enumerate(cont)))
        top = max(scores)
        weights = [pow(2.718281828459045, s - top) for s in scores]
        total = sum(weights)
        rows.append({
            "line": i,
            "ids": ids,
            "yes": round(weights[0] / total, 6),
            "no": round(weights[1] / total, 6),
        })
        print(f"{i}: p(yes) = {rows[-1]['yes']:.4f}", file=sys.stderr)
    golden = {
        "model": path.name,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "rows": rows,
    }
    OUT.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
