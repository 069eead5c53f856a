"""Misuse that crashed the process (issue 32): closing a model or registry
from a progress callback of a call that uses it, a Model made from a raw
integer, a NUL inside a path, a node index beyond size_t. Each is now a
Python exception naming the problem, or (close in a callback) a release
deferred until the call returns."""
from __future__ import annotations

from pathlib import Path

import pytest

import modelexport as mx

REPO = Path(__file__).resolve().parents[3]
PT2 = REPO / "tests" / "fixtures" / "pt2" / "tiny_mlp.pt2"


@pytest.fixture()
def registry(plugin_dirs: list) -> mx.Registry:
    with mx.Registry(discover=False, plugin_dirs=plugin_dirs) as r:
        yield r


def test_close_model_from_save_progress_waits_for_the_save(scoped_onnx: Path, tmp_path: Path) -> None:
    model = mx.Model.load_file(scoped_onnx)
    model.save_file(tmp_path / "out.onnx", progress=lambda report: model.close())
    assert model.closed
    assert (tmp_path / "out.onnx").stat().st_size > 0
    with pytest.raises(ValueError, match="closed"):
        model.node_count
    model.close()  # still idempotent


def test_close_model_and_registry_from_tag_progress(registry: mx.Registry, scoped_onnx: Path) -> None:
    model = mx.Model.load_file(scoped_onnx)

    def close_both(report: mx.Progress) -> None:
        model.close()
        registry.close()

    registry.tag(model, "scope", progress=close_both)
    assert model.closed and registry.closed
    with pytest.raises(ValueError, match="closed"):
        registry.plugins()


def test_close_registry_from_export_progress(registry: mx.Registry) -> None:
    with registry.export(PT2, progress=lambda report: registry.close()) as model:
        assert model.node_count > 0
    assert registry.closed


def test_model_from_a_raw_integer_is_refused() -> None:
    with pytest.raises(TypeError, match="Model.load_file"):
        mx.Model(12345)


def test_nul_in_a_path_is_refused(model: mx.Model, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="NUL"):
        model.save_file(str(tmp_path / "nul.onnx") + "\0.evil")
    assert not (tmp_path / "nul.onnx").exists()
    with pytest.raises(ValueError, match="NUL"):
        mx.Model.load_file("a\0b.onnx")


def test_node_index_beyond_the_graph_names_the_index(model: mx.Model) -> None:
    with pytest.raises(IndexError, match=r"node index 10{30} out of range \(the graph has 3 nodes\)"):
        model.node(10**30)
    with pytest.raises(IndexError, match="out of range"):
        model.node(-10**30)
