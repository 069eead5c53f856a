"""Autocast regions compute in their dtype (tests/fixtures/ops samples
autocast_bf16 / autocast_f16: torch.autocast over linear, matmul, bmm and
conv1d, with an inner region disabled).

test_ops.py compares their values with eager PyTorch (bf16 through
--upcast-bf16: ONNX Runtime's CPU provider has no bf16 Gemm/MatMul/Conv).
Here the file as exported, without the upcast, is read: every op autocast
runs in the lower dtype must read and write that dtype, and the disabled
region's linear float32, at both IR levels (the TRAINING level's
wrap_with_autocast bodies are where this frontend does the casting; the
CORE level has torch's explicit casts). At opset 22: ONNX's Conv takes
bf16 from there on.
"""
import os

import onnx
import pytest

from conformance_support import FIXTURES, run_export

SAMPLES = {"autocast_bf16": onnx.TensorProto.BFLOAT16, "autocast_f16": onnx.TensorProto.FLOAT16}
COMPUTE = ("Gemm", "MatMul", "Conv")


@pytest.mark.parametrize("level", ["training", "core"])
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_autocast_ops_compute_in_the_region_dtype(name, level, cli, tmp_path):
    out = str(tmp_path / f"{name}.{level}.onnx")
    program = os.path.join(FIXTURES, f"{name}.pt2" if level == "training" else f"{name}.core.pt2")
    rc, log = run_export(cli, [program, "-o", out, "--opset", "22"])
    assert rc == 0, log
    model = onnx.shape_inference.infer_shapes(onnx.load(out), strict_mode=True)
    types = {v.name: v.type.tensor_type.elem_type
             for v in [*model.graph.input, *model.graph.value_info, *model.graph.output]}
    types.update({t.name: t.data_type for t in model.graph.initializer})
    found = []
    for n in model.graph.node:
        if n.op_type in COMPUTE:
            dtypes = {types.get(v) for v in [*n.input, *n.output] if v}
            assert len(dtypes) == 1, f"{n.name} mixes element types {dtypes}"
            found.append((n.op_type, dtypes.pop()))
    lower = sorted(op for op, dt in found if dt == SAMPLES[name])
    assert lower == ["Conv", "Gemm", "MatMul", "MatMul"], f"ops in the region's dtype: {found}"
    assert [op for op, dt in found if dt == onnx.TensorProto.FLOAT] == ["Gemm"], \
        f"the disabled region's linear is not float32: {found}"
