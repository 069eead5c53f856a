#!/usr/bin/env python3
"""Builds the end-to-end fixtures for tests/export.

Run with the venv interpreter (Debian torch 1.13 + transformers):
    /work/main/.venv/bin/python tests/export/make_fixtures.py [outdir] [--only a,b]

Every model is built with a fixed seed and random weights, put in eval mode
and traced under torch.no_grad() (so PyTorch's fused fast-path ops appear).
For each model <name> the output directory receives
    <name>.pt              the traced TorchScript module
    <name>.inputs.npz      example inputs (the spec shape)
    <name>.inputs2.npz     a second input set, every dynamic axis changed
    <name>.outputs.npz     outputs of torch.jit.load(<name>.pt) on inputs
    <name>.outputs2.npz    ... on inputs2
and manifest.json records the input specs handed to the exporter.
Regeneration is skipped when the stamp (hash of this script) matches.
"""
import hashlib
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "fixtures", "generated")


# ---------------------------------------------------------------- models
class AttentionHead(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.query = nn.Linear(d, d)
        self.key = nn.Linear(d, d)
        self.value = nn.Linear(d, d)
        self.scale = 1.0 / math.sqrt(d)

    def forward(self, x):
        q, k, v = self.query(x), self.key(x), self.value(x)
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * self.scale, dim=-1)
        return torch.matmul(att, v)


class FeedForward(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(h, d)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class TransformerBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attention = AttentionHead(d)
        self.norm1 = nn.LayerNorm(d)
        self.feed_forward = FeedForward(d, 4 * d)
        self.norm2 = nn.LayerNorm(d)

    def forward(self, x):
        x = self.norm1(x + self.attention(x))
        return self.norm2(x + self.feed_forward(x))


class TestTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(1000, 64)
        self.layers = nn.ModuleList([TransformerBlock(64) for _ in range(2)])
        self.classifier = nn.Linear(64, 10)

    def forward(self, input_ids):
        x = self.embedding(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.classifier(x.mean(dim=1))


class ComplexModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature_extractor = nn.Sequential(
            nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 20), nn.ReLU())
        self.attention = nn.MultiheadAttention(20, 4, batch_first=True)
        self.classifier = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x):
        f = self.feature_extractor(x).unsqueeze(1)
        a, _ = self.attention(f, f, f)
        return self.classifier(a.squeeze(1))


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        hd = C // self.heads
        q = q.view(B, T, self.heads, hd).transpose(1, 2)
        k = k.view(B, T, self.heads, hd).transpose(1, 2)
        v = v.view(B, T, self.heads, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        pos = torch.arange(T, device=x.device)
        causal = pos.unsqueeze(0) <= pos.unsqueeze(1)          # [T, T]
        att = att.masked_fill(~causal, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.act = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class GPTBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class TinyGPT2(nn.Module):
    def __init__(self, vocab=500, positions=64, d=64, heads=4, layers=2):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(positions, d)
        self.drop = nn.Dropout(0.1)
        self.h = nn.ModuleList([GPTBlock(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied

    def forward(self, input_ids):
        T = input_ids.size(1)
        pos = torch.arange(0, T, dtype=torch.long, device=input_ids.device).unsqueeze(0)
        x = self.drop(self.wte(input_ids) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


class InverseBlock(nn.Module):
    # a pseudo-inverse: refused by design (it needs the singular vectors)
    def forward(self, x):
        return torch.linalg.pinv(x.view(2, 2, 2, 2)).reshape(2, 8)


class Unsupported(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.inner = InverseBlock()

    def forward(self, x):
        return self.inner(self.proj(x))


class PoolIndices(nn.Module):
    """Reads adaptive max pooling's indices where its windows are not a
    MaxPool's (4 -> 3), which the export does not compute."""

    def forward(self, x):
        y, idx = F.adaptive_max_pool2d(x, (3, 3), return_indices=True)
        return y + idx.float()


# ---------------------------------------------------------------- op unit models
# Ops not (or not fully) exercised by the zoo: each model computes many ops in a
# child module (so hierarchy checks stay meaningful) on inputs with negative
# values and dynamic axes, and returns every result.
class ElementwiseOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU(6, init=0.1)
        self.gn = nn.GroupNorm(2, 6)
        self.inorm = nn.InstanceNorm1d(6, affine=True)

    def forward(self, x):  # x: [batch, 6, seq]
        r = [F.hardswish(x), F.hardsigmoid(x), F.mish(x), F.elu(x, 0.5), F.selu(x), F.celu(x, 1.5),
             F.softplus(x, beta=2.0, threshold=1.0), F.leaky_relu(x, 0.2), self.prelu(x), F.logsigmoid(x),
             F.softsign(x), F.hardshrink(x, 0.3), F.softshrink(x, 0.3), F.threshold(x, 0.1, -2.0), F.relu6(x * 4),
             torch.log1p(x.abs()), torch.expm1(x), torch.trunc(x * 3), torch.frac(x * 3),
             torch.remainder(x, 0.7), torch.fmod(x, 0.7), torch.lerp(x, x * 2, 0.3),
             torch.addcmul(x, x, x, value=0.5), torch.maximum(x, -x * 0.5), torch.minimum(x, x * 0.5)]
        xi = (x * 10).long()
        r += [xi // 3, torch.div(xi, -4, rounding_mode="floor"), torch.div(xi, 4, rounding_mode="trunc"),
              torch.remainder(xi, 3), torch.fmod(xi, 3)]
        r += [self.gn(x), self.inorm(x), x.var(dim=-1, keepdim=True), x.std(dim=1), x.norm(dim=-1),
              torch.logsumexp(x, dim=1), x.prod(dim=1), (x > 0).all(dim=1), (x > 1).any(dim=-1),
              torch.cumsum(x, dim=-1), torch.cumsum(xi > 0, dim=1)]
        return tuple(r)


class IndexOps(nn.Module):
    def forward(self, x, idx):  # x: [batch, 6, seq]; idx: int64 [batch, 6, 2] in [0, 2)
        r = [torch.tril(x[:, :, :5].transpose(1, 2)), torch.triu(x[:, :5, :5], 1),
             torch.flip(x, [1, -1]), torch.roll(x, 2, 1), torch.roll(x, -1, 1),
             torch.topk(x, 2, dim=1)[0], torch.topk(x, 3, dim=-1, largest=False)[1],
             torch.sort(x, dim=1)[0], torch.sort(x, dim=1, descending=True)[1], torch.argsort(x, dim=-1),
             torch.gather(x, 2, idx), torch.scatter(x, 2, idx, -5.0),
             torch.scatter_add(torch.zeros_like(x), 2, idx, torch.ones_like(idx, dtype=x.dtype)),
             x[:, torch.tensor([0, 2, 5])], x[:, torch.tensor([1, 3]), torch.tensor([0, 2])],
             torch.einsum("bij,bkj->bik", x, x), x.chunk(2, dim=-1)[1], x.split(3, dim=-1)[-1],
             x.unsqueeze(2).squeeze(), x.unflatten(1, (2, 3)), x.movedim(1, -1)]
        y = x.clone()
        y[:, 1] = 0.5                    # select + copy_ (view write-back)
        y[:, :, 1:3] += 1.0              # slice + add_
        y[y < -1.0] = -1.0               # boolean index_put
        z = x.clone()
        z.view(-1)[:4] = 2.0             # view of a view
        r += [y, z, torch.meshgrid(x[0, 0], x[0, 1, :3], indexing="ij")[1]]
        return tuple(r)


class VisionOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(4, 4, 3, padding=1, groups=4)
        self.grouped = nn.Conv2d(4, 8, 3, stride=2, padding=2, dilation=2, groups=2)
        self.ps = nn.PixelShuffle(2)
        self.inorm = nn.InstanceNorm2d(4)

    def forward(self, x):  # x: [batch, 4, 9, 11]
        r = [self.dw(x), self.grouped(x), F.max_pool2d(x, 3, 2, ceil_mode=True),
             F.max_pool2d(x, 2, 2, padding=1), F.avg_pool2d(x, 3, 2, padding=1, count_include_pad=False),
             F.avg_pool2d(x, 3, 2, ceil_mode=True), F.avg_pool2d(x, 2, 2, divisor_override=3),
             F.adaptive_avg_pool2d(x, (4, 3)), F.adaptive_max_pool2d(x, (2, 5)), F.adaptive_avg_pool2d(x, 1),
             F.pad(x, (1, 2, 0, 3)), F.pad(x, (2, 1, 1, 2), mode="reflect"), F.pad(x, (1, 1, 2, 0), mode="replicate"),
             F.pad(x, (-1, 2), value=0.5), F.interpolate(x, scale_factor=2.0, mode="nearest"),
             F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=False),
             F.interpolate(x, size=(13, 17), mode="bilinear", align_corners=True),
             self.ps(x[:, :, :8, :8]), self.inorm(x)]
        return tuple(r)


class RecurrentOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(8, 12)

    def forward(self, x):  # x: [batch, seq, 8]
        o, (h, c) = self.lstm(x)
        g, gh = self.gru(x.transpose(0, 1))
        return o, h, c, g, gh


class RecurrentVariant(nn.Module):
    """One recurrent layer; x is [batch, seq, IN] whatever the layer's
    batch_first. With `initial_state`, the states are computed from x
    (non-zero, batch-dynamic); without, PyTorch's zeros are traced."""
    IN, HIDDEN = 5, 6

    def __init__(self, cell, layers, bidirectional, batch_first, initial_state):
        super().__init__()
        kwargs = dict(num_layers=layers, bidirectional=bidirectional, batch_first=batch_first)
        if cell in ("rnn_tanh", "rnn_relu"):
            self.rnn = nn.RNN(self.IN, self.HIDDEN, nonlinearity=cell[4:], **kwargs)
        else:
            self.rnn = (nn.LSTM if cell == "lstm" else nn.GRU)(self.IN, self.HIDDEN, **kwargs)
        self.cell, self.batch_first, self.initial_state = cell, batch_first, initial_state
        self.rows = layers * (2 if bidirectional else 1)
        self.state = nn.Linear(self.IN, self.HIDDEN) if initial_state else None

    def forward(self, x):
        seq = x if self.batch_first else x.transpose(0, 1)
        if not self.initial_state:
            out = self.rnn(seq)
        else:
            h0 = torch.tanh(self.state(x.mean(dim=1))).unsqueeze(0).repeat(self.rows, 1, 1)
            out = self.rnn(seq, (h0, 0.5 * h0) if self.cell == "lstm" else h0)
        y, state = out
        y = y if self.batch_first else y.transpose(0, 1)
        return (y,) + (state if isinstance(state, tuple) else (state,))


# Every combination issue 15 asks for, one submodule each, named
# <cell>_l<layers>_<uni|bi>_<bf|sf>_<h0|zero> (bf: batch_first=True).
RECURRENT_CELLS = ("rnn_tanh", "rnn_relu", "gru", "lstm")


def recurrent_variant_names():
    return [f"{c}_l{n}_{d}_{b}_{h}" for c in RECURRENT_CELLS for n in (1, 2) for d in ("uni", "bi")
            for b in ("bf", "sf") for h in ("h0", "zero")]


class RecurrentGrid(nn.Module):
    def __init__(self):
        super().__init__()
        self.variants = nn.ModuleDict()
        for name in recurrent_variant_names():
            cell, layers, d, b, h = name.rsplit("_", 4)
            self.variants[name] = RecurrentVariant(cell, int(layers[1:]), d == "bi", b == "bf", h == "h0")

    def forward(self, x):
        outs = []
        for v in self.variants.values():
            outs.extend(v(x))
        return tuple(outs)


class OpsModel(nn.Module):
    """A root that only dispatches to the op block."""
    def __init__(self, block):
        super().__init__()
        self.block = block

    def forward(self, *args):
        return self.block(*args)


class ElementwiseOpsModel(OpsModel):
    def __init__(self):
        super().__init__(ElementwiseOps())

    def forward(self, x):
        return self.block(x)


class IndexOpsModel(OpsModel):
    def __init__(self):
        super().__init__(IndexOps())

    def forward(self, x, idx):
        return self.block(x, idx)


class VisionOpsModel(OpsModel):
    def __init__(self):
        super().__init__(VisionOps())

    def forward(self, x):
        return self.block(x)


class RecurrentOpsModel(OpsModel):
    def __init__(self):
        super().__init__(RecurrentOps())

    def forward(self, x):
        return self.block(x)


# ---------------------------------------------------------------- specs
def rand_input(dtype, shape, high, g):
    if dtype == "int64":
        return torch.randint(0, high, shape, generator=g, dtype=torch.long)
    return torch.randn(shape, generator=g)


def spec_str(name, dtype, dims, shape):
    parts = [f"{d}={s}" if isinstance(d, str) else str(s) for d, s in zip(dims, shape)]
    return f"{name}:{dtype}[{','.join(parts)}]"


def bert_model():
    from transformers import BertConfig, BertModel
    cfg = BertConfig(vocab_size=30522, hidden_size=128, num_hidden_layers=2,
                     num_attention_heads=2, intermediate_size=512,
                     max_position_embeddings=512, torchscript=True,
                     attn_implementation="eager")
    return BertModel(cfg)


def vit_model():
    import torchvision
    m = torchvision.models.vit_b_16()
    nn.init.normal_(m.heads.head.weight, std=0.02)  # zero-initialised by torchvision
    nn.init.normal_(m.heads.head.bias, std=0.02)
    return m


def transformer_encoder():
    layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, batch_first=True)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


# name -> (factory, [(input name, dtype, dims, shape1, shape2, int high)])
MODELS = {
    "test_transformer": (TestTransformer, [
        ("input_ids", "int64", ["batch", "seq"], (2, 16), (3, 9), 1000)]),
    "complex_model": (ComplexModel, [
        ("x", "float32", ["batch", 10], (4, 10), (7, 10), 0)]),
    "bert_tiny": (bert_model, [
        ("input_ids", "int64", ["batch", "seq"], (2, 16), (3, 7), 30522),
        ("attention_mask", "int64", ["batch", "seq"], (2, 16), (3, 7), 2),
        ("token_type_ids", "int64", ["batch", "seq"], (2, 16), (3, 7), 2)]),
    "gpt2_tiny": (TinyGPT2, [
        ("input_ids", "int64", ["batch", "seq"], (2, 12), (1, 20), 500)]),
    "transformer_encoder": (transformer_encoder, [
        ("src", "float32", ["batch", "seq", 32], (2, 10, 32), (3, 6, 32), 0)]),
    "vit_b_16": (vit_model, [
        ("x", "float32", ["batch", 3, 224, 224], (1, 3, 224, 224), (2, 3, 224, 224), 0)]),
    "ops_elementwise": (ElementwiseOpsModel, [
        ("x", "float32", ["batch", 6, "seq"], (2, 6, 10), (3, 6, 7), 0)]),
    "ops_index": (IndexOpsModel, [
        ("x", "float32", ["batch", 6, 8], (2, 6, 8), (3, 6, 8), 0),
        ("idx", "int64", ["batch", 6, 2], (2, 6, 2), (3, 6, 2), 8)]),
    "ops_vision": (VisionOpsModel, [
        ("x", "float32", ["batch", 4, 9, 11], (2, 4, 9, 11), (1, 4, 9, 11), 0)]),
    "ops_recurrent": (RecurrentOpsModel, [
        ("x", "float32", ["batch", "seq", 8], (2, 7, 8), (3, 4, 8), 0)]),
    # seq 7 -> 4 (and batch 2 -> 3): both sequence lengths are checked.
    "ops_recurrent_grid": (RecurrentGrid, [
        ("x", "float32", ["batch", "seq", 5], (2, 7, 5), (3, 4, 5), 0)]),
    "unsupported": (Unsupported, [
        ("x", "float32", [2, 8], (2, 8), (2, 8), 0)]),
    "pool_indices": (PoolIndices, [
        ("x", "float32", [1, 2, 4, 4], (1, 2, 4, 4), (1, 2, 4, 4), 0)]),
}


def to_tuple(out):
    if isinstance(out, torch.Tensor):
        return [out]
    res = []
    for o in out:
        res.extend(to_tuple(o))
    return res


def build(name, outdir):
    factory, inputs = MODELS[name]
    torch.manual_seed(0)
    model = factory().eval()
    g = torch.Generator().manual_seed(1)
    ex1 = [rand_input(dt, s1, hi, g) for (_, dt, _, s1, _, hi) in inputs]
    ex2 = [rand_input(dt, s2, hi, g) for (_, dt, _, _, s2, hi) in inputs]
    if name == "bert_tiny":  # padding at the end of the second sequence
        ex1[1][:] = 1; ex1[1][1, -4:] = 0
        ex2[1][:] = 1; ex2[1][0, -2:] = 0
    with torch.no_grad():
        traced = torch.jit.trace(model, tuple(ex1), check_trace=False)
    pt = os.path.join(outdir, f"{name}.pt")
    traced.save(pt)
    loaded = torch.jit.load(pt).eval()
    names = [n for (n, *_rest) in inputs]
    for suffix, ex in (("", ex1), ("2", ex2)):
        with torch.no_grad():
            outs = to_tuple(loaded(*ex))
        np.savez(os.path.join(outdir, f"{name}.inputs{suffix}.npz"),
                 **{n: t.numpy() for n, t in zip(names, ex)})
        np.savez(os.path.join(outdir, f"{name}.outputs{suffix}.npz"),
                 **{f"o{i}": t.numpy() for i, t in enumerate(outs)})
    return [spec_str(n, dt, dims, s1) for (n, dt, dims, s1, _, _) in inputs]


def write_atomically(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    outdir = DEFAULT_OUT
    only = None
    args = list(argv)
    if "--only" in args:
        i = args.index("--only"); only = args[i + 1].split(","); del args[i:i + 2]
    if args:
        outdir = args[0]
    os.makedirs(outdir, exist_ok=True)
    with open(__file__, "rb") as f:
        stamp = hashlib.sha256(f.read()).hexdigest()
    stamp_path = os.path.join(outdir, "stamp.txt")
    manifest_path = os.path.join(outdir, "manifest.json")
    manifest = {}
    if os.path.exists(manifest_path) and os.path.exists(stamp_path) \
            and open(stamp_path).read() == stamp:
        manifest = json.load(open(manifest_path))
    todo = [n for n in MODELS if (only is None or n in only) and n not in manifest]
    for name in todo:
        print(f"[fixtures] {name}", flush=True)
        manifest[name] = {"inputs": build(name, outdir)}
        # Written atomically: a reader never sees a half-written manifest.
        write_atomically(manifest_path, json.dumps(manifest, indent=1))
        write_atomically(stamp_path, stamp)
    with open(os.path.join(outdir, "not_torchscript.pt"), "w") as f:
        f.write("this is not a TorchScript archive\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
