#!/usr/bin/env python3
"""Writes a standard BERT encoder as an ONNX graph (opset 17) from safetensors
weights, with only `onnx` and `numpy`: inputs input_ids, attention_mask,
token_type_ids (int64, [batch, sequence]); output last_hidden_state
([batch, sequence, hidden]). Exact erf GELU, as BERT defines it.

Position embeddings are taken by slicing the stored table to the sequence
length, not by computing ids with Range (which ONNX Runtime's full graph
optimisation breaks: "Starts must be a 1-D array" in a Slice node).

Usage: convert_bert_to_onnx.py MODEL.safetensors CONFIG.json OUT.onnx
"""
import json
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DTYPES = {"F32": np.float32, "I64": np.int64}


def read_safetensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        tensors[name] = np.frombuffer(data[start:end], dtype=DTYPES[meta["dtype"]]).reshape(meta["shape"])
    return tensors


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, array, base="const"):
        name = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, base=None, **attrs):
        out = self.name(base or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def linear(self, x, weight, bias):
        # torch Linear stores [out, in]; MatMul wants [in, out].
        w = self.const(np.ascontiguousarray(weight.T), "w")
        return self.op("Add", [self.op("MatMul", [x, w]), self.const(bias, "b")])

    def layer_norm(self, x, weight, bias, eps):
        return self.op("LayerNormalization", [x, self.const(weight, "ln_w"), self.const(bias, "ln_b")],
                       axis=-1, epsilon=eps)


def build(weights, config):
    hidden = config["hidden_size"]
    heads = config["num_attention_heads"]
    head_dim = hidden // heads
    eps = config["layer_norm_eps"]
    g = Graph()
    w = lambda k: weights[k]

    # Embeddings: words + positions (a slice of the table) + token types, then LayerNorm.
    words = g.op("Gather", [g.const(w("embeddings.word_embeddings.weight"), "word_emb"), "input_ids"], axis=0)
    seq_len = g.op("Slice", [g.op("Shape", ["input_ids"]), g.const(np.array([1])), g.const(np.array([2]))])
    positions = g.op("Slice", [g.const(w("embeddings.position_embeddings.weight"), "pos_emb"),
                               g.const(np.array([0])), seq_len, g.const(np.array([0]))])
    types = g.op("Gather", [g.const(w("embeddings.token_type_embeddings.weight"), "type_emb"), "token_type_ids"],
                 axis=0)
    x = g.op("Add", [g.op("Add", [words, positions]), types])
    x = g.layer_norm(x, w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"), eps)

    # Additive attention mask: 0 where attended, a large negative number where padded.
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    mask = g.op("Mul", [g.op("Sub", [g.const(np.array(1.0, np.float32)), mask]),
                        g.const(np.array(np.finfo(np.float32).min, np.float32))])
    mask = g.op("Unsqueeze", [mask, g.const(np.array([1, 2]))])  # [B, 1, 1, S]

    split_shape = g.const(np.array([0, 0, heads, head_dim]))
    merge_shape = g.const(np.array([0, 0, hidden]))
    scale = g.const(np.array(1.0 / np.sqrt(head_dim), np.float32))
    sqrt2 = g.const(np.array(np.sqrt(2.0), np.float32))
    half = g.const(np.array(0.5, np.float32))
    one = g.const(np.array(1.0, np.float32))

    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        def heads_of(name, perm):
            y = g.linear(x, w(p + f"attention.self.{name}.weight"), w(p + f"attention.self.{name}.bias"))
            return g.op("Transpose", [g.op("Reshape", [y, split_shape])], perm=perm)
        q = heads_of("query", [0, 2, 1, 3])        # [B, H, S, D]
        k = heads_of("key", [0, 2, 3, 1])          # [B, H, D, S]
        v = heads_of("value", [0, 2, 1, 3])        # [B, H, S, D]
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), mask])
        probs = g.op("Softmax", [scores], axis=-1)
        context = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        context = g.op("Reshape", [context, merge_shape])
        attn = g.linear(context, w(p + "attention.output.dense.weight"), w(p + "attention.output.dense.bias"))
        x1 = g.layer_norm(g.op("Add", [attn, x]), w(p + "attention.output.LayerNorm.weight"),
                          w(p + "attention.output.LayerNorm.bias"), eps)
        inter = g.linear(x1, w(p + "intermediate.dense.weight"), w(p + "intermediate.dense.bias"))
        gelu = g.op("Mul", [g.op("Mul", [inter, half]),
                            g.op("Add", [one, g.op("Erf", [g.op("Div", [inter, sqrt2])])])])
        out = g.linear(gelu, w(p + "output.dense.weight"), w(p + "output.dense.bias"))
        x = g.layer_norm(g.op("Add", [out, x1]), w(p + "output.LayerNorm.weight"), w(p + "output.LayerNorm.bias"),
                         eps)

    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])
    graph = helper.make_graph(g.nodes, "bert_encoder", inputs, [output], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="evident")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    weights_path, config_path, out_path = sys.argv[1:4]
    weights = read_safetensors(weights_path)
    config = json.loads(open(config_path).read())
    model = build(weights, config)
    onnx.save(model, out_path)


if __name__ == "__main__":
    main()
