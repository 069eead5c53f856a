#!/usr/bin/env python3
"""Growth of `inspect` and `tag --hierarchy` with the number of modules
(issue 16: both were quadratic, 100,000 modules took 88 s).

For each size N it writes a 3-node model whose sidecar (for inspect) and
supplied hierarchy (for tag --hierarchy) hold N modules — a root with N/100
blocks of 99 leaves, the shape of a deep model's tree — then times each
command in a fresh process (CPU seconds, wall time, peak RSS) and prints the
ratio to the previous size: ~10x per 10x is linear. The baseline, timed the
same way in the same run, is a fresh Python reading the same sidecar with
json.load (the least any tool must do with that file); each command's ratio
to it is printed per size. CPU time (user + sys of the child) is the figure
compared: on a shared machine wall time mostly measures the neighbours. Not
asserted by any test.

Measured 2026-11-25 (Debian 12, 2 shared cores, RelWithDebInfo build; the
machine was quiet, wall ~ CPU), CPU seconds / peak RSS / ratio to json.load:

    modules  json.load       inspect --json           tag --hierarchy
    10k      0.03 s   30 MB  0.08 s    30 MB  2.5x    0.16 s   40 MB   5.4x
    100k     0.17 s   70 MB  0.82 s   155 MB  4.9x    2.29 s  278 MB  13.7x
    1M       2.64 s  614 MB  10.4 s  1087 MB  3.9x    32.2 s  2593 MB 12.2x

Before this round (main at d071f2d, same machine, busier): inspect 0.12 /
1.31 / 13.2 s, tag 0.34 / 4.25 / 41.3 s (2.7 GB). Linear (each step ~10x
modules, ~11-14x CPU, as the baseline's own 5.5x/15.8x shows the machine's
memory effects), but a million modules still take 10 s to inspect and 32 s
to tag: the remaining time is spread over a dozen million-entry hash tables
and DOMs (the supplied tree is parsed by the host and again by every
strategy plugin, checked twice, completed twice), not one hot spot.

    .venv/bin/python benchmarks/module_scale.py                      # 10k, 100k, 1M
    .venv/bin/python benchmarks/module_scale.py --sizes 10000 100000 --cli build/sdk/modelexport
    .venv/bin/python benchmarks/module_scale.py --keep DIR           # keep the files (to cmp outputs)
"""
import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import onnx
from onnx import TensorProto, helper


def tiny_model(path):
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 4])
    w = helper.make_tensor("fc.weight", TensorProto.FLOAT, [4, 4], [0.0] * 16)
    nodes = [helper.make_node("MatMul", ["X", "fc.weight"], ["H"], name="/fc/MatMul"),
             helper.make_node("Relu", ["H"], ["R"], name="/act/Relu"),
             helper.make_node("Identity", ["R"], ["Y"], name="/out/Identity")]
    graph = helper.make_graph(nodes, "scale", [x], [y], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)


def modules(n):
    """Root + blocks of 99 leaves: n modules in all, parents and children consistent."""
    out = [{"path": "", "class": "Net", "parent": None, "children": []}]
    block = None
    while len(out) < n:
        i = len(out)
        if block is None or len(block["children"]) == 99:
            block = {"path": f"b{i}", "class": "Block", "parent": "", "children": []}
            out[0]["children"].append(block["path"])
            out.append(block)
            continue
        leaf = {"path": f'{block["path"]}.l{i}', "class": "Linear", "parent": block["path"],
                "children": []}
        block["children"].append(leaf["path"])
        out.append(leaf)
    return out


def write_inputs(work, n):
    model = work / f"m{n}.onnx"
    tiny_model(model)
    mods = modules(n)
    leaf = mods[-1]["path"]
    doc = {"schema": "modelexport.hierarchy/1", "modules": mods,
           "nodes": [{"name": name, "module": leaf, "evidence": "root"}
                     for name in ("/fc/MatMul", "/act/Relu", "/out/Identity")]}
    (work / f"m{n}.hierarchy.json").write_text(json.dumps(doc))
    (work / f"h{n}.json").write_text(json.dumps({"schema": "modelexport.hierarchy/1",
                                                 "modules": mods, "nodes": []}))
    return model


class Run:
    """One fresh process: CPU seconds (user + sys), wall seconds, peak RSS (MB)."""

    def __init__(self, cpu, wall, rss):
        self.cpu, self.wall, self.rss = cpu, wall, rss

    def __str__(self):
        return f"{self.cpu:7.2f} s cpu {self.wall:7.2f} s wall {self.rss:6.0f} MB"


def timed(cmd, env, stdout=os.devnull):
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        out = os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        os.execvpe(cmd[0], cmd, env)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed")
    return Run(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024)


def main():
    repo = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--cli", default=str(repo / "build/sdk/modelexport"))
    ap.add_argument("--plugins", default=str(repo / "build/plugins-out"))
    ap.add_argument("--keep", help="write the inputs and outputs here and keep them")
    args = ap.parse_args()
    env = dict(os.environ, MODELEXPORT_PLUGIN_PATH=args.plugins)
    rows = []
    with tempfile.TemporaryDirectory(prefix="mx_scale_") as tmp:
        work = pathlib.Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        for n in args.sizes:
            model = write_inputs(work, n)
            baseline = timed([sys.executable, "-c", "import json, sys; json.load(open(sys.argv[1]))",
                              str(work / f"m{n}.hierarchy.json")], env)
            inspect = timed([args.cli, "inspect", str(model), "--json"], env,
                            stdout=str(work / f"inspect{n}.json"))
            tag = timed([args.cli, "tag", str(model), "-o", str(work / f"t{n}.onnx"),
                         "--strategy", "scope", "--hierarchy", str(work / f"h{n}.json")], env)
            rows.append((n, baseline, inspect, tag))
            print(f"{n:>9} modules:\n"
                  f"  python json.load (baseline) {baseline}\n"
                  f"  inspect --json              {inspect}   {inspect.cpu / baseline.cpu:5.1f}x baseline\n"
                  f"  tag --hierarchy             {tag}   {tag.cpu / baseline.cpu:5.1f}x baseline",
                  flush=True)
    print("\ngrowth (CPU time ratio to the previous size; ~10x per 10x modules = linear)")
    for (n0, b0, i0, t0), (n1, b1, i1, t1) in zip(rows, rows[1:]):
        print(f"  {n0:>9} -> {n1:>9} ({n1 / n0:.0f}x): baseline {b1.cpu / b0.cpu:5.1f}x, "
              f"inspect {i1.cpu / i0.cpu:5.1f}x, tag --hierarchy {t1.cpu / t0.cpu:5.1f}x")


if __name__ == "__main__":
    sys.exit(main())
