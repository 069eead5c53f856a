#!/usr/bin/python3
"""Builds the bundled demo model and saves it as TorchScript (sample.pt).

A tiny transformer classifier with named submodules, so the exported ONNX has
a module tree worth looking at:

    TinyClassifier
    ├── embeddings   (Embeddings: token + position nn.Embedding, LayerNorm)
    ├── blocks       (nn.ModuleList, never called itself)
    │   ├── 0        (Block: ln1, attention(Attention: query/key/value/out), ln2, mlp(MLP: fc1/act/fc2))
    │   └── 1        (Block)
    ├── norm         (LayerNorm)
    └── head         (Linear)

Weights are random with a fixed seed; attention is written out with
matmul/softmax (no nn.MultiheadAttention, whose fused fast path torch 1.13's
exporters cannot lower).

Run it with Debian's interpreter, whose torch (1.13) matches LibTorch:

    /usr/bin/python3 examples/sample/make_sample.py --out build/demo/sample.pt

Input of the traced model (use it for `modelexport export --input`):
    input_ids:int64[batch=2,seq=16]
"""
from __future__ import annotations

import argparse
import math
import os
import sys

import torch
from torch import nn

VOCAB = 1000
HIDDEN = 64
HEADS = 4
LAYERS = 2
MAX_POSITIONS = 128
CLASSES = 3
BATCH, SEQ = 2, 16
INPUT_SPEC = f"input_ids:int64[batch={BATCH},seq={SEQ}]"


class Embeddings(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.token = nn.Embedding(VOCAB, HIDDEN)
        self.position = nn.Embedding(MAX_POSITIONS, HIDDEN)
        self.norm = nn.LayerNorm(HIDDEN)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        return self.norm(self.token(input_ids) + self.position(positions))


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.query = nn.Linear(HIDDEN, HIDDEN)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.value = nn.Linear(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, HIDDEN)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        return x.view(b, s, HEADS, HIDDEN // HEADS).transpose(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q, k, v = self._heads(self.query(x)), self._heads(self.key(x)), self._heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HIDDEN // HEADS)
        context = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.out(context.transpose(1, 2).reshape(b, s, HIDDEN))


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(HIDDEN, 4 * HIDDEN)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(4 * HIDDEN, HIDDEN)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(HIDDEN)
        self.attention = Attention()
        self.ln2 = nn.LayerNorm(HIDDEN)
        self.mlp = MLP()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embeddings = Embeddings()
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.norm = nn.LayerNorm(HIDDEN)
        self.head = nn.Linear(HIDDEN, CLASSES)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        x = self.embeddings(input_ids)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x).mean(dim=1))


def build(seed: int = 0) -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(seed)
    model = TinyClassifier().eval()
    example = torch.randint(0, VOCAB, (BATCH, SEQ), dtype=torch.int64)
    return model, example


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="sample.pt", help="output .pt path (default: sample.pt)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    model, example = build(args.seed)
    with torch.no_grad():
        traced = torch.jit.trace(model, (example,))
        expected = model(example)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    traced.save(args.out)
    # A reference output for checking the export (example input, seed-fixed).
    torch.save({"input_ids": example, "logits": expected}, os.path.splitext(args.out)[0] + ".io.pt")

    params = sum(p.numel() for p in model.parameters())
    print(f"wrote {args.out}: TinyClassifier, torch {torch.__version__}, {params} parameters, seed {args.seed}")
    print(f"input: {INPUT_SPEC}")
    print("modules:")
    for name, module in model.named_modules():
        depth = name.count(".") + (1 if name else 0)
        print(f"  {'  ' * depth}{name or '(root)'}: {type(module).__name__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
