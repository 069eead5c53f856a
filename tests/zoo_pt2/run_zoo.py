#!/usr/bin/env python3
"""The torch.export (.pt2) zoo: current PyTorch models exported by
`torch.export`, saved as .pt2 at both IR levels, exported by
`modelexport export`, and checked with ONNX Runtime against eager PyTorch at
two input shapes.

Runs in the throwaway venv with torch 2.15 from PyPI (not an SDK dependency):

    /work/venvs/pt2/bin/python tests/zoo_pt2/run_zoo.py                 # all models, both levels
    /work/venvs/pt2/bin/python tests/zoo_pt2/run_zoo.py --only resnet18,bert --levels core
    options: --list, --markdown FILE, --json FILE, --keep DIR (keep .pt2/.onnx),
             --reuse (with --keep: export the kept .pt2 files again, no torch.export),
             --from-json A.json,B.json (no run: the table of earlier runs' rows),
             --timeout SECONDS (per export, default 900), --dynamo-share
             (core level: also export with torch.onnx.export(dynamo=True) and report
             the share of nodes whose module equals the dynamo exporter's name_scopes)

The CLI is MODELEXPORT_BIN (default `modelexport` on PATH; also
MODELEXPORT_CLI, or <repo>/build*/sdk/modelexport); plugins from
MODELEXPORT_PLUGIN_PATH.

Per model (tests/zoo_pt2/pt2_models.py: 17 torchvision classifiers, 9 tiny
Hugging Face transformers, random weights):
 1. torch.export.export with dynamic batch (and sequence), falling back to
    fewer dynamic dims when torch.export refuses; saved as NAME.pt2 and, after
    run_decompositions(), NAME.core.pt2 (keeping scaled_dot_product_attention
    when torch 2.15's default decompositions fail, as for GPT-2; noted);
 2. eager outputs at the export shape and at a second shape (another size on
    every dynamic axis that was accepted);
 3. `modelexport export NAME[.core].pt2 -o NAME.LEVEL.onnx`;
 4. ONNX Runtime on both input sets: max |a-b| / max(1, |b|) <= 1e-4 for floats,
    integers exact; a float miss is re-judged by a float64 arbiter (ORT must be
    within 2x of eager float32's own distance to a float64 eager run);
 5. node count and evidence mix from the hierarchy sidecar / node metadata.
Exit code 0 when every attempted export passes.
"""
import argparse
import collections
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
sys.path.insert(0, os.path.join(REPO, "tests", "support"))
from cli_path import find_cli  # noqa: E402

TOL = 1e-4
ARBITER_FACTOR = 2.0
LEVELS = {"training": "{}.pt2", "core": "{}.core.pt2"}


def max_rel(got, want):
    import numpy as np
    g, w = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if g.size == 0:
        return 0.0
    return float(np.max(np.abs(g - w) / np.maximum(1.0, np.abs(w))))


def compare(outs, refs):
    """(max rel error over float outputs, problem or None)."""
    import numpy as np
    if len(outs) != len(refs):
        return None, f"{len(outs)} outputs vs {len(refs)}"
    worst = 0.0
    for i, (o, r) in enumerate(zip(outs, refs)):
        if o.shape != r.shape:
            return None, f"output {i}: shape {o.shape} vs {r.shape}"
        if r.dtype.kind in "biu":
            if not np.array_equal(o, r):
                return None, f"output {i}: integers differ"
            continue
        worst = max(worst, max_rel(o, r))
    return worst, None


def feed_for(sess, inputs):
    names = [i.name for i in sess.get_inputs()]
    if set(names) <= set(inputs):
        return {n: inputs[n] for n in names}
    return dict(zip(names, inputs.values()))  # fall back to order


def arbiter(case, sess, np_inputs, refs):
    """float64 re-judgement of a float miss: ORT vs float64 eager, compared with
    eager float32 vs float64 eager. Returns (ok, note)."""
    import numpy as np
    import torch
    import pt2_models
    try:
        model = case.build().double()
    except Exception as e:  # noqa: BLE001
        return False, f"arbiter: {e}"
    worst_ort, worst_pt = 0.0, 0.0
    for inputs, ref in zip(np_inputs, refs):
        args = {k: torch.from_numpy(v).double() if v.dtype.kind == "f" else torch.from_numpy(v)
                for k, v in inputs.items()}
        with torch.no_grad():
            outs64 = [t.numpy() for t in pt2_models.flatten_outputs(model(**args))]
        outs = sess.run(None, feed_for(sess, inputs))
        for o, r, t in zip(outs, ref, outs64):
            if r.dtype.kind != "f":
                continue
            worst_ort = max(worst_ort, max_rel(o, t))
            worst_pt = max(worst_pt, max_rel(r, t))
    ok = worst_ort <= max(TOL, ARBITER_FACTOR * worst_pt)
    return ok, f"float64 arbiter: ORT {worst_ort:.2g} from float64, eager float32 {worst_pt:.2g}"


def records(model, sidecar):
    """(node count, evidence Counter, share at root) from the sidecar or node metadata."""
    ev = collections.Counter()
    at_root = 0
    if os.path.exists(sidecar):
        with open(sidecar) as f:
            hier = json.load(f)
        ev.update({k: v for k, v in hier.get("statistics", {}).get("evidence", {}).items() if v})
        at_root = hier.get("statistics", {}).get("at_root", 0)
    else:
        for n in model.graph.node:
            props = {p.key: p.value for p in n.metadata_props}
            ev[props.get("modelexport.evidence", "none")] += 1
            at_root += props.get("modelexport.module") == ""
    return len(model.graph.node), ev, at_root


def evidence_mix(ev, total):
    if not total:
        return ""
    # counts, not only shares: "root 3" must stay visible next to "direct 1200"
    return ", ".join(f"{k} {v} ({100.0 * v / total:.1f}%)" for k, v in sorted(ev.items(), key=lambda kv: -kv[1]))


SOURCE_KEYS = ("modelexport.fx_node", "modelexport.source_node", "modelexport.source", "pkg.torch.onnx.fx_node")


def dynamo_share(pt2_path, onnx_model, sidecar=None):
    """Share of our nodes (that name their FX node) whose module equals the
    module torch.onnx.export(dynamo=True) puts that FX node's ONNX nodes on."""
    import ast
    import torch
    import pt2_models
    ep = pt2_models.load(pt2_path)
    prog = torch.onnx.export(ep, (), dynamo=True, verbose=False)
    theirs = {}
    for n in prog.model_proto.graph.node:
        props = {p.key: p.value for p in n.metadata_props}
        if "pkg.torch.onnx.name_scopes" in props:
            scopes = ast.literal_eval(props["pkg.torch.onnx.name_scopes"])
            if len(scopes) >= 2:
                # torch.onnx names torch.export's placeholder stack as a module
                mod = scopes[-2]
                theirs[scopes[-1]] = "" if mod == "_empty_nn_module_stack_from_metadata_hook" else mod
            elif scopes:
                theirs[scopes[-1]] = ""
    source_of = {}  # the sidecar's records name each node's FX node (source_node)
    if sidecar and os.path.exists(sidecar):
        with open(sidecar) as f:
            source_of = {r["name"]: r.get("source_node") for r in json.load(f).get("nodes", [])}
    same = total = 0
    for n in onnx_model.graph.node:
        props = {p.key: p.value for p in n.metadata_props}
        src = source_of.get(n.name) or next((props[k] for k in SOURCE_KEYS if k in props), None)
        if src in theirs:
            total += 1
            same += props.get("modelexport.module") == theirs[src]
    return (same / total if total else None), total


def save_levels(ep, case, workdir, levels):
    """Saves the program at each IR level: ({level: path}, {level: note or error})."""
    import torch
    import pt2_models
    paths, decomp = {}, {}
    for lvl in levels:
        paths[lvl] = os.path.join(workdir, LEVELS[lvl].format(case.name))
        prog = ep
        if lvl == "core":
            try:
                prog, how, _ = pt2_models.decompose(ep)
            except Exception as e:  # noqa: BLE001
                decomp[lvl] = f"run_decompositions: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
                continue
            if how != "default":
                decomp[lvl] = f"core with {how} (default decompositions fail)"
        torch.export.save(prog, paths[lvl])
    return paths, decomp


def run_case(case, cli, workdir, levels, timeout, want_dynamo, reuse=False):
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    import pt2_models

    rows = []
    base = {"model": case.name, "family": case.family}
    t0 = time.perf_counter()
    try:
        model = case.build()
    except Exception as e:  # noqa: BLE001
        return [dict(base, level=lvl, status="FAIL", error=f"build: {type(e).__name__}: {e}"[:300])
                for lvl in levels]
    info_path = os.path.join(workdir, f"{case.name}.export.json")
    if reuse and os.path.exists(info_path):
        # the archives of an earlier --keep run: only modelexport and ORT run again
        with open(info_path) as f:
            saved = json.load(f)
        dynamic, decomp, export_s = saved["dynamic"], saved["decomp"], saved["torch_export_s"]
        paths = {lvl: os.path.join(workdir, LEVELS[lvl].format(case.name)) for lvl in levels}
        ep = None
    else:
        ep, info = pt2_models.export(case, model)
        if ep is None:
            err = info["attempts"][-1]["error"] if info["attempts"] else "?"
            return [dict(base, level=lvl, status="FAIL", error=f"torch.export: {err.splitlines()[0][:300]}")
                    for lvl in levels]
        dynamic = info["dynamic"]
        paths, decomp = save_levels(ep, case, workdir, levels)
        export_s = time.perf_counter() - t0
        with open(info_path, "w") as f:
            json.dump({"dynamic": dynamic, "decomp": decomp, "torch_export_s": export_s}, f)

    # eager references; the second shape only when a dim is dynamic
    shapes = [0, 1] if dynamic else [0]
    np_inputs, refs = [], []
    with torch.no_grad():
        for i in shapes:
            inp = case.inputs(i)
            if i == 1:
                # dims that torch.export refused stay at the export size
                ex = case.inputs(0)
                for name, axes in case.dynamic.items():
                    for axis, d in axes.items():
                        if d not in dynamic and inp[name].shape[axis] != ex[name].shape[axis]:
                            inp = None
                            break
                    if inp is None:
                        break
                if inp is None:
                    continue
            np_inputs.append({k: v.numpy() for k, v in inp.items()})
            refs.append([t.numpy() for t in pt2_models.flatten_outputs(model(**inp))])
    del model, ep
    pt2_models.free()

    for lvl in levels:
        row = dict(base, level=lvl, dynamic=",".join(dynamic) or "-", torch_export_s=round(export_s, 1),
                   status="FAIL", error="")
        rows.append(row)
        if lvl in decomp:
            row["note"] = decomp[lvl]
        if not os.path.exists(paths[lvl]):
            row["error"] = decomp.get(lvl, "no program")
            continue
        row["pt2_mb"] = round(os.path.getsize(paths[lvl]) / 1e6, 2)
        out = os.path.join(workdir, f"{case.name}.{lvl}.onnx")
        sidecar = os.path.splitext(out)[0] + ".hierarchy.json"
        if not cli:
            row.update(status="SKIP", error="no modelexport CLI")
            continue
        t1 = time.perf_counter()
        try:
            p = subprocess.run([cli, "export", paths[lvl], "-o", out], capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            row["error"] = f"modelexport: timeout after {timeout}s"
            continue
        row["mx_s"] = round(time.perf_counter() - t1, 2)
        if p.returncode != 0 or not os.path.exists(out):
            lines = [l.strip() for l in (p.stderr + p.stdout).strip().splitlines() if l.strip()]
            # the error line (an "...Error: ..." or "error: ..." line), else the last lines
            errs = [l for l in lines if "error" in l.lower() and ":" in l]
            row["error"] = "modelexport: " + ((errs[-1] if errs else " | ".join(lines[-3:])) if lines
                                              else f"rc={p.returncode}")[:400]
            continue
        row["export_ok"] = True
        try:
            onnx_model = onnx.load(out)
            row["nodes"], ev, at_root = records(onnx_model, sidecar)
            row["evidence"] = evidence_mix(ev, row["nodes"])
            row["at_root"] = at_root
            sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
            errs, problem = [], None
            for inputs, ref in zip(np_inputs, refs):
                e, problem = compare(sess.run(None, feed_for(sess, inputs)), ref)
                if problem:
                    break
                errs.append(e)
            row["err1"] = errs[0] if errs else None
            row["err2"] = errs[1] if len(errs) > 1 else None
            if problem:
                row["error"] = problem
                continue
            if max(errs) > TOL:
                ok, note = arbiter(case, sess, np_inputs, refs)
                row["note"] = "; ".join(x for x in (row.get("note"), note) if x)
                if not ok:
                    row["error"] = f"max rel err {max(errs):.3g} > {TOL}"
                    continue
            if want_dynamo and lvl == "core":
                # torch.onnx decomposes again: only at the core level are its FX
                # node names those of the archive
                try:
                    share, n = dynamo_share(paths[lvl], onnx_model, sidecar)
                    row["dynamo_share"] = share
                    row["dynamo_compared"] = n
                except Exception as e:  # noqa: BLE001
                    row["dynamo_share"] = f"dynamo failed: {type(e).__name__}: {str(e)[:120]}"
            row["status"] = "PASS"
        except Exception as e:  # noqa: BLE001
            row["error"] = f"{type(e).__name__}: {str(e)[:300]}"
    return rows


def fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.2g}"
    return str(v)


def markdown(rows, want_dynamo):
    cols = ["model", "level", "status", "dynamic", "err1", "err2", "nodes", "evidence", "mx_s", "pt2_mb"]
    if want_dynamo:
        cols.append("dynamo_share")
    cols.append("error")
    head = {"level": "IR", "err1": "max rel err (shape 1)", "err2": "max rel err (shape 2)",
            "mx_s": "export s", "pt2_mb": ".pt2 MB", "dynamo_share": "same module as dynamo",
            "error": "error / note"}
    lines = ["| " + " | ".join(head.get(c, c) for c in cols) + " |",
             "|" + "---|" * len(cols)]
    for r in rows:
        vals = []
        for c in cols:
            v = r.get(c)
            if c == "dynamo_share" and isinstance(v, float):
                v = f"{100 * v:.1f}% of {r.get('dynamo_compared')}"
            if c == "error":
                v = " ".join(x for x in (r.get("error"), r.get("note")) if x)
            vals.append(fmt(v).replace("|", "\\|"))
        lines.append("| " + " | ".join(vals) + " |")
    n_pass = sum(r["status"] == "PASS" for r in rows)
    lines.append("")
    lines.append(f"{n_pass}/{len(rows)} exports pass.")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--levels", default="training,core")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--markdown", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--keep", default="")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--dynamo-share", action="store_true")
    ap.add_argument("--from-json", default="",
                    help="A.json,B.json: only print/write the table of earlier runs' --json rows")
    ap.add_argument("--reuse", action="store_true",
                    help="with --keep: take the .pt2 files of an earlier --keep run instead of exporting again")
    args = ap.parse_args()

    import pt2_models
    cases = pt2_models.all_cases()
    if args.only:
        want = args.only.split(",")
        cases = [pt2_models.case_by_name(n) for n in want]
    if args.from_json:
        # the table of earlier runs (e.g. the zoo run in parts), in zoo order
        rows = []
        for path in args.from_json.split(","):
            with open(path) as f:
                rows += json.load(f)
        order = {c.name: k for k, c in enumerate(cases)}
        latest = {}
        for r in rows:  # a later run of a model wins; its dynamo share, when it skipped
            key = (r["model"], r["level"])  # that part, is the earlier run's
            earlier = latest.get(key, {})
            latest[key] = dict(r)
            if "dynamo_share" not in r and "dynamo_share" in earlier:
                latest[key].update(dynamo_share=earlier["dynamo_share"],
                                   dynamo_compared=earlier.get("dynamo_compared"))
        rows = sorted(latest.values(), key=lambda r: (order.get(r["model"], len(order)),
                                                      list(LEVELS).index(r["level"])))
        table = markdown(rows, any("dynamo_share" in r for r in rows))
        print(table)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(table)
        return 0
    if args.list:
        for c in cases:
            print(f"{c.name:22s} {c.family:13s} dynamic: "
                  f"{sorted({d for a in c.dynamic.values() for d in a.values()})}")
        return 0
    levels = [l for l in args.levels.split(",") if l]
    found = find_cli()
    cli = found[0] if found else None
    print(f"modelexport: {cli or 'NOT FOUND (exports are SKIPped)'}", flush=True)
    workroot = args.keep or tempfile.mkdtemp(prefix="zoo_pt2_")
    os.makedirs(workroot, exist_ok=True)
    rows = []
    try:
        for case in cases:
            t0 = time.perf_counter()
            workdir = os.path.join(workroot, case.name)
            os.makedirs(workdir, exist_ok=True)
            got = run_case(case, cli, workdir, levels, args.timeout, args.dynamo_share,
                           reuse=args.reuse)
            rows += got
            for r in got:
                print(f"{r['model']:20s} {r['level']:8s} {r['status']:4s} err={fmt(r.get('err1'))}/"
                      f"{fmt(r.get('err2'))} nodes={fmt(r.get('nodes'))} {r.get('evidence') or ''} "
                      f"{r.get('error') or ''} {fmt(r.get('dynamo_share'))} ({time.perf_counter() - t0:.0f}s)", flush=True)
            if not args.keep:
                shutil.rmtree(workdir, ignore_errors=True)
            if args.json:  # after every model: an interrupted run keeps what it measured
                with open(args.json, "w") as f:
                    json.dump(rows, f, indent=1)
    finally:
        if not args.keep:
            shutil.rmtree(workroot, ignore_errors=True)
    table = markdown(rows, args.dynamo_share)
    print()
    print(table)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    attempted = [r for r in rows if r["status"] != "SKIP"]
    return 0 if all(r["status"] == "PASS" for r in attempted) else 1


if __name__ == "__main__":
    sys.exit(main())
