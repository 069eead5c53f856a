#!/usr/bin/env python3
"""The model zoo: real architectures (Hugging Face transformers, torchvision,
torchaudio, torch.nn) with random weights, exported natively and checked
against LibTorch with ONNX Runtime.

    .venv/bin/python tests/zoo/run_zoo.py --subset ci     # CI (ctest zoo_ci)
    .venv/bin/python tests/zoo/run_zoo.py --all           # the full zoo
    .venv/bin/python tests/zoo/run_zoo.py --only hf_bert_tiny,tv_resnet18
    options: --list, --markdown FILE (write the table), --keep DIR (keep ONNX),
             --timeout SECONDS (per export, default 900), --fixtures DIR

Per model:
 1. fixture step (make_zoo.py, run with this interpreter): build from the
    config, trace, save inputs/outputs at two shapes (cached under
    tests/fixtures/generated/zoo/ by a stamp of the zoo scripts; --all
    caches ~23 GB there: remove the directory when done);
 2. `modelexport export NAME.pt -o NAME.onnx --input SPEC ...` (CLI from
    MODELEXPORT_CLI or a build directory; plugins from MODELEXPORT_PLUGIN_PATH);
 3. ONNX Runtime on the same inputs as LibTorch: every output within
    |a-b| <= 1e-4 * max(1, |b|), at the example shape and, when the model has
    dynamic axes, at the second shape;
 3b. a miss of that bound is decided by the float64 arbiter (float64_arbiter):
    it passes only when ONNX Runtime is as close to a float64 run of the same
    model as LibTorch's float32 run is (reported in the status);
 4. hierarchy: every ONNX node has exactly one record naming a module of the
    module tree; evidence mix direct/propagated/root and the share of nodes on
    the root module (the ops of the root's own forward, `direct`).
Status: PASS (all of it and root share <= 1%), ROOT (parity and tagging fine
but root share > 1%), FAIL (first error), SKIP (not attempted, reason).
Exit code 0 when no model FAILs.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)

TOL = 1e-4
ROOT_MAX = 0.01


def find_cli():
    cli = os.environ.get("MODELEXPORT_CLI")
    if cli and os.path.exists(cli):
        return cli, os.environ.get("MODELEXPORT_PLUGIN_PATH", "")
    # the build directory with the most recently built torchscript plugin
    found = []
    for build in glob.glob(os.path.join(REPO, "build*")):
        cli = os.path.join(build, "sdk", "modelexport")
        plugin = glob.glob(os.path.join(build, "plugins-out", "libmodelexport_torchscript*"))
        if os.path.exists(cli) and plugin:
            found.append((os.path.getmtime(plugin[0]), cli, os.path.join(build, "plugins-out")))
    if found:
        _, cli, plugins = max(found)
        return cli, os.environ.get("MODELEXPORT_PLUGIN_PATH", plugins)
    return None, None


def first_error(text):
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    for l in lines:
        if "error" in l.lower() or "unsupported" in l.lower():
            return l
    return lines[-1] if lines else "no output"


def compare(sess, fx, name, suffix):
    import numpy as np
    inputs = dict(np.load(os.path.join(fx, f"{name}.inputs{suffix}.npz")))
    ref = np.load(os.path.join(fx, f"{name}.outputs{suffix}.npz"))
    outs = sess.run(None, inputs)
    if len(outs) != len(ref.files):
        raise AssertionError(f"{len(outs)} outputs, LibTorch has {len(ref.files)}")
    worst = 0.0
    for i, got in enumerate(outs):
        want = ref[f"o{i}"]
        if got.shape != want.shape:
            raise AssertionError(f"shape{suffix or '1'} output {i}: {got.shape} vs LibTorch {want.shape}")
        if want.dtype == bool or np.issubdtype(want.dtype, np.integer):
            bad = int((got != want).sum())
            if bad:
                raise AssertionError(f"shape{suffix or '1'} output {i}: {bad} integer elements differ")
            continue
        g64, w64 = got.astype(np.float64), want.astype(np.float64)
        if not np.array_equal(np.isfinite(g64), np.isfinite(w64)):
            raise AssertionError(f"shape{suffix or '1'} output {i}: inf/nan pattern differs")
        fin = np.isfinite(w64)
        diff = np.where(fin, np.abs(g64 - w64), 0.0)
        rel = diff / np.maximum(1.0, np.abs(np.where(fin, w64, 0.0)))
        worst = max(worst, float(diff.max()) if diff.size else 0.0)
        if rel.size and rel.max() > TOL:
            raise ParityError(f"shape{suffix or '1'} output {i}: max abs diff {diff.max():.3g} "
                              f"(relative {rel.max():.3g}) > {TOL}")
    return worst


class ParityError(AssertionError):
    pass


ARBITER_FACTOR = 2.0


def float64_arbiter(sess, fx, name, entry, suffixes):
    """A parity miss is float32 noise, not an export error, when ONNX Runtime is
    as close to the float64 truth as LibTorch's own float32 run is: the eager
    model is rebuilt exactly as the fixture step built it (seed 0), run in
    float64 on the same inputs, and for every floating output
    err(ORT) <= max(TOL, ARBITER_FACTOR * err(LibTorch)), with
    err(y) = max |y - y64| / max(1, |y64|). Deep float32 networks (inception_v3,
    resnet101) miss 1e-4 against LibTorch while LibTorch itself misses its
    float64 result by as much. Returns (max abs diff vs LibTorch, note) or None
    (the miss stands)."""
    import numpy as np
    try:
        import torch
        import make_zoo
        torch.manual_seed(0)
        model = entry.build().eval().double()
    except Exception:
        return None
    worst, worst_ort, worst_lt = 0.0, 0.0, 0.0
    for sfx in suffixes:
        inputs = dict(np.load(os.path.join(fx, f"{name}.inputs{sfx}.npz")))
        ref = np.load(os.path.join(fx, f"{name}.outputs{sfx}.npz"))
        args = [torch.from_numpy(v).double() if np.issubdtype(v.dtype, np.floating) else torch.from_numpy(v)
                for v in inputs.values()]
        try:
            with torch.no_grad():
                outs64 = [t.numpy() for t in make_zoo.flatten(model(*args))]
        except Exception:
            return None
        outs = sess.run(None, inputs)
        if len(outs64) != len(outs):
            return None
        for i, got in enumerate(outs):
            want = ref[f"o{i}"]
            if not np.issubdtype(want.dtype, np.floating):
                continue
            y64 = outs64[i].astype(np.float64)
            if y64.shape != want.shape:
                return None
            scale = np.maximum(1.0, np.abs(y64))
            e_ort = float((np.abs(got - y64) / scale).max())
            e_lt = float((np.abs(want - y64) / scale).max())
            if e_ort > max(TOL, ARBITER_FACTOR * e_lt):
                return None
            worst = max(worst, float(np.abs(got.astype(np.float64) - want).max()))
            worst_ort, worst_lt = max(worst_ort, e_ort), max(worst_lt, e_lt)
    return worst, (f"float64 arbiter: ONNX Runtime {worst_ort:.2g} from float64, "
                   f"LibTorch float32 {worst_lt:.2g}")


def run_model(name, entry, fx, cli, plugin_dir, outdir, timeout):
    row = {"model": name, "family": entry.family, "params": None, "nodes": None, "export_s": None,
           "diff": None, "evidence": None, "at_root": None, "status": "FAIL", "error": ""}
    if entry.skip:
        row.update(status="SKIP", error=entry.skip)
        return row
    meta_path = os.path.join(fx, f"{name}.meta.json")
    if not os.path.exists(meta_path):
        row["error"] = "fixture: not generated"
        return row
    meta = json.load(open(meta_path))
    row["params"] = meta.get("params")
    if meta.get("error"):
        row["error"] = meta["error"]
        return row
    out = os.path.join(outdir, f"{name}.onnx")
    cmd = [cli, "export", os.path.join(fx, f"{name}.pt"), "-o", out]
    for s in meta["inputs"]:
        cmd += ["--input", s]
    env = dict(os.environ)
    if plugin_dir:
        env["MODELEXPORT_PLUGIN_PATH"] = plugin_dir
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        row["error"] = f"export: timeout after {timeout}s"
        return row
    row["export_s"] = round(time.time() - t0, 2)
    if p.returncode != 0:
        row["error"] = "export: " + first_error(p.stdout + p.stderr)
        return row
    try:
        import onnx
        import onnxruntime as ort
        model = onnx.load(out, load_external_data=False)
        node_names = [n.name for n in model.graph.node]
        row["nodes"] = len(node_names)
        hier = json.load(open(os.path.splitext(out)[0] + ".hierarchy.json"))
        recs = {}
        for r in hier["nodes"]:
            if r["name"] in recs:
                raise AssertionError(f"hierarchy: node {r['name']} recorded twice")
            recs[r["name"]] = r
        missing = [n for n in node_names if n not in recs]
        if missing or len(set(node_names)) != len(node_names):
            raise AssertionError(f"hierarchy: {len(missing)} nodes without a record (first {missing[:1]})")
        paths = {m["path"] for m in hier["modules"]}
        stray = [n for n in node_names if recs[n]["module"] not in paths]
        if stray:
            raise AssertionError(f"hierarchy: node {stray[0]} names module "
                                 f"'{recs[stray[0]]['module']}' absent from the module tree")
        ev = {"direct": 0, "propagated": 0, "root": 0}
        at_root = 0
        for n in node_names:
            k = recs[n]["evidence"]
            ev[k] = ev.get(k, 0) + 1
            at_root += recs[n]["module"] == ""
        total = max(1, len(node_names))
        row["evidence"] = "/".join(f"{100.0 * ev[k] / total:.1f}" for k in ("direct", "propagated", "root"))
        row["at_root"] = f"{100.0 * at_root / total:.1f}"
        row["root_share"] = ev["root"] / total
        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        sess = ort.InferenceSession(out, so, providers=["CPUExecutionProvider"])
        dynamic = any(isinstance(x, str) for (_, _, dims, *_r) in entry.inputs for x in dims)
        suffixes = ["", "2"] if dynamic else [""]
        try:
            d = max(compare(sess, fx, name, sfx) for sfx in suffixes)
            row["diff"] = d
        except ParityError as e:
            verdict = float64_arbiter(sess, fx, name, entry, suffixes)
            if verdict is None:
                raise
            row["diff"], note = verdict
            row["note"] = f"{e}; {note}"
        if row["root_share"] > ROOT_MAX:
            row["status"] = "ROOT"
            row["error"] = f"root evidence {100 * row['root_share']:.1f}% > {100 * ROOT_MAX:.0f}%"
        else:
            row["status"] = "PASS"
            if row.get("note"):
                row["error"] = row["note"]
    except AssertionError as e:
        row["error"] = str(e)
        row["diff"] = None
    except Exception as e:
        row["error"] = f"onnxruntime: {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
    finally:
        if outdir.startswith(tempfile.gettempdir()):
            for f in glob.glob(os.path.join(outdir, f"{name}.*")):
                os.remove(f)
    return row


def fmt_params(n):
    if n is None:
        return "-"
    return f"{n / 1e6:.1f}M" if n >= 1e5 else f"{n / 1e3:.0f}k"


COLS = ["model", "params", "nodes", "export s", "max abs diff", "evidence d/p/r %", "at root %", "status"]


def cells(r):
    st = r["status"] + (f": {r['error']}" if r["error"] else "")
    return [r["model"], fmt_params(r["params"]), "-" if r["nodes"] is None else str(r["nodes"]),
            "-" if r["export_s"] is None else f"{r['export_s']:.1f}",
            "-" if r["diff"] is None else f"{r['diff']:.2e}", r["evidence"] or "-",
            r.get("at_root") or "-", st]


def summary(rows):
    n = len(rows)
    c = {k: sum(1 for r in rows if r["status"] == k) for k in ("PASS", "ROOT", "FAIL", "SKIP", "NOT RUN")}
    return (f"zoo: {c['PASS']}/{n} pass; {c['ROOT']} pass parity and tagging with root share > 1%; "
            f"{c['FAIL']} fail; {c['SKIP']} skipped; {c['NOT RUN']} not run")


def main():
    import zoo_models
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--subset")
    g.add_argument("--all", action="store_true")
    g.add_argument("--only")
    ap.add_argument("--family", help="with --all: only this family (hf-encoder, torchvision, ...)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--markdown")
    ap.add_argument("--keep")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--budget", type=float, default=0,
                    help="minutes; models not started within the budget are reported NOT RUN")
    ap.add_argument("--fixtures", default=os.environ.get(
        "MODELEXPORT_ZOO_FIXTURES", os.path.join(REPO, "tests", "fixtures", "generated", "zoo")))
    a = ap.parse_args()
    models = zoo_models.MODELS
    if a.only:
        names = a.only.split(",")
        for n in names:
            if n not in models:
                ap.error(f"unknown model '{n}' (see --list)")
    elif a.subset:
        names = [n for n, e in models.items() if a.subset in e.subset]
        if not names:
            ap.error(f"unknown subset '{a.subset}'")
    elif a.all:
        names = list(models)
    else:
        ap.error("one of --subset NAME, --all, --only NAMES (or --list)")
    if a.family:
        names = [n for n in names if models[n].family == a.family]
    if a.list:
        for n in names:
            print(n, models[n].family, "SKIP: " + models[n].skip if models[n].skip else "")
        return 0
    cli, plugin_dir = find_cli()
    if not cli:
        print("no modelexport CLI found: set MODELEXPORT_CLI (and MODELEXPORT_PLUGIN_PATH) or build it",
              file=sys.stderr)
        return 2
    print(f"exporter: {cli} (plugins: {plugin_dir})", flush=True)
    import make_zoo

    def stale(n):
        p = os.path.join(a.fixtures, f"{n}.meta.json")
        if not os.path.exists(p):
            return True
        with open(p) as f:
            return json.load(f).get("stamp") != make_zoo.stamp(n)
    outdir = a.keep or tempfile.mkdtemp(prefix="mxzoo-")
    os.makedirs(outdir, exist_ok=True)
    rows = []
    widths = [28, 7, 6, 8, 12, 16, 9]
    print("  ".join(c.ljust(w) for c, w in zip(COLS, widths + [0])), flush=True)
    t_start = time.time()
    for n in names:
        if a.budget and time.time() - t_start > 60 * a.budget:
            r = {"model": n, "family": models[n].family, "params": None, "nodes": None, "export_s": None,
                 "diff": None, "evidence": None, "at_root": None, "status": "NOT RUN", "error": f"time budget ({a.budget:g} min)"}
            rows.append(r)
            print("  ".join(c.ljust(w) for c, w in zip(cells(r), widths + [0])), flush=True)
            continue
        if not models[n].skip and stale(n):  # fixture step, one process per model (memory is returned)
            subprocess.run([sys.executable, os.path.join(HERE, "make_zoo.py"), a.fixtures, n],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r = run_model(n, models[n], a.fixtures, cli, plugin_dir, outdir, a.timeout)
        rows.append(r)
        print("  ".join(c.ljust(w) for c, w in zip(cells(r), widths + [0])), flush=True)
    if not a.keep:  # the per-model files went after each model; the directory is ours too
        shutil.rmtree(outdir, ignore_errors=True)
    line = summary(rows)
    print(line)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("| " + " | ".join(COLS) + " |\n|" + "---|" * len(COLS) + "\n")
            for r in rows:
                f.write("| " + " | ".join(c.replace("|", "\\|") for c in cells(r)) + " |\n")
            f.write(f"\n{line}\n")
    return 1 if any(r["status"] == "FAIL" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
