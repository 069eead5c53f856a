"""TorchScript weights by reference (plugins/torchscript/README.md, "Weights
by reference"): the frontend answers each parameter that is stored as it is
in the .pt as (location = the model path, offset, length) into the file, so
the host copies it once, from the .pt into the output. Checked on the
frontend's own answer (mxts-export --weights-by-reference): every initializer
of 1 KiB or more refers to the .pt, and the bytes there are the ones the
default export carries inline; a weight the graph passes rewrote (stored
permuted, a permuted copy, a Conv weight or bias with a BatchNormalization
folded in: the sidecar's graph_passes) is derived, never a reference.
"""
import glob
import json
import os
import subprocess

import onnx
import pytest

from conftest import REPO

NAMES = ["bert_tiny", "gpt2_tiny"]


def _tool():
    tool = os.environ.get("MXTS_EXPORT")
    if tool and os.path.exists(tool):
        return tool
    for build in sorted(glob.glob(os.path.join(REPO, "build*"))):
        tool = os.path.join(build, "plugins", "torchscript", "mxts-export")
        if os.path.exists(tool):
            return tool
    pytest.skip("mxts-export not built")


def _export(model, out, specs, extra=()):
    cmd = [_tool(), model, out, "--hierarchy", out + ".json"] + list(extra)
    for s in specs:
        cmd += ["-i", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    return onnx.load(out, load_external_data=False)


def _external(t):
    return {e.key: e.value for e in t.external_data}


@pytest.mark.parametrize("name", NAMES)
def test_parameters_refer_to_the_pt(name, fixtures_dir, manifest, tmp_path):
    pt = os.path.join(fixtures_dir, f"{name}.pt")
    specs = manifest[name]["inputs"]
    inline = _export(pt, str(tmp_path / "inline.onnx"), specs)
    by_ref = _export(pt, str(tmp_path / "ref.onnx"), specs, ["--weights-by-reference"])
    ref = {t.name: t for t in by_ref.graph.initializer}
    assert set(ref) == {t.name for t in inline.graph.initializer}
    referred = 0
    with open(pt, "rb") as f:
        for t in inline.graph.initializer:
            r = ref[t.name]
            if len(t.raw_data) < 1024:
                assert r.data_location != onnx.TensorProto.EXTERNAL, t.name
                continue
            # tied or derived tensors may stay inline; a reference must be exact
            if r.data_location != onnx.TensorProto.EXTERNAL:
                assert r.raw_data == t.raw_data, t.name
                continue
            ext = _external(r)
            assert ext["location"] == pt, (t.name, ext)
            assert int(ext["length"]) == len(t.raw_data), t.name
            f.seek(int(ext["offset"]))
            assert f.read(len(t.raw_data)) == t.raw_data, f"{t.name}: bytes at the offset differ"
            referred += 1
    with open(str(tmp_path / "ref.onnx") + ".json") as f:
        passes = json.load(f).get("graph_passes", {})
    derived = set(passes.get("stored_permuted", {})) | set(passes.get("permuted_copies", {}))
    derived |= set(passes.get("weight_constants", {}))  # computed from weights at export (fold_weight_data)
    for weight, bn in passes.get("folded_batch_norms", {}).items():
        derived |= {weight, bn["bias"]}
    for weight, a in passes.get("folded_channel_affines", {}).items():
        derived |= {weight, a["bias"]}
    big = sum(1 for t in inline.graph.initializer if len(t.raw_data) >= 1024 and t.name not in derived)
    assert referred == big, f"{referred} of {big} initializers of 1 KiB and more answered by reference"
