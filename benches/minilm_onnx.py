#!/usr/bin/env python3
"""The MiniLM judge as users deploy it: ONNX Runtime on CPU, with the
Hugging Face `tokenizers` library reading the folder's tokenizer.json (what
fastembed and Chroma run). The folder ships safetensors, not ONNX, and
exporting needs PyTorch, which PyPI only ships with CUDA; so the BERT
graph is written here with `onnx.helper`, node by node, from the
safetensors weights: batched, with the attention mask, then mean pooling
over the mask and L2 normalisation, as sentence-transformers does.
ONNX Runtime then optimises it as it does an exported model (fused
attention, layer norm and GELU).

Usage (--onnx FILE: the graph is written there once and loaded from there
after, as a deployment loads its exported model):
  minilm_onnx.py MODEL_DIR [--onnx FILE] [--threads N] < sentences.json > embeddings.json
  minilm_onnx.py MODEL_DIR [--threads N] --judge ORIGINAL DECODED
      (prints the cosine similarity, as `aiproto msp judge` scores)
  minilm_onnx.py MODEL_DIR [--threads N] --throughput FILE [--batch B]
      (embeds every line of FILE, B at a time, longest first as
       sentence-transformers' encode orders them; prints texts per second)
Needs: pip install onnx onnxruntime tokenizers numpy
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer

# The safetensors reader of the NumPy reference pass (float64 arrays).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "interop"))
from minilm_numpy import read_safetensors  # noqa: E402


def weights(path):
    """The model's tensors as float32 (back from the reader's float64,
    exactly), named without a model prefix."""
    out = {k: v.astype(np.float32) for k, v in read_safetensors(path).items()}
    if not any(k.startswith("embeddings.") for k in out):
        out = {k.split(".", 1)[1]: v for k, v in out.items() if "." in k}
    return out


class Graph:
    """A small builder: each call adds a node and returns its output name."""

    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, kind, inputs, **attrs):
        self.count += 1
        out = f"{kind.lower()}_{self.count}"
        self.nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out


def build(folder):
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text())
    w = weights(folder / "model.safetensors")
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    head = hidden // heads
    eps = config["layer_norm_eps"]
    g = Graph()

    def linear(x, name):
        weight = g.const(name + ".wT", w[name + ".weight"].T.copy())
        return g.op("Add", [g.op("MatMul", [x, weight]), g.const(name + ".b", w[name + ".bias"])])

    def layer_norm(x, name):
        return g.op(
            "LayerNormalization",
            [x, g.const(name + ".g", w[name + ".weight"]), g.const(name + ".beta", w[name + ".bias"])],
            axis=-1,
            epsilon=eps,
        )

    # Embeddings: word + position + token type 0, then layer norm.
    words = g.op("Gather", [g.const("word_emb", w["embeddings.word_embeddings.weight"]), "input_ids"])
    shape = g.op("Shape", ["input_ids"])
    seq = g.op("Gather", [shape, g.const("one_i", np.array(1, dtype=np.int64))], axis=0)
    positions = g.op("Range", [g.const("zero_i", np.array(0, dtype=np.int64)), seq, g.const("step_i", np.array(1, dtype=np.int64))])
    pos = g.op("Gather", [g.const("pos_emb", w["embeddings.position_embeddings.weight"]), positions])
    x = g.op("Add", [g.op("Add", [words, pos]), g.const("type0", w["embeddings.token_type_embeddings.weight"][0])])
    x = layer_norm(x, "embeddings.LayerNorm")

    # The attention bias: 0 where the mask is 1, the float minimum elsewhere.
    maskf = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    inverted = g.op("Sub", [g.const("one_f", np.array(1.0, dtype=np.float32)), maskf])
    bias = g.op("Mul", [inverted, g.const("min_f", np.array(np.finfo(np.float32).min, dtype=np.float32))])
    bias = g.op("Unsqueeze", [bias, g.const("axes_12", np.array([1, 2], dtype=np.int64))])

    split_heads = g.const("split_heads", np.array([0, 0, heads, head], dtype=np.int64))
    merge_heads = g.const("merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    scale = g.const("scale", np.array(1.0 / np.sqrt(head), dtype=np.float32))
    sqrt2 = g.const("sqrt2", np.array(np.sqrt(2.0), dtype=np.float32))
    half = g.const("half", np.array(0.5, dtype=np.float32))
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."

        def heads_of(name, perm):
            return g.op("Transpose", [g.op("Reshape", [linear(x, p + name), split_heads])], perm=perm)

        q = heads_of("attention.self.query", [0, 2, 1, 3])
        k = heads_of("attention.self.key", [0, 2, 3, 1])
        v = heads_of("attention.self.value", [0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        probs = g.op("Softmax", [scores], axis=-1)
        context = g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3])
        context = g.op("Reshape", [context, merge_heads])
        x = layer_norm(g.op("Add", [linear(context, p + "attention.output.dense"), x]), p + "attention.output.LayerNorm")
        h = linear(x, p + "intermediate.dense")
        gelu = g.op("Mul", [g.op("Mul", [h, half]), g.op("Add", [g.op("Erf", [g.op("Div", [h, sqrt2])]), g.const(f"one_{i}", np.array(1.0, dtype=np.float32))])])
        x = layer_norm(g.op("Add", [linear(gelu, p + "output.dense"), x]), p + "output.LayerNorm")

    # Mean pooling over the mask, then L2 normalisation (eps 1e-12).
    mask3 = g.op("Unsqueeze", [maskf, g.const("axis_2", np.array([2], dtype=np.int64))])
    summed = g.op("ReduceSum", [g.op("Mul", [x, mask3]), g.const("axis_1", np.array([1], dtype=np.int64))], keepdims=0)
    counts = g.op("ReduceSum", [maskf, g.const("axis_1b", np.array([1], dtype=np.int64))], keepdims=1)
    pooled = g.op("Div", [summed, g.op("Max", [counts, g.const("tiny", np.array(1e-9, dtype=np.float32))])])
    norm = g.op("ReduceL2", [pooled, g.const("axis_last", np.array([-1], dtype=np.int64))], keepdims=1)
    out = g.op("Div", [pooled, g.op("Max", [norm, g.const("eps", np.array(1e-12, dtype=np.float32))])])
    g.nodes.append(helper.make_node("Identity", [out], ["embedding"]))

    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    return model


class Judge:
    def __init__(self, folder, threads, onnx_file=None):
        folder = Path(folder)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        if onnx_file is None:
            graph = build(folder).SerializeToString()
        else:
            if not Path(onnx_file).exists():
                Path(onnx_file).write_bytes(build(folder).SerializeToString())
            graph = onnx_file
        self.session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        st = folder / "sentence_bert_config.json"
        limit = json.loads(st.read_text()).get("max_seq_length", 256) if st.exists() else 256
        self.tokenizer.enable_truncation(limit)
        self.tokenizer.enable_padding()

    def embed(self, texts):
        encodings = self.tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        return self.session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})[0]


def text_of(arg):
    return Path(arg[1:]).read_text() if arg.startswith("@") else arg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--onnx")
    parser.add_argument("--judge", nargs=2)
    parser.add_argument("--throughput")
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    judge = Judge(args.model, args.threads, args.onnx)
    if args.judge:
        a, b = judge.embed([text_of(t) for t in args.judge])
        print(f"{float(np.dot(a, b)):.6f}")
    elif args.throughput:
        lines = [l for l in Path(args.throughput).read_text().splitlines() if l.strip()]
        lines.sort(key=len, reverse=True)
        start = time.perf_counter()
        for i in range(0, len(lines), args.batch):
            judge.embed(lines[i : i + args.batch])
        took = time.perf_counter() - start
        print(f"{len(lines)} texts in {took:.3f} s: {len(lines) / took:.1f} texts/s")
    else:
        json.dump(judge.embed(json.load(sys.stdin)).astype(float).tolist(), sys.stdout)


if __name__ == "__main__":
    main()
