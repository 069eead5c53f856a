#!/usr/bin/env python3
"""Fixture step of the zoo: builds, traces and records zoo models.

    python tests/zoo/make_zoo.py OUTDIR NAME [NAME ...]

For each NAME (see zoo_models.py) OUTDIR receives
    NAME.pt              torch.jit.trace of the model (eval, no_grad, seed 0)
    NAME.inputs.npz      example inputs at the spec shape
    NAME.inputs2.npz     second inputs, every dynamic axis changed
    NAME.outputs.npz     outputs of torch.jit.load(NAME.pt) (flattened)
    NAME.outputs2.npz    ... on inputs2
    NAME.meta.json       {"inputs": [specs], "params": N, "stamp": ..., "error": null | "..."}
A model whose meta.json carries the current stamp (hash of this script, the
entry's inputs and the source/arguments of its build function) is not rebuilt. A failure to build or trace is recorded in
meta.json ("error") and does not stop the others.
"""
import hashlib
import inspect
import json
import os
import sys
import time
import traceback

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo_models  # noqa: E402


def describe(fn):
    """Source and bound arguments of a build function (closure cells)."""
    parts = [getattr(fn, "__qualname__", repr(fn))]
    try:
        parts.append(inspect.getsource(fn))
    except (OSError, TypeError):
        pass
    for c in fn.__closure__ or ():
        v = c.cell_contents
        parts.append(describe(v) if callable(v) else repr(v))
    return "|".join(parts)


def stamp(name):
    """Per model: this script, the entry's inputs and its build function."""
    e = zoo_models.MODELS[name]
    h = hashlib.sha256()
    with open(os.path.abspath(__file__), "rb") as fh:
        h.update(fh.read())
    h.update(repr(e.inputs).encode())
    h.update(describe(e.build).encode())
    return h.hexdigest()[:16]


def spec_str(name, dtype, dims, shape):
    parts = [f"{d}={s}" if isinstance(d, str) else str(s) for d, s in zip(dims, shape)]
    return f"{name}:{dtype}[{','.join(parts)}]"


def make_input(dtype, shape, high, g):
    if high == "mask":
        t = torch.ones(shape, dtype=torch.long)
        if shape[-1] > 3:
            t[-1, -3:] = 0  # padding at the end of the last sequence
        return t
    if dtype == "int64":
        return torch.randint(0, high, shape, generator=g, dtype=torch.long)
    return torch.randn(shape, generator=g)


def flatten(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        out = list(out.values())
    res = []
    for o in out:
        res.extend(flatten(o))
    return res


def first_line(msg):
    """First non-empty line (torch's errors often start with a newline)."""
    return next((l.strip() for l in msg.splitlines() if l.strip()), "")


def n_params(model):
    seen, n = set(), 0
    for p in list(model.parameters()):
        if id(p) not in seen:
            seen.add(id(p))
            n += p.numel()
    return n


def build_one(name, outdir, st):
    entry = zoo_models.MODELS[name]
    torch.manual_seed(0)
    model = entry.build().eval()
    g = torch.Generator().manual_seed(1)
    ex1 = [make_input(dt, s1, hi, g) for (_, dt, _, s1, _, hi) in entry.inputs]
    ex2 = [make_input(dt, s2, hi, g) for (_, dt, _, _, s2, hi) in entry.inputs]
    with torch.no_grad():
        traced = torch.jit.trace(model, tuple(ex1), check_trace=False)
    pt = os.path.join(outdir, f"{name}.pt")
    traced.save(pt)
    loaded = torch.jit.load(pt).eval()
    names = [n for (n, *_r) in entry.inputs]
    for suffix, ex in (("", ex1), ("2", ex2)):
        with torch.no_grad():
            outs = flatten(loaded(*ex))
        np.savez(os.path.join(outdir, f"{name}.inputs{suffix}.npz"), **{n: t.numpy() for n, t in zip(names, ex)})
        np.savez(os.path.join(outdir, f"{name}.outputs{suffix}.npz"),
                 **{f"o{i}": t.numpy() for i, t in enumerate(outs)})
    return {"inputs": [spec_str(n, dt, dims, s1) for (n, dt, dims, s1, _, _) in entry.inputs],
            "params": n_params(model), "stamp": st, "error": None}


def main(argv):
    outdir, names = argv[0], argv[1:]
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    for name in names:
        st = stamp(name)
        meta_path = os.path.join(outdir, f"{name}.meta.json")
        if os.path.exists(meta_path):
            with open(meta_path) as f:
                if json.load(f).get("stamp") == st:
                    continue
        t0 = time.time()
        print(f"[zoo fixtures] {name}", flush=True)
        try:
            meta = build_one(name, outdir, st)
        except Exception as e:  # recorded, reported by run_zoo.py
            tb = traceback.format_exc().strip().splitlines()
            meta = {"inputs": [], "params": 0, "stamp": st,
                    "error": f"fixture: {type(e).__name__}: {first_line(str(e))}",
                    "traceback": tb[-6:]}
        meta["trace_seconds"] = round(time.time() - t0, 2)
        tmp = meta_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(meta, f, indent=1)
        os.replace(tmp, meta_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
