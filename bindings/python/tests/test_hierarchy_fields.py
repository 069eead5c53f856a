"""Every field of the hierarchy schema round-trips through the SDK's one
reader and one writer and this binding: set from Python, read back, saved
to a sidecar, loaded again. A new field (docs/architecture.md, "Where a
change goes") is added to DOCUMENT below; if the reader drops it or the
writer loses it, this test fails."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import modelexport as mx

from conftest import make_scoped_onnx

# Every module field of docs/hierarchy-schema.md, a record with the optional
# record keys, and keys this version does not know (kept in `extra`).
DOCUMENT = {
    "schema": "modelexport.hierarchy/1",
    "producer": {"name": "binding-tests", "version": "1"},
    "model": {"root_class": "Net", "opset": 17},
    "modules": [
        {"path": "", "class": "Net", "qualified_class": "tests.Net", "parent": None,
         "children": ["encoder", "head"], "tag": "/Net", "parameters": 20, "own_parameters": 0,
         "executed": True, "execution_order": 0,
         "forward": [{"call": "encoder"}, {"call": "head", "method": "project"}, {"op": "aten::add"}]},
        {"path": "encoder", "class": "ModuleList", "qualified_class": "torch.nn.modules.container.ModuleList",
         "parent": "", "children": ["encoder.layer.0"], "tag": "/Net", "parameters": 16, "own_parameters": 0,
         "executed": False, "future_module_key": {"kept": [1, 2]}},
        {"path": "encoder.layer.0", "class": "Layer", "parent": "encoder", "children": [],
         "tag": "/Net/Layer.0", "parameters": 16, "own_parameters": 16, "executed": True,
         "execution_order": 1, "forward": []},
        {"path": "head", "class": "Head", "parent": "", "children": [], "tag": "/Net/Head",
         "parameters": 4, "own_parameters": 4, "executed": True, "execution_order": 2},
    ],
    "nodes": [
        {"name": "/encoder/layer.0/linear/MatMul", "module": "encoder.layer.0", "tag": "/Net/Layer.0",
         "evidence": "direct", "source_node": "linear", "call": 1},
        {"name": "/encoder/layer.0/act/Relu", "module": "encoder.layer.0", "tag": "/Net/Layer.0",
         "evidence": "propagated"},
        {"name": "/head/Add", "module": "head", "tag": "/Net/Head", "evidence": "scope"},
    ],
    "future_document_key": "kept",
}


def without_statistics(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    doc.pop("statistics", None)  # recomputed on every write
    for record in doc["nodes"]:
        record.pop("index", None)  # a record's position, added on attach
    return doc


def test_every_field_round_trips(tmp_path: Path) -> None:
    with mx.Model.load_file(make_scoped_onnx(tmp_path / "tiny.onnx")) as model:
        model.set_hierarchy(DOCUMENT)
        assert without_statistics(model.hierarchy()) == DOCUMENT
        assert model.hierarchy()["statistics"]["evidence"]["direct"] == 1
        model.save_file(tmp_path / "out.onnx")
    sidecar = json.loads((tmp_path / "out.hierarchy.json").read_text())
    assert without_statistics(sidecar) == DOCUMENT
    with mx.Model.load_file(tmp_path / "out.onnx") as again:
        assert without_statistics(again.hierarchy()) == DOCUMENT
        tree = again.module_tree()
        assert tree["head"].tag == "/Net/Head" and tree[""].class_name == "Net"


def test_record_extra_keys_survive_a_reload(tmp_path: Path) -> None:
    """Node metadata holds module, tag and evidence only: a record's other
    keys come back from the sidecar's record of the node."""
    with mx.Model.load_file(make_scoped_onnx(tmp_path / "tiny.onnx")) as model:
        model.set_hierarchy(DOCUMENT)
        model.save_file(tmp_path / "out.onnx")
    with mx.Model.load_file(tmp_path / "out.onnx") as again:
        record = again.hierarchy()["nodes"][0]
        assert (record.get("source_node"), record.get("call")) == ("linear", 1)
        again.save_file(tmp_path / "again.onnx", tag_storage="doc_string")
    with mx.Model.load_file(tmp_path / "again.onnx") as third:
        assert third.hierarchy()["nodes"][0].get("source_node") == "linear"


def test_record_extra_keys_follow_their_module(tmp_path: Path) -> None:
    """A sidecar record that places the node in another module than the
    node's own record is stale: its keys are not taken."""
    with mx.Model.load_file(make_scoped_onnx(tmp_path / "tiny.onnx")) as model:
        model.set_hierarchy(DOCUMENT)
        model.save_file(tmp_path / "out.onnx")
    sidecar = tmp_path / "out.hierarchy.json"
    doc = json.loads(sidecar.read_text())
    doc["nodes"][0]["module"] = "head"
    sidecar.write_text(json.dumps(doc))
    with mx.Model.load_file(tmp_path / "out.onnx") as again:
        record = again.hierarchy()["nodes"][0]
        assert record["module"] == "encoder.layer.0" and "source_node" not in record
