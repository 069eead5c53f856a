#!/usr/bin/python3
"""Make the files for the `usage` end-to-end test, at test time.

Exports small models with Python's TorchScript exporter (Debian torch 1.13,
torch.onnx.export, opset 17), then:
  * derives each node's ground-truth module from its scoped name
    (`/layer1/layer1.0/conv1/Conv` -> `layer1.0.conv1`), the TorchScript
    exporter's own record of the module that produced the node;
  * renames every node n0..nK so no scope is left for `usage` to read;
  * writes <out>/<name>.noscope.onnx, <out>/<name>.truth.json
    ({"nodes": [{"index", "module"}]}, module null when the name had no scope)
    and <out>/<name>.hierarchy.json (module tree with parameter counts, for
    `tag --hierarchy`; written from Python, no forward outlines).

Usage: make_torchscript_exports.py OUT_DIR
"""
import json
import pathlib
import sys

import onnx
import torch
import torchvision
from torch import nn

# tests/fixtures: the modules fixture scripts share
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "fixtures"))
from torch_modules import Attention  # noqa: E402


class TransformerLayer(nn.Module):
    """Pre-norm attention and a GELU feed-forward, each added back."""

    def __init__(self, dim):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attention = Attention(dim, 4)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln2(x))))


class MiniTransformer(nn.Module):
    def __init__(self, vocab=100, dim=32, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList([TransformerLayer(dim) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


def randomize(model):
    """Non-trivial values everywhere: equal-valued tensors (fresh LayerNorms
    are all ones) may be merged by the exporter, which is realistic but not
    what this test measures."""
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.01)
    return model


MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(), lambda: torch.randn(1, 3, 64, 64)),
    "mini_transformer": (MiniTransformer, lambda: torch.randint(0, 100, (2, 8))),
}


def real_module(path, modules):
    """torch.onnx names a module's second call `relu_1` (ResNet's blocks call
    `self.relu` twice): the module that ran is `relu`."""
    if path is None or path in modules:
        return path
    parent, _, last = path.rpartition(".")
    base, _, number = last.rpartition("_")
    candidate = f"{parent}.{base}" if parent else base
    return candidate if number.isdigit() and candidate in modules else path


def scope_module(name):
    """Module path from a TorchScript-exporter node name. That exporter
    names each scope by the caller's view of the callee and so repeats the
    previous component as a dotted prefix for container items:
    `/layer1/layer1.0/conv1/Conv` is layer1.0.conv1, and
    `/layer2/layer2.0/downsample/downsample.0/Conv` is
    layer2.0.downsample.0 -- a component that extends the PREVIOUS COMPONENT
    replaces it; any other is appended."""
    if not name.startswith("/"):
        return None
    parts = name.split("/")[1:-1]
    if not parts:
        return None
    path, last = "", ""
    for part in parts:
        if last and part.startswith(last + "."):
            path += part[len(last):]
        else:
            path = f"{path}.{part}" if path else part
        last = part
    return path


VARIANTS = {
    "default": {},
    "keep_names": {"training": torch.onnx.TrainingMode.PRESERVE, "do_constant_folding": False},
}


def hierarchy(model):
    """A supplied hierarchy as a user could write it from Python: paths,
    classes, parameter counts in named_modules() order, no forward outlines
    (the `usage` strategy then takes the module list's order for the call
    order when it matches weights the exporter renamed)."""
    modules = []
    for path, m in model.named_modules():
        modules.append({
            "path": path, "class": type(m).__name__,
            "qualified_class": f"{type(m).__module__}.{type(m).__name__}",
            "parameters": sum(p.numel() for p in m.parameters()),
            "own_parameters": sum(p.numel() for p in m.parameters(recurse=False))})
    return {"schema": "modelexport.hierarchy/1", "modules": modules, "nodes": []}


def export(name, make_model, make_input, out_dir, export_options):
    torch.manual_seed(0)
    model = randomize(make_model()).eval()
    raw = out_dir / f"{name}.scoped.onnx"
    torch.onnx.export(model, (make_input(),), str(raw), opset_version=17, **export_options)
    proto = onnx.load(str(raw))
    truth = []
    modules = dict(model.named_modules())
    for index, node in enumerate(proto.graph.node):
        truth.append({"index": index, "name": node.name, "op_type": node.op_type,
                      "module": real_module(scope_module(node.name), modules)})
        node.name = f"n{index}"
    onnx.save(proto, str(out_dir / f"{name}.noscope.onnx"))
    (out_dir / f"{name}.truth.json").write_text(json.dumps({"nodes": truth}, indent=1))
    (out_dir / f"{name}.hierarchy.json").write_text(json.dumps(hierarchy(model), indent=1))
    scoped = sum(1 for t in truth if t["module"] is not None)
    print(f"{name}: {len(truth)} nodes, {scoped} with a scope")


def main():
    out_dir = pathlib.Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, (make_model, make_input) in MODELS.items():
        for variant, options in VARIANTS.items():
            export(f"{name}-{variant}", make_model, make_input, out_dir, options)


if __name__ == "__main__":
    main()
