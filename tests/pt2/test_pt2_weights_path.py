"""Where an export's weights end up (docs/plugin-protocol.md, "Weights by
reference"): the torch_export frontend hands the host references into the
.pt2 archive, and the host copies the bytes once, into the output. Whatever
the route, the output must stand on its own: the default export is one
self-contained file, `--external-data` puts the weights in OUT.onnx.data,
and neither ever refers to the archive it came from.
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conftest import LEVELS

NAME = "bert_tiny"  # weights of several KB each, dynamic batch and sequence


def _external_locations(model):
    return {e.value for t in model.graph.initializer
            if t.data_location == onnx.TensorProto.EXTERNAL
            for e in t.external_data if e.key == "location"}


def _run(path, fixtures_dir):
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    inputs = dict(np.load(os.path.join(fixtures_dir, f"{NAME}.inputs.npz")))
    return sess.run(None, {i.name: inputs[i.name] for i in sess.get_inputs()})


@pytest.mark.parametrize("level", list(LEVELS))
def test_default_export_is_self_contained(level, cli, fixtures_dir, tmp_path):
    out = str(tmp_path / "m.onnx")
    rc, log, _ = cli.export(os.path.join(fixtures_dir, LEVELS[level].format(NAME)), out)
    assert rc == 0, log
    model = onnx.load(out, load_external_data=False)
    assert not _external_locations(model), "the default export must carry its weights inline"
    assert not os.path.exists(out + ".data")
    big = [t for t in model.graph.initializer if len(t.raw_data) >= 1024]
    assert big, "the fixture should have initializers of 1 KiB and more (the by-reference path)"


@pytest.mark.parametrize("level", list(LEVELS))
def test_external_data_export_owns_its_data(level, cli, fixtures_dir, tmp_path):
    pt2 = os.path.join(fixtures_dir, LEVELS[level].format(NAME))
    inline, external = str(tmp_path / "inline.onnx"), str(tmp_path / "ext.onnx")
    for out, extra in ((inline, ()), (external, ("--external-data",))):
        rc, log, _ = cli.export(pt2, out, extra)
        assert rc == 0, log
    model = onnx.load(external, load_external_data=False)
    assert _external_locations(model) == {"ext.onnx.data"}, \
        "weights of 1 KiB and more go to OUT.onnx.data, never to a reference into the .pt2"
    # Both files give the same numbers (and ext.onnx reads its data file).
    for a, b in zip(_run(inline, fixtures_dir), _run(external, fixtures_dir)):
        assert np.array_equal(a, b)
