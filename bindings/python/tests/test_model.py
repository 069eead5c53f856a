"""Model: load, save, graph view, node records, hierarchy, check, lifetime."""
from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

import modelexport as mx

NODES = ["/encoder/layer.0/linear/MatMul", "/encoder/layer.0/act/Relu", "/head/Add"]


def hierarchy_document() -> dict:
    return {
        "schema": "modelexport.hierarchy/1",
        "modules": [
            {"path": "", "class": "Net", "parent": None, "children": ["encoder", "head"]},
            {"path": "encoder", "class": "Encoder", "parent": "", "children": ["encoder.layer.0"]},
            {"path": "encoder.layer.0", "class": "Layer", "parent": "encoder", "children": []},
            {"path": "head", "class": "Linear", "parent": "", "children": []},
        ],
        "nodes": [
            {"name": NODES[0], "module": "encoder.layer.0", "evidence": "direct"},
            {"name": NODES[1], "module": "encoder.layer.0", "evidence": "propagated"},
            {"name": NODES[2], "module": "head", "evidence": "scope"},
        ],
    }


def test_load_file_and_graph(model: mx.Model) -> None:
    graph = model.graph()
    assert [n["name"] for n in graph["nodes"]] == NODES
    assert [n["op_type"] for n in graph["nodes"]] == ["MatMul", "Relu", "Add"]
    assert graph["opset_import"][""] == 17
    assert {i["name"] for i in graph["initializers"]} == {"encoder.layer.0.linear.weight", "head.bias"}
    assert [i["name"] for i in graph["inputs"]] == ["x"]
    assert model.node_count == len(model) == 3
    assert model.node(1)["op_type"] == "Relu"
    assert model.node(-1)["name"] == "/head/Add"


def test_node_out_of_range(model: mx.Model) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        model.node(3)
    assert info.value.code in (mx.ErrorCode.INVALID_ARGUMENT, mx.ErrorCode.NOT_FOUND)


def test_load_bytes_and_save_bytes_round_trip(scoped_onnx: Path) -> None:
    with mx.Model.load_bytes(scoped_onnx.read_bytes()) as m:
        data = m.save_bytes()
        assert data[:1]  # a serialized ModelProto
    with mx.Model.load_bytes(data) as again:
        assert [n["name"] for n in again.graph()["nodes"]] == NODES


def test_missing_file_is_io_error(tmp_path: Path) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        mx.Model.load_file(tmp_path / "missing.onnx")
    assert info.value.code is mx.ErrorCode.IO
    assert info.value.message  # the SDK's own message


def test_garbage_is_parse_error() -> None:
    with pytest.raises(mx.ModelExportError) as info:
        mx.Model.load_bytes(b"\xff\xfe definitely not onnx")
    assert info.value.code is mx.ErrorCode.PARSE


def test_check_passes(model: mx.Model) -> None:
    model.check()


def test_no_hierarchy_initially(model: mx.Model) -> None:
    assert model.has_hierarchy is False
    with pytest.raises(mx.ModelExportError) as info:
        model.node_record(NODES[0])
    assert info.value.code is mx.ErrorCode.NOT_FOUND


def test_set_and_get_node_record(model: mx.Model) -> None:
    model.set_node_record(NODES[2], {"module": "head", "evidence": "scope"})
    record = model.node_record(NODES[2])
    assert record["module"] == "head" and record["evidence"] == "scope"
    assert model.has_hierarchy


def test_set_node_record_unknown_node(model: mx.Model) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        model.set_node_record("/no/such/node", {"module": "", "evidence": "root"})
    assert info.value.code is mx.ErrorCode.NOT_FOUND


def test_set_hierarchy_and_read_back(model: mx.Model) -> None:
    model.set_hierarchy(hierarchy_document())
    doc = model.hierarchy()
    assert doc["schema"] == "modelexport.hierarchy/1"
    assert {m["path"] for m in doc["modules"]} >= {"", "encoder", "encoder.layer.0", "head"}
    records = {n["name"]: n for n in doc["nodes"]}
    assert records[NODES[0]]["module"] == "encoder.layer.0"
    assert records[NODES[0]]["evidence"] == "direct"
    # tags are derived from the module tree
    assert model.node_record(NODES[0])["tag"].startswith("/Net/")
    evidence = doc["statistics"]["evidence"]
    assert evidence["direct"] == 1 and evidence["propagated"] == 1 and evidence["scope"] == 1


def test_set_hierarchy_accepts_json_text(model: mx.Model) -> None:
    model.set_hierarchy(json.dumps(hierarchy_document()))
    assert model.node_record(NODES[1])["evidence"] == "propagated"


def test_set_hierarchy_rejects_other_schema(model: mx.Model) -> None:
    bad = dict(hierarchy_document(), schema="modelexport.hierarchy/2")
    with pytest.raises(mx.ModelExportError) as info:
        model.set_hierarchy(bad)
    assert info.value.code is mx.ErrorCode.SCHEMA


def test_set_hierarchy_rejects_malformed_json(model: mx.Model) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        model.set_hierarchy("{not json")
    assert info.value.code in (mx.ErrorCode.PARSE, mx.ErrorCode.SCHEMA)


def test_save_file_with_sidecar_and_reload(model: mx.Model, tmp_path: Path) -> None:
    model.set_hierarchy(hierarchy_document())
    out = tmp_path / "tagged.onnx"
    model.save_file(out)
    assert out.exists()
    sidecars = list(tmp_path.glob("tagged*.hierarchy.json"))
    assert sidecars, "save_file writes the hierarchy sidecar by default"
    with mx.Model.load_file(out) as again:
        assert again.has_hierarchy
        assert again.node_record(NODES[2])["module"] == "head"


@pytest.mark.parametrize("storage", ["metadata", "doc_string", "none"])
def test_tag_storage_options(model: mx.Model, tmp_path: Path, storage: str) -> None:
    model.set_hierarchy(hierarchy_document())
    out = tmp_path / f"{storage}.onnx"
    model.save_file(out, tag_storage=storage, sidecar=False)
    with mx.Model.load_file(out) as again:
        if storage == "none":
            with pytest.raises(mx.ModelExportError):
                again.node_record(NODES[0])
        else:
            assert again.node_record(NODES[0])["module"] == "encoder.layer.0"


def test_onnx_reads_node_metadata(model: mx.Model, tmp_path: Path) -> None:
    """Records stored as node metadata_props are visible to a current onnx."""
    import onnx

    model.set_hierarchy(hierarchy_document())
    out = tmp_path / "meta.onnx"
    model.save_file(out, tag_storage="metadata", sidecar=False)
    proto = onnx.load(str(out))
    props = {p.key: p.value for p in proto.graph.node[0].metadata_props}
    assert props["modelexport.module"] == "encoder.layer.0"
    assert props["modelexport.evidence"] == "direct"


def test_unknown_save_option_is_invalid_argument(model: mx.Model, tmp_path: Path) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        model.save_file(tmp_path / "x.onnx", options={"no_such_option": 1})
    assert info.value.code is mx.ErrorCode.INVALID_ARGUMENT
    assert not (tmp_path / "x.onnx").exists()


def test_context_manager_and_close(scoped_onnx: Path) -> None:
    with mx.Model.load_file(scoped_onnx) as m:
        assert not m.closed
    assert m.closed
    m.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        m.graph()
    assert "closed" in repr(m)


def test_garbage_collection_releases(scoped_onnx: Path) -> None:
    for _ in range(50):
        mx.Model.load_file(scoped_onnx)  # released by __del__
    gc.collect()


def test_missing_file_is_also_file_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "missing.onnx"
    with pytest.raises(FileNotFoundError) as info:
        mx.Model.load_file(missing)
    error = info.value
    assert isinstance(error, mx.ModelExportError) and isinstance(error, mx.ModelFileNotFoundError)
    assert error.code is mx.ErrorCode.IO and error.filename == str(missing)
    assert "missing.onnx" in str(error)
    with pytest.raises(FileNotFoundError):
        mx.validate_file(missing)


def test_unreadable_existing_path_is_not_file_not_found(tmp_path: Path) -> None:
    """A directory exists: the SDK's error stays a plain ModelExportError."""
    with pytest.raises(mx.ModelExportError) as info:
        mx.Model.load_file(tmp_path)
    assert not isinstance(info.value, FileNotFoundError)
