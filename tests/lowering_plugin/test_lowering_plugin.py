"""A third-party lowering plugin (examples/plugins/lowering_custom_op, C)
lowers a user's torch.library.custom_op: mylib.scaled_add.default in module
'block' of tests/fixtures/custom_op/scaled_add*.pt2 (both IR levels keep the
op). ONNX Runtime against eager PyTorch at two batch sizes; the plugin's
nodes in the op's module; without the plugin an error naming the op, its
node, its module and the remedies; a target lowered twice or a wrong ABI
refused with both names / the reason."""
import json
import os
import subprocess

import numpy as np
import onnxruntime as ort
import pytest

MX = os.environ.get("MODELEXPORT_BIN", "modelexport")
BUILD_PLUGINS = os.environ["MX_BUILD_PLUGIN_DIR"]
LOWERING = os.environ["MX_LOWERING_DIR"]
FIXTURES = os.environ["MX_CUSTOM_OP_FIXTURES"]


def run(args, *plugin_dirs):
    env = dict(os.environ, MODELEXPORT_PLUGIN_PATH=":".join([BUILD_PLUGINS, *plugin_dirs]))
    return subprocess.run([MX, *args], capture_output=True, text=True, env=env, timeout=120)


def export(tmp_path, level, *plugin_dirs):
    model = os.path.join(FIXTURES, "scaled_add.pt2" if level == "training" else "scaled_add.core.pt2")
    out = tmp_path / "m.onnx"
    return run(["export", model, "-o", str(out)], *plugin_dirs), out


@pytest.mark.parametrize("level", ["training", "core"])
def test_plugin_lowers_the_custom_op(tmp_path, level):
    r, out = export(tmp_path, level, os.path.join(LOWERING, "mylib"))
    assert r.returncode == 0, r.stderr
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    for suffix in ("", "2"):  # batch 2 (the export's) and 5
        x = np.load(os.path.join(FIXTURES, f"scaled_add.inputs{suffix}.npz"))["x"]
        want = np.load(os.path.join(FIXTURES, f"scaled_add.outputs{suffix}.npz"))["o0"]
        got = session.run(None, {session.get_inputs()[0].name: x})[0]
        assert got.shape == want.shape and np.abs(got - want).max() <= 1e-5, (suffix, np.abs(got - want).max())
    doc = json.loads((tmp_path / "m.hierarchy.json").read_text())
    placed = {n["name"]: (n["module"], n["evidence"]) for n in doc["nodes"]}
    assert placed.get("/block/Mul") == ("block", "direct"), placed
    assert placed.get("/block/Add") == ("block", "direct"), placed


def test_without_the_plugin_the_error_names_op_node_module_and_remedy(tmp_path):
    r, out = export(tmp_path, "training")
    assert r.returncode != 0 and not out.exists()
    assert "mylib.scaled_add.default (node 'scaled_add' in module 'block')" in r.stderr, r.stderr
    assert "is a custom op of another library" in r.stderr, r.stderr
    assert "ep.run_decompositions()" in r.stderr and "lowering plugin" in r.stderr, r.stderr
    assert "lowering plugins found: none" in r.stderr, r.stderr


def test_the_registry_lists_lowering_plugins_and_refuses_a_wrong_abi():
    r = run(["plugins", "--json"], os.path.join(LOWERING, "mylib"), os.path.join(LOWERING, "badabi"))
    assert r.returncode == 0, r.stderr
    by_file = {os.path.basename(p.get("path", "")): p for p in json.loads(r.stdout)["plugins"]}
    good = by_file["libmx_lowering_mylib.so"]
    assert (good["name"], good["kind"], good["status"], good["ops"]) == ("mylib", "lowering", "loaded", 1), good
    bad = by_file["libmx_lowering_badabi.so"]
    assert bad["status"] == "refused" and "lowering plugin ABI 99." in bad["reason"], bad


def test_a_wrong_abi_copy_does_not_stop_the_export(tmp_path):
    r, _ = export(tmp_path, "training", os.path.join(LOWERING, "badabi"), os.path.join(LOWERING, "mylib"))
    assert r.returncode == 0, r.stderr


def test_one_op_lowered_by_two_plugins_is_an_error_naming_both(tmp_path):
    r, out = export(tmp_path, "training", os.path.join(LOWERING, "mylib"), os.path.join(LOWERING, "twice"))
    assert r.returncode != 0 and not out.exists()
    assert "lowering plugins 'mylib'" in r.stderr and "'mylib-twice'" in r.stderr, r.stderr
    assert "both lower mylib.scaled_add.default" in r.stderr, r.stderr


def test_a_plugin_claiming_a_builtin_op_is_an_error_naming_both(tmp_path):
    r, _ = export(tmp_path, "training", os.path.join(LOWERING, "mylib"), os.path.join(LOWERING, "builtin"))
    assert r.returncode != 0
    assert "lowering plugin 'claims-add'" in r.stderr and "aten.add.Tensor" in r.stderr, r.stderr
    assert "built-in lowering of aten_onnx/src/lower/elementwise.cpp" in r.stderr, r.stderr


def test_a_failing_callback_is_an_error_naming_plugin_node_module_and_reason(tmp_path):
    r, out = export(tmp_path, "training", os.path.join(LOWERING, "other_domain"))
    assert r.returncode != 0 and not out.exists()
    assert "lowering plugin 'mylib'" in r.stderr, r.stderr
    assert "failed at node 'scaled_add' (mylib.scaled_add.default) in module 'block'" in r.stderr, r.stderr
    assert "domain 'com.example'" in r.stderr, r.stderr


def test_a_second_plugin_of_the_same_name_is_refused_and_the_first_kept(tmp_path):
    r = run(["plugins", "--json"], os.path.join(LOWERING, "mylib"), os.path.join(LOWERING, "same_name"))
    by_file = {os.path.basename(p.get("path", "")): p for p in json.loads(r.stdout)["plugins"]}
    assert by_file["libmx_lowering_mylib.so"]["status"] == "loaded"
    second = by_file["libmx_lowering_same_name.so"]
    assert second["status"] == "refused", second
    assert "a lowering plugin named 'mylib' is already registered from" in second["reason"], second
    r, _ = export(tmp_path, "training", os.path.join(LOWERING, "mylib"), os.path.join(LOWERING, "same_name"))
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("level", ["training", "core"])
def test_abi_1_1_reads_symints_lists_and_strings_and_binds_a_list(tmp_path, level):
    """list_ops.c: mylib::tile (SymInt[] reps = [1, batch]), scale_by_len
    (SymInt n = batch) and sum_diff (Tensor[] and str in, Tensor[] out),
    every argument computed from the dynamic batch: exact at batch 2 and 5."""
    model = os.path.join(FIXTURES, "list_ops.pt2" if level == "training" else "list_ops.core.pt2")
    out = tmp_path / "m.onnx"
    r = run(["export", model, "-o", str(out)], os.path.join(LOWERING, "list_ops"))
    assert r.returncode == 0, r.stderr
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    for suffix in ("", "2"):
        x = np.load(os.path.join(FIXTURES, f"list_ops.inputs{suffix}.npz"))["x"]
        want = np.load(os.path.join(FIXTURES, f"list_ops.outputs{suffix}.npz"))
        got = session.run(None, {session.get_inputs()[0].name: x})
        for k, g in enumerate(got):
            w = want[f"o{k}"]
            assert g.shape == w.shape and np.abs(g - w).max() <= 1e-5, (suffix, k, g.shape, w.shape)
    doc = json.loads((tmp_path / "m.hierarchy.json").read_text())
    placed = {n["name"]: n["module"] for n in doc["nodes"]}
    for node in ("/block/Tile", "/block/Cast", "/block/Mul", "/block/Add", "/block/Sub"):
        assert placed.get(node) == "block", (node, placed)


def test_a_list_bound_with_too_few_values_is_an_error_naming_the_counts(tmp_path):
    out = tmp_path / "m.onnx"
    model = os.path.join(FIXTURES, "list_ops.pt2")
    r = run(["export", model, "-o", str(out)], os.path.join(LOWERING, "list_ops_bind_one"))
    assert r.returncode != 0 and not out.exists()
    assert "lowering plugin 'list-ops'" in r.stderr and "mylib.sum_diff.default" in r.stderr, r.stderr
    assert "bind_output_list 0: 1 values for a list of 2" in r.stderr, r.stderr
