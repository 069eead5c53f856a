"""What the conformance tests share (no torch here): where the fixtures
are, running `modelexport export`, and checking an exported file in ONNX
Runtime against the eager outputs saved beside its sample. The CLI is the
`cli` fixture of conftest.py."""
import os
import subprocess

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
FIXTURES = os.environ.get("MODELEXPORT_OPS_FIXTURES", os.path.join(REPO, "tests", "fixtures", "ops"))


def run_export(cli, args, env=None):
    """`modelexport export ARGS` with the suite's plugins (and `env` added):
    its return code and the last 4000 characters of its output."""
    path, plugin_dir = cli
    full_env = dict(os.environ, **(env or {}))
    if plugin_dir:
        full_env["MODELEXPORT_PLUGIN_PATH"] = plugin_dir
    p = subprocess.run([path, "export", *args], capture_output=True, text=True, env=full_env, timeout=300)
    return p.returncode, (p.stdout + p.stderr)[-4000:]


def close(got, want, tol):
    """Whether `got` matches `want`: integers and bools exactly, floats to a
    relative `tol` with the same NaN and infinity positions."""
    if np.iscomplexobj(want):  # a complex output is exported as its view_as_real pairs
        want = np.stack([want.real, want.imag], -1)
    if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
        return got.shape == want.shape and np.array_equal(got, want), "exact"
    got = got.astype(np.float64)
    want = want.astype(np.float64)
    if got.shape != want.shape:
        return False, f"shape {got.shape} != {want.shape}"
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        return False, "NaN positions differ"
    ok = ~np.isnan(want)
    inf = np.isinf(want) & ok
    if not np.array_equal(got[inf], want[inf]):
        return False, "infinities differ"
    fin = ok & ~inf
    err = np.abs(got[fin] - want[fin]) / np.maximum(1.0, np.abs(want[fin])) if fin.any() else np.zeros(1)
    return float(err.max()) <= tol, f"max rel err {float(err.max()):.3g} (tol {tol})"


def random_ok(check, got, want):
    """Random outputs cannot match PyTorch's stream: judge their law."""
    if got.shape != want.shape:
        return False, f"shape {got.shape} != {want.shape}"
    if check == "uniform":
        return bool(((got >= 0) & (got < 1)).all() and np.unique(got).size > got.size // 2), "uniform in [0, 1)"
    if check == "normal":
        return bool(abs(got.mean()) < 0.5 and 0.6 < got.std() < 1.4), f"mean {got.mean():.2f} std {got.std():.2f}"
    if check == "permutation":
        return bool((np.sort(got) == np.arange(got.size)).all()), "a permutation of 0..n-1"
    return False, f"unknown check {check}"


def check_in_runtime(path, spec, data, label, tol=None, not_compared=(), disabled_optimizers=()):
    """Runs the exported file `path` in ONNX Runtime at the sample's export
    shape ("a") and, when it has one, its second shape ("b"), feeding the
    inputs saved in `data` and comparing each output with the eager one
    (`spec`: the manifest entry; `tol` overrides its tolerance; outputs
    numbered in `not_compared` are not compared). State the program writes
    follows the outputs as "<name>.updated" and is not compared here. Every
    node must carry a module record."""
    model = onnx.load(path)
    if disabled_optimizers:  # the file must be valid even if the runtime needs a workaround
        onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"],
                                disabled_optimizers=list(disabled_optimizers))
    feeds = [i.name for i in sess.get_inputs()]
    assert feeds == spec["inputs"], f"ONNX inputs {feeds} != program inputs {spec['inputs']}"
    names = [o.name for o in sess.get_outputs()]
    state = [n for n in names if n.endswith(".updated")]
    assert names[len(names) - len(state):] == state, f"state outputs not last: {names}"
    for tag in ("a", "b") if spec["second_shape"] else ("a",):
        outs = sess.run(None, {n: data[f"{tag}.{n}"] for n in feeds})
        outs = outs[:len(outs) - len(state)]
        assert len(outs) == spec["outputs"], f"{len(outs)} outputs, the program has {spec['outputs']}"
        for k, got in enumerate(outs):
            if k in not_compared:
                continue
            want = data[f"{tag}.o{k}"]
            check = spec.get("check", "values")
            if check == "values":
                ok, how = close(np.asarray(got), want, spec["tol"] if tol is None else tol)
            else:
                ok, how = random_ok(check, np.asarray(got), want)
            assert ok, f"{label} shape {tag} output {k}: {how}"
    unrecorded = [n.name for n in model.graph.node
                  if "modelexport.module" not in {p.key for p in n.metadata_props}]
    assert not unrecorded, f"nodes without a module record: {unrecorded[:5]}"
