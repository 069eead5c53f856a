"""Registry with the torchscript frontend plugin: discovery, export, module tree.

These need the build's `torchscript` plugin (plugins/torchscript) in
MODELEXPORT_PLUGIN_PATH; they fail, never skip, when it is missing.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import modelexport as mx


@pytest.fixture()
def registry(plugin_dirs: list) -> mx.Registry:
    with mx.Registry(discover=False, plugin_dirs=plugin_dirs) as r:
        yield r


def test_discovery_through_environment(plugin_dirs: list) -> None:
    assert plugin_dirs, "MODELEXPORT_PLUGIN_PATH must name the build's plugin directory"
    with mx.Registry() as r:
        assert "torchscript" in r.plugin_names("frontend")


def test_plugin_dirs_option_finds_frontend(registry: mx.Registry) -> None:
    plugins = {p["name"]: p for p in registry.plugins()["plugins"] if p.get("status") == "loaded"}
    assert plugins["torchscript"]["kind"] == "frontend"
    assert plugins["torchscript"]["abi"].startswith("1.")


def test_export_torchscript(registry: mx.Registry, tiny_pt: Path, tmp_path: Path) -> None:
    with registry.export(tiny_pt, ["x:float32[batch=2,4]"], opset=17) as model:
        assert model.node_count > 0
        doc = model.hierarchy()
        paths = {m["path"] for m in doc["modules"]}
        assert {"", "encoder", "encoder.0", "encoder.0.linear", "encoder.1.linear", "head"} <= paths
        assert len(doc["nodes"]) == model.node_count  # coverage is 100%
        assert {n["evidence"] for n in doc["nodes"]} <= {"direct", "root"}
        gemm_like = [n for n in doc["nodes"] if n["module"] == "head"]
        assert gemm_like, "some node must belong to the head Linear"
        model.check()
        out = tmp_path / "net.onnx"
        model.save_file(out)
    assert out.exists()


def test_export_matches_torch(registry: mx.Registry, tiny_pt: Path, tmp_path: Path) -> None:
    import numpy as np
    import onnxruntime as ort
    import torch

    out = tmp_path / "net.onnx"
    with registry.export(tiny_pt, ["x:float32[batch=2,4]"]) as model:
        model.save_file(out)
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    scripted = torch.jit.load(str(tiny_pt))
    for batch in (2, 5):  # batch is a named, hence dynamic, dimension
        x = torch.randn(batch, 4)
        (got,) = session.run(None, {session.get_inputs()[0].name: x.numpy()})
        np.testing.assert_allclose(got, scripted(x).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_export_bad_input_spec(registry: mx.Registry, tiny_pt: Path) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        registry.export(tiny_pt, ["x:notatype[2,4]"])
    # The host keeps the frontend's own error kind for a bad spec.
    assert info.value.code == mx.ErrorCode.INVALID_ARGUMENT
    assert "notatype" in info.value.message


def test_export_unknown_frontend(registry: mx.Registry, tiny_pt: Path) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        registry.export(tiny_pt, ["x:float32[2,4]"], frontend="no-such-frontend")
    assert info.value.code is mx.ErrorCode.NOT_FOUND


def test_module_tree(registry: mx.Registry, tiny_pt: Path) -> None:
    doc = registry.module_tree(tiny_pt)
    assert doc["schema"] == "modelexport.hierarchy/1"
    assert doc["nodes"] == []
    modules = {m["path"]: m for m in doc["modules"]}
    assert modules[""]["class"] == "Net"
    assert modules["encoder.0.linear"]["class"] == "Linear"


def test_export_of_missing_file_is_file_not_found(registry: mx.Registry, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as info:
        registry.export(tmp_path / "absent.pt2")
    assert isinstance(info.value, mx.ModelExportError)
    assert info.value.filename == str(tmp_path / "absent.pt2")
