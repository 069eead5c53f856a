#!/usr/bin/env python3
"""Parity of the lean-graph files (issue 33's judging line) for one `.pt2`:
eager PyTorch (`torch.export.load(...).module()`) against ONNX Runtime on our
file and the anchor's, at the program's example shape and at a second shape
(other batch and sequence), and whether every node of our file names its
module (`modelexport.tag` in its metadata_props).

    /work/venvs/pt2/bin/python benchmarks/lean_parity.py PT2 OURS.onnx [ANCHOR.onnx] \
        [--shapes 2x8 3x29] [--json OUT.json]

Inputs: PT2's NAME.inputs.npz (make_decoder_pt2.py's) gives names and dtypes;
each shape draws token ids below the smallest id in it times 10 (so within
the vocabulary) and an all-ones mask. Each of the three runs is its own
process (a 1 B model holds 4-5 GB in each); the max relative difference is
run_zoo.py's (|a - b| / max(1, |b|)). Runs in the torch 2.15 venv.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "zoo_pt2"))


def make_inputs(example, shape, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    b, s = (int(x) for x in shape.split("x"))
    out = {}
    for name, value in example.items():
        if "mask" in name:
            out[name] = np.ones((b, s), dtype=value.dtype)
        else:
            high = max(2, int(value.max()) + 1)
            out[name] = rng.integers(0, high, size=(b, s)).astype(value.dtype)
    return out


def eager_child(pt2, feeds_npz, out_npz):
    import numpy as np
    import torch
    import pt2_models
    ep = pt2_models.load(pt2)
    module = ep.module()
    feeds = np.load(feeds_npz)
    results = {}
    with torch.no_grad():
        for key in sorted({k.split("/")[0] for k in feeds.files}):
            kwargs = {k.split("/")[1]: torch.from_numpy(feeds[k]) for k in feeds.files if k.startswith(key + "/")}
            outs = pt2_models.flatten_outputs(module(**kwargs))
            for i, t in enumerate(outs):
                results[f"{key}/{i}"] = t.numpy()
    np.savez(out_npz, **results)


def ort_child(model, feeds_npz, out_npz):
    import numpy as np
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    feeds = np.load(feeds_npz)
    results = {}
    for key in sorted({k.split("/")[0] for k in feeds.files}):
        given = {k.split("/")[1]: feeds[k] for k in feeds.files if k.startswith(key + "/")}
        feed = {n: given[n] for n in names} if all(n in given for n in names) else dict(zip(names, given.values()))
        for i, t in enumerate(sess.run(None, feed)):
            results[f"{key}/{i}"] = t
    np.savez(out_npz, **results)


def max_rel(got, want):
    import numpy as np
    g, w = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return float(np.max(np.abs(g - w) / np.maximum(1.0, np.abs(w)))) if g.size else 0.0


def records(model):
    import onnx
    m = onnx.load(model, load_external_data=False)
    missing = [n.name for n in m.graph.node
               if not any(p.key == "modelexport.tag" and p.value for p in n.metadata_props)]
    return len(m.graph.node), missing


def main():
    import numpy as np
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pt2")
    ap.add_argument("ours")
    ap.add_argument("anchor", nargs="?")
    ap.add_argument("--shapes", nargs="+", default=["2x8", "3x29"])
    ap.add_argument("--json")
    args = ap.parse_args()
    example = dict(np.load(args.pt2[:-4] + ".inputs.npz"))
    work = tempfile.mkdtemp(prefix="lean_parity_")
    feeds_npz = os.path.join(work, "feeds.npz")
    np.savez(feeds_npz, **{f"{s}/{k}": v for i, s in enumerate(args.shapes)
                           for k, v in make_inputs(example, s, i).items()})
    runs = {"eager": ["--eager-child", args.pt2], "ours": ["--ort-child", args.ours]}
    if args.anchor:
        runs["anchor"] = ["--ort-child", args.anchor]
    outs = {}
    for key, cmd in runs.items():
        out = os.path.join(work, key + ".npz")
        subprocess.run([sys.executable, __file__, *cmd, feeds_npz, out], check=True)
        outs[key] = dict(np.load(out))
    report = {"shapes": args.shapes}
    for key in runs:
        if key == "eager":
            continue
        report[key] = {s: max(max_rel(outs[key][k], outs["eager"][k]) for k in outs["eager"] if k.startswith(s + "/"))
                       for s in args.shapes}
    nodes, missing = records(args.ours)
    report["ours_nodes"], report["ours_nodes_without_module"] = nodes, len(missing)
    report["without_module_examples"] = missing[:10]
    print(json.dumps(report, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    for f in os.listdir(work):
        os.unlink(os.path.join(work, f))
    os.rmdir(work)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--eager-child":
        eager_child(*sys.argv[2:5])
    elif len(sys.argv) > 1 and sys.argv[1] == "--ort-child":
        ort_child(*sys.argv[2:5])
    else:
        main()
