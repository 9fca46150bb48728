#!/usr/bin/env python3
"""An independent sentence-transformers forward pass, in NumPy, for checking
aiproto's MiniLM judge: its own WordPiece tokenizer (from tokenizer.json's
vocabulary), its own safetensors reader, BERT layer by layer, then the
pooling and normalisation the folder's configs name. Shares no code with
aiproto (nor with the `tokenizers` library aiproto uses).

Usage: minilm_numpy.py MODEL_DIR < sentences.json > embeddings.json
(a JSON array of strings in, a JSON array of float arrays out).
"""

import json
import math
import struct
import sys
import unicodedata
from pathlib import Path

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64}


def read_safetensors(path):
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data[base + start : base + end], dtype=DTYPES[info["dtype"]])
        tensors[name] = array.reshape(info["shape"]).astype(np.float64)
    return tensors


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def basic_tokens(text, lowercase):
    """BERT's basic tokenizer: clean, split CJK, lowercase and strip
    accents, split on whitespace and punctuation."""
    cleaned = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or (unicodedata.category(ch).startswith("C") and ch not in "\t\n\r"):
            continue
        if 0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF:
            cleaned.append(f" {ch} ")
        elif ch.isspace():
            cleaned.append(" ")
        else:
            cleaned.append(ch)
    words = "".join(cleaned).split()
    out = []
    for word in words:
        if lowercase:
            word = unicodedata.normalize("NFD", word.lower())
            word = "".join(c for c in word if unicodedata.category(c) != "Mn")
        current = ""
        for ch in word:
            if is_punctuation(ch):
                if current:
                    out.append(current)
                out.append(ch)
                current = ""
            else:
                current += ch
        if current:
            out.append(current)
    return out


def wordpiece(word, vocab, unk, prefix, max_chars):
    if len(word) > max_chars:
        return [unk]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        found = None
        while start < end:
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in vocab:
                found = piece
                break
            end -= 1
        if found is None:
            return [unk]
        pieces.append(found)
        start = end
    return pieces


class Model:
    def __init__(self, folder):
        folder = Path(folder)
        self.config = json.loads((folder / "config.json").read_text())
        tok = json.loads((folder / "tokenizer.json").read_text())
        model = tok["model"]
        self.vocab = model["vocab"]
        self.unk = model.get("unk_token", "[UNK]")
        self.prefix = model.get("continuing_subword_prefix", "##")
        self.max_chars = model.get("max_input_chars_per_word", 100)
        self.lowercase = (tok.get("normalizer") or {}).get("lowercase", True)
        st = folder / "sentence_bert_config.json"
        limit = json.loads(st.read_text()).get("max_seq_length") if st.exists() else None
        self.max_len = min(limit or 512, self.config["max_position_embeddings"])
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
        assert pooling["pooling_mode_mean_tokens"], "only mean pooling is implemented here"
        modules = json.loads((folder / "modules.json").read_text())
        self.normalize = any(m["type"].endswith(".Normalize") for m in modules)
        self.w = read_safetensors(folder / "model.safetensors")
        if not any(k.startswith("embeddings.") for k in self.w):
            self.w = {k.split(".", 1)[1]: v for k, v in self.w.items() if "." in k}

    def ids(self, text):
        pieces = []
        for word in basic_tokens(text, self.lowercase):
            pieces.extend(wordpiece(word, self.vocab, self.unk, self.prefix, self.max_chars))
        pieces = pieces[: self.max_len - 2]
        return [self.vocab["[CLS]"]] + [self.vocab[p] for p in pieces] + [self.vocab["[SEP]"]]

    def layer_norm(self, x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        eps = self.config["layer_norm_eps"]
        return (x - mean) / np.sqrt(var + eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def linear(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def embed(self, text):
        ids = self.ids(text)
        n = len(ids)
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][[0] * n]
        )
        x = self.layer_norm(x, "embeddings.LayerNorm")
        heads = self.config["num_attention_heads"]
        d = x.shape[1] // heads
        erf = np.vectorize(math.erf)
        for i in range(self.config["num_hidden_layers"]):
            p = f"encoder.layer.{i}."
            q = self.linear(x, p + "attention.self.query").reshape(n, heads, d).transpose(1, 0, 2)
            k = self.linear(x, p + "attention.self.key").reshape(n, heads, d).transpose(1, 0, 2)
            v = self.linear(x, p + "attention.self.value").reshape(n, heads, d).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, heads * d)
            x = self.layer_norm(self.linear(context, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = self.linear(x, p + "intermediate.dense")
            h = 0.5 * h * (1.0 + erf(h / math.sqrt(2.0)))
            x = self.layer_norm(self.linear(h, p + "output.dense") + x, p + "output.LayerNorm")
        pooled = x.mean(0)
        if self.normalize:
            pooled = pooled / max(np.linalg.norm(pooled), 1e-12)
        return pooled


def main():
    model = Model(sys.argv[1])
    sentences = json.load(sys.stdin)
    json.dump([model.embed(s).tolist() for s in sentences], sys.stdout)


if __name__ == "__main__":
    main()
