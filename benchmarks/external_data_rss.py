#!/usr/bin/env python3
"""Peak RSS of `tag` and `inspect` on a model whose weights are over 2 GB of
ONNX external data, against the same graph without weights (issue 14: weights
are never read for tagging; target ≤ 1.2×).

It writes, in a scratch directory:
  heavy.onnx + heavy.onnx.data  a chain of LAYERS blocks (MatMul + Add + Relu,
                                scoped node names /layers.N/fc/MatMul …) whose
                                weights, SIZE_MB each, are external data
                                (random bytes, so no file system can store
                                them as holes);
  light.onnx                    the same nodes, the weights turned into graph
                                inputs (the graph without weights)
then runs `modelexport inspect` and `modelexport tag` on each in a fresh
process under /usr/bin/time -v and prints wall time, CPU time and peak RSS,
and heavy ÷ light. Not asserted by any test.

    .venv/bin/python benchmarks/external_data_rss.py                     # 3 x 800 MB
    .venv/bin/python benchmarks/external_data_rss.py --layers 4 --size-mb 600 --cli build/sdk/modelexport

Measured 2026-11-25 (2-core machine shared with four builds; 3 x 800 MB,
2.40 GB of external data): inspect 8.3 MB vs 8.0 MB (1.04x), tag 14.5 MB vs
13.9 MB (1.04x); tag's 8.7 s wall (1.5 s CPU) is the copy of the 2.40 GB
into the tagged model's own .data file and its fsync.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mx_cli import work_dir  # noqa: E402


def graph(layers, width, weights_external, data_name):
    """Nodes, initializers (external) or inputs (light) of the chain."""
    nodes, inits, inputs = [], [], [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])]
    prev = "x"
    for i in range(layers):
        w, b = f"layers.{i}.fc.weight", f"layers.{i}.fc.bias"
        nodes += [helper.make_node("MatMul", [prev, w], [f"h{i}"], name=f"/layers.{i}/fc/MatMul"),
                  helper.make_node("Add", [f"h{i}", b], [f"a{i}"], name=f"/layers.{i}/fc/Add"),
                  helper.make_node("Relu", [f"a{i}"], [f"r{i}"], name=f"/layers.{i}/act/Relu")]
        prev = f"r{i}"
        if weights_external:
            t = TensorProto(name=w, data_type=TensorProto.FLOAT, dims=[width, width])
            t.data_location = TensorProto.EXTERNAL
            offset = i * width * width * 4
            for k, v in (("location", data_name), ("offset", str(offset)), ("length", str(width * width * 4))):
                e = t.external_data.add()
                e.key, e.value = k, v
            inits += [t, helper.make_tensor(b, TensorProto.FLOAT, [width], [0.0] * width)]
        else:
            inputs += [helper.make_tensor_value_info(w, TensorProto.FLOAT, [width, width]),
                       helper.make_tensor_value_info(b, TensorProto.FLOAT, [width])]
    out = [helper.make_tensor_value_info(prev, TensorProto.FLOAT, ["batch", width])]
    g = helper.make_graph(nodes, "chain", inputs, out, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def write_models(d, layers, size_mb):
    width = int((size_mb * 1e6 / 4) ** 0.5)
    data = os.path.join(d, "heavy.onnx.data")
    chunk = 64 << 20
    with open(data, "wb") as f:
        left = layers * width * width * 4
        while left:
            n = min(chunk, left)
            f.write(os.urandom(n))
            left -= n
    onnx.save(graph(layers, width, True, "heavy.onnx.data"), os.path.join(d, "heavy.onnx"))
    onnx.save(graph(layers, width, False, None), os.path.join(d, "light.onnx"))
    return os.path.getsize(data)


def timed(cmd, env):
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr[-800:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", p.stderr))
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr)
    wall = sum(float(v) * 60 ** i for i, v in enumerate(reversed(m.group(1).split(":"))))
    return wall, cpu, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--size-mb", type=float, default=800, help="MB of weights per layer")
    ap.add_argument("--cli", default=os.environ.get("MODELEXPORT_BIN", "modelexport"))
    ap.add_argument("--plugins", default=os.environ.get("MODELEXPORT_PLUGIN_PATH", ""))
    ap.add_argument("--work", default="", help="scratch directory (kept)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    env = dict(os.environ)
    if args.plugins:
        env["MODELEXPORT_PLUGIN_PATH"] = args.plugins
    with work_dir(args.work, args.keep, "mx_extdata_") as d:
        d = str(d)
        data_bytes = write_models(d, args.layers, args.size_mb)
        print(f"heavy.onnx: {args.layers} layers, {data_bytes / 1e9:.2f} GB of external data; "
              f"light.onnx: the same graph, weights as inputs")
        rows = []
        for label, cmd in (("inspect", lambda m: [args.cli, "inspect", m]),
                           ("tag", lambda m: [args.cli, "tag", m, "-o", m[:-5] + ".tagged.onnx", "--quiet"])):
            heavy = timed(cmd(os.path.join(d, "heavy.onnx")), env)
            light = timed(cmd(os.path.join(d, "light.onnx")), env)
            rows.append((label, heavy, light))
        print(f"{'command':8s} {'heavy wall/CPU/RSS':>28s} {'light wall/CPU/RSS':>28s} {'RSS heavy/light':>16s}")
        for label, h, l in rows:
            print(f"{label:8s} {h[0]:8.2f} s {h[1]:6.2f} s {h[2]:7.1f} MB {l[0]:8.2f} s {l[1]:6.2f} s "
                  f"{l[2]:7.1f} MB {h[2] / l[2]:15.2f}x")
        tagged = os.path.join(d, "heavy.tagged.onnx.data")
        if os.path.exists(tagged):
            print(f"(tag wrote heavy.tagged.onnx.data: {os.path.getsize(tagged) / 1e9:.2f} GB, "
                  "the weights copied file to file)")


if __name__ == "__main__":
    main()
