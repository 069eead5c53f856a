"""BatchNormalization after Conv (small_cnn): folded into the Conv by
default (fewer nodes, the sidecar names what was folded), kept as nodes with
their parameters under --no-fold-batch-norms; both files agree with eager
PyTorch at two shapes."""
import json
import os

import onnx
import onnxruntime as ort

from test_pt2_export import _compare


def _export(cli, fixtures_dir, tmp_path, extra):
    out = str(tmp_path / "small_cnn.onnx")
    rc, log, sidecar = cli.export(os.path.join(fixtures_dir, "small_cnn.pt2"), out, extra)
    assert rc == 0, log
    with open(sidecar) as f:
        return onnx.load(out), json.load(f), out


def _ops(model):
    return [n.op_type for n in model.graph.node]


def test_folded_by_default(cli, fixtures_dir, tmp_path):
    model, hier, path = _export(cli, fixtures_dir, tmp_path, ())
    assert "BatchNormalization" not in _ops(model)
    folded = hier["graph_passes"]["folded_batch_norms"]
    assert folded["stem.0.weight"]["module"] == "stem.1"
    assert folded["stem.0.weight"]["parameters"][2] == "stem.1.running_mean"
    inits = {t.name for t in model.graph.initializer}
    assert "stem.0.weight" in inits and "stem.1.running_mean" not in inits
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    assert _compare(sess, fixtures_dir, "small_cnn", "") <= 1e-4
    assert _compare(sess, fixtures_dir, "small_cnn", "2") <= 1e-4


def test_kept_with_the_option_off(cli, fixtures_dir, tmp_path):
    model, hier, path = _export(cli, fixtures_dir, tmp_path, ("--no-fold-batch-norms",))
    assert _ops(model).count("BatchNormalization") == 7
    assert hier["graph_passes"]["folded_batch_norms"] == {}
    assert "stem.1.running_mean" in {t.name for t in model.graph.initializer}
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    assert _compare(sess, fixtures_dir, "small_cnn", "") <= 1e-4
    assert _compare(sess, fixtures_dir, "small_cnn", "2") <= 1e-4
