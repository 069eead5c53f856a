"""The graph passes on TorchScript exports (issue 33): the frontend gives
them the values' symbolic dims (plugins/torchscript/src/dim_symbols.hpp),
so a view's dims that are its input's are copied (Reshape shape 0) and
Slices that tile a static axis become a Split, and nothing else: sizes that
only agree at the example shapes are never taken as equal. Each model is
traced here, exported with dynamic dims and compared with eager PyTorch at
two shapes."""
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest

torch = pytest.importorskip("torch")


class Attention(torch.nn.Module):
    """Heads split and merged by views of sizes read from the input, and
    rotary's rotate_half (two Slices tiling the last axis)."""

    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(16, 48)
        self.out = torch.nn.Linear(16, 16)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).split(16, dim=-1)
        q = q.view(b, t, 2, 8).transpose(1, 2)
        k = k.view(b, t, 2, 8).transpose(1, 2)
        v = v.view(b, t, 2, 8).transpose(1, 2)
        q = torch.cat((-q[..., 4:], q[..., :4]), dim=-1)
        a = torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v
        return self.out(a.transpose(1, 2).reshape(b, t, 16))


class SwappedView(torch.nn.Module):
    """A view whose dims are the input's in the other order: at the example
    shape (2, 2) and its doubled twin (4, 4) batch and seq agree, so only the
    symbols tell that copying them in place would be wrong."""

    def forward(self, x):
        return x.view(x.size(1), x.size(0), 8) * 2.0


class OtherInputsDims(torch.nn.Module):
    """A reshape to a size read from another input, then two slices of the
    dim it infers: with a's rows twice b's at the example shape, that dim
    is 8 at the example and at its doubled twin alike, but not static (6
    and 2 rows: 12)."""

    def forward(self, a, b):
        y = a.reshape(b.size(0), -1)
        return torch.cat((y[:, 4:], y[:, :4]), dim=1) + 1.0


class Mixed(torch.nn.Module):
    """Dims through permute, flatten, views of products, broadcasting with a
    mask, cat and a reduction; checked where batch and sequence change
    alone, together, and at 1."""

    def forward(self, x, m):
        b, t = x.size(0), x.size(1)
        y = x.permute(1, 0, 2).flatten(1).view(t, b, 8).transpose(0, 1)
        z = y * m.unsqueeze(-1) + x
        w = torch.cat([z, x.expand(b, t, 8)], dim=-1).reshape(b * t, 16)
        return w.view(b, t, 16).sum(-1)


CASES = {
    "attention": (Attention, ["x:float32[batch=2,seq=5,16]"], [(2, 5, 16)], [(3, 7, 16)]),
    "swapped_view": (SwappedView, ["x:float32[batch=2,seq=2,8]"], [(2, 2, 8)], [(3, 5, 8)]),
    "other_inputs_dims": (OtherInputsDims, ["a:float32[n=6,4]", "b:float32[m=3,4]"], [(6, 4), (3, 4)],
                          [(4, 4), (2, 4)], [(6, 4), (2, 4)]),
    "mixed": (Mixed, ["x:float32[batch=2,seq=5,8]", "m:float32[batch=2,seq=5]"], [(2, 5, 8), (2, 5)],
              [(3, 5, 8), (3, 5)], [(2, 7, 8), (2, 7)], [(4, 1, 8), (4, 1)], [(1, 3, 8), (1, 3)]),
}


@pytest.fixture(scope="module")
def exports(exporter, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("lean_ts")
    done = {}

    def get(name):
        if name not in done:
            cls, specs, shapes = CASES[name][:3]
            torch.manual_seed(0)
            model = cls().eval()
            with torch.no_grad():
                traced = torch.jit.trace(model, tuple(torch.randn(s) for s in shapes))
            pt = str(out_dir / f"{name}.pt")
            traced.save(pt)
            onnx_path = str(out_dir / f"{name}.onnx")
            rc, log, _ = exporter.run(pt, onnx_path, specs)
            assert rc == 0, f"export of {name} failed:\n{log}"
            done[name] = (model, onnx_path)
        return done[name]

    return get


def _reshape_shapes(model):
    """Reshape node -> its shape input's values, or None when computed."""
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    return {n.name: (inits[n.input[1]].tolist() if n.input[1] in inits else None)
            for n in model.graph.node if n.op_type == "Reshape"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_parity_at_every_shape(name, exports):
    model, path = exports(name)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    for shapes in CASES[name][2:]:
        xs = [torch.randn(s) for s in shapes]
        with torch.no_grad():
            want = model(*xs).numpy()
        got = sess.run(None, dict(zip(names, (x.numpy() for x in xs))))[0]
        assert got.shape == want.shape, f"{name} at {shapes}: shape {got.shape} vs {want.shape}"
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_views_copy_the_dims_they_keep(exports):
    _, path = exports("attention")
    model = onnx.load(path)
    shapes = _reshape_shapes(model)
    assert shapes, "no Reshape in the attention export"
    assert all(s is not None for s in shapes.values()), f"Reshapes with a computed shape: {shapes}"
    assert sorted(map(tuple, shapes.values())) == [(0, 0, 2, 8)] * 3 + [(0, 0, 16)], shapes
    ops = [n.op_type for n in model.graph.node]
    assert "Shape" not in ops, f"shape glue left: {ops}"


def test_slices_tiling_a_static_axis_are_a_split(exports):
    _, path = exports("attention")
    model = onnx.load(path)
    slices = [n for n in model.graph.node if n.op_type == "Slice"]
    splits = [n for n in model.graph.node if n.op_type == "Split" and len(n.output) == 2]
    assert not slices, f"Slices left: {[n.name for n in slices]}"
    assert len(splits) == 1, [n.name for n in model.graph.node if n.op_type == "Split"]


@pytest.mark.parametrize("name", ["swapped_view", "other_inputs_dims"])
def test_sizes_equal_only_by_example_are_not_taken_as_equal(name, exports):
    """Neither copied in place (0) nor written as constants, nor cut by a
    Split of constant sizes (parity at the other shapes checks the values)."""
    _, path = exports(name)
    model = onnx.load(path)
    for node, shape in _reshape_shapes(model).items():
        assert shape is None or 0 not in shape, f"{name}: Reshape {node} copies a dim: {shape}"
        assert shape is None or shape.count(-1) == 1, f"{name}: Reshape {node} has a constant shape {shape}"
    assert "Split" not in [n.op_type for n in model.graph.node], f"{name}: Slices of a dynamic dim became a Split"
