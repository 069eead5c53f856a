#!/usr/bin/env python3
"""Real models for the functions/extraction end-to-end tests.

Exports each model with torch 1.13's own exporter (torch.onnx.export, which
writes scoped node names) and writes the module tree from named_modules() as
a supplied hierarchy; `modelexport tag --strategy scope --hierarchy` then
tags the file. Used while the native exporter's fixtures are not built.

    .venv/bin/python tests/functions/make_models.py OUTDIR [--only bert,gpt2,vit,resnet50,bert_base]
writes OUTDIR/<name>.onnx, <name>.tree.json, <name>.inputs.npz
"""
import json
import os
import sys

import numpy as np
import torch


def tree_of(model):
    modules = []
    named = dict(model.named_modules())
    for path, m in named.items():
        children = [f"{path}.{n}" if path else n for n, _ in m.named_children()]
        parent = None if path == "" else (path.rsplit(".", 1)[0] if "." in path else "")
        own = sum(p.numel() for p in m.parameters(recurse=False))
        modules.append({
            "path": path, "class": type(m).__name__,
            "qualified_class": f"{type(m).__module__}.{type(m).__qualname__}",
            "parent": parent, "children": children,
            "parameters": sum(p.numel() for p in m.parameters()),
            "own_parameters": own})
    return {"schema": "modelexport.hierarchy/1", "modules": modules, "nodes": []}


def build(name):
    torch.manual_seed(0)
    if name in ("bert", "bert_base"):
        from transformers import BertConfig, BertModel
        cfg = BertConfig(hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=512) if name == "bert" else BertConfig()
        m = BertModel(cfg)
        ids = torch.randint(0, cfg.vocab_size, (2, 16))
        return m, {"input_ids": ids, "attention_mask": torch.ones(2, 16, dtype=torch.int64)}
    if name == "gpt2":
        from transformers import GPT2Config, GPT2Model
        cfg = GPT2Config(n_embd=128, n_layer=2, n_head=2, use_cache=False)
        m = GPT2Model(cfg)
        return m, {"input_ids": torch.randint(0, cfg.vocab_size, (2, 16))}
    if name == "vit":
        from transformers import ViTConfig, ViTModel
        cfg = ViTConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=128, image_size=32, patch_size=8)
        m = ViTModel(cfg, add_pooling_layer=False)
        return m, {"pixel_values": torch.randn(1, 3, 32, 32)}
    if name == "resnet50":
        import torchvision
        m = torchvision.models.resnet50()
        return m, {"x": torch.randn(1, 3, 224, 224)}
    raise SystemExit(f"unknown model {name}")


def main():
    out = sys.argv[1]
    only = ["bert", "gpt2", "vit", "resnet50"]
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
    os.makedirs(out, exist_ok=True)
    for name in only:
        model, inputs = build(name)
        model.eval()
        # Perturb every parameter: freshly initialised biases are all zeros,
        # and torch.onnx.export de-duplicates identical initializers across
        # layers (an Identity from layer 0's bias in layer 1), which would
        # make structurally identical layers differ in the flat graph.
        with torch.no_grad():
            gen = torch.Generator().manual_seed(1)
            for p in model.parameters():
                p.add_(torch.randn(p.shape, generator=gen) * 0.02)
        kwargs = {}
        if name in ("bert", "bert_base", "gpt2", "vit"):
            kwargs["return_dict"] = False

        class Wrap(torch.nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, *args):
                r = self.inner(*args, **kwargs)
                return r[0] if isinstance(r, (tuple, list)) else r

        # Export the model itself so scopes start at its children.
        args = tuple(inputs.values())
        if kwargs:
            model.config.return_dict = False
        with torch.no_grad():
            torch.onnx.export(model, args, f"{out}/{name}.onnx", input_names=list(inputs),
                              output_names=["output"], opset_version=17,
                              do_constant_folding=True)
        with open(f"{out}/{name}.tree.json", "w") as f:
            json.dump(tree_of(model), f)
        np.savez(f"{out}/{name}.inputs.npz", **{k: v.numpy() for k, v in inputs.items()})
        print("wrote", name)


if __name__ == "__main__":
    main()
