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

Measured 2026-11-25 (Debian 12, 2 shared cores, RelWithDebInfo build, the
machine quiet: wall ~ CPU), CPU seconds / peak RSS / ratio to json.load;
"before" is main at 2a253bb (strategies through the host, ABI 1.2), run
in the same session with --cli/--plugins pointing at its build:

    modules  json.load      inspect --json                 tag --hierarchy
                            before          after          before            after
    10k      0.03 s  29 MB  0.07 s   2.6x   0.05 s  1.8x   0.16 s    5.5x    0.10 s   3.4x
    100k     0.18 s  70 MB  0.85 s   4.7x   0.49 s  2.6x   2.12 s   11.9x    1.02 s   5.4x
    1M       2.5 s  614 MB  10.3 s   4.0x   5.8 s   2.3x   30.3 s   11.8x    11.6 s   4.6x
    1M peak RSS             1087 MB         994 MB         2178 MB           2290 MB

Growth 10k -> 100k -> 1M (CPU): inspect 9.4x, 11.9x; tag 10.2x, 11.3x;
json.load itself 6.5x, 13.1x (the machine's memory effects at 1M). The
outputs (tagged model, sidecar, inspect --json) are byte-identical to
before at 10k and 100k (--keep DIR on both builds, cmp; inspect's "file"
line names DIR).

The round before (main at 45ab68d): inspect 10.4 s, tag 32.2 s at 1M; the
one before that, 13.2 s and 41.3 s. What changed this round: a sidecar is read straight into the Document (SAX) and its
modules are checked once; the supplied tree is parsed once, checked as
it will be completed (string compares; the full problem list only for a
tree that may be broken), then completed and moved into the document
(not checked, rebuilt, re-parsed per entry); propagation reads the
supplied modules from that tree; every module index is one flat table
(hierarchy/path_table.hpp) built once per pass and shared by the checks
and tags, each parent looked up once; inspect streams its rows.
Where tag's 1M time went in one instrumented run (wall, before merging
ABI 1.2): loading the input and its sidecar 1.7 s, the supplied hierarchy
2.8 s (its nlohmann DOM, still what the strategy call reads, about half),
the strategy request and plugin 3.1 s, freeing the DOM 0.65 s,
propagation 1.1 s (facts of a million modules), document and
set_hierarchy 0.8 s, saving ~1.5 s. Peak RSS of tag is not down: the tree of parsed modules
lives beside the supplied JSON for the whole run (+5% at 1M).

Then the module paths went to tsl::robin_map (same figures) and the
strategies read the supplied modules through the graph reader (plugin ABI
1.2: the request carries no "modules", no plugin parses them), one run on
the same machine (load ~3): 1M modules tag --hierarchy 9.34 s CPU, 3.6x
json.load (2.58 s), 2069 MB; 100k 0.95 s, 5.0x; inspect 6.29 s, 2.4x;
growth 10k -> 100k -> 1M: inspect 8.3x, 9.7x; tag 8.4x, 9.8x. Outputs
byte-identical to the run before (tagged model and sidecar at 10k, 100k,
1M).

Then (issue 14's round: tagging without a string per node, the supplied
modules' JSON dropped once no strategy gets the JSON request), 1M modules,
start (69803d3) and end of that session back to back: tag --hierarchy
9.25 s CPU / 2069 MB -> 8.55 s / 1746 MB; inspect --json 5.93 s -> 5.97 s
(unchanged); outputs byte-identical with and without the drop (--keep,
cmp; the 200,000-node tagging outputs were checked against the start).

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
