"""Export options of `modelexport export`: opsets 14..28 (14 to 26 run in ONNX
Runtime 1.31), where the hierarchy
is stored (--tag-storage), and --drop-builtin-tags. Each export is checked in
ONNX Runtime against LibTorch's outputs, not only for its metadata."""
import json
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest


def _cli(exporter):
    if exporter.kind != "cli":
        pytest.skip("export options are CLI flags")


def _export(exporter, fixtures_dir, manifest, tmp_path, name, extra):
    out = str(tmp_path / f"{name}.onnx")
    rc, log, hier = exporter.run(os.path.join(fixtures_dir, f"{name}.pt"), out,
                                 manifest[name]["inputs"], extra)
    assert rc == 0, log
    with open(hier) as f:
        return out, json.load(f)


def _max_diff(path, fixtures_dir, name, suffix=""):
    feeds = dict(np.load(os.path.join(fixtures_dir, f"{name}.inputs{suffix}.npz")))
    ref = np.load(os.path.join(fixtures_dir, f"{name}.outputs{suffix}.npz"))
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    worst = 0.0
    for i, got in enumerate(sess.run(None, feeds)):
        want = ref[f"o{i}"].astype(np.float64)
        diff = np.abs(got.astype(np.float64) - want)
        assert np.all(diff <= 1e-4 * np.maximum(1.0, np.abs(want))), f"{name}{suffix} output {i}"
        worst = max(worst, float(diff.max()) if diff.size else 0.0)
    return worst


@pytest.mark.parametrize("opset", [14, 17, 18, 20, 21, 23, 26])
@pytest.mark.parametrize("name", ["bert_tiny", "test_transformer"])
def test_opsets(name, opset, exporter, fixtures_dir, manifest, tmp_path):
    _cli(exporter)
    out, hier = _export(exporter, fixtures_dir, manifest, tmp_path, name, ["--opset", str(opset)])
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    assert {o.domain: o.version for o in model.opset_import}[""] == opset
    ops = {n.op_type for n in model.graph.node}
    # LayerNormalization exists from opset 17 only: below it, it is decomposed
    assert ("LayerNormalization" in ops) == (opset >= 17), sorted(ops)
    _max_diff(out, fixtures_dir, name)
    _max_diff(out, fixtures_dir, name, "2")
    assert hier["model"]["opset"] == opset


def test_default_opset(exporter, fixtures_dir, manifest, tmp_path):
    """Without --opset the export is opset 20 (IR 9), what torch.onnx writes."""
    _cli(exporter)
    out, hier = _export(exporter, fixtures_dir, manifest, tmp_path, "test_transformer", [])
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    assert {o.domain: o.version for o in model.opset_import}[""] == 20
    assert model.ir_version == 9
    assert hier["model"]["opset"] == 20
    _max_diff(out, fixtures_dir, "test_transformer")


@pytest.mark.parametrize("opset", [13, 29])
def test_opset_out_of_range(opset, exporter, fixtures_dir, manifest, tmp_path):
    _cli(exporter)
    out = str(tmp_path / "x.onnx")
    rc, log, _ = exporter.run(os.path.join(fixtures_dir, "test_transformer.pt"), out,
                              manifest["test_transformer"]["inputs"], ["--opset", str(opset)])
    assert rc != 0 and str(opset) in log and "14" in log and "28" in log, log
    assert not os.path.exists(out)


def _node_records(model):
    recs = {}
    for n in model.graph.node:
        props = {p.key: p.value for p in n.metadata_props}
        if "modelexport.module" in props:
            recs[n.name] = props
    return recs


def test_tag_storage_metadata_default(exporter, fixtures_dir, manifest, tmp_path):
    _cli(exporter)
    out, hier = _export(exporter, fixtures_dir, manifest, tmp_path, "test_transformer", [])
    model = onnx.load(out)
    recs = _node_records(model)
    assert set(recs) == {n.name for n in model.graph.node}
    by_name = {r["name"]: r for r in hier["nodes"]}
    for name, props in recs.items():
        assert props["modelexport.module"] == by_name[name]["module"]
        assert props["modelexport.evidence"] == by_name[name]["evidence"]


def test_tag_storage_doc_string(exporter, fixtures_dir, manifest, tmp_path):
    _cli(exporter)
    out, hier = _export(exporter, fixtures_dir, manifest, tmp_path, "test_transformer",
                        ["--tag-storage", "doc_string"])
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    assert not _node_records(model)
    q = [n for n in model.graph.node if n.name == "/layers.0/attention/query/MatMul"]
    assert q and "layers.0.attention.query" in q[0].doc_string, [n.name for n in model.graph.node][:20]
    _max_diff(out, fixtures_dir, "test_transformer")


def test_tag_storage_none_keeps_sidecar(exporter, fixtures_dir, manifest, tmp_path):
    _cli(exporter)
    out, hier = _export(exporter, fixtures_dir, manifest, tmp_path, "test_transformer",
                        ["--tag-storage", "none"])
    model = onnx.load(out)
    assert not _node_records(model)
    assert not any(n.doc_string for n in model.graph.node)
    assert len(hier["nodes"]) == len(model.graph.node)


def test_drop_builtin_tags(exporter, fixtures_dir, manifest, tmp_path):
    _cli(exporter)
    _, hier = _export(exporter, fixtures_dir, manifest, tmp_path, "bert_tiny", ["--drop-builtin-tags"])
    q = [r for r in hier["nodes"] if r["module"] == "encoder.layer.0.attention.self.query"]
    assert q and {r["tag"] for r in q} == \
        {"/BertModel/BertEncoder/BertLayer.0/BertAttention/BertSelfAttention"}, {r["tag"] for r in q}
