"""Op conformance: every sample program, both IR levels, two shapes, in ONNX Runtime.

The samples (tests/fixtures/ops/samples.py) were exported once by torch 2.15
(make_ops.py) with their eager outputs; here each is exported through the
CLI and its ONNX file run at the export shape and at a second shape with
other sizes on the dynamic dims. Every ONNX node must carry a module record.
No torch here: numpy, onnx and onnxruntime only.
"""
import json
import os

import numpy as np
import onnx
import pytest

from conformance_support import FIXTURES, check_in_runtime, run_export

with open(os.path.join(FIXTURES, "manifest.json")) as f:
    MANIFEST = json.load(f)["samples"]
LEVELS = {"training": "{}.pt2", "core": "{}.core.pt2"}
# Each sample runs in ONNX Runtime at the lowest opset, the default and the
# newest opset ONNX Runtime 1.31 runs (26); the ONNX library knows 28,
# where every sample is exported and checked by the ONNX checker only
# (test_sample_checked_at_newest_opset).
LOWEST = 14
DEFAULT = 20
NEWEST_RUN = 26
NEWEST = 28
OPSETS = (LOWEST, DEFAULT, NEWEST_RUN)
# Refused by design ("sample" for both IR levels, "sample@level" for one).
# Each must fail with its reason and write nothing.
REFUSED = {
    "upsample_bilinear_antialias_corners": "ONNX Resize's antialias filter does not reproduce ATen's with align_corners",
    "core_batch_norm_training": "batch norm in training mode",
    "linalg_inv_dynamic_size": "needs a static matrix size: ONNX has no linear-algebra solver",
    "linalg_svd_vectors_refused": "singular vectors are not lowered: their signs are arbitrary",
    "linalg_matrix_rank_cond@training": "linalg_matrix_rank: the fused op is not lowered: export after",
    "linalg_eigh_vectors_refused": "eigenvectors are not lowered: their signs are arbitrary",
    "linalg_eig_refused@training": "linalg_eigvals: the eigendecomposition of a general matrix has complex",
    "linalg_eig_refused@core": "linalg_eig: the eigendecomposition of a general matrix has complex",
    "linalg_pinv_refused": "linalg_pinv: the pseudo-inverse needs the singular vectors",
    "cond_stale_view@training": "views 'clone' from before this in-place write and is read after it",
    "quantize_per_channel_float_zero_points_refused": "quantize_per_channel with floating-point zero points",
}
# Refused below an opset: the ONNX op they need is that new. col2im's core
# form (index_put with None indices) converts at any opset.
NEEDS_OPSET = {
    "grid_sample_3d": (20, "needs ONNX opset 20 (N-D GridSample)"),
    "bitwise_xor": (18, "needs ONNX opset 18 (BitwiseXor)"),
    "core_bitwise_or_scalar": (18, "on integers needs ONNX opset 18 (BitwiseOr)"),
    "int64_bitwise": (18, "on integers needs ONNX opset 18 (BitwiseAnd)"),
    "f16_index_ops": (16, "needs ONNX opset 16 (ScatterElements with 'reduction')"),
    "scatter_reduce_amax": (18, "needs ONNX opset 18 (ScatterElements max/min)"),
    "scatter_reduce_amax_excluding_self": (18, "needs ONNX opset 18 (ScatterElements max/min)"),
    "scatter_reduce_excluding_self": (16, "needs ONNX opset 16 (ScatterElements with 'reduction')"),
    "bf16_lstm_proj@training": (16, "bf16 values through an ONNX Scan need ONNX opset 16"),
    "bf16_cond": (16, "bf16 values through an ONNX If need ONNX opset 16"),
    "index_reduce": (16, "needs ONNX opset 16 (ScatterElements with 'reduction')"),
    "put_accumulate": (16, "needs ONNX opset 16 (ScatterElements with 'reduction')"),
    "view_writes@core": (16, "needs ONNX opset 16 (ScatterND with 'reduction')"),
    "view_writes_i64@core": (16, "needs ONNX opset 16 (ScatterND with 'reduction')"),
    "index_reduce_extrema": (18, "needs ONNX opset 18 (ScatterElements max/min)"),
    "scatter_add": (16, "needs ONNX opset 16 (ScatterElements with 'reduction')"),
    "index_put_accumulate": (16, "needs ONNX opset 16 (ScatterND with 'reduction')"),
    "index_write@training": (16, "needs ONNX opset 16 (ScatterElements with 'reduction')"),
    "index_write@core": (16, "needs ONNX opset 16 (ScatterND with 'reduction')"),
    "col2im_fold@core": (16, "needs ONNX opset 16 (ScatterND with 'reduction')"),
    "embedding_bag": (16, "needs ONNX opset 16 (ScatterND with 'reduction')"),
    "embedding_bag_offsets": (16, "needs ONNX opset 16 (ScatterND with 'reduction')"),
    "embedding_bag_max": (18, "needs ONNX opset 18 (ScatterND max/min)"),
    "embedding_bag_last_offset": (16, "needs ONNX opset 16 (ScatterND with 'reduction')"),
    "torchvision_roi_align": (16, "needs ONNX opset 16 (RoiAlign's half_pixel)"),
    "grid_sample": (16, "needs ONNX opset 16 (GridSample)"),
    "grid_sample_nearest_border": (16, "needs ONNX opset 16 (GridSample)"),
    "fft_rfft": (17, "needs ONNX opset 17 (DFT)"),
    "fft_irfft_odd": (17, "needs ONNX opset 17 (DFT)"),
    "fft_forward_norm_dim1": (17, "needs ONNX opset 17 (DFT)"),
    "fft_complex": (17, "needs ONNX opset 17 (DFT)"),
    "fft_rfft2_irfft2": (17, "needs ONNX opset 17 (DFT)"),
    "fft_shift_complex": (17, "needs ONNX opset 17 (DFT)"),
    "fft_hermitian": (17, "needs ONNX opset 17 (DFT)"),
    "fft_dynamic_dims": (17, "needs ONNX opset 17 (DFT)"),
    "fft_dynamic_dims_f64": (17, "needs ONNX opset 17 (DFT)"),
    "col2im_fold@training": (18, "needs ONNX opset 18 (Col2Im)"),
    "col2im_fold_dynamic@training": (18, "needs ONNX opset 18 (Col2Im)"),
    "col2im_fold_dynamic@core": (16, "needs ONNX opset 16 (ScatterND with 'reduction')"),
    "affine_grid@training": (20, "needs ONNX opset 20 (AffineGrid)"),
    "stft_hann@training": (17, "needs ONNX opset 17 (STFT)"),
    "stft_hann@core": (17, "needs ONNX opset 17 (DFT)"),
    "stft_plain@training": (17, "needs ONNX opset 17 (STFT)"),
    "stft_plain@core": (17, "needs ONNX opset 17 (DFT)"),
    "istft@training": (18, "needs ONNX opset 18 (Col2Im)"),
    "istft@core": (17, "needs ONNX opset 17 (DFT)"),
    "istft_plain@training": (18, "needs ONNX opset 18 (Col2Im)"),
    "istft_plain@core": (17, "needs ONNX opset 17 (DFT)"),
    "upsample_bilinear_antialias": (18, "needs ONNX opset 18 (Resize with 'antialias')"),
    "upsample_bicubic_antialias": (18, "needs ONNX opset 18 (Resize with 'antialias')"),
    "upsample_bicubic_antialias_grow": (18, "needs ONNX opset 18 (Resize with 'antialias')"),
    "stft_two_sided@training": (17, "needs ONNX opset 17 (STFT)"),
    "stft_two_sided@core": (17, "needs ONNX opset 17 (DFT)"),
    "stft_two_sided_f64@training": (17, "needs ONNX opset 17 (STFT)"),
    "stft_two_sided_f64@core": (17, "needs ONNX opset 17 (DFT)"),
    "resolve_conj": (17, "needs ONNX opset 17 (DFT)"),
    "irfft_dynamic_length": (17, "needs ONNX opset 17 (DFT)"),
    "irfft_dynamic_length_f64": (17, "needs ONNX opset 17 (DFT)"),
    "complex_buffer_output": (17, "needs ONNX opset 17 (DFT)"),
    "view_dtype": (26, "needs ONNX opset 26 (BitCast)"),
    "complex_spectral_conv": (17, "needs ONNX opset 17 (DFT)"),
}


# ONNX Runtime 1.31 has kernels for RandomUniformLike / RandomNormalLike
# up to version 1 only (opset 22 revised them): at opsets from 22 these
# samples are checked by the ONNX checker, and run at 21. The same for
# RoiAlign, which it has up to version 16 (opset 22 revised it).
RUNTIME_NEWEST = {"rand": 21, "randn": 21, "randperm": 21, "core_randn": 21, "torchvision_roi_align": 21}

# ONNX Runtime 1.32 crashes (SIGSEGV) creating a session for these files
# with its default graph optimizations; the named optimizer is the one
# whose absence avoids it. The file is valid (ONNX checker, full check)
# and runs with it disabled, which is what a user must do too
# (docs/pt2-coverage.md, bf16 programs).
ORT_DISABLED_OPTIMIZERS = {"bf16_lstm_proj@training": ["NchwcTransformer"]}


def refusal(name, level, opset):
    why = REFUSED.get(f"{name}@{level}", REFUSED.get(name))
    if why:
        return why
    need = NEEDS_OPSET.get(f"{name}@{level}", NEEDS_OPSET.get(name))
    return need[1] if need and opset < need[0] else None


CASES = [(name, level, opset) for name in sorted(MANIFEST) for level in LEVELS for opset in OPSETS]


def _export(cli, name, level, out, opset):
    model = os.path.join(FIXTURES, LEVELS[level].format(name))
    extra = MANIFEST[name].get("cli", [])  # e.g. --upcast-bf16 for the bf16 samples
    return run_export(cli, [model, "-o", out, "--opset", str(opset), *extra])


@pytest.mark.parametrize("name,level,opset", CASES)
def test_sample(name, level, opset, cli, tmp_path):
    spec = MANIFEST[name]
    out = str(tmp_path / f"{name}.{level}.{opset}.onnx")
    rc, log = _export(cli, name, level, out, opset)
    why = refusal(name, level, opset)
    if why:
        assert rc != 0 and why in log, f"{name} ({level}, opset {opset}) should be refused ({why}):\n{log}"
        assert not os.path.exists(out), "a refused export left a file behind"
        return
    assert rc == 0, f"export of {name} ({level}, opset {opset}) failed:\n{log}"
    model = onnx.load(out)
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [opset]
    if opset > RUNTIME_NEWEST.get(name, opset):
        onnx.checker.check_model(model, full_check=True)
        out = str(tmp_path / f"{name}.{level}.runnable.onnx")
        rc, log = _export(cli, name, level, out, RUNTIME_NEWEST[name])
        assert rc == 0, f"export of {name} ({level}, opset {RUNTIME_NEWEST[name]}) failed:\n{log}"
        model = onnx.load(out)
    data = np.load(os.path.join(FIXTURES, f"{name}.npz"))
    check_in_runtime(out, spec, data, f"{name} ({level}, opset {opset})",
                     disabled_optimizers=ORT_DISABLED_OPTIMIZERS.get(f"{name}@{level}", []))


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_sample_checked_at_newest_opset(name, cli, tmp_path):
    """Opset 28 is beyond ONNX Runtime 1.31: the export's own ONNX checker and
    strict shape inference judge the form of every node."""
    for level in LEVELS:
        out = str(tmp_path / f"{name}.{level}.onnx")
        rc, log = _export(cli, name, level, out, NEWEST)
        if refusal(name, level, NEWEST):
            assert rc != 0, f"{name} ({level}) should be refused at opset {NEWEST}"
            continue
        assert rc == 0, f"export of {name} ({level}) at opset {NEWEST} failed:\n{log}"
        onnx.checker.check_model(onnx.load(out), full_check=True)


def test_default_opset(cli, tmp_path):
    """An export without --opset is at the default the suite runs (DEFAULT),
    IR 9: what torch.onnx.export(dynamo=True) writes."""
    out = str(tmp_path / "add_mul.onnx")
    rc, log = run_export(cli, [os.path.join(FIXTURES, "add_mul.pt2"), "-o", out])
    assert rc == 0, log
    model = onnx.load(out)
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [DEFAULT]
    assert model.ir_version == 9
    onnx.checker.check_model(model, full_check=True)
