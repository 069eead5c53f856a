"""Issue 7 on native exports: modules as shared ONNX local functions.

The flat file comes from our own exporter (the `exported` fixture); the
functions pass (`modelexport functions`) must give a model that passes the
full checker, computes the same outputs as the flat file in ONNX Runtime
(<= 1e-5 relative), shares one body between the repeated layers and keeps hierarchy
records inside the function bodies."""
import collections
import os
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest

# model -> (a class whose instances repeat, how many instances it has)
MODELS = {
    "bert_tiny": ("BertLayer", 2),
    "gpt2_tiny": ("GPTBlock", 2),
    "vit_b_16": ("EncoderBlock", 12),
    "test_transformer": ("TransformerBlock", 2),
}


def _run_functions(exporter, src, dst, extra=()):
    if exporter.kind != "cli":
        pytest.skip("the functions pass needs the modelexport CLI")
    env = dict(os.environ)
    if exporter.plugin_dir:
        env["MODELEXPORT_PLUGIN_PATH"] = exporter.plugin_dir
    p = subprocess.run([exporter.path, "functions", src, "-o", dst, *extra],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout + p.stderr


def _outputs(path, feeds):
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_functions_match_flat(name, exported, exporter, fixtures_dir, tmp_path):
    flat, hier = exported(name)
    out = str(tmp_path / f"{name}.functions.onnx")
    _run_functions(exporter, flat, out)

    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    assert model.functions, f"{name}: no function was created"

    # same numbers as the flat export
    feeds = dict(np.load(os.path.join(fixtures_dir, f"{name}.inputs.npz")))
    want, got = _outputs(flat, feeds), _outputs(out, feeds)
    assert len(want) == len(got)
    for i, (a, b) in enumerate(zip(want, got)):
        assert a.shape == b.shape
        # relative to the output's scale: ONNX Runtime fuses the flat graph
        # and the function bodies differently (float32 sums in other orders)
        diff = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if a.size else 0.0
        scale = max(1.0, float(np.max(np.abs(a)))) if a.size else 1.0
        assert diff <= 1e-5 * scale, f"{name} output {i}: functions vs flat max diff {diff} (scale {scale:.3g})"

    # repeated layers share one body: calls outnumber definitions
    calls = collections.Counter()

    def count(nodes):
        for n in nodes:
            if n.domain == "modelexport.fn":
                calls[n.op_type] += 1

    count(model.graph.node)
    for f in model.functions:
        count(f.node)
    assert set(calls) <= {f.name for f in model.functions}
    assert sum(calls.values()) > len(model.functions), (name, dict(calls))
    cls, instances = MODELS[name]
    assert calls[cls] == instances, (name, dict(calls))

    # nodes inside bodies keep their (relative) hierarchy records
    for f in model.functions:
        for n in f.node:
            keys = {p.key for p in n.metadata_props}
            assert "modelexport.module" in keys and "modelexport.evidence" in keys, \
                f"{name}: node {n.name} of function {f.name} has no record"
    print(f"\nFUNCTIONS {name}: {len(model.functions)} functions, "
          f"{sum(calls.values())} calls, top-level nodes {len(model.graph.node)} "
          f"(flat {len(onnx.load(flat).graph.node)})")
