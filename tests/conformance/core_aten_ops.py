#!/usr/bin/env python3
"""Writes core_aten_ops.txt: every forward overload a torch build tags
`core` (torch.Tag.core), one `aten.<op>.<overload>` per line - the opset the
.pt2 frontend must lower or refuse by design (test_core_opset.py).

    /work/venvs/pt2/bin/python tests/conformance/core_aten_ops.py   # torch 2.15

Backward ops and out= variants are left out: an inference program has
neither.
"""
import pathlib

import torch

names = set()
for op_name in dir(torch.ops.aten):
    packet = getattr(torch.ops.aten, op_name, None)
    if not isinstance(packet, torch._ops.OpOverloadPacket):
        continue
    for overload in packet.overloads():
        op = getattr(packet, overload)
        if torch.Tag.core not in op.tags:
            continue
        if "backward" in op_name or overload == "out" or overload.endswith("_out"):
            continue
        names.add(f"aten.{op_name}.{overload}")
out = pathlib.Path(__file__).with_name("core_aten_ops.txt")
out.write_text(f"# torch {torch.__version__}: {len(names)} forward core ATen overloads (core_aten_ops.py)\n"
               + "".join(f"{n}\n" for n in sorted(names)))
print(len(names))
