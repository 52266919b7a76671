"""Exports the models cairn is measured and tested on, reproducibly (fixed seeds, opset 14,
static shapes), as ONNX files written by PyTorch's exporter.

    /usr/bin/python3 models/export.py OUT_DIR [NAME ...]      (default: the benchmark set)
    /usr/bin/python3 models/export.py --list

Needs Debian's python3-torch (1.13), python3-torchvision (0.14) and python3-onnx, which install
for /usr/bin/python3 (not for a virtual environment).

Benchmark set (the rows of docs/performance.md; large, never committed):
  encoder_s128_b1, encoder_s128_b8, encoder_s512_b1
      a BERT-like encoder stack shaped like all-MiniLM-L6-v2 without embeddings: 6 post-LN
      layers, hidden 384, 12 heads, FFN 1536, erf GELU, no mask; x [B,S,384] -> y. Same
      construction and seed as ../shared/models/export_encoder.py, so the same weights.
  gpt2stack   12 pre-LN decoder blocks (768, 12 heads, FFN 3072, tanh GELU, causal attention,
              fused QKV) + final LayerNorm, no embeddings; x [1,128,768] -> y
  resnet50    torchvision resnet50, x [1,3,224,224] -> y [1,1000]
  mobilenetv2 torchvision mobilenet_v2, x [1,3,224,224] -> y [1,1000]
  minilm_s128_b1
      all-MiniLM-L6-v2's architecture with embeddings (word, position, token type), an
      attention-mask input and masked mean pooling: input_ids, attention_mask int64 [B,S] ->
      last_hidden_state [B,S,384], sentence_embedding [B,384] (L2-normalised)

Test set (tests/models/, each under 2 MB, committed; the same code at small sizes):
  t_encoder    encoder, 2 layers, hidden 128, 4 heads (head dim 32), FFN 512, x [2,16,128]
  t_minilm     the MiniLM graph, vocab 512, 2 layers, hidden 128, 4 heads, FFN 512, [2,16]
  t_gpt2       gpt2stack, 2 layers, hidden 128, 4 heads, FFN 512, x [1,16,128]
  t_resnet     ResNet-50-style: 7x7/2 stem, max pool, one torchvision Bottleneck (with
               downsample) per stage at 16/16/32/64 planes, global pool, FC; x [1,3,64,64]
               (the first stage's 3x3 is 16 -> 16 at 16x16: Winograd's geometry)
  t_mobilenet  torchvision MobileNetV2 at width 0.25, 10 classes, x [1,3,64,64]
  t_llama_mlp  LLaMA-style pre-norm MLP blocks: 2 x (x + down(silu(gate(h)) * up(h)), h =
               RMSNorm(x)), final RMSNorm; hidden 64, FFN 176, no biases, x [2,16,64]

Random weights. For the CNNs the BatchNorm statistics are calibrated on random inputs (train
mode, cumulative averages) before export: torchvision's initialisation makes MobileNetV2's
output vanish (~1e-9) otherwise, which would make any output comparison meaningless.
Folding the statistics into the convolutions does not change a model's cost.
"""
import argparse
import math
import os
import sys

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

# ---- BERT-like encoder (post-LN) -------------------------------------------------------------


class EncoderLayer(nn.Module):
    def __init__(self, d, h, f):
        super().__init__()
        self.h, self.dh = h, d // h
        self.qkv = nn.Linear(d, 3 * d)
        self.o = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.ff1 = nn.Linear(d, f)
        self.ff2 = nn.Linear(f, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def forward(self, x, mask_add=None):
        B, S, D = x.shape
        qkv = self.qkv(x).view(B, S, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        s = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(self.dh))
        if mask_add is not None:
            s = s + mask_add
        a = torch.matmul(torch.softmax(s, dim=-1), v).transpose(1, 2).reshape(B, S, D)
        x = self.ln1(x + self.o(a))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class Encoder(nn.Module):
    def __init__(self, layers=6, d=384, h=12, f=1536):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(d, h, f) for _ in range(layers)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class MiniLM(nn.Module):
    """all-MiniLM-L6-v2's architecture: BERT embeddings, encoder with an additive padding mask,
    masked mean pooling and L2 normalisation (what sentence-transformers computes)."""

    def __init__(self, vocab=30522, max_pos=512, layers=6, d=384, h=12, f=1536):
        super().__init__()
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_pos, d)
        self.tok_type = nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList([EncoderLayer(d, h, f) for _ in range(layers)])
        for e in (self.word, self.pos, self.tok_type):
            nn.init.normal_(e.weight, std=0.02)

    def forward(self, input_ids, attention_mask):
        S = input_ids.shape[1]
        pos = torch.arange(S, dtype=torch.long).unsqueeze(0)
        x = self.word(input_ids) + self.pos(pos) + self.tok_type(torch.zeros_like(input_ids))
        x = self.ln(x)
        m = attention_mask.to(torch.float32)
        mask_add = (1.0 - m)[:, None, None, :] * -10000.0
        for layer in self.layers:
            x = layer(x, mask_add)
        pooled = (x * m.unsqueeze(-1)).sum(1) / m.sum(1, keepdim=True).clamp(min=1e-9)
        return x, F.normalize(pooled, p=2.0, dim=1)


# ---- GPT-2-style decoder stack (pre-LN, causal) ----------------------------------------------


class Block(nn.Module):
    def __init__(self, d, h, ff, T=1024):
        super().__init__()
        self.h = h
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, ff)
        self.act = nn.GELU(approximate="tanh")
        self.fc2 = nn.Linear(ff, d)
        self.register_buffer("mask", torch.tril(torch.ones(T, T, dtype=torch.bool)).view(1, 1, T, T),
                             persistent=False)

    def forward(self, x):
        B, T, C = x.shape
        hd = C // self.h
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q = q.view(B, T, self.h, hd).transpose(1, 2)
        k = k.view(B, T, self.h, hd).transpose(1, 2)
        v = v.view(B, T, self.h, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        att = att.masked_fill(~self.mask[:, :, :T, :T], float("-inf"))
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        return x + self.fc2(self.act(self.fc(self.ln2(x))))


class GPT2Stack(nn.Module):
    def __init__(self, n_layer=12, d=768, h=12, ff=3072):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d, h, ff) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d)
        for mod in self.modules():  # GPT-2's init keeps activations sane with random weights
            if isinstance(mod, nn.Linear):
                nn.init.normal_(mod.weight, std=0.02)
                nn.init.zeros_(mod.bias)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.ln_f(x)


# ---- LLaMA-style MLP blocks (RMSNorm, SwiGLU) -------------------------------------------------


class RMSNorm(nn.Module):
    """Written out as LLaMA's reference code does (torch 1.13 has no nn.RMSNorm); exports as
    Pow, ReduceMean, Add, Sqrt, Div (torch.rsqrt), Mul, Mul."""

    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class SwiGLUBlock(nn.Module):
    def __init__(self, d, f):
        super().__init__()
        self.norm = RMSNorm(d)
        self.gate = nn.Linear(d, f, bias=False)
        self.up = nn.Linear(d, f, bias=False)
        self.down = nn.Linear(f, d, bias=False)

    def forward(self, x):
        h = self.norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class LlamaMLPStack(nn.Module):
    def __init__(self, layers=2, d=64, f=176):
        super().__init__()
        self.blocks = nn.ModuleList([SwiGLUBlock(d, f) for _ in range(layers)])
        self.norm = RMSNorm(d)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.norm(x)


# ---- CNNs ------------------------------------------------------------------------------------


class TinyResNet(nn.Module):
    """ResNet-50's graph in miniature: the same stem, torchvision Bottleneck blocks (1x1, 3x3,
    1x1 convolutions with BatchNorm, ReLU, a projection shortcut), pooling and classifier."""

    def __init__(self, planes=(16, 16, 32, 64), classes=10):
        super().__init__()
        from torchvision.models.resnet import Bottleneck
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 7, 2, 3, bias=False), nn.BatchNorm2d(16),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        blocks, cin = [], 16
        for i, p in enumerate(planes):
            stride = 1 if i == 0 else 2
            down = nn.Sequential(nn.Conv2d(cin, p * 4, 1, stride, bias=False), nn.BatchNorm2d(p * 4))
            blocks.append(Bottleneck(cin, p, stride, down))
            cin = p * 4
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.blocks(self.stem(x))), 1))


def calibrate_batchnorm(model, shape, batches=4):
    """Sets every BatchNorm's running statistics to those of random inputs, so activations keep
    a sensible scale through the network (see the module's docstring)."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative average over the calibration batches
    model.train()
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(max(shape[0], 2), *shape[1:], generator=g))
    model.eval()


# ---- the catalogue ---------------------------------------------------------------------------

# name -> (constructor, inputs as [(name, shape, kind)], output names, calibrate BN)
# kind: "f32" random normal; "ids:V" int64 token ids in [0, V); "mask" int64 padding mask
def _encoder(layers, d, h, f):
    return lambda: Encoder(layers, d, h, f)


MODELS = {
    "encoder_s128_b1": (_encoder(6, 384, 12, 1536), [("x", (1, 128, 384), "f32")], ["y"]),
    "encoder_s128_b8": (_encoder(6, 384, 12, 1536), [("x", (8, 128, 384), "f32")], ["y"]),
    "encoder_s512_b1": (_encoder(6, 384, 12, 1536), [("x", (1, 512, 384), "f32")], ["y"]),
    "gpt2stack": (GPT2Stack, [("x", (1, 128, 768), "f32")], ["y"]),
    "resnet50": (lambda: torchvision.models.resnet50(weights=None), [("x", (1, 3, 224, 224), "f32")],
                 ["y"]),
    "mobilenetv2": (lambda: torchvision.models.mobilenet_v2(weights=None),
                    [("x", (1, 3, 224, 224), "f32")], ["y"]),
    "minilm_s128_b1": (MiniLM, [("input_ids", (1, 128), "ids:30522"), ("attention_mask", (1, 128), "mask")],
                       ["last_hidden_state", "sentence_embedding"]),
    # the test set: small shapes of the same graphs
    "t_encoder": (_encoder(2, 128, 4, 512), [("x", (2, 16, 128), "f32")], ["y"]),
    "t_minilm": (lambda: MiniLM(512, 64, 2, 128, 4, 512),
                 [("input_ids", (2, 16), "ids:512"), ("attention_mask", (2, 16), "mask")],
                 ["last_hidden_state", "sentence_embedding"]),
    "t_gpt2": (lambda: GPT2Stack(2, 128, 4, 512), [("x", (1, 16, 128), "f32")], ["y"]),
    "t_resnet": (TinyResNet, [("x", (1, 3, 64, 64), "f32")], ["y"]),
    "t_mobilenet": (lambda: torchvision.models.mobilenet_v2(weights=None, num_classes=10, width_mult=0.25),
                    [("x", (1, 3, 64, 64), "f32")], ["y"]),
    "t_llama_mlp": (LlamaMLPStack, [("x", (2, 16, 64), "f32")], ["y"]),
}
BENCH_SET = ["encoder_s128_b1", "encoder_s128_b8", "encoder_s512_b1", "gpt2stack", "resnet50",
             "mobilenetv2"]
TEST_SET = ["t_encoder", "t_minilm", "t_gpt2", "t_resnet", "t_mobilenet", "t_llama_mlp"]


def example_input(shape, kind, g):
    if kind == "f32":
        return torch.randn(*shape, generator=g)
    if kind.startswith("ids:"):
        return torch.randint(0, int(kind[4:]), shape, generator=g, dtype=torch.long)
    m = torch.ones(*shape, dtype=torch.long)  # "mask": the last rows end in padding
    for b in range(1, shape[0]):
        m[b, shape[1] - (shape[1] * b) // (2 * shape[0]):] = 0
    return m


def export(out_dir, name):
    make, inputs, outputs = MODELS[name]
    torch.manual_seed(0)
    model = make().eval()
    shape0 = inputs[0][1]
    if any(isinstance(m, nn.BatchNorm2d) for m in model.modules()):
        calibrate_batchnorm(model, shape0)
    g = torch.Generator().manual_seed(1)
    args = tuple(example_input(s, k, g) for _, s, k in inputs)
    path = os.path.join(out_dir, name + ".onnx")
    with torch.no_grad():
        torch.onnx.export(model, args, path, input_names=[n for n, _, _ in inputs], output_names=outputs,
                          opset_version=14, do_constant_folding=True)
    m = onnx.load(path)
    onnx.checker.check_model(m)
    print(f"{path}: {os.path.getsize(path) / 1e6:.1f} MB, {len(m.graph.node)} nodes, "
          f"ops {' '.join(sorted(set(n.op_type for n in m.graph.node)))}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out_dir", nargs="?")
    p.add_argument("names", nargs="*", help="models to export (default: the benchmark set); "
                   "'bench' and 'test' name the sets")
    p.add_argument("--list", action="store_true", help="list the models and exit")
    p.add_argument("--if-missing", action="store_true", help="skip models whose file exists")
    a = p.parse_args()
    if a.list:
        for n in MODELS:
            print(n, "(test)" if n in TEST_SET else "")
        return 0
    if not a.out_dir:
        p.error("OUT_DIR is required")
    names = []
    for n in a.names or ["bench"]:
        names += BENCH_SET if n == "bench" else TEST_SET if n == "test" else [n]
    for n in names:
        if n not in MODELS:
            p.error(f"unknown model '{n}'; --list shows them")
    os.makedirs(a.out_dir, exist_ok=True)
    torch.set_num_threads(1)
    for n in names:
        if a.if_missing and os.path.exists(os.path.join(a.out_dir, n + ".onnx")):
            continue
        export(a.out_dir, n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
