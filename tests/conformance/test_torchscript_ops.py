"""Op conformance through the TorchScript frontend: the same samples, traced.

test_ops.py checks the shared lowerings through the `.pt2` frontend; here
the samples traced by Debian's torch 1.13 (make_torchscript_ops.py, run by
ctest's fixture setup into MODELEXPORT_TS_OPS_FIXTURES) go through the
TorchScript frontend, at the default opset (or the one the sample needs),
and run in ONNX Runtime at the export shape and at the second shape
against torch 1.13's eager outputs.
A sample with no TorchScript form in torch 1.13 is listed with the reason
by the manifest and is not a case here. Samples this frontend refuses by
design are in REFUSED with the reason the export must give.
"""
import json
import os

import numpy as np
import pytest

from conformance_support import check_in_runtime, run_export
from test_ops import DEFAULT, NEEDS_OPSET, REFUSED as PT2_REFUSED

FIXTURES = os.environ.get("MODELEXPORT_TS_OPS_FIXTURES", "")
MANIFEST = {}
if FIXTURES and os.path.exists(os.path.join(FIXTURES, "manifest.json")):
    with open(os.path.join(FIXTURES, "manifest.json")) as f:
        MANIFEST = {k: v for k, v in json.load(f)["samples"].items() if "skip" not in v}

# Refused by design through this frontend too: the .pt2 suite's reasons
# apply where the traced program holds the same op.
REFUSED = {k: v for k, v in PT2_REFUSED.items() if "@" not in k}
# What the TorchScript frontend refuses by design (plugins/torchscript/README.md):
# it computes shapes, not values, so an op whose output size depends on the
# values of a tensor computed from the inputs is refused. Complex values
# convert as through the .pt2 frontend (real pairs, the shared "complex."
# lowerings): the samples the generator marks `complex` must match too.
DATA_DEPENDENT = "its result depends on the values (not only the shapes)"
REFUSED.update({
    **{n: DATA_DEPENDENT for n in (
        "bincount", "bool_ops", "diagonal_scatter_take", "int64_math", "mask_index", "masked_select",
        "nonzero", "repeat_interleave_tensor", "unique", "unique_consecutive", "unique_consecutive_dim",
        "unique_consecutive_values", "unique_dim")},
    "linalg_eig_refused": PT2_REFUSED["linalg_eig_refused@training"],
    "linalg_matrix_rank_cond": PT2_REFUSED["linalg_matrix_rank_cond@training"],
    # as_strided reads the storage offsets and strides of its input, which
    # only a torch.export program records (plugins/torch_export/src/lower/
    # as_strided.cpp); a trace has neither, so its _copy twin is refused too.
    "as_strided_copy": "unsupported op aten::as_strided_copy",
    # fill_diagonal_ writes through the storage (wrap) and is lowered by the
    # .pt2 frontend's as_strided family only (plugins/torch_export/src/lower/
    # as_strided.cpp); the TorchScript frontend has no lowering for it yet.
    "view_writes": "unsupported op aten::fill_diagonal_",
    "view_writes_i64": "unsupported op aten::fill_diagonal_",
})
# Outputs not compared, with the reason: the `info` of a singular matrix
# (the first zero pivot) is the LAPACK build's: torch 1.13 (Debian,
# reference LAPACK) answers 4 where torch 2.15 and the export answer 3.
NOT_COMPARED = {"linalg_slogdet": {8, 9}, "linalg_slogdet_f64": {8, 9}}
# Tolerances other than the sample's, with the reason: torch 1.13's CPU
# bfloat16 matmul does not round once from float32 as torch 2.15's does (215
# of 384 products of a random [64, 8] @ [8, 6] differ by an ulp or more), so
# its reference is a few bfloat16 ulps from the once-rounded value the
# export computes.
TOLERANCE = {"autocast_bf16": 1e-2}
# ONNX Runtime 1.32's session-creation crash on a bf16 Scan (see
# ORT_DISABLED_OPTIMIZERS in test_ops.py) meets the traced file too.
ORT_DISABLED_OPTIMIZERS = {"bf16_lstm_proj": ["NchwcTransformer"]}


def _opset(name):
    """The default opset, or the one an op of the sample needs (NEEDS_OPSET
    of the .pt2 suite: view(dtype) needs BitCast, opset 26)."""
    need = NEEDS_OPSET.get(name)
    return max(DEFAULT, need[0]) if need else DEFAULT


def _export(cli, name, out):
    spec = MANIFEST[name]
    args = [os.path.join(FIXTURES, f"{name}.pt"), "-o", out, "--opset", str(_opset(name))]
    for s in spec["specs"]:
        args += ["--input", s]
    env = {"MODELEXPORT_TORCH_OP_LIBRARIES": os.pathsep.join(spec["op_libraries"])} if spec.get("op_libraries") else None
    return run_export(cli, args + spec.get("cli", []), env)


def test_fixtures_generated():
    assert MANIFEST, f"no traced samples in MODELEXPORT_TS_OPS_FIXTURES={FIXTURES!r}"


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_traced_sample(name, cli, tmp_path):
    spec = MANIFEST[name]
    out = str(tmp_path / f"{name}.onnx")
    rc, log = _export(cli, name, out)
    why = REFUSED.get(name)
    if why:
        assert rc != 0 and why in log, f"{name} should be refused ({why}):\n{log}"
        assert not os.path.exists(out), "a refused export left a file behind"
        return
    assert rc == 0, f"export of {name} failed:\n{log}"
    data = np.load(os.path.join(FIXTURES, f"{name}.npz"))
    check_in_runtime(out, spec, data, name, tol=TOLERANCE.get(name), not_compared=NOT_COMPARED.get(name, ()),
                     disabled_optimizers=ORT_DISABLED_OPTIMIZERS.get(name, []))
