#!/usr/bin/env python3
"""ONNX Runtime session creation of two files, each in fresh processes, in turn.

lean_graphs.py measures the zoo; this is the narrower A/B it cannot do well
for multi-GB files: one untimed creation of each file first (so both data
files start in the page cache), then N rounds, the order flipped every round,
each creation in a new process (CPU provider, 2 threads). Per creation it
prints wall time, process CPU time (user + system), user and system time
apart, and minor / major page faults; then the medians and the ratios A / B.
User time is where two files' kernels really differ (MLAS packing the same
weights costs the same); system time is page faults mapping external data
and swings with the machine's memory state.

    /work/venvs/pt2/bin/python benchmarks/session_creation_ab.py OURS.onnx ANCHOR.onnx --rounds 8
"""
import argparse
import statistics
import subprocess
import sys

CHILD = r'''
import resource, sys, time
import onnxruntime as ort
so = ort.SessionOptions()
so.intra_op_num_threads = 2
t0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
session = ort.InferenceSession(sys.argv[1], so, providers=["CPUExecutionProvider"])
t1, r1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
user, system = r1.ru_utime - r0.ru_utime, r1.ru_stime - r0.ru_stime
print(t1 - t0, user + system, user, system, r1.ru_minflt - r0.ru_minflt, r1.ru_majflt - r0.ru_majflt)
'''
FIELDS = ("wall", "cpu", "user", "system", "minflt", "majflt")


def create(path):
    out = subprocess.run([sys.executable, "-c", CHILD, path], check=True, capture_output=True, text=True)
    return dict(zip(FIELDS, map(float, out.stdout.split())))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=8)
    args = ap.parse_args()
    files = {"A": args.a, "B": args.b}
    for path in files.values():
        create(path)
    runs = {k: [] for k in files}
    for i in range(args.rounds):
        for k in (("A", "B") if i % 2 == 0 else ("B", "A")):
            runs[k].append(create(files[k]))
            print(i, k, " ".join(f"{f} {runs[k][-1][f]:.3f}" for f in FIELDS), flush=True)
    med = {k: {f: statistics.median(r[f] for r in runs[k]) for f in FIELDS} for k in files}
    for k in files:
        print(k, files[k], " ".join(f"{f} {med[k][f]:.3f}" for f in FIELDS))
    print("A / B:", " ".join(f"{f} {med['A'][f] / med['B'][f]:.2f}x" for f in ("wall", "cpu", "user", "system")))


if __name__ == "__main__":
    main()
