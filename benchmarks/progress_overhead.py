#!/usr/bin/env python3
"""What listening to progress costs: the same export (a committed .pt2
fixture through the torch_export frontend, no LibTorch) and save, with no
listener (the baseline) and with a Python callback that counts reports,
alternated in one run so both see the same machine. Prints the median of
each and the ratio; not a test (timings are not asserted anywhere).

    MODELEXPORT_LIBRARY=build/sdk/libmodelexport.so \\
    MODELEXPORT_PLUGIN_PATH=build/plugins-out PYTHONPATH=bindings/python/src \\
    .venv/bin/python benchmarks/progress_overhead.py [--model bert_tiny] [--runs 7]
"""
import argparse
import pathlib
import statistics
import tempfile
import time

import modelexport as mx

REPO = pathlib.Path(__file__).resolve().parents[1]


def once(registry, source, out, progress):
    start = time.perf_counter()
    with registry.export(source, progress=progress) as model:
        model.save_file(out, progress=progress)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="bert_tiny", help="fixture name under tests/fixtures/pt2")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    source = REPO / "tests" / "fixtures" / "pt2" / f"{args.model}.pt2"
    reports = []
    times = {"no listener": [], "listener": []}
    with mx.Registry() as registry, tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "m.onnx"
        once(registry, source, out, None)  # warm-up: page cache, plugin code
        for _ in range(args.runs):
            times["no listener"].append(once(registry, source, out, None))
            times["listener"].append(once(registry, source, out, reports.append))
    base = statistics.median(times["no listener"])
    listening = statistics.median(times["listener"])
    print(f"{args.model}: {args.runs} runs each, export + save")
    print(f"  no listener  median {base * 1000:8.1f} ms")
    print(f"  listener     median {listening * 1000:8.1f} ms  ({len(reports) / args.runs:.0f} reports a run)")
    print(f"  ratio listener / no listener: {listening / base:.3f}")


if __name__ == "__main__":
    main()
