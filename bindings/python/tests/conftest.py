"""Fixtures for the binding tests.

The tests run against a real libmodelexport: MODELEXPORT_LIBRARY (set by
bindings/python/test.sh to the build tree's library) or an installed SDK.
Nothing is skipped: without the library every test fails with the reason.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

import modelexport as mx

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session", autouse=True)
def native_library() -> mx.Library:
    try:
        return mx.library()
    except mx.LibraryNotFoundError as exc:
        pytest.fail(f"libmodelexport is required for these tests: {exc}", pytrace=False)


def make_scoped_onnx(path: Path) -> Path:
    """A small ONNX file in the TorchScript exporter's naming style:
    x -> /encoder/layer.0/linear/MatMul -> /encoder/layer.0/act/Relu
      -> /head/Add -> y, weights named by module path."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weight = numpy_helper.from_array(np.ones((4, 4), dtype=np.float32), "encoder.layer.0.linear.weight")
    bias = numpy_helper.from_array(np.zeros((4,), dtype=np.float32), "head.bias")
    nodes = [
        helper.make_node("MatMul", ["x", "encoder.layer.0.linear.weight"], ["h"],
                         name="/encoder/layer.0/linear/MatMul"),
        helper.make_node("Relu", ["h"], ["a"], name="/encoder/layer.0/act/Relu"),
        helper.make_node("Add", ["a", "head.bias"], ["y"], name="/head/Add"),
    ]
    graph = helper.make_graph(
        nodes, "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        initializer=[weight, bias])
    model = helper.make_model(graph, producer_name="binding-tests",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # what libonnx 1.12 knows
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


@pytest.fixture()
def scoped_onnx(tmp_path: Path) -> Path:
    return make_scoped_onnx(tmp_path / "tiny.onnx")


@pytest.fixture()
def model(scoped_onnx: Path) -> Iterator[mx.Model]:
    with mx.Model.load_file(scoped_onnx) as m:
        yield m


@pytest.fixture(scope="session")
def tiny_pt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A traced TorchScript model with named submodules (torch must match
    LibTorch: the venv sees Debian's torch 1.13)."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = nn.Linear(4, 4)
            self.act = nn.ReLU()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.act(self.linear(x))

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = nn.Sequential(Block(), Block())
            self.head = nn.Linear(4, 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.encoder(x))

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("pt") / "net.pt"
    torch.jit.trace(Net().eval(), torch.randn(2, 4)).save(str(path))
    return path


@pytest.fixture(scope="session")
def plugin_dirs() -> list:
    """Where test.sh put the build tree's plugins (MODELEXPORT_PLUGIN_PATH)."""
    return [d for d in os.environ.get("MODELEXPORT_PLUGIN_PATH", "").split(":") if d]
