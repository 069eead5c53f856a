#!/usr/bin/env python3
"""Files from today's exporters (torch.onnx, dynamo: IR 10, opset 18-20)
through every command that checks them: tag, validate, functions, extract
and compare must accept them, and what they write must pass onnx's own
checker (full_check) and run in ONNX Runtime with the source's numbers.
A file newer than the SDK's ONNX library (IR 15, opset 29) is reported as
"checker not run" with both versions by validate (exit 0, never INVALID);
tag --check warns with the same words and tags it.

Usage: cli_todays_files.py MODELEXPORT_EXE PLUGIN_DIR FIXTURE_DIR OUT_DIR
"""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

FIXTURES = ["tiny_mlp", "small_cnn", "mini_transformer"]


def run(exe, env, *args, ok=True):
    p = subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=120)
    if ok and p.returncode != 0:
        raise AssertionError(f"modelexport {' '.join(args)} failed ({p.returncode}):\n{p.stdout}{p.stderr}")
    return p


def feeds(model):
    rng = np.random.default_rng(0)
    out = {}
    for i in model.graph.input:
        t = i.type.tensor_type
        shape = [d.dim_value if d.dim_value > 0 else 2 for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        out[i.name] = (rng.integers(0, 8, shape) if np.issubdtype(dtype, np.integer)
                       else rng.standard_normal(shape)).astype(dtype)
    return out


def same_numbers(a, b):
    ma = onnx.load(a)
    x = feeds(ma)
    ra = ort.InferenceSession(a, providers=["CPUExecutionProvider"]).run(None, x)
    rb = ort.InferenceSession(b, providers=["CPUExecutionProvider"]).run(None, x)
    for u, v in zip(ra, rb):
        assert np.allclose(u, v, rtol=1e-5, atol=1e-6), f"{b} computes other numbers than {a}"


def first_module(sidecar):
    doc = json.loads(pathlib.Path(sidecar).read_text())
    paths = [m["path"] for m in doc["modules"] if m["path"]]
    return paths[0]


def main(exe, plugin_dir, fixture_dir, out_dir):
    fixture_dir, out = pathlib.Path(fixture_dir), pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, MODELEXPORT_PLUGIN_PATH=plugin_dir)
    for name in FIXTURES:
        src = fixture_dir / f"{name}.onnx"
        m = onnx.load(str(src))
        print(f"{name}: IR {m.ir_version}, opset {m.opset_import[0].version}")
        tagged = out / f"{name}.tagged.onnx"
        run(exe, env, "tag", str(src), "-o", str(tagged), "--strategy", "metadata")
        onnx.checker.check_model(onnx.load(str(tagged)), full_check=True)
        same_numbers(str(src), str(tagged))
        v = run(exe, env, "validate", str(tagged))
        assert "checker ok" in v.stdout and "valid: 0 issue(s)" in v.stdout, v.stdout
        fn = out / f"{name}.functions.onnx"
        run(exe, env, "functions", str(tagged), "-o", str(fn), "--quiet")
        onnx.checker.check_model(onnx.load(str(fn)), full_check=True)
        same_numbers(str(src), str(fn))
        module = first_module(out / f"{name}.tagged.hierarchy.json")
        part = out / f"{name}.part.onnx"
        run(exe, env, "extract", str(tagged), "--module", module, "-o", str(part))
        onnx.checker.check_model(onnx.load(str(part)), full_check=True)
        c = run(exe, env, "compare", str(tagged), str(tagged))
        assert "0 different" in c.stdout, c.stdout
        print(f"  tag, validate, functions, extract ({module}), compare: ok")

    newer = onnx.load(str(fixture_dir / "tiny_mlp.onnx"))
    newer.ir_version = 15
    for o in newer.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = 29
    path = out / "newer.onnx"
    path.write_bytes(newer.SerializeToString())
    v = run(exe, env, "validate", str(path), ok=False)
    # (untagged: its nodes have no records, which validate lists; the checker is no issue)
    assert "checker not run" in v.stdout and "[checker]" not in v.stdout, v.stdout + v.stderr
    assert "IR version 15" in v.stdout and "opset 29" in v.stdout and "1.23" in v.stdout, v.stdout
    tagged = out / "newer.tagged.onnx"
    t = run(exe, env, "tag", str(path), "-o", str(tagged), "--check")
    assert "warning" in t.stderr and "IR version 15" in t.stderr and "INVALID" not in t.stderr, t.stderr
    assert tagged.exists()
    print("newer than the library: validate says 'checker not run', tag --check warns naming both versions")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
