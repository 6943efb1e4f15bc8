#!/usr/bin/env python3
"""Write tiny random-weight encoder checkpoints with PyTorch `transformers`' reference logits, which
the candle task encoders (models/src/task_encoder.rs) are tested against
(execute/tests/encoder_parity.rs).

Usage: python3 scripts/encoder_fixtures.py [--out DIR]

The script bootstraps `target/venv-torch` like scripts/minilm_golden.py (torch and transformers
pinned below) and re-executes itself there.

For every architecture (bert, distilbert, roberta, xlm-roberta, deberta-v2, modernbert) and head
(qa, sequence, token) it writes `<out>/<arch>-<head>/` with:

* `config.json`, `model.safetensors`: `save_pretrained` of a seeded random model (hidden 32,
  2 layers, 4 heads, intermediate 37, float32), initialised with a wider spread than the default
  (`initializer_range` 0.2) so that logits differ clearly between tokens and labels;
* `tokenizer.json` (+ the tokenizer's other files): a small tokenizer (400 pieces) of the
  architecture's kind, built with the `tokenizers` library from the sentences of data/samples/
  (WordPiece for BERT/DistilBERT, byte-level BPE for RoBERTa/ModernBERT, Unigram with a
  metaspace for XLM-R/DeBERTa-v2) with the architecture's special tokens and templates. The
  BPE merges come from `tokenizers`' trainer (deterministic); the WordPiece and Unigram
  vocabularies are counted here, because those trainers iterate hash maps and their
  vocabularies change between runs;
* `golden.json`: `inputs` (batches of single texts and of text pairs, padded to the longest),
  each with the reference `input_ids`, `token_type_ids`, `attention_mask` and the model's
  `logits` (eager attention, float32 on CPU, 9 significant digits): QA [rows, width, 2]
  (start, end), sequence classification [rows, labels], token classification
  [rows, width, labels]; `labels` (id2label in id order); for QA models `qa_pipeline`.

`<out>/../encoder-variants/<name>/` (same files, no QA): config variants that real checkpoints
use beyond the main fixtures' defaults (`VARIANTS`: ModernBERT with biases, other activations
and a 4-layer global/local pattern; DeBERTa-v2 with p2c-only unbucketed and c2p-only
unshared relative attention).

`qa_pipeline`: transformers 5 removed the question-answering pipeline, so the script runs the
algorithm of transformers 4.57's `QuestionAnsweringPipeline` (fast-tokenizer path, top_k 1,
align_to_words), ported line by line and checked to give the same answers as 4.57.1's own
pipeline on these fixtures:
1. question first, context truncated `only_second` into windows of `max_seq_len` tokens that
   overlap by `doc_stride` tokens (`return_overflowing_tokens`), each window run alone;
2. per window, transformers' own `select_starts_ends` (still shipped in
   `transformers.pipelines.document_question_answering`): p_mask = every token outside the
   context except [CLS]; logits of masked tokens set to -10000; softmax of start and end; with
   `handle_impossible_answer` the null score is min over windows of p_start[0]·p_end[0];
   p[0] then zeroed; spans with start ≤ end < start + `max_answer_len` scored
   p_start·p_end; the best `top_k * 2 + 10` (= 12) kept;
3. each span mapped to characters through the words of its first and last token
   (`token_to_word` / `word_to_chars`; token offsets when a token has no word); spans whose
   text is equal ignoring case are merged by adding their scores (across windows too);
4. with `handle_impossible_answer` the null answer (score as above, start = end = 0, text "")
   joins; the answer is the highest score (first on ties, in window and score order).
Every entry records its parameters, the number of windows, `null_score` (the null answer's
score, null without `handle_impossible_answer`) and the answer.

Output is deterministic (fixed seeds, single-threaded tokenizer training).
"""

import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "target" / "venv-torch"
TORCH_VERSION = "2.15.0"
TRANSFORMERS_VERSION = "5.23.0"
OUT = ROOT / "models" / "tests" / "fixtures" / "encoders"
VARIANTS_OUT = ROOT / "models" / "tests" / "fixtures" / "encoder-variants"
SAMPLES = ROOT / "data" / "samples"

HIDDEN, LAYERS, HEADS, INTERMEDIATE, POSITIONS = 32, 2, 4, 37, 128
VOCAB = 400
INIT_RANGE = 0.2
LABELS = {0: "negative", 1: "neutral", 2: "positive"}
TOKEN_LABELS = {0: "O", 1: "B-ENT", 2: "I-ENT"}
ARCHS = ["bert", "distilbert", "roberta", "xlm-roberta", "deberta-v2", "modernbert"]
HEADS_ = ["qa", "sequence", "token"]
# Config variants real checkpoints use, beyond the defaults of the main fixtures:
# (architecture, head, directory, config overrides).
VARIANTS = [
    ("modernbert", "sequence", "modernbert-biases",
     dict(norm_bias=True, attention_bias=True, mlp_bias=True, classifier_bias=True,
          hidden_activation="gelu_pytorch_tanh", classifier_activation="silu", classifier_pooling="cls")),
    ("modernbert", "token", "modernbert-4-layers",
     dict(num_hidden_layers=4, global_attn_every_n_layers=3, local_attention=8,
          layer_types=["full_attention", "sliding_attention", "sliding_attention", "full_attention"])),
    ("deberta-v2", "sequence", "deberta-v2-p2c-unbucketed",
     dict(pooler_hidden_act="tanh", pos_att_type=["p2c"], position_buckets=-1, max_relative_positions=32)),
    ("deberta-v2", "token", "deberta-v2-c2p-unshared", dict(pos_att_type=["c2p"], share_att_key=False)),
]


def in_venv():
    return Path(sys.prefix).resolve() == VENV.resolve()


def bootstrap(script=__file__):
    """Re-runs `script` (default: this one) inside the pinned virtualenv, creating it first."""
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
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    os.environ["RAYON_NUM_THREADS"] = "1"
    os.execv(str(python), [str(python), script, *sys.argv[1:]])


# ---------------------------------------------------------------- corpus


def corpus():
    """Sentences of the repo's samples, in file order, without repeats."""
    texts = []
    for line in (SAMPLES / "boolq.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts += [record["question"], record["passage"]]
    squad = json.loads((SAMPLES / "squad.json").read_text(encoding="utf-8"))
    for article in squad["data"]:
        for paragraph in article["paragraphs"]:
            texts.append(paragraph["context"])
            texts += [qa["question"] for qa in paragraph["qas"]]
    for record in json.loads((SAMPLES / "tacred.json").read_text(encoding="utf-8")):
        texts.append(" ".join(record["token"]))
    for name, columns in [("sentiment.tsv", ["sentence"]), ("paraphrase.tsv", ["question1", "question2"])]:
        with open(SAMPLES / name, encoding="utf-8") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                texts += [row[c] for c in columns]
    drop = json.loads((SAMPLES / "drop.json").read_text(encoding="utf-8"))
    for passage in drop.values():
        texts.append(passage["passage"])
        texts += [qa["question"] for qa in passage["qa_pairs"]]
    sentences, seen = [], set()
    for text in texts:
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            sentence = sentence.strip()
            if sentence and sentence not in seen:
                seen.add(sentence)
                sentences.append(sentence)
    return sentences


# ---------------------------------------------------------------- tokenizers


def pretokenized(tok, sentences):
    """Counts of the words `tok`'s normalizer and pre-tokenizer make of `sentences`."""
    counts = Counter()
    for sentence in sentences:
        text = tok.normalizer.normalize_str(sentence) if tok.normalizer else sentence
        counts.update(word for word, _ in tok.pre_tokenizer.pre_tokenize_str(text))
    return counts


def wordpiece(sentences):
    """WordPiece with a vocabulary built deterministically (the `tokenizers` trainers iterate
    hash maps, so their vocabularies change from run to run): every character alone and as a
    `##` continuation, then the most frequent words and word endings."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    probe = Tokenizer(models.WordPiece(vocab={"[UNK]": 0}, unk_token="[UNK]"))
    probe.normalizer = normalizers.BertNormalizer(lowercase=True)
    probe.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    counts = pretokenized(probe, sentences)
    chars = sorted({c for word in counts for c in word})
    vocab = specials + chars + ["##" + c for c in chars]
    endings = Counter()
    for word, n in counts.items():
        for k in (2, 3, 4):
            if len(word) > k + 1:
                endings["##" + word[-k:]] += n
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ranked_endings = sorted(endings.items(), key=lambda kv: (-kv[1], kv[0]))
    for piece, _ in [x for pair in zip(ranked, ranked_endings) for x in pair]:
        if len(vocab) >= VOCAB:
            break
        if piece not in vocab:
            vocab.append(piece)
    tok = Tokenizer(models.WordPiece(vocab={p: i for i, p in enumerate(vocab)}, unk_token="[UNK]"))
    tok.normalizer = probe.normalizer
    tok.pre_tokenizer = probe.pre_tokenizer
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    tok.decoder = decoders.WordPiece()
    return tok, dict(pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")


def byte_bpe(sentences, roberta_style):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    if roberta_style:
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        names = dict(bos_token="<s>", eos_token="</s>", cls_token="<s>", sep_token="</s>", pad_token="<pad>",
                     unk_token="<unk>", mask_token="<mask>")
    else:
        specials = ["[CLS]", "[PAD]", "[SEP]", "[UNK]", "[MASK]"]
        names = dict(cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", unk_token="[UNK]", mask_token="[MASK]")
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.train_from_iterator(
        sentences,
        trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()),
    )
    if roberta_style:
        tok.post_processor = processors.RobertaProcessing(
            ("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")), trim_offsets=True, add_prefix_space=False
        )
    else:
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.Sequence([
            processors.ByteLevel(trim_offsets=True),
            processors.TemplateProcessing(
                single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
            ),
        ])
    tok.decoder = decoders.ByteLevel()
    return tok, names


def unigram(sentences, xlmr_style):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    if xlmr_style:
        specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
        unk = "<unk>"
        names = dict(bos_token="<s>", eos_token="</s>", cls_token="<s>", sep_token="</s>", pad_token="<pad>",
                     unk_token="<unk>", mask_token="<mask>")
    else:
        specials = ["[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]"]
        unk = "[UNK]"
        names = dict(cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", unk_token="[UNK]", mask_token="[MASK]")
    probe = Tokenizer(models.Unigram([(unk, 0.0)], 0, False))
    probe.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(" +", " ")])
    probe.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    # Unigram LM pieces built deterministically (see `wordpiece`): every character, then the
    # substrings (up to 6 characters) of the words with the highest count × length, each
    # scored by its log frequency, as SentencePiece's unigram models are.
    counts = pretokenized(probe, sentences)
    subs = Counter()
    for word, n in counts.items():
        for i in range(len(word)):
            for j in range(i + 2, min(len(word), i + 6) + 1):
                subs[word[i:j]] += n
    chars = Counter()
    for word, n in counts.items():
        for c in word:
            chars[c] += n
    ranked = sorted(subs.items(), key=lambda kv: (-kv[1] * len(kv[0]), kv[0]))
    chosen = dict(sorted(chars.items()))
    for piece, n in ranked:
        if len(chosen) + len(specials) >= VOCAB:
            break
        chosen[piece] = n
    total = sum(chosen.values())
    pieces = [(p, 0.0) for p in specials] + [
        (p, math.log(n / total)) for p, n in sorted(chosen.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    tok = Tokenizer(models.Unigram(pieces, specials.index(unk), False))
    tok.normalizer = probe.normalizer
    tok.pre_tokenizer = probe.pre_tokenizer
    if xlmr_style:
        s, e = tok.token_to_id("<s>"), tok.token_to_id("</s>")
        tok.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", s), ("</s>", e)]
        )
    else:
        cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
        )
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    return tok, names


def make_tokenizer(arch, sentences):
    from transformers import PreTrainedTokenizerFast

    if arch in ("bert", "distilbert"):
        tok, names = wordpiece(sentences)
    elif arch in ("roberta", "modernbert"):
        tok, names = byte_bpe(sentences, roberta_style=arch == "roberta")
    else:
        tok, names = unigram(sentences, xlmr_style=arch == "xlm-roberta")
    input_names = ["input_ids", "attention_mask"]
    if arch in ("bert", "deberta-v2"):
        input_names.insert(1, "token_type_ids")
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, model_max_length=POSITIONS, padding_side="right", model_input_names=input_names, **names
    )
    return fast


# ---------------------------------------------------------------- models


def make_config(arch, head, tokenizer):
    import transformers as T

    vocab = len(tokenizer)
    common = dict(vocab_size=vocab, pad_token_id=tokenizer.pad_token_id, initializer_range=INIT_RANGE)
    if head == "sequence":
        common.update(id2label=LABELS, label2id={v: k for k, v in LABELS.items()})
    elif head == "token":
        common.update(id2label=TOKEN_LABELS, label2id={v: k for k, v in TOKEN_LABELS.items()})
    if arch == "bert":
        return T.BertConfig(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                            intermediate_size=INTERMEDIATE, max_position_embeddings=POSITIONS, type_vocab_size=2,
                            **common)
    if arch == "distilbert":
        return T.DistilBertConfig(dim=HIDDEN, n_layers=LAYERS, n_heads=HEADS, hidden_dim=INTERMEDIATE,
                                  max_position_embeddings=POSITIONS, **common)
    if arch in ("roberta", "xlm-roberta"):
        cls = T.RobertaConfig if arch == "roberta" else T.XLMRobertaConfig
        # RoBERTa's positions start after padding_idx: room for POSITIONS tokens.
        return cls(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                   intermediate_size=INTERMEDIATE, max_position_embeddings=POSITIONS + tokenizer.pad_token_id + 1,
                   type_vocab_size=1, bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id,
                   **common)
    if arch == "deberta-v2":
        # DeBERTa-v3 layout: relative attention with log buckets (position_buckets 16, so inputs
        # longer than 8 tokens reach the log part), no absolute positions, no token types.
        return T.DebertaV2Config(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                                 intermediate_size=INTERMEDIATE, max_position_embeddings=POSITIONS, type_vocab_size=0,
                                 relative_attention=True, position_buckets=16, max_relative_positions=-1,
                                 pos_att_type=["p2c", "c2p"], position_biased_input=False, norm_rel_ebd="layer_norm",
                                 share_att_key=True, **common)
    if arch == "modernbert":
        # layer 0 global, layer 1 local with a 16-token window, so longer inputs exercise it.
        return T.ModernBertConfig(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                                  intermediate_size=INTERMEDIATE, max_position_embeddings=POSITIONS,
                                  global_attn_every_n_layers=2, local_attention=16,
                                  classifier_pooling="mean" if head == "sequence" else "cls",
                                  cls_token_id=tokenizer.cls_token_id, sep_token_id=tokenizer.sep_token_id,
                                  bos_token_id=tokenizer.cls_token_id, eos_token_id=tokenizer.sep_token_id,
                                  **common)
    raise ValueError(arch)


def make_model(arch, head, config):
    import transformers as T

    prefix = {"bert": "Bert", "distilbert": "DistilBert", "roberta": "Roberta", "xlm-roberta": "XLMRoberta",
              "deberta-v2": "DebertaV2", "modernbert": "ModernBert"}[arch]
    suffix = {"qa": "ForQuestionAnswering", "sequence": "ForSequenceClassification",
              "token": "ForTokenClassification"}[head]
    cls = getattr(T, prefix + suffix)
    config._attn_implementation = "eager"
    model = cls(config).eval()
    return model


# ---------------------------------------------------------------- inputs


def inputs_for(head, sentences):
    """Batches of single texts and of text pairs of different lengths (each text at most 90
    characters, so that every tokenizer stays within the 128 positions)."""
    cut = lambda text: text[:90]
    singles = [cut(sentences[3]), sentences[10][:40], cut(sentences[21]), "Hi!", cut(sentences[57])]
    pairs = [
        [cut(sentences[0]), cut(sentences[1])],
        [cut(sentences[30]), sentences[31][:60]],
        ["Is it true?", cut(sentences[44])],
    ]
    if head == "qa":
        return [{"pairs": pairs}, {"pairs": [pairs[2]]}]
    if head == "token":
        return [{"texts": singles}, {"texts": [singles[1]]}]
    return [{"texts": singles}, {"pairs": pairs}, {"texts": [singles[0]]}]


def r9(values):
    if isinstance(values, list):
        return [r9(v) for v in values]
    return float(f"{values:.9g}")


def run_batch(model, tokenizer, head, batch):
    import torch

    if "texts" in batch:
        enc = tokenizer(batch["texts"], padding=True, return_tensors="pt", return_token_type_ids=True)
    else:
        enc = tokenizer([p[0] for p in batch["pairs"]], [p[1] for p in batch["pairs"]], padding=True,
                        return_tensors="pt", return_token_type_ids=True)
    feed = {k: enc[k] for k in tokenizer.model_input_names}
    with torch.no_grad():
        out = model(**feed)
    if head == "qa":
        logits = torch.stack([out.start_logits, out.end_logits], dim=-1)
    else:
        logits = out.logits
    return {
        **batch,
        "input_ids": enc["input_ids"].tolist(),
        "token_type_ids": enc["token_type_ids"].tolist(),
        "attention_mask": enc["attention_mask"].tolist(),
        "logits": r9(logits.float().tolist()),
    }


# ---------------------------------------------------------------- QA pipeline (4.x algorithm)


def qa_answer(model, tokenizer, question, context, max_seq_len, doc_stride, max_answer_len, handle_impossible):
    """transformers 4.57's QuestionAnsweringPipeline (fast tokenizer, top_k 1, align_to_words),
    step by step: see the module docstring."""
    import numpy as np
    import torch
    from transformers.pipelines.document_question_answering import select_starts_ends

    top_k = 1
    enc = tokenizer(
        text=question, text_pair=context, padding="do_not_pad", truncation="only_second", max_length=max_seq_len,
        stride=doc_stride, return_token_type_ids=True, return_overflowing_tokens=True,
        return_offsets_mapping=True, return_special_tokens_mask=True,
    )
    windows = len(enc["input_ids"])
    min_null_score = 1000000
    answers = []
    for w in range(windows):
        ids = enc["input_ids"][w]
        p_mask = [tok != 1 for tok in enc.sequence_ids(w)]
        for i, tok in enumerate(ids):
            if tok == tokenizer.cls_token_id:
                p_mask[i] = 0
        feed = {k: torch.tensor([enc[k][w]]) for k in tokenizer.model_input_names}
        with torch.no_grad():
            out = model(**feed)
        starts, ends, scores, min_null_score = select_starts_ends(
            out.start_logits, out.end_logits, torch.tensor([p_mask]).numpy(),
            np.asarray([enc["attention_mask"][w]]), min_null_score, top_k * 2 + 10, handle_impossible,
            max_answer_len,
        )
        encoding = enc.encodings[w]
        for s, e, score in zip(starts, ends, scores):
            try:
                start = encoding.word_to_chars(encoding.token_to_word(s), sequence_index=1)[0]
                end = encoding.word_to_chars(encoding.token_to_word(e), sequence_index=1)[1]
            except Exception:
                start, end = encoding.offsets[s][0], encoding.offsets[e][1]
            text = context[start:end]
            same = next((a for a in answers if a["text"].lower() == text.lower()), None)
            if same:
                same["score"] += score.item()
            else:
                answers.append({"score": score.item(), "start": start, "end": end, "text": text})
    if handle_impossible:
        answers.append({"score": min_null_score, "start": 0, "end": 0, "text": ""})
    best = sorted(answers, key=lambda a: a["score"], reverse=True)[0]
    answer = {"text": best["text"], "start": best["start"], "end": best["end"], "score": float(f"{best['score']:.9g}")}
    null_score = float(f"{min_null_score:.9g}") if handle_impossible else None
    return answer, windows, null_score


def qa_cases():
    squad = json.loads((SAMPLES / "squad.json").read_text(encoding="utf-8"))
    boolq = [json.loads(l) for l in (SAMPLES / "boolq.jsonl").read_text(encoding="utf-8").splitlines()]
    pairs = []
    for article in squad["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                pairs.append((qa["question"], paragraph["context"]))
    pairs = pairs[:5] + [(r["question"][:50] + "?", r["passage"]) for r in boolq[:3]] + [
        ("Who?", "Paris."), ("Where is the river?", "The river flows north.")]
    cases = []
    settings = [(64, 16, 15, False), (64, 16, 15, True), (80, 24, 5, False), (64, 16, 3, True), (96, 32, 30, False)]
    for i, (question, context) in enumerate(pairs):
        max_seq_len, doc_stride, max_answer_len, impossible = settings[i % len(settings)]
        cases.append((question, context, max_seq_len, doc_stride, max_answer_len, impossible))
    # Very short contexts, where the null answer ([CLS]) competes with few spans: with random
    # weights it wins for some models, so both outcomes of `handle_impossible_answer` occur.
    for question, context in [("When?", "Yes."), ("What?", "It rained."), ("Why?", "No."), ("Who won?", "Ann did.")]:
        cases.append((question, context, 64, 16, 15, True))
    return cases


# ---------------------------------------------------------------- main


def main():
    if not in_venv():
        bootstrap()
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    import torch
    import transformers

    torch.set_num_threads(1)
    sentences = corpus()
    if args.out.exists():
        shutil.rmtree(args.out)
    seed = 0
    for arch in ARCHS:
        tokenizer = make_tokenizer(arch, sentences)
        for head in HEADS_:
            seed += 1
            torch.manual_seed(seed)
            config = make_config(arch, head, tokenizer)
            if head == "qa":
                config.num_labels = 2
            model = make_model(arch, head, config)
            target = args.out / f"{arch}-{head}"
            model.save_pretrained(target)
            tokenizer.save_pretrained(target)
            golden = {
                "model": f"{arch}-{head}",
                "versions": {"torch": torch.__version__.split("+")[0], "transformers": transformers.__version__},
                "architecture": type(model).__name__,
                "labels": [] if head == "qa" else [config.id2label[i] for i in range(len(config.id2label))],
                "inputs": [run_batch(model, tokenizer, head, b) for b in inputs_for(head, sentences)],
            }
            if head == "qa":
                entries = []
                for question, context, max_seq_len, doc_stride, max_answer_len, impossible in qa_cases():
                    answer, windows, null_score = qa_answer(model, tokenizer, question, context, max_seq_len,
                                                            doc_stride, max_answer_len, impossible)
                    entries.append({
                        "question": question, "context": context, "max_seq_len": max_seq_len,
                        "doc_stride": doc_stride, "max_answer_len": max_answer_len,
                        "handle_impossible_answer": impossible, "top_k": 1, "align_to_words": True,
                        "windows": windows, "null_score": null_score, "answer": answer,
                    })
                golden["qa_pipeline"] = entries
            (target / "golden.json").write_text(json.dumps(golden, ensure_ascii=False, indent=1) + "\n",
                                                encoding="utf-8")
            print(f"wrote {target}")
    variants_out = args.out.parent / VARIANTS_OUT.name
    if variants_out.exists():
        shutil.rmtree(variants_out)
    for arch, head, name, overrides in VARIANTS:
        seed += 1
        tokenizer = make_tokenizer(arch, sentences)
        torch.manual_seed(seed)
        config = make_config(arch, head, tokenizer)
        for key, value in overrides.items():
            setattr(config, key, value)
        model = make_model(arch, head, config)
        target = variants_out / name
        model.save_pretrained(target)
        tokenizer.save_pretrained(target)
        golden = {
            "model": name,
            "versions": {"torch": torch.__version__.split("+")[0], "transformers": transformers.__version__},
            "architecture": type(model).__name__,
            "overrides": overrides,
            "labels": [config.id2label[i] for i in range(len(config.id2label))],
            "inputs": [run_batch(model, tokenizer, head, b) for b in inputs_for(head, sentences)],
        }
        (target / "golden.json").write_text(json.dumps(golden, ensure_ascii=False, indent=1) + "\n",
                                            encoding="utf-8")
        print(f"wrote {target}")
    # save_pretrained also writes files the Rust side does not read; keep the fixtures small.
    for extra in [*args.out.glob("*/generation_config.json"), *variants_out.glob("*/generation_config.json")]:
        extra.unlink()


if __name__ == "__main__":
    main()
