#!/usr/bin/python3
"""Generates the small fixtures used by the bindings' tests and the examples.

Run with Debian's interpreter (its torch 1.13 matches LibTorch 1.13):

    /usr/bin/python3 examples/tag_and_print_tree/testdata/make_fixtures.py

Writes, next to this script:
  tiny.pt           TorchScript (torch.jit.trace) of TinyNet, input x:float32[batch=2,4]
  tiny.onnx         the same model exported by torch.onnx.export (TorchScript
                    exporter, scoped node names such as /layers.0/fc/Gemm)
  keras_style.onnx  a graph whose node names follow Keras/TF conventions
                    (model/dense_1/MatMul), for the regex strategy plugin

Weights are random but seeded; the files are committed so tests do not need
torch.
"""
import os

import onnx
import torch
from onnx import TensorProto, helper, numpy_helper
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


class Block(torch.nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(width, width)
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x)) + x


class TinyNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Linear(4, 8)
        self.layers = torch.nn.ModuleList([Block(8), Block(8)])
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x):
        h = self.embed(x)
        for layer in self.layers:
            h = layer(h)
        return self.head(h).softmax(-1)


def torch_fixtures() -> None:
    torch.manual_seed(0)
    model = TinyNet().eval()
    x = torch.randn(2, 4)
    traced = torch.jit.trace(model, x)
    traced.save(os.path.join(HERE, "tiny.pt"))
    torch.onnx.export(model, (x,), os.path.join(HERE, "tiny.onnx"),
                      input_names=["x"], output_names=["probs"],
                      dynamic_axes={"x": {0: "batch"}, "probs": {0: "batch"}},
                      opset_version=14, do_constant_folding=True)


def keras_fixture() -> None:
    rng = np.random.default_rng(0)

    def init(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    nodes = [
        helper.make_node("MatMul", ["input", "model/dense/kernel"], ["d0"], name="model/dense/MatMul"),
        helper.make_node("Add", ["d0", "model/dense/bias"], ["d1"], name="model/dense/BiasAdd"),
        helper.make_node("Relu", ["d1"], ["d2"], name="model/dense/Relu"),
        helper.make_node("MatMul", ["d2", "model/dense_1/kernel"], ["e0"], name="model/dense_1/MatMul"),
        helper.make_node("Add", ["e0", "model/dense_1/bias"], ["e1"], name="model/dense_1/BiasAdd"),
        helper.make_node("Softmax", ["e1"], ["output"], name="model/dense_1/Softmax", axis=-1),
        helper.make_node("Identity", ["output"], ["output_copy"], name="Identity"),
    ]
    graph = helper.make_graph(
        nodes, "keras_style",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("output_copy", TensorProto.FLOAT, ["batch", 3])],
        [init("model/dense/kernel", (4, 8)), init("model/dense/bias", (8,)),
         init("model/dense_1/kernel", (8, 3)), init("model/dense_1/bias", (3,))])
    model = helper.make_model(graph, producer_name="keras-style-fixture",
                              opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, "keras_style.onnx"))


if __name__ == "__main__":
    torch_fixtures()
    keras_fixture()
    for name in ("tiny.pt", "tiny.onnx", "keras_style.onnx"):
        print(name, os.path.getsize(os.path.join(HERE, name)), "bytes")
