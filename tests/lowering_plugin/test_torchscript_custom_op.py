"""The same lowering plugin (examples/plugins/lowering_custom_op) through the
TorchScript frontend: a model traced with Debian's torch 1.13 calls the
TorchScript custom op mylib::scaled_add (tests/lowering_plugin/torch_op,
TORCH_LIBRARY) in module 'block'. The frontend loads the op's library from
MODELEXPORT_TORCH_OP_LIBRARIES and lowers the op through the plugin: ONNX
Runtime against the traced model at two batch sizes, the plugin's nodes in
the op's module. Without the plugin, and without the op library, errors
that name the op and the remedy."""
import json
import os
import subprocess

import numpy as np
import onnxruntime as ort
import pytest

torch = pytest.importorskip("torch")

MX = os.environ.get("MODELEXPORT_BIN", "modelexport")
BUILD_PLUGINS = os.environ["MX_BUILD_PLUGIN_DIR"]
LOWERING = os.environ["MX_LOWERING_DIR"]
OP_LIBRARY = os.environ.get("MX_TORCH_OP_LIBRARY", "")

pytestmark = pytest.mark.skipif(not OP_LIBRARY, reason="built without the TorchScript frontend")


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.ops.mylib.scaled_add(x, self.proj(x), 0.25)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(4, 8)
        self.block = Block()
        self.head = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.block(torch.relu(self.inp(x))))


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    """The traced model's file and its outputs at batch 2 and 5."""
    torch.ops.load_library(OP_LIBRARY)
    torch.manual_seed(0)
    model = torch.jit.trace(Net().eval(), torch.randn(2, 4))
    path = tmp_path_factory.mktemp("ts") / "scaled_add.pt"
    model.save(str(path))
    cases = []
    for batch in (2, 5):
        x = torch.randn(batch, 4)
        with torch.no_grad():
            cases.append((x.numpy(), model(x).numpy()))
    return str(path), cases


def export(model, out, plugin_dirs=(), op_libraries=OP_LIBRARY):
    env = dict(os.environ, MODELEXPORT_PLUGIN_PATH=":".join([BUILD_PLUGINS, *plugin_dirs]))
    env["MODELEXPORT_TORCH_OP_LIBRARIES"] = op_libraries
    cmd = [MX, "export", model, "-o", str(out), "--input", "x:float32[batch=2,4]"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


def test_plugin_lowers_the_torchscript_custom_op(traced, tmp_path):
    model, cases = traced
    out = tmp_path / "m.onnx"
    r = export(model, out, [os.path.join(LOWERING, "mylib")])
    assert r.returncode == 0, r.stderr
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    for x, want in cases:
        got = session.run(None, {"x": x})[0]
        assert got.shape == want.shape and np.abs(got - want).max() <= 1e-5, np.abs(got - want).max()
    doc = json.loads((tmp_path / "m.hierarchy.json").read_text())
    placed = {n["name"]: (n["module"], n["evidence"]) for n in doc["nodes"]}
    assert placed.get("/block/Mul") == ("block", "direct"), placed
    assert placed.get("/block/Add") == ("block", "direct"), placed


def test_without_the_plugin_the_error_names_the_op_and_the_remedy(traced, tmp_path):
    out = tmp_path / "m.onnx"
    r = export(traced[0], out)
    assert r.returncode != 0 and not out.exists()
    assert "unsupported op mylib::scaled_add" in r.stderr and "module block" in r.stderr, r.stderr
    assert "lowering plugin for mylib.scaled_add.default" in r.stderr, r.stderr
    assert "lowering plugins found: none" in r.stderr, r.stderr


def test_without_the_op_library_the_error_names_the_variable(traced, tmp_path):
    out = tmp_path / "m.onnx"
    r = export(traced[0], out, [os.path.join(LOWERING, "mylib")], op_libraries="")
    assert r.returncode != 0 and not out.exists()
    assert "custom op mylib::scaled_add" in r.stderr, r.stderr
    assert "MODELEXPORT_TORCH_OP_LIBRARIES" in r.stderr and "op libraries loaded: none" in r.stderr, r.stderr


def test_an_op_library_that_cannot_be_opened_is_named(traced, tmp_path):
    out = tmp_path / "m.onnx"
    r = export(traced[0], out, [os.path.join(LOWERING, "mylib")], op_libraries="/nonexistent/libops.so")
    assert r.returncode != 0 and not out.exists()
    assert "cannot open the op library '/nonexistent/libops.so'" in r.stderr, r.stderr
