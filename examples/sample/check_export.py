#!/usr/bin/env python3
"""Checks an ONNX export of sample.pt against LibTorch's own answer.

Runs the ONNX file with ONNX Runtime and the TorchScript file with torch on
the example input (batch=2, seq=16) and on another shape (batch=3, seq=7, to
exercise the dynamic axes), and compares the logits.

    .venv/bin/python examples/sample/check_export.py build/demo/sample.pt build/demo/sample.onnx

Needs the project venv (onnxruntime from PyPI, Debian's torch 1.13 via
--system-site-packages).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np
import onnxruntime as ort
import torch


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pt")
    parser.add_argument("onnx")
    parser.add_argument("--atol", type=float, default=1e-4)
    args = parser.parse_args(argv)

    scripted = torch.jit.load(args.pt).eval()
    session = ort.InferenceSession(args.onnx, providers=["CPUExecutionProvider"])
    input_name = session.get_inputs()[0].name
    generator = torch.Generator().manual_seed(1)
    worst = 0.0
    dims = session.get_inputs()[0].shape
    shapes = [(2, 16)]
    if any(not isinstance(d, int) for d in dims):
        shapes.append((3 if not isinstance(dims[0], int) else 2, 7 if not isinstance(dims[1], int) else 16))
    else:
        print(f"  note: the ONNX input is static {dims}; dynamic axes not checked")
    for batch, seq in shapes:
        ids = torch.randint(0, 1000, (batch, seq), dtype=torch.int64, generator=generator)
        with torch.no_grad():
            expected = scripted(ids).numpy()
        (got,) = session.run(None, {input_name: ids.numpy()})
        if got.shape != expected.shape:
            print(f"shape mismatch at [{batch},{seq}]: onnx {got.shape} vs torch {expected.shape}")
            return 1
        diff = float(np.max(np.abs(got - expected)))
        worst = max(worst, diff)
        print(f"  input [{batch},{seq}]: logits {tuple(got.shape)}, max |onnxruntime - torch| = {diff:.2e}")
    if worst > args.atol:
        print(f"FAIL: difference {worst:.2e} exceeds {args.atol:.0e}")
        return 1
    print(f"ok: ONNX Runtime matches LibTorch (atol {args.atol:.0e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
