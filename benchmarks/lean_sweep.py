#!/usr/bin/env python3
"""Lean graphs (issue 33) on the sweeps' programs: node counts of ours against
`torch.onnx.export(ep, dynamo=True)`'s (the anchor) for every program of
pt2_coverage.py, pt2_coverage_wider.py and pt2_sweep.py (and, with --sweeps
10,11,12, of pt2_sweep10.py ... pt2_sweep12.py).

Each program goes through pt2_sweep.run() once (torch.export, saved as
exported and after run_decompositions(); `modelexport export` and the anchor
of each level; ONNX Runtime against eager PyTorch at two shapes; the module
record of every node). Then, per level, the node counts of both files (all,
Transpose, shape glue: lean_graphs.node_counts) and their ratio; for a
program where ours has more nodes than the anchor's, the op types that
differ, and (with --interleaved N) session creation and steady run of both
files in one process, in turn (lean_graphs.py's --interleave-child).

The work directory keeps every archive, both files, the inputs and eager
outputs (NAME.io.npz): run again with --reuse (no torch.export, no anchor:
only our export again, checked against the saved outputs) to measure a new
build against the same anchor files, and --before RESULTS.jsonl to print
the counts of an earlier run beside.

    MODELEXPORT_BIN=build/sdk/modelexport MODELEXPORT_PLUGIN_PATH=build/plugins-out \\
      /work/venvs/pt2/bin/python benchmarks/lean_sweep.py --workdir /work/bench/ls \\
      [--only a,b] [--sweeps 10,11,12] [--shard K/N] [--anchor-levels training,core] [--interleaved 10] \\
      [--reuse] [--before FILE.jsonl] [--markdown FILE]

Rows are appended to WORKDIR/results[-K].jsonl as they are measured.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "support"))
import lean_graphs as L  # noqa: E402
from cli_path import find_cli  # noqa: E402

LEVELS = ("training", "core")


def all_programs(sweeps=()):
    """The programs of the coverage runs and pt2_sweep.py, and of each
    pt2_sweepK.py for K in `sweeps` (their builders are pt2_sweep.run's)."""
    import importlib
    import pt2_coverage as C
    import pt2_coverage_wider as W
    import pt2_sweep as S
    progs = dict(C.programs())
    progs.update(W.programs())
    for f in (S.programs, S.programs2, S.programs3, S.programs4, S.programs5):
        progs.update(f())
    for k in sweeps:
        progs.update(importlib.import_module(f"pt2_sweep{k}").programs())
    return progs


def save_io(name, build, work):
    """Wraps `build` so that, once pt2_sweep.run() built and ran it, the
    inputs and eager outputs can be saved for --reuse runs."""
    held = {}

    def wrapped():
        held["built"] = build()
        return held["built"]

    def save():
        import numpy as np
        import torch
        import pt2_coverage as C
        if "built" not in held:
            return
        model, a, b, _ = held["built"]
        with torch.no_grad():
            ref_a, ref_b = C._flat(model(*a)), C._flat(model(*b))
        arrays = {}
        for key, xs in (("a", a), ("b", b)):
            for i, x in enumerate(xs):
                arrays[f"{key}{i}"] = x.numpy()
        for key, rs in (("ra", ref_a), ("rb", ref_b)):
            for i, r in enumerate(rs):
                arrays[f"{key}{i}"] = r.detach().float().numpy()
        np.savez(os.path.join(work, f"{name}.io.npz"), **arrays)
        np.savez(os.path.join(work, f"{name}.inputs.npz"), **{f"in{i}": x.numpy() for i, x in enumerate(a)})
    return wrapped, save


def parity(path, work, name):
    """(ok, how) of our file against the saved eager outputs, at both shapes."""
    import numpy as np
    import torch
    import pt2_coverage as C
    data = np.load(os.path.join(work, f"{name}.io.npz"))
    def seq(k):
        return [torch.from_numpy(data[f"{k}{i}"]) for i in range(sum(1 for x in data.files if x.rstrip("0123456789") == k))]
    a, b, ra, rb = seq("a"), seq("b"), seq("ra"), seq("rb")
    tol = 1e-2 if any(t.dtype == torch.float16 for t in a) else 1e-4
    return C._ort_matches(path, a, b, ra, rb, tol)


def unrecorded(path):
    import pt2_sweep as S
    return S._unrecorded(path)[0]


def export_ours(pt2, out):
    cli, plugins = find_cli()
    env = dict(os.environ)
    if plugins:
        env["MODELEXPORT_PLUGIN_PATH"] = plugins
    t0 = time.perf_counter()
    p = subprocess.run([cli, "export", pt2, "-o", out], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return False, (p.stderr.strip().splitlines() or ["?"])[-1][:160], None
    return True, "", time.perf_counter() - t0


def measure_program(name, build, work, args):
    row = {"model": name}
    if not args.reuse:
        import pt2_coverage as C
        import pt2_sweep as S
        C.ANCHOR_LEVELS = tuple(args.anchor_levels)
        wrapped, save = save_io(name, build, work)
        cells = S.run(name, wrapped, work, False)
        row["cells"] = {f"{k[0]}/{k[1]}": list(v) for k, v in cells.items()}
        try:
            save()
        except Exception as e:  # noqa: BLE001 - e.g. bfloat16 inputs numpy cannot hold: no --reuse parity
            row["io_error"] = str(e)[:120]
    for level in LEVELS:
        pt2 = os.path.join(work, f"{name}.{level}.pt2")
        ours = os.path.join(work, f"{name}.{level}.mx.onnx")
        anchor = os.path.join(work, f"{name}.{level}.dynamo.onnx")
        if not os.path.exists(pt2):
            continue
        if args.reuse:
            if os.path.exists(ours):
                os.remove(ours)
            ok, why, took = export_ours(pt2, ours)
            if not ok:
                row[f"{level}_error"] = why
                continue
            if os.path.exists(os.path.join(work, f"{name}.io.npz")):
                good, how = parity(ours, work, name)
                row.setdefault("cells", {})[f"mx/{level}"] = ["ok" if good else "mismatch", f"{how}, {took:.2f} s"]
        if not os.path.exists(ours):
            continue
        entry = {"mx": L.node_counts(ours, histogram=True), "unrecorded": unrecorded(ours)}
        if os.path.exists(anchor):
            entry["anchor"] = L.node_counts(anchor, histogram=True)
            m, a = entry["mx"], entry["anchor"]
            entry["ratio"] = m["nodes"] / a["nodes"] if a["nodes"] else None
            if m["nodes"] > a["nodes"]:
                ops = set(m["ops"]) | set(a["ops"])
                entry["excess"] = {o: m["ops"].get(o, 0) - a["ops"].get(o, 0) for o in sorted(ops)
                                   if m["ops"].get(o, 0) != a["ops"].get(o, 0)}
                inputs = os.path.join(work, f"{name}.inputs.npz")
                if args.interleaved and os.path.exists(inputs):
                    try:
                        both = L.run_json([sys.executable, L.__file__, "--interleave-child", str(args.interleaved),
                                           inputs, ours, anchor])
                        for key, path in (("mx", ours), ("anchor", anchor)):
                            entry[key]["create_s"] = both[path]["create_s"]
                            entry[key]["run_s"] = both[path]["run_s"]
                    except Exception as e:  # noqa: BLE001 - a file ORT cannot run: reported, the row stays
                        entry["timing_error"] = str(e)[-200:]
        row[level] = entry
    return row


def cell(entry, key="nodes"):
    if not entry:
        return "—"
    m, a = entry["mx"].get(key), entry.get("anchor", {}).get(key)
    return f"{m} / {'—' if a is None else a}"


def markdown(rows, before):
    lines = ["| program | level | nodes: ours / anchor | × | before | Transpose | shape glue | "
             "creation, run in one process: ours / anchor | more than the anchor |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for level in LEVELS:
            e = r.get(level)
            if not e:
                continue
            b = before.get(r["model"], {}).get(level)
            ratio = "—" if e.get("ratio") is None else f"{e['ratio']:.2f}"
            bn = "—" if not b else str(b["mx"]["nodes"])
            t = "—"
            if e["mx"].get("create_s") and e.get("anchor", {}).get("create_s"):
                t = (f"{e['mx']['create_s'] / e['anchor']['create_s']:.2f}×, "
                     f"{(e['mx']['run_s'] or 0) / (e['anchor']['run_s'] or 1):.2f}×")
            excess = ", ".join(f"{o} {d:+d}" for o, d in e.get("excess", {}).items())
            lines.append(f"| {r['model']} | {level} | {cell(e)} | {ratio} | {bn} | {cell(e, 'Transpose')} | "
                         f"{cell(e, 'glue')} | {t} | {excess} |")
    return "\n".join(lines)


def summary(rows):
    out = []
    for level in LEVELS:
        es = [(r["model"], r[level]) for r in rows if r.get(level) and r[level].get("ratio") is not None]
        over = sorted(((e["ratio"], n) for n, e in es if e["ratio"] > 1), reverse=True)
        bad = [r["model"] for r in rows if r.get("cells", {}).get(f"mx/{level}", ["ok"])[0] not in ("ok",)]
        out.append(f"{level}: {len(es)} programs with an anchor, {len(over)} over it"
                   + (f" (worst: {', '.join(f'{n} {x:.2f}×' for x, n in over[:8])})" if over else "")
                   + (f"; not ok: {', '.join(bad)}" if bad else ""))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--sweeps", default="", help="K,L: the programs of pt2_sweepK.py, ... too (10, 11, 12)")
    ap.add_argument("--shard", default="", help="K/N: every N-th program from the K-th (0-based)")
    ap.add_argument("--anchor-levels", default="training,core")
    ap.add_argument("--interleaved", type=int, default=0)
    ap.add_argument("--reuse", action="store_true", help="the archives and anchor files of an earlier run")
    ap.add_argument("--before", default="", help="an earlier run's results .jsonl (counts shown beside)")
    ap.add_argument("--markdown", default="")
    ap.add_argument("--from-jsonl", nargs="*", default=[], help="only print the table of these results")
    args = ap.parse_args()
    args.anchor_levels = [x for x in args.anchor_levels.split(",") if x]
    os.makedirs(args.workdir, exist_ok=True)
    before = {}
    for path in filter(None, args.before.split(",")):
        for line in open(path):
            r = json.loads(line)
            before[r["model"]] = r
    rows = []
    if args.from_jsonl:
        for path in args.from_jsonl:
            rows += [json.loads(line) for line in open(path)]
    else:
        only = set(filter(None, args.only.split(",")))
        if args.reuse:
            names = sorted({f.split(".")[0] for f in os.listdir(args.workdir) if f.endswith(".pt2")})
            progs = {n: None for n in names}
        else:
            progs = all_programs([k for k in args.sweeps.split(",") if k])
        names = [n for n in progs if not only or n in only]
        shard = ""
        if args.shard:
            k, n = map(int, args.shard.split("/"))
            names = names[k::n]
            shard = f"-{k}"
        out = os.path.join(args.workdir, f"results{shard}.jsonl")
        with open(out, "a") as f:
            for name in names:
                t0 = time.perf_counter()
                try:
                    row = measure_program(name, progs[name], args.workdir, args)
                except Exception as e:  # noqa: BLE001 - reported, the sweep goes on
                    row = {"model": name, "error": f"{type(e).__name__}: {str(e)[:200]}"}
                row["seconds"] = round(time.perf_counter() - t0, 1)
                rows.append(row)
                f.write(json.dumps(row) + "\n")
                f.flush()
                brief = {lv: f"{row[lv]['mx']['nodes']}/{row[lv].get('anchor', {}).get('nodes', '-')}"
                         for lv in LEVELS if lv in row}
                print(name, brief, row.get("error", ""), f"{row['seconds']} s", flush=True)
    text = markdown(rows, before)
    print(text)
    print(summary(rows))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n\n" + summary(rows) + "\n")


if __name__ == "__main__":
    main()
