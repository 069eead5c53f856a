"""Modules as functions, extraction, module statistics, drawings, validation."""
from __future__ import annotations

import xml.dom.minidom
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import modelexport as mx


def stacked(blocks: int = 3) -> tuple[bytes, dict]:
    """x -> blocks.i: y = x + Relu(x @ W_i + b_i) -> y, with a hierarchy."""
    rng = np.random.default_rng(0)
    nodes, inits, records = [], [], []
    modules = [{"path": "", "class": "Net", "qualified_class": "__main__.Net", "parent": None,
                "children": [f"blocks.{i}" for i in range(blocks)]}]
    x = "x"
    for i in range(blocks):
        p, s = f"blocks.{i}", f"/blocks.{i}"
        inits += [numpy_helper.from_array(rng.standard_normal((4, 4)).astype(np.float32), f"{p}.fc.weight"),
                  numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), f"{p}.fc.bias")]
        nodes += [helper.make_node("MatMul", [x, f"{p}.fc.weight"], [f"{s}/m"], name=f"{s}/fc/MatMul"),
                  helper.make_node("Add", [f"{s}/m", f"{p}.fc.bias"], [f"{s}/a"], name=f"{s}/fc/Add"),
                  helper.make_node("Relu", [f"{s}/a"], [f"{s}/r"], name=f"{s}/Relu"),
                  helper.make_node("Add", [x, f"{s}/r"], [f"{s}/y"], name=f"{s}/Add")]
        records += [{"name": f"{s}/fc/MatMul", "module": f"{p}.fc", "evidence": "direct"},
                    {"name": f"{s}/fc/Add", "module": f"{p}.fc", "evidence": "direct"},
                    {"name": f"{s}/Relu", "module": p, "evidence": "direct"},
                    {"name": f"{s}/Add", "module": p, "evidence": "direct"}]
        modules += [{"path": p, "class": "Block", "qualified_class": "__main__.Block", "parent": "",
                     "children": [f"{p}.fc"]},
                    {"path": f"{p}.fc", "class": "Linear",
                     "qualified_class": "torch.nn.modules.linear.Linear", "parent": p, "children": []}]
        x = f"{s}/y"
    nodes.append(helper.make_node("Identity", [x], ["y"], name="/Identity"))
    records.append({"name": "/Identity", "module": "", "evidence": "root"})
    graph = helper.make_graph(nodes, "net",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return model.SerializeToString(), {"schema": "modelexport.hierarchy/1", "modules": modules,
                                       "nodes": records}


def run(data: bytes, feeds: dict) -> list:
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)


@pytest.fixture
def model():
    data, doc = stacked()
    m = mx.Model.load_bytes(data)
    m.set_hierarchy(doc)
    with m:
        yield m


def test_functions_share_one_definition_and_match_ort(model: mx.Model) -> None:
    flat = model.save_bytes()
    report = model.to_functions()
    assert report["functions"] == 1 and report["calls"] == 3
    assert report["definitions"][0]["instances"] == ["blocks.0", "blocks.1", "blocks.2"]
    fn = model.save_bytes()
    onnx.checker.check_model(onnx.load_from_string(fn), full_check=True)
    x = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)
    np.testing.assert_allclose(run(fn, {"x": x})[0], run(flat, {"x": x})[0], atol=1e-5)
    rows = {r["path"]: r for r in model.modules()["modules"]}
    assert rows["blocks.2"]["function"] == "Block"
    assert rows["blocks.2"]["total_nodes"] == 4


def test_functions_by_class_nests(model: mx.Model) -> None:
    report = model.to_functions(["Block", "Linear"])
    assert report["functions"] == 2 and report["calls"] == 6


def test_extract_reproduces_intermediate_values(model: mx.Model) -> None:
    flat = onnx.load_from_string(model.save_bytes())
    with model.extract("blocks.1") as part:
        g = part.graph()
        assert [i["name"] for i in g["inputs"]] == ["/blocks.0/y"]
        assert [o["name"] for o in g["outputs"]] == ["/blocks.1/y"]
        part_bytes = part.save_bytes()
    for name in ("/blocks.0/y", "/blocks.1/y"):
        flat.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    _, b0, b1 = run(flat.SerializeToString(), {"x": x})
    np.testing.assert_allclose(run(part_bytes, {"/blocks.0/y": b0})[0], b1, atol=1e-5)


def test_extract_unknown_module_lists_closest(model: mx.Model) -> None:
    with pytest.raises(mx.ModelExportError) as err:
        model.extract("block.1")
    assert err.value.code == mx.ErrorCode.NOT_FOUND
    assert "closest: 'blocks.1'" in str(err.value)


def test_render_and_validate(model: mx.Model, tmp_path: Path) -> None:
    assert "subgraph \"cluster_" in model.render("dot")
    xml.dom.minidom.parseString(model.render("graphml"))
    path = tmp_path / "net.onnx"
    model.save_file(path)
    assert mx.validate_file(path)["ok"] is True
    model.to_functions()
    model.save_file(path)
    report = mx.validate_file(path)
    assert report["ok"] is True and report["checked"]["function_nodes"] == 4
    bare = tmp_path / "bare.onnx"
    bare.write_bytes(stacked()[0])
    report = mx.validate_file(bare)
    assert report["ok"] is False
    assert {i["kind"] for i in report["issues"]} == {"missing_record"}
