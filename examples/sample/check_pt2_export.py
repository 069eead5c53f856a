#!/usr/bin/env python3
"""Checks an ONNX export of a committed .pt2 fixture with ONNX Runtime
against the eager PyTorch 2.15 outputs recorded beside it
(tests/fixtures/pt2/<name>.inputs.npz / .outputs.npz): no torch needed.

    check_pt2_export.py tests/fixtures/pt2/bert_tiny.pt2 out.onnx
"""
import os
import sys

import numpy as np
import onnxruntime as ort


def main(pt2, onnx_path):
    base = pt2[: -len(".core.pt2")] if pt2.endswith(".core.pt2") else pt2[: -len(".pt2")]
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    worst = 0.0
    for suffix in ("", "2"):
        inputs = dict(np.load(f"{base}.inputs{suffix}.npz"))
        ref = np.load(f"{base}.outputs{suffix}.npz")
        outs = sess.run(None, {i.name: inputs[i.name] for i in sess.get_inputs()})
        for k, got in enumerate(outs):
            want = ref[f"o{k}"]
            err = float(np.max(np.abs(got - want)) / max(1.0, float(np.max(np.abs(want)))))
            worst = max(worst, err)
            print(f"    shape {list(want.shape)}: max |ORT - eager| / max(1, |eager|) = {err:.2e}")
    ok = worst <= 1e-4
    print(f"    {'OK' if ok else 'MISMATCH'}: ONNX Runtime matches eager PyTorch 2.15 at two shapes"
          f" ({os.path.basename(pt2)})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
