#!/usr/bin/env python3
"""floor / modelexport / torch.onnx.export: wall time and peak memory on real-size models.

Not a test: run it by hand on a machine where scripts/setup.sh --with-tests has run.

    MODELEXPORT_PLUGIN_PATH=build/plugins-out .venv/bin/python benchmarks/export_benchmark.py \
        --modelexport build/sdk/modelexport --floor build/plugins/torchscript/mxts-floor
    .venv/bin/python benchmarks/export_benchmark.py --models bert --out-dir /tmp/bench
    # another build on the same traced files: --pt-dir <earlier out-dir> [--no-torch]

For each model (random weights, fixed seed):
  1. build and trace it with torch (the venv sees Debian's torch 1.13, the one
     matching LibTorch) and save model.pt                       [own subprocess]
  2. the floor: `mxts-floor model.pt floor.onnx` (LibTorch loads the .pt and
     writes every parameter and buffer as an initializer: the least any
     exporter must do; plugins/torchscript/tools/mxts_floor.cpp)  [own subprocess]
  3. `modelexport export model.pt -o model.mx.onnx --input ... --opset 17`
                                                                [own subprocess]
  4. torch.onnx.export of the same traced model (opset 17, same dynamic
     axes) from a fresh interpreter that loads model.pt           [own subprocess]
Each measurement runs in its own child process and is reaped with os.wait4,
so its peak RSS (ru_maxrss) is that child's alone. Times are whole-process
wall times (loading LibTorch/torch included everywhere). The table shows
modelexport / floor (time and memory) and torch / modelexport (time). The
evidence mix comes from the sidecar hierarchy document that modelexport
writes (`statistics.evidence`).

Models: resnet50 and vit_b_16 (torchvision, 1x3x224x224) and a BERT-base-size
BertModel (Hugging Face transformers from a config: 12 layers, hidden 768,
12 heads; 1x128 tokens).

Measured 2026-11-25 (2 shared cores, other builds running), branch tsmeta;
docs/export-benchmark.md has the before/after tables:

    model      floor              modelexport        x floor (t/mem)  torch.onnx.export  torch/mx time
    resnet50   1.60 s / 384 MB    2.11 s / 269 MB    1.32x / 0.70x    7.34 s / 846 MB    3.47x
    vit_b_16   3.09 s / 838 MB    2.42 s / 503 MB    0.78x / 0.60x    FAILED (_native_multi_head_attention)
    bert       4.74 s / 1,028 MB  3.73 s / 706 MB    0.79x / 0.69x    28.23 s / 2,399 MB 7.57x
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
OPSET = 17

# name -> modelexport input specs (a named dimension is dynamic)
MODELS: Dict[str, List[str]] = {
    "resnet50": ["x:float32[batch=1,3,224,224]"],
    "vit_b_16": ["x:float32[batch=1,3,224,224]"],
    "bert": ["input_ids:int64[batch=1,seq=128]", "attention_mask:int64[batch=1,seq=128]"],
}
DYNAMIC_AXES = {
    "resnet50": {"x": {0: "batch"}},
    "vit_b_16": {"x": {0: "batch"}},
    "bert": {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}},
}


# --------------------------------------------------------------------------
# Child jobs (run as `python export_benchmark.py --child JOB ...`)

def _example_inputs(name: str):
    import torch

    if name in ("resnet50", "vit_b_16"):
        return (torch.randn(1, 3, 224, 224),)
    ids = torch.randint(0, 30522, (1, 128), dtype=torch.int64)
    return (ids, torch.ones(1, 128, dtype=torch.int64))


def child_trace(name: str, out: str) -> dict:
    import torch

    torch.manual_seed(0)
    if name in ("resnet50", "vit_b_16"):
        import torchvision

        model = getattr(torchvision.models, name)(weights=None)
    else:
        from transformers import BertConfig, BertModel

        config = BertConfig(num_hidden_layers=12, hidden_size=768, num_attention_heads=12,
                            intermediate_size=3072, torchscript=True)
        try:
            model = BertModel(config, add_pooling_layer=True)
        except TypeError:
            model = BertModel(config)
        if hasattr(config, "_attn_implementation"):
            config._attn_implementation = "eager"
    model.eval()
    inputs = _example_inputs(name)
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs, strict=False)
    traced.save(out)
    return {"parameters": sum(p.numel() for p in model.parameters()), "torch": torch.__version__}


def child_torch_export(name: str, pt: str, out: str) -> dict:
    import torch

    model = torch.jit.load(pt).eval()
    inputs = _example_inputs(name)
    input_names = [spec.split(":", 1)[0] for spec in MODELS[name]]
    start = time.perf_counter()
    with torch.no_grad():
        torch.onnx.export(model, inputs, out, opset_version=OPSET, input_names=input_names,
                          dynamic_axes=DYNAMIC_AXES[name], do_constant_folding=True)
    return {"export_call_s": time.perf_counter() - start}


# --------------------------------------------------------------------------
# Measuring

@dataclass
class Run:
    ok: bool
    wall_s: float
    peak_rss_mb: float
    detail: dict = field(default_factory=dict)
    error: str = ""


def measure(cmd: List[str], log: Path) -> Run:
    """Runs cmd as a fresh child; wall time and the child's own peak RSS."""
    start = time.perf_counter()
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text(errors="replace")
    detail: dict = {}
    for line in reversed(text.splitlines()):
        if line.startswith("BENCH-RESULT "):
            detail = json.loads(line[len("BENCH-RESULT "):])
            break
    ok = proc.returncode == 0
    return Run(ok, wall, usage.ru_maxrss / 1024.0, detail,
               "" if ok else f"exit {proc.returncode}; last output: {text.strip()[-600:]}")


def self_cmd(*args: str) -> List[str]:
    return [sys.executable, str(Path(__file__).resolve()), "--child", *args]


def find_sidecar(onnx_path: Path) -> Optional[Path]:
    for candidate in (onnx_path.with_suffix(".hierarchy.json"),
                      Path(str(onnx_path) + ".hierarchy.json")):
        if candidate.exists():
            return candidate
    return None


def onnx_node_count(path: Path) -> Optional[int]:
    try:
        import onnx

        return len(onnx.load(str(path), load_external_data=False).graph.node)
    except Exception:
        return None


def fmt_ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "-"


def default_floor() -> str:
    for candidate in (REPO / "build" / "plugins" / "torchscript" / "mxts-floor",
                      Path(shutil.which("mxts-floor") or "/nonexistent")):
        if candidate.exists():
            return str(candidate)
    return str(REPO / "build" / "plugins" / "torchscript" / "mxts-floor")


def fmt_run(run: Run) -> str:
    if run.ok:
        return f"{run.wall_s:.2f} s / {run.peak_rss_mb:,.0f} MB"
    return "skipped" if run.error.startswith("skipped") else "FAILED"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated subset of: " + ",".join(MODELS))
    parser.add_argument("--out-dir", default=str(REPO / "build" / "bench"))
    parser.add_argument("--modelexport", default=shutil.which("modelexport") or "/usr/local/bin/modelexport",
                        help="the CLI to measure (default: modelexport on PATH)")
    parser.add_argument("--floor", default=default_floor(),
                        help="the floor program, mxts-floor (built with the tests: "
                             "build/plugins/torchscript/mxts-floor)")
    parser.add_argument("--no-torch", action="store_true", help="skip torch.onnx.export")
    parser.add_argument("--pt-dir", help="take <name>.pt from this folder (a previous run's --out-dir) "
                                         "instead of tracing: before/after runs measure the same files")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:  # inside a measured child process
        job, *rest = args.child
        result = child_trace(*rest) if job == "trace" else child_torch_export(*rest)
        print("BENCH-RESULT " + json.dumps(result), flush=True)
        return 0

    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s): {', '.join(unknown)}")
    if not os.access(args.modelexport, os.X_OK):
        parser.error(f"modelexport CLI not found at {args.modelexport}: run scripts/setup.sh")
    if not os.access(args.floor, os.X_OK):
        parser.error(f"floor program not found at {args.floor}: build the target mxts-floor "
                     "(configured with the tests, scripts/setup.sh --with-tests)")
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    results: Dict[str, dict] = {}
    for name in names:
        print(f"== {name}", flush=True)
        pt = out_dir / f"{name}.pt"
        if args.pt_dir:
            pt = Path(args.pt_dir) / f"{name}.pt"
            trace = Run(pt.exists(), 0.0, 0.0, {}, "" if pt.exists() else f"{pt} not found")
        else:
            trace = measure(self_cmd("trace", name, str(pt)), out_dir / f"{name}.trace.log")
        if not trace.ok:
            print(f"   trace failed: {trace.error}")
            results[name] = {"trace": asdict(trace)}
            continue
        if not args.pt_dir:
            print(f"   traced: {trace.detail.get('parameters', 0) / 1e6:.1f} M parameters "
                  f"({trace.wall_s:.1f} s)", flush=True)

        floor_out = out_dir / f"{name}.floor.onnx"
        floor_run = measure([args.floor, str(pt), str(floor_out)], out_dir / f"{name}.floor.log")
        print(f"   floor (load + write weights): {fmt_run(floor_run)}", flush=True)
        if not floor_run.ok:
            print(f"     {floor_run.error}")

        mx_out = out_dir / f"{name}.mx.onnx"
        for stale in (mx_out, Path(str(mx_out) + ".hierarchy.json"), mx_out.with_suffix(".hierarchy.json")):
            stale.unlink(missing_ok=True)
        cmd = [args.modelexport, "export", str(pt), "-o", str(mx_out), "--opset", str(OPSET)]
        for spec in MODELS[name]:
            cmd += ["--input", spec]
        mx_run = measure(cmd, out_dir / f"{name}.modelexport.log")
        print(f"   modelexport export: {fmt_run(mx_run)}", flush=True)
        if not mx_run.ok:
            print(f"     {mx_run.error}")

        torch_out = out_dir / f"{name}.torch.onnx"
        if args.no_torch:
            torch_run = Run(False, 0.0, 0.0, error="skipped (--no-torch)")
        else:
            torch_run = measure(self_cmd("torch_export", name, str(pt), str(torch_out)),
                                out_dir / f"{name}.torch.log")
        print(f"   torch.onnx.export:  {fmt_run(torch_run)}", flush=True)
        if not torch_run.ok:
            print(f"     {torch_run.error.splitlines()[-1] if torch_run.error else ''}")

        evidence: Dict[str, int] = {}
        sidecar = find_sidecar(mx_out) if mx_run.ok else None
        if sidecar:
            evidence = json.loads(sidecar.read_text()).get("statistics", {}).get("evidence", {})
        results[name] = {
            "trace": asdict(trace), "floor": asdict(floor_run), "modelexport": asdict(mx_run),
            "torch": asdict(torch_run),
            "nodes": {"modelexport": onnx_node_count(mx_out) if mx_run.ok else None,
                      "torch": onnx_node_count(torch_out) if torch_run.ok else None},
            "evidence": evidence, "sidecar": str(sidecar) if sidecar else None,
        }

    # ---- report -----------------------------------------------------------
    # One row per model: floor, modelexport (x floor: time, memory), and
    # torch.onnx.export (how many times slower than modelexport).
    print()
    header = (f"{'model':<10} {'floor':>18} {'modelexport':>18} {'x floor (t/mem)':>16} "
              f"{'torch.onnx.export':>18} {'torch/mx time':>13} {'nodes mx/torch':>15}")
    print(header)
    print("-" * len(header))
    for name, r in results.items():
        if "modelexport" not in r:
            print(f"{name:<10} trace failed")
            continue
        floor_run, mx_run, torch_run = Run(**r["floor"]), Run(**r["modelexport"]), Run(**r["torch"])
        vs_floor = (f"{fmt_ratio(mx_run.wall_s, floor_run.wall_s)} / "
                    f"{fmt_ratio(mx_run.peak_rss_mb, floor_run.peak_rss_mb)}") if mx_run.ok and floor_run.ok else "-"
        vs_torch = fmt_ratio(torch_run.wall_s, mx_run.wall_s) if mx_run.ok and torch_run.ok else "-"
        nodes = f"{r['nodes']['modelexport'] or '-'}/{r['nodes']['torch'] or '-'}"
        print(f"{name:<10} {fmt_run(floor_run):>18} {fmt_run(mx_run):>18} {vs_floor:>16} "
              f"{fmt_run(torch_run):>18} {vs_torch:>13} {nodes:>15}")
    print("\nx floor: modelexport / floor (targets: time <= 1.5x, memory <= 1.2x); "
          "torch/mx time: torch.onnx.export wall / modelexport wall (target >= 3x)")
    print("\nevidence mix of the modelexport export (statistics.evidence):")
    for name, r in results.items():
        ev = r.get("evidence") or {}
        total = sum(ev.values())
        if not total:
            print(f"  {name:<10} (no hierarchy document found)")
            continue
        mix = ", ".join(f"{kind} {count / total:.1%}" for kind, count in
                        sorted(ev.items(), key=lambda kv: -kv[1]) if count)
        print(f"  {name:<10} {total} nodes: {mix}")
    report = out_dir / "results.json"
    report.write_text(json.dumps(results, indent=2))
    print(f"\nraw results: {report}")
    failed = any(not r.get("modelexport", {}).get("ok") for r in results.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
