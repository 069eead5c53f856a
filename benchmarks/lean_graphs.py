#!/usr/bin/env python3
"""Lean graphs (issue 33): our ONNX file against torch.onnx's of the same `.pt2`.

For each program: export it with modelexport (and, with --baseline-cli, with an
older build for a before/after), and with `torch.export.load` +
`torch.onnx.export(ep, dynamo=True)` (the anchor); then, each file in a fresh
process: node counts (all, Transpose, shape glue), ONNX Runtime session
creation (median of --repeat, CPU provider, 2 threads), the process's peak RSS
after it, and the steady-state run time (median of 20 runs) on the fixture's
inputs; the ratios ours / anchor; the wall time and peak RSS of each export
(the anchor's includes starting Python and importing torch).

    /work/venvs/pt2/bin/python benchmarks/lean_graphs.py                    # tests/fixtures/pt2 + programs
    /work/venvs/pt2/bin/python benchmarks/lean_graphs.py --models bert_tiny --skip-anchor
    options: --baseline-cli PATH [--baseline-plugins DIR], --markdown FILE, --workdir DIR (keeps the files),
             --reuse-anchor (with --workdir: re-measure the anchor files found there), --repeat N,
             --rounds N (each file in N fresh processes, ours and the anchor's in turn),
             --interleaved N (also, in one process: session creation of ours and the anchor's in
             turn N times, then 10 N steady runs in turn; medians, steadier than fresh processes
             under load)

The CLI is found as benchmarks/pt2_anchor.py finds it (MODELEXPORT_BIN, ...).
Runs in the venv with torch 2.15 + onnxruntime (not an SDK dependency).
"""
import argparse
import glob
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "support"))
sys.path.insert(0, os.path.join(REPO, "tests", "zoo_pt2"))  # pt2_models: the anchor child loads archives with it
from cli_path import find_cli  # noqa: E402

GLUE = ("Unsqueeze", "Concat", "Gather", "Shape", "Constant", "Reshape", "Cast", "Slice", "Expand")


def fixture_programs(names):
    found = {}
    for d in ("tests/fixtures/pt2", "tests/fixtures/programs"):
        for p in sorted(glob.glob(os.path.join(REPO, d, "*.pt2"))):
            name = os.path.basename(p)[:-4]
            if name.endswith(".core"):
                continue
            if not names or name in names:
                found[name] = p
    return found


# ------------------------------------------------------------------ children
def anchor_child(pt2, out):
    import torch
    import pt2_models
    ep = pt2_models.load(pt2)
    torch.onnx.export(ep, (), dynamo=True, verbose=False).save(out)


def node_counts(model, histogram=False):
    """Top-level node counts of an ONNX file: all, Transpose, shape glue (and
    each glue op); with `histogram`, every op type's count too."""
    import collections
    import onnx
    m = onnx.load(model, load_external_data=False)
    ops = [n.op_type for n in m.graph.node]
    counts = {"nodes": len(ops), "Transpose": ops.count("Transpose"),
              "glue": sum(ops.count(g) for g in GLUE),
              "by_op": {g: ops.count(g) for g in GLUE}}
    if histogram:
        counts["ops"] = dict(collections.Counter(ops))
    return counts


def ort_child(model, inputs, repeat):
    import onnxruntime as ort
    counts = node_counts(model)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    so.inter_op_num_threads = 1
    creations = []
    sess = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
        creations.append(time.perf_counter() - t0)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    run_s = None
    feed = feed_for(sess, inputs)
    if feed is not None:
        sess.run(None, feed)
        runs = []
        for _ in range(20):
            t0 = time.perf_counter()
            sess.run(None, feed)
            runs.append(time.perf_counter() - t0)
        run_s = statistics.median(runs)
    print(json.dumps(dict(counts, create_s=statistics.median(creations), rss_mb=rss_mb, run_s=run_s)))


def feed_for(sess, inputs):
    """The fixture's inputs by the session's input names (or in order)."""
    import numpy as np
    if not inputs or not os.path.exists(inputs):
        return None
    data = dict(np.load(inputs))
    names = [i.name for i in sess.get_inputs()]
    values = list(data.values())
    if all(n in data for n in names):
        return {n: data[n] for n in names}
    return dict(zip(names, values)) if len(values) == len(names) else None


def interleave_child(count, inputs, paths):
    """Session creation of each file, the files in turn `count` times in this
    one process (SessionOptions as ort_child's), then 10 x `count` steady runs
    of each, in turn; the median of each: load changes hit both files alike."""
    import onnxruntime as ort
    create = {p: [] for p in paths}
    sessions = {}
    for p in paths:  # untimed: the process's first session pays ORT's own start
        ort.InferenceSession(p, providers=["CPUExecutionProvider"])
    for _ in range(count):
        for p in paths:
            so = ort.SessionOptions()
            so.intra_op_num_threads = 2
            so.inter_op_num_threads = 1
            t0 = time.perf_counter()
            sessions[p] = ort.InferenceSession(p, so, providers=["CPUExecutionProvider"])
            create[p].append(time.perf_counter() - t0)
    feeds = {p: feed_for(sessions[p], inputs) for p in paths}
    run = {p: [] for p in paths}
    if all(f is not None for f in feeds.values()):
        for p in paths:
            sessions[p].run(None, feeds[p])
        for _ in range(10 * count):
            for p in paths:
                t0 = time.perf_counter()
                sessions[p].run(None, feeds[p])
                run[p].append(time.perf_counter() - t0)
    print(json.dumps({p: {"create_s": statistics.median(create[p]),
                          "run_s": statistics.median(run[p]) if run[p] else None} for p in paths}))


# ------------------------------------------------------------------ driver
def run_json(cmd, env=None, timeout=1800):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {(p.stderr or p.stdout).strip()[-800:]}")
    return json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {}


def measure(model, inputs, repeat):
    return run_json([sys.executable, __file__, "--ort-child", model, inputs or "", str(repeat)])


def measure_rounds(files, inputs, repeat, rounds):
    """Each file measured in `rounds` fresh processes, the files in turn
    (so load changes hit them alike); the timings are the medians over the
    rounds, the counts and RSS those of the first round."""
    seen = {k: [] for k in files}
    out = {}
    for _ in range(rounds):
        for key, path in files.items():
            try:
                seen[key].append(measure(path, inputs, repeat))
            except Exception as e:  # noqa: BLE001 - reported, the row stays
                out[f"{key}_error"] = str(e)[-300:]
    for key, runs in seen.items():
        if not runs:
            continue
        row = dict(runs[0])
        for t in ("create_s", "run_s"):
            values = [r[t] for r in runs if r.get(t) is not None]
            row[t] = statistics.median(values) if values else None
        out[key] = row
    return out


def run_measured(cmd, env=None):
    """Runs cmd; returns (wall seconds, the child's own peak RSS in MB)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {err.decode(errors='replace').strip()[-800:]}")
    return time.perf_counter() - t0, usage.ru_maxrss / 1024.0


def export_mx(cli, pt2, out, plugins=None):
    env = dict(os.environ)
    if plugins:
        env["MODELEXPORT_PLUGIN_PATH"] = plugins
    return run_measured([cli, "export", pt2, "-o", out], env)


def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def ratio(ours, anchor, key):
    """' (1.07×)': ours / anchor, measured in the same run; '' without both."""
    a, m = anchor.get(key), ours.get(key)
    return "" if not a or m is None else f" ({m / a:.2f}×)"


def markdown(rows):
    """The results table of the rows main() prints (one JSON object a line)."""
    lines = ["| program | nodes: before / ours / anchor | Transpose: before / ours / anchor | "
             "shape glue: before / ours / anchor | session creation ms: ours / anchor | "
             "in one process: creation ms, run ms: ours / anchor | "
             "session peak RSS MB: ours / anchor | run ms: ours / anchor | export s, MB: ours / anchor |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b, m, a = r.get("before", {}), r["mx"], r.get("anchor", {})
        ms = lambda d, k: None if d.get(k) is None else d[k] * 1e3  # noqa: E731
        lines.append(
            f"| {r['model']} | {b.get('nodes', '—')} / {m['nodes']} / {a.get('nodes', '—')}{ratio(m, a, 'nodes')} "
            f"| {b.get('Transpose', '—')} / {m['Transpose']} / {a.get('Transpose', '—')} "
            f"| {b.get('glue', '—')} / {m['glue']} / {a.get('glue', '—')}{ratio(m, a, 'glue')} "
            f"| {fmt(ms(m, 'create_s'), '.1f')} / {fmt(ms(a, 'create_s'), '.1f')}{ratio(m, a, 'create_s')} "
            f"| {fmt(ms(m, 'create_one_process_s'), '.2f')} / {fmt(ms(a, 'create_one_process_s'), '.2f')}"
            f"{ratio(m, a, 'create_one_process_s')}; "
            f"{fmt(ms(m, 'run_one_process_s'), '.3f')} / {fmt(ms(a, 'run_one_process_s'), '.3f')}"
            f"{ratio(m, a, 'run_one_process_s')} "
            f"| {fmt(m.get('rss_mb'), '.0f')} / {fmt(a.get('rss_mb'), '.0f')}{ratio(m, a, 'rss_mb')} "
            f"| {fmt(ms(m, 'run_s'), '.2f')} / {fmt(ms(a, 'run_s'), '.2f')}{ratio(m, a, 'run_s')} "
            f"| {fmt(r.get('mx_export_s'), '.1f')} s {fmt(r.get('mx_export_mb'), '.0f')} MB / "
            f"{fmt(r.get('anchor_export_s'), '.1f')} s {fmt(r.get('anchor_export_mb'), '.0f')} MB |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", nargs="*", default=[], help="fixture names (default: all)")
    ap.add_argument("--pt2", nargs="*", default=[],
                    help="more programs (e.g. make_decoder_pt2.py's); their inputs: NAME.inputs.npz beside them")
    ap.add_argument("--baseline-cli", help="an older modelexport build, for node counts before the passes")
    ap.add_argument("--baseline-plugins", help="its plugin directory (default: <its build>/plugins-out)")
    ap.add_argument("--skip-anchor", action="store_true")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure each file in this many fresh processes, ours and the anchor's in turn "
                         "(timings: the median over the rounds)")
    ap.add_argument("--interleaved", type=int, default=0,
                    help="also time session creation of ours and the anchor's in one process, in turn N times")
    ap.add_argument("--workdir")
    ap.add_argument("--reuse-anchor", action="store_true",
                    help="an anchor file already in --workdir is measured again, not exported again")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    found = find_cli()
    cli = found[0] if found else None
    work = args.workdir or tempfile.mkdtemp(prefix="lean_graphs_")
    os.makedirs(work, exist_ok=True)
    rows = []
    try:
        programs = {} if args.pt2 and not args.models else fixture_programs(args.models)
        programs.update({os.path.basename(p)[:-4]: p for p in args.pt2})
        for name, pt2 in programs.items():
            inputs = pt2[:-4] + ".inputs.npz"
            if not os.path.exists(inputs):  # tests/fixtures/programs: one .npz, inputs by name
                inputs = pt2[:-4] + ".npz"
            row = {"model": name}
            out = os.path.join(work, f"{name}.mx.onnx")
            row["mx_export_s"], row["mx_export_mb"] = export_mx(cli, pt2, out)
            files = {"mx": out}
            if args.baseline_cli:
                base = os.path.join(work, f"{name}.before.onnx")
                plugins = args.baseline_plugins or os.path.join(
                    os.path.dirname(os.path.dirname(os.path.abspath(args.baseline_cli))), "plugins-out")
                try:
                    export_mx(args.baseline_cli, pt2, base, plugins)
                    files["before"] = base
                except Exception as e:  # noqa: BLE001 - an older build may not read this program
                    row["before_error"] = str(e)[-300:]
            if not args.skip_anchor:
                anchor = os.path.join(work, f"{name}.anchor.onnx")
                try:
                    if not (args.reuse_anchor and os.path.exists(anchor)):
                        row["anchor_export_s"], row["anchor_export_mb"] = run_measured(
                            [sys.executable, __file__, "--anchor-child", pt2, anchor])
                    files["anchor"] = anchor
                except Exception as e:  # noqa: BLE001 - reported, the row stays
                    row["anchor_error"] = str(e)[-300:]
            row.update(measure_rounds(files, inputs, args.repeat, args.rounds))
            if args.interleaved and "mx" in row and "anchor" in row:
                both = run_json([sys.executable, __file__, "--interleave-child", str(args.interleaved),
                                 inputs, files["mx"], files["anchor"]])
                for key in ("mx", "anchor"):
                    row[key]["create_one_process_s"] = both[files[key]]["create_s"]
                    row[key]["run_one_process_s"] = both[files[key]]["run_s"]
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    text = markdown(rows)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--anchor-child":
        anchor_child(sys.argv[2], sys.argv[3])
    elif len(sys.argv) > 1 and sys.argv[1] == "--interleave-child":
        interleave_child(int(sys.argv[2]), sys.argv[3], sys.argv[4:])
    elif len(sys.argv) > 1 and sys.argv[1] == "--ort-child":
        ort_child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
