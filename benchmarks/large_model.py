#!/usr/bin/env python3
"""A model over protobuf's 2 GB limit: GPT-2 XL size (1.5 B parameters),
exported with ONNX external data, checked with ONNX Runtime.

Not a test: run it by hand on a machine where scripts/setup.sh has run
(it needs ~7 GB of RAM per step and ~20 GB of disk under --out-dir):

    .venv/bin/python benchmarks/large_model.py --out-dir /var/tmp/mx-large
    .venv/bin/python benchmarks/large_model.py --cli build-ext/sdk/modelexport \\
        --plugins build-ext/plugins-out --out-dir /var/tmp/mx-large
    .venv/bin/python benchmarks/large_model.py --steps export,ort ...   # reuse model.pt

Steps, each a fresh child process run under `/usr/bin/time -v` (peak RSS =
its "Maximum resident set size", so every number is that step's alone):
  1. trace   build transformers' GPT2LMHeadModel from a config (n_embd 1600,
             n_layer 48, n_head 25, vocab 50257, n_positions 1024,
             use_cache=False, torchscript=True; random weights, seed 0),
             torch.jit.trace it on input_ids [1, 8], save model.pt;
  2. ref     torch.jit.load(model.pt) (LibTorch, as the exporter sees it) on
             input_ids [1, 8] and [2, 5]: the reference logits;
  3. export  `modelexport export model.pt -o gpt2_xl.onnx
             --input input_ids:int64[batch=1,seq=8]` — no flag: external data
             is chosen automatically because the weights exceed 2 GB
             (--external-data forces it);
  4. ort     onnxruntime.InferenceSession(gpt2_xl.onnx) on the same inputs,
             max abs difference against the reference.

Measured once (Debian 12 VM, 2 cores shared with other builds, 24 GB;
torch/LibTorch 1.13.1, onnxruntime 1.31.1 from the venv, transformers 4.44.2;
out-dir and TMPDIR on the same disk). With torchscript=True transformers
clones lm_head instead of tying it, hence 1.64 B rather than 1.56 B:

    parameters               1,638,022,400 (6.55 GB float32)
    model.pt                 6.60 GB
    gpt2_xl.onnx             6.1 MB  (8,430 nodes, 632 modules, records on every node; evidence direct 100 %)
    gpt2_xl.onnx.data        6.60 GB (the weights + 48 causal-mask buffers of 1 MB)
    step                     wall      peak RSS
    trace   (python)         251 s     7.24 GB   (126 s of it: random init of the weights)
    ref     (LibTorch)       131 s     6.99 GB
    export  (modelexport)    111 s     6.87 GB   <- one copy of the weights + 0.3 GB
    ort     (onnxruntime)     36 s     6.70 GB   (session creation 29 s)
    max |ORT - LibTorch|     1.3e-05 at [1, 8], 1.5e-05 at [2, 5]  (logits up to |3.9|)

The export is I/O-bound (27 % CPU): it reads model.pt, streams the weights to
the scratch data file, then the host streams them to gpt2_xl.onnx.data
(fsync'ed, renamed). Wall times were taken while other builds shared the
machine; peak RSS does not depend on that.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

REPO = Path(__file__).resolve().parents[1]
CONFIG = dict(n_embd=1600, n_layer=48, n_head=25, vocab_size=50257, n_positions=1024)
SHAPES = [(1, 8), (2, 5)]
SPEC = "input_ids:int64[batch=1,seq=8]"


# ------------------------------------------------------------ child steps
def child_trace(out_dir: Path) -> dict:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(**CONFIG, use_cache=False, torchscript=True)
    start = time.perf_counter()
    model = GPT2LMHeadModel(config).eval()
    built = time.perf_counter() - start
    params = sum(p.numel() for p in model.parameters())  # tied weights counted once
    ids = torch.randint(0, CONFIG["vocab_size"], SHAPES[0], generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        traced = torch.jit.trace(model, (ids,), check_trace=False)
    traced.save(str(out_dir / "model.pt"))
    return {"parameters": params, "build_s": built}


def child_ref(out_dir: Path) -> dict:
    import numpy as np
    import torch

    model = torch.jit.load(str(out_dir / "model.pt")).eval()
    g = torch.Generator().manual_seed(1)
    arrays = {}
    for k, shape in enumerate(SHAPES):
        ids = torch.randint(0, CONFIG["vocab_size"], shape, generator=g)
        with torch.no_grad():
            out = model(ids)
        logits = out[0] if isinstance(out, (tuple, list)) else out
        arrays[f"ids{k}"] = ids.numpy()
        arrays[f"logits{k}"] = logits.numpy()
    np.savez(out_dir / "reference.npz", **arrays)
    return {}


def child_ort(out_dir: Path, onnx_path: str) -> dict:
    import numpy as np
    import onnxruntime as ort

    ref = np.load(out_dir / "reference.npz")
    start = time.perf_counter()
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    load_s = time.perf_counter() - start
    name = sess.get_inputs()[0].name
    diffs, ranges = [], []
    for k, _ in enumerate(SHAPES):
        got = sess.run(None, {name: ref[f"ids{k}"]})[0]
        want = ref[f"logits{k}"]
        assert got.shape == want.shape, (got.shape, want.shape)
        diffs.append(float(np.abs(got.astype(np.float64) - want).max()))
        ranges.append(float(np.abs(want).max()))
    return {"ort_load_s": load_s, "max_abs_diff": diffs, "max_abs_logit": ranges}


# ------------------------------------------------------------ parent
def timed(cmd: List[str], log: Path, env=None) -> dict:
    """Runs cmd under /usr/bin/time -v; wall seconds and peak RSS (bytes)."""
    start = time.perf_counter()
    with open(log, "w") as f:
        p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    wall = time.perf_counter() - start
    text = log.read_text()
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n--- {log}:\n{text[-4000:]}")
    return {"wall_s": wall, "peak_rss": int(m.group(1)) * 1024 if m else None}


def child_result(log: Path) -> dict:
    for line in reversed(log.read_text().splitlines()):
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    return {}


def gb(n) -> str:
    return "-" if n is None else f"{n / 1e9:.2f} GB"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", default=str(REPO / "build" / "large_model"))
    ap.add_argument("--cli", default=shutil.which("modelexport") or str(REPO / "build" / "sdk" / "modelexport"))
    ap.add_argument("--plugins", default=None, help="MODELEXPORT_PLUGIN_PATH for the export")
    ap.add_argument("--external-data", action="store_true", help="pass --external-data (else automatic)")
    ap.add_argument("--steps", default="trace,ref,export,ort",
                    help="comma-separated subset of trace,ref,export,ort (results of earlier runs are kept "
                         "in OUT_DIR/results.json)")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    out_dir = Path(args.out_dir).resolve()

    if args.child:
        step = args.child[0]
        res = {"trace": lambda: child_trace(out_dir), "ref": lambda: child_ref(out_dir),
               "ort": lambda: child_ort(out_dir, args.child[1])}[step]()
        print("RESULT " + json.dumps(res), flush=True)
        return 0

    out_dir.mkdir(parents=True, exist_ok=True)
    steps = args.steps.split(",")
    me = [sys.executable, str(Path(__file__).resolve()), "--out-dir", str(out_dir), "--child"]
    results_path = out_dir / "results.json"
    results: Dict[str, dict] = json.loads(results_path.read_text()) if results_path.exists() else {}

    def save():
        results_path.write_text(json.dumps(results, indent=1))

    pt = out_dir / "model.pt"
    onnx_path = out_dir / "gpt2_xl.onnx"
    data = Path(str(onnx_path) + ".data")
    if "trace" in steps:
        print("[trace] GPT-2 1.5B, torch.jit.trace ...", flush=True)
        results["trace"] = timed(me + ["trace"], out_dir / "trace.log")
        results["trace"].update(child_result(out_dir / "trace.log"))
        save()
    if "ref" in steps:
        print("[ref] LibTorch reference ...", flush=True)
        results["ref"] = timed(me + ["ref"], out_dir / "ref.log")
        save()
    if "export" in steps:
        print("[export] modelexport export ...", flush=True)
        for p in (onnx_path, data):
            if p.exists():
                p.unlink()
        env = dict(os.environ)
        if args.plugins:
            env["MODELEXPORT_PLUGIN_PATH"] = args.plugins
        # the frontend's scratch data goes to $TMPDIR: keep it on the output's disk
        env.setdefault("TMPDIR", str(out_dir))
        cmd = [args.cli, "export", str(pt), "-o", str(onnx_path), "--input", SPEC]
        if args.external_data:
            cmd.append("--external-data")
        results["export"] = timed(cmd, out_dir / "export.log", env)
        results["export"]["log"] = (out_dir / "export.log").read_text().splitlines()[:2]
        print("    " + results["export"]["log"][0], flush=True)
        results["sizes"] = {"model.pt": pt.stat().st_size, "onnx": onnx_path.stat().st_size,
                            "onnx.data": data.stat().st_size if data.exists() else 0}
        save()
    if "ort" in steps:
        print("[ort] ONNX Runtime ...", flush=True)
        results["ort"] = timed(me + ["ort", str(onnx_path)], out_dir / "ort.log")
        results["ort"].update(child_result(out_dir / "ort.log"))
        save()

    sizes = results.get("sizes", {})
    if "trace" in results:
        print(f"parameters             {results['trace'].get('parameters', 0):,}")
    if sizes:
        print(f"model.pt               {gb(sizes['model.pt'])}")
        print(f"{onnx_path.name:<22} {sizes['onnx'] / 1e6:.1f} MB")
        print(f"{data.name:<22} {gb(sizes['onnx.data'])}")
    for step in ("trace", "ref", "export", "ort"):
        if step in results:
            r = results[step]
            print(f"{step:<8} wall {r['wall_s']:7.1f} s   peak RSS {gb(r['peak_rss'])}")
    if "ort" in results:
        o = results["ort"]
        print("max |ORT - LibTorch|   " + ", ".join(
            f"{d:.2g} at {list(s)} (max |logit| {m:.3g})"
            for d, s, m in zip(o["max_abs_diff"], SHAPES, o["max_abs_logit"])))
    print(f"results: {out_dir / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
