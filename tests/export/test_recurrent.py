"""Recurrent layers (issue 15): nn.RNN (tanh, relu), nn.GRU and nn.LSTM,
one and two layers, uni- and bidirectional, batch_first both ways, with
initial states computed from the input and with PyTorch's zeros — the 64
submodules of make_fixtures.RecurrentGrid, exported once and compared with
LibTorch by ONNX Runtime at two sequence lengths (7 and 4; batch 2 and 3)."""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_fixtures import recurrent_variant_names  # noqa: E402

NAME = "ops_recurrent_grid"
VARIANTS = recurrent_variant_names()
ONNX_OP = {"rnn_tanh": "RNN", "rnn_relu": "RNN", "gru": "GRU", "lstm": "LSTM"}


def _output_labels():
    """Output index -> '<variant> <y|h|c>', in RecurrentGrid's output order."""
    labels = []
    for v in VARIANTS:
        labels += [f"{v} {o}" for o in ("y", "h", "c" if v.startswith("lstm") else None) if o]
    return labels


@pytest.fixture(scope="module")
def grid(exported, fixtures_dir):
    path, hier = exported(NAME)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return path, hier, sess


def _mismatches(sess, fixtures_dir, suffix):
    inputs = dict(np.load(os.path.join(fixtures_dir, f"{NAME}.inputs{suffix}.npz")))
    ref = np.load(os.path.join(fixtures_dir, f"{NAME}.outputs{suffix}.npz"))
    outs = sess.run(None, inputs)
    labels = _output_labels()
    assert len(outs) == len(ref.files) == len(labels)
    bad = []
    for i, (got, label) in enumerate(zip(outs, labels)):
        want = ref[f"o{i}"]
        if got.shape != want.shape:
            bad.append(f"{label}: shape {got.shape} vs {want.shape}")
            continue
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        if not np.all(diff <= 1e-4 * np.maximum(1.0, np.abs(want))):
            bad.append(f"{label}: max abs diff {diff.max():.3g}")
    return bad


@pytest.mark.parametrize("suffix", ["", "2"], ids=["seq7_batch2", "seq4_batch3"])
def test_recurrent_parity(grid, fixtures_dir, suffix):
    _, _, sess = grid
    bad = _mismatches(sess, fixtures_dir, suffix)
    assert not bad, f"{len(bad)} outputs differ from LibTorch:\n" + "\n".join(bad)


def test_recurrent_graph_is_valid(grid):
    path, _, _ = grid
    onnx.checker.check_model(onnx.load(path), full_check=True)


@pytest.mark.parametrize("variant", VARIANTS)
def test_recurrent_nodes(grid, variant):
    """One ONNX recurrent node per layer, in the variant's `rnn` module, with
    the direction and (RNN) activation of the PyTorch layer."""
    path, hier, _ = grid
    cell, layers, direction, _, _ = variant.rsplit("_", 4)
    module = f"variants.{variant}.rnn"
    in_module = {r["name"] for r in hier["nodes"] if r["module"] == module}
    nodes = [n for n in onnx.load(path, load_external_data=False).graph.node
             if n.name in in_module and n.op_type == ONNX_OP[cell]]
    assert len(nodes) == int(layers[1:]), [n.name for n in nodes]
    dirs = 2 if direction == "bi" else 1
    for n in nodes:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        assert attrs["direction"] == (b"bidirectional" if dirs == 2 else b"forward")
        assert attrs["hidden_size"] == 6
        if cell == "rnn_relu":
            assert attrs["activations"] == [b"Relu"] * dirs
        elif cell == "gru":
            assert attrs["linear_before_reset"] == 1


def test_recurrent_export_runs_no_layer(exporter, fixtures_dir, manifest, tmp_path, monkeypatch):
    """Issue 14: export does no model-sized compute. rnn_relu's inner relu
    has no meta kernel in LibTorch 1.13, so it used to run the whole layer
    on zero-filled stand-ins; a shape rule (shape_rules.cpp) now gives its
    outputs. No recurrent op of the 64 variants may appear in the walk's
    stand-in report."""
    report = tmp_path / "stand_ins.txt"
    monkeypatch.setenv("MXTS_SHOW_STAND_INS", str(report))
    rc, log, _ = exporter.run(os.path.join(fixtures_dir, f"{NAME}.pt"), str(tmp_path / "r.onnx"),
                              manifest[NAME]["inputs"])
    assert rc == 0, log
    lines = report.read_text().splitlines() if report.exists() else []
    recurrent = [l for l in lines if any(f"aten::{op}" in l for op in ONNX_OP)]
    assert not recurrent, "recurrent ops ran on stand-ins:\n" + "\n".join(recurrent)
