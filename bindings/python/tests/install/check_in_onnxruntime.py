"""Run by test.sh in the project venv (it has onnx and onnxruntime) on the
files check_installed.py wrote with the wheel: the .pt2 exported through
Python and through the CLI must reproduce the fixture's eager PyTorch
outputs in ONNX Runtime at both of its input shapes, every node carrying
its module; the tagged files must pass the checker and run.
Usage: check_in_onnxruntime.py OUTDIR FIXTURE_DIR NAME   (NAME: e.g. bert_tiny)
"""
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

RTOL = 1e-4
out, fixtures, name = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]


def session(path):
    onnx.checker.check_model(onnx.load(path), full_check=True)
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def max_rel_err(sess, suffix):
    inputs = dict(np.load(fixtures / f"{name}.inputs{suffix}.npz"))
    want = np.load(fixtures / f"{name}.outputs{suffix}.npz")
    got = sess.run(None, {i.name: inputs[i.name] for i in sess.get_inputs()})
    assert len(got) == len(want.files), f"{len(got)} outputs, the fixture has {len(want.files)}"
    worst = 0.0
    for i, g in enumerate(got):
        w = want[f"o{i}"]
        assert g.shape == w.shape, f"output {i}: shape {g.shape} vs {w.shape}"
        rel = np.abs(g.astype(np.float64) - w) / np.maximum(1.0, np.abs(w.astype(np.float64)))
        worst = max(worst, float(rel.max()) if rel.size else 0.0)
    assert worst <= RTOL, f"max relative error {worst:.3g} > {RTOL}"
    return worst


for exported in ("exported.onnx", "cli.onnx"):
    sess = session(out / exported)
    errs = [max_rel_err(sess, s) for s in ("", "2")]
    nodes = onnx.load(out / exported).graph.node
    untagged = [n.name for n in nodes
                if "modelexport.module" not in {p.key for p in n.metadata_props}]
    assert not untagged, f"{exported}: nodes without a module record: {untagged[:5]}"
    print(f"onnxruntime: {exported}: {len(nodes)} nodes, max rel err {max(errs):.2g} "
          f"at both shapes (<= {RTOL})")

for tagged in ("tiny.tagged.onnx", "cli.tagged.onnx"):
    sess = session(out / tagged)
    feed = {}
    for i in sess.get_inputs():
        shape = [d if isinstance(d, int) else 2 for d in i.shape]
        feed[i.name] = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    outputs = sess.run(None, feed)
    print(f"onnxruntime: {tagged}: ran, {len(outputs)} output(s)")
print("onnxruntime: OK")
