#!/usr/bin/env python3
"""ONNX Runtime checks for the functions pass and extraction.

    check_ort.py functions FLAT.onnx FN.onnx INPUTS.npz   # same outputs (<= 1e-5)
    check_ort.py extract FULL.onnx PART.onnx INPUTS.npz   # part reproduces the
                                                          # full model's values
Runs the current onnx checker too. Prints measured max abs differences.
"""
import sys

import numpy as np
import onnx
import onnxruntime as ort

TOL = 1e-5


def session(model_or_path):
    so = ort.SessionOptions()
    so.log_severity_level = 3
    data = model_or_path if isinstance(model_or_path, bytes) else open(model_or_path, "rb").read()
    return ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])


def feeds_for(sess, npz):
    if npz == "random":  # float inputs, dynamic dims = 2
        rng = np.random.default_rng(0)
        return {i.name: rng.standard_normal([d if isinstance(d, int) else 2 for d in i.shape]).astype(np.float32)
                for i in sess.get_inputs()}
    data = dict(np.load(npz))
    names = [i.name for i in sess.get_inputs()]
    return {n: data[n] for n in names}


def max_diff(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        raise SystemExit(f"shape mismatch {a.shape} vs {b.shape}")
    if a.size == 0:
        return 0.0
    if a.dtype.kind in "fc":
        return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
    return float(np.max(a != b))


def check_functions(flat, fn, npz):
    onnx.checker.check_model(onnx.load(fn), full_check=True)
    s1, s2 = session(flat), session(fn)
    feeds = feeds_for(s1, npz)
    o1 = s1.run(None, feeds)
    o2 = s2.run(None, feeds)
    worst = max(max_diff(a, b) for a, b in zip(o1, o2))
    m = onnx.load(fn)
    print(f"functions parity: {len(o1)} outputs, max abs diff {worst:.3g}; "
          f"{len(m.functions)} functions, {len(m.graph.node)} top-level nodes")
    if worst > TOL:
        raise SystemExit(f"FAIL: diff {worst} > {TOL}")


def check_extract(full, part, npz):
    pm = onnx.load(part)
    onnx.checker.check_model(pm, full_check=True)
    fm = onnx.load(full)
    fm = onnx.shape_inference.infer_shapes(fm)
    wanted = [i.name for i in pm.graph.input] + [o.name for o in pm.graph.output]
    have = {o.name for o in fm.graph.output}
    types = {v.name: v for v in list(fm.graph.value_info) + list(fm.graph.input) + list(fm.graph.output)}
    for name in wanted:
        if name not in have:
            fm.graph.output.append(types[name] if name in types else onnx.helper.make_empty_tensor_value_info(name))
    s_full = session(fm.SerializeToString())
    feeds = feeds_for(session(full), npz)
    values = dict(zip([o.name for o in s_full.get_outputs()], s_full.run(None, feeds)))
    s_part = session(part)
    part_out = s_part.run(None, {i.name: values[i.name] for i in s_part.get_inputs()})
    worst = 0.0
    for o, v in zip(s_part.get_outputs(), part_out):
        worst = max(worst, max_diff(values[o.name], v))
    print(f"extract parity: {len(s_part.get_inputs())} inputs, {len(part_out)} outputs, "
          f"{len(pm.graph.node)} nodes, max abs diff {worst:.3g}")
    if worst > TOL:
        raise SystemExit(f"FAIL: diff {worst} > {TOL}")


if __name__ == "__main__":
    mode, a, b, npz = sys.argv[1:5]
    {"functions": check_functions, "extract": check_extract}[mode](a, b, npz)
