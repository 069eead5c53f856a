#!/usr/bin/env python3
"""Write data/aten_defaults.tsv: the default of every ATen argument that has
one other than None, in the form a torch.export archive would hold it.

torch.export's serializer leaves out an argument that equals its schema
default, and the archive does not carry the schemas, so the .pt2 frontend
fills an absent argument from this table (src/schema_defaults.cpp) before a
lowering's own fallback is consulted. Regenerate it with the torch the
fixtures are made with (its version is the table's first line):

    /work/venvs/pt2/bin/python plugins/torch_export/tools/schema_defaults.py

One line per argument: <target> TAB <argument> TAB <JSON argument>, e.g.
    aten.max_pool2d.default	dilation	{"as_ints":[1,1]}
"""
import json
import math
import pathlib
import sys

import torch
from torch._export.serde.serialize import _TORCH_TO_SERIALIZE_DTYPE

OUT = pathlib.Path(__file__).resolve().parent.parent / "data" / "aten_defaults.tsv"

# c10::ScalarType codes, as a schema's default holds them.
C10_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
              torch.float32, torch.float64, torch.complex32, torch.complex64, torch.complex128,
              torch.bool]


def as_float(x):
    if math.isfinite(x):
        return x
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


def serialized(real_type, value):
    """The archive's JSON argument for a default, or None for a type no
    lowering reads (Layout, Device, MemoryFormat, Generator)."""
    t = real_type.replace("Optional[", "").rstrip("]") if real_type.startswith("Optional[") else real_type
    if t == "bool":
        return {"as_bool": bool(value)}
    if t in ("int", "SymInt"):
        return {"as_int": int(value)}
    if t == "float":
        return {"as_float": as_float(float(value))}
    if t in ("Scalar", "number"):
        if isinstance(value, bool):
            return {"as_bool": value}
        return {"as_int": value} if isinstance(value, int) else {"as_float": as_float(value)}
    if t == "str":
        return {"as_string": value}
    if t in ("List[int]", "List[SymInt]"):
        return {"as_ints": [int(v) for v in value]}
    if t == "List[float]":
        return {"as_floats": [as_float(float(v)) for v in value]}
    if t == "List[bool]":
        return {"as_bools": [bool(v) for v in value]}
    if t == "ScalarType":
        return {"as_scalar_type": int(_TORCH_TO_SERIALIZE_DTYPE[C10_DTYPES[value]])}
    return None


def main():
    lines = []
    skipped = set()
    for schema in torch._C._jit_get_all_schemas():
        ns, _, op = schema.name.partition("::")
        if ns != "aten" or schema.overload_name.startswith("out") or schema.overload_name.endswith("_out"):
            continue
        target = f"aten.{op}.{schema.overload_name or 'default'}"
        for a in schema.arguments:
            if not a.has_default_value() or a.default_value is None:
                continue
            j = serialized(str(a.real_type), a.default_value)
            if j is None:
                skipped.add(str(a.real_type))
                continue
            lines.append(f"{target}\t{a.name}\t{json.dumps(j, separators=(',', ':'))}")
    lines = sorted(set(lines))
    OUT.write_text(f"# torch {torch.__version__}: plugins/torch_export/tools/schema_defaults.py\n"
                   + "\n".join(lines) + "\n")
    print(f"{OUT}: {len(lines)} defaults; types left out: {', '.join(sorted(skipped))}", file=sys.stderr)


if __name__ == "__main__":
    main()
