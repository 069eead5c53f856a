"""Export with ONNX external data (`modelexport export --external-data`).

The frontend streams the weights into a data file in a private scratch
directory, the host loads that file lazily and saves OUT.onnx + OUT.onnx.data.
Checked: the files and their external references, ONNX Runtime against
LibTorch at two shapes, the same graph and records as an inline export, no
scratch directory left behind, `tag` and `inspect` on the result, and the
errors (no half-written output).
"""
import json
import os
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from test_export import _compare

MODELS = ["gpt2_tiny", "bert_tiny"]


@pytest.fixture(scope="session")
def cli(exporter):
    if exporter.kind != "cli":
        pytest.skip("external data goes through the host: needs the modelexport CLI")
    return exporter


def _run(cli, args, env_extra=None):
    env = dict(os.environ)
    if cli.plugin_dir:
        env["MODELEXPORT_PLUGIN_PATH"] = cli.plugin_dir
    env.update(env_extra or {})
    p = subprocess.run([cli.path] + args, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def _export(cli, fixtures_dir, manifest, name, out, extra=(), env_extra=None):
    args = ["export", os.path.join(fixtures_dir, f"{name}.pt"), "-o", str(out)]
    for s in manifest[name]["inputs"]:
        args += ["--input", s]
    return _run(cli, args + list(extra), env_extra)


def _external(model):
    """initializer name -> {location, offset, length} for external ones."""
    out = {}
    for t in model.graph.initializer:
        if t.data_location == onnx.TensorProto.EXTERNAL:
            out[t.name] = {e.key: e.value for e in t.external_data}
            assert not t.raw_data, t.name
    return out


@pytest.mark.parametrize("name", MODELS)
def test_external_data_parity(name, cli, fixtures_dir, manifest, exported, tmp_path):
    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    out = tmp_path / f"{name}.onnx"
    rc, log = _export(cli, fixtures_dir, manifest, name, out, ["--external-data"], {"TMPDIR": str(scratch)})
    assert rc == 0, log
    data = tmp_path / f"{name}.onnx.data"
    assert out.exists() and data.exists(), os.listdir(tmp_path)
    assert list(scratch.iterdir()) == [], "the export's scratch directory was not removed"

    # every weight of 1 KiB or more is in the data file, nothing else is
    model = onnx.load(str(out), load_external_data=False)
    ext = _external(model)
    assert ext, "no external initializer"
    assert {e["location"] for e in ext.values()} == {f"{name}.onnx.data"}
    for t in model.graph.initializer:
        if t.name not in ext:
            assert len(t.raw_data) < 1024, f"{t.name}: {len(t.raw_data)} bytes left inline"
    spans = sorted((int(e["offset"]), int(e["length"])) for e in ext.values())
    assert spans[0][0] == 0
    for (o1, l1), (o2, _) in zip(spans, spans[1:]):
        assert o1 + l1 <= o2, "overlapping tensors in the data file"
    assert spans[-1][0] + spans[-1][1] == data.stat().st_size
    assert out.stat().st_size < data.stat().st_size

    # same graph, weights and records as the inline export
    inline_path, inline_hier = exported(name)
    inline = onnx.load(inline_path)
    full = onnx.load(str(out))  # reads the data file
    assert [n.name for n in full.graph.node] == [n.name for n in inline.graph.node]
    assert [n.op_type for n in full.graph.node] == [n.op_type for n in inline.graph.node]
    want = {t.name: onnx.numpy_helper.to_array(t) for t in inline.graph.initializer}
    got = {t.name: onnx.numpy_helper.to_array(t) for t in full.graph.initializer}
    assert got.keys() == want.keys()
    for k in want:
        assert np.array_equal(got[k], want[k]), k
    with open(tmp_path / f"{name}.hierarchy.json") as f:
        hier = json.load(f)
    strip = lambda h: sorted((r["name"], r["module"], r["tag"], r["evidence"]) for r in h["nodes"])
    assert strip(hier) == strip(inline_hier)
    assert hier["modules"] == inline_hier["modules"]
    # records are on the nodes, as in an inline export
    if hasattr(full.graph.node[0], "metadata_props"):
        assert all(any(p.key == "modelexport.module" for p in n.metadata_props) for n in full.graph.node)

    onnx.checker.check_model(str(out), full_check=True)
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    _compare(sess, fixtures_dir, name, "")
    _compare(sess, fixtures_dir, name, "2")


def test_inline_by_default(cli, fixtures_dir, manifest, tmp_path):
    # under 1 MiB: one file
    out = tmp_path / "m.onnx"
    rc, log = _export(cli, fixtures_dir, manifest, "gpt2_tiny", out)
    assert rc == 0, log
    assert os.path.getsize(out) < 1 << 20
    assert not (tmp_path / "m.onnx.data").exists()
    assert not _external(onnx.load(str(out), load_external_data=False))


def test_external_by_default_over_one_mib(cli, fixtures_dir, manifest, tmp_path):
    # bert_tiny's weights are over 1 MiB: external data without a flag (ONNX
    # Runtime creates its session faster), inline with --no-external-data
    out = tmp_path / "m.onnx"
    rc, log = _export(cli, fixtures_dir, manifest, "bert_tiny", out)
    assert rc == 0, log
    data = tmp_path / "m.onnx.data"
    assert data.exists() and data.stat().st_size > 1 << 20
    assert _external(onnx.load(str(out), load_external_data=False))
    _compare(ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]), fixtures_dir, "bert_tiny", "")

    inline = tmp_path / "inline.onnx"
    rc, log = _export(cli, fixtures_dir, manifest, "bert_tiny", inline, ["--no-external-data"])
    assert rc == 0, log
    assert not (tmp_path / "inline.onnx.data").exists()
    assert not _external(onnx.load(str(inline), load_external_data=False))

    rc, log = _export(cli, fixtures_dir, manifest, "bert_tiny", tmp_path / "both.onnx",
                      ["--external-data", "--no-external-data"])
    assert rc != 0 and "contradict" in log, log
    assert not (tmp_path / "both.onnx").exists()


def test_tag_and_inspect_external(cli, fixtures_dir, manifest, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    out = src / "gpt2.onnx"
    rc, log = _export(cli, fixtures_dir, manifest, "gpt2_tiny", out, ["--external-data"])
    assert rc == 0, log

    rc, log = _run(cli, ["inspect", str(out)])
    assert rc == 0, log
    assert "h.0.attn" in log, log
    rc, log = _run(cli, ["inspect", str(out), "--json"])
    assert rc == 0, log
    info = json.loads(log)
    assert info, log
    rc, log = _run(cli, ["validate", str(out)])
    assert rc == 0, log

    # tag in another directory: the weights follow to tagged.onnx.data
    dst = tmp_path / "dst"
    dst.mkdir()
    tagged = dst / "tagged.onnx"
    rc, log = _run(cli, ["tag", str(out), "-o", str(tagged)])
    assert rc == 0, log
    assert (dst / "tagged.onnx.data").exists()
    ext = _external(onnx.load(str(tagged), load_external_data=False))
    assert ext and {e["location"] for e in ext.values()} == {"tagged.onnx.data"}
    sess = ort.InferenceSession(str(tagged), providers=["CPUExecutionProvider"])
    _compare(sess, fixtures_dir, "gpt2_tiny", "")

    # tag in place: the data file is rewritten while the model still reads it
    rc, log = _run(cli, ["tag", str(out), "-o", str(out)])
    assert rc == 0, log
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    _compare(sess, fixtures_dir, "gpt2_tiny", "2")


def test_external_data_needs_scratch(cli, fixtures_dir, manifest, tmp_path):
    # No usable $TMPDIR: the host sends no output_dir, as an old host would;
    # the frontend refuses external data with a clear message.
    out = tmp_path / "m.onnx"
    rc, log = _export(cli, fixtures_dir, manifest, "gpt2_tiny", out, ["--external-data"],
                      {"TMPDIR": str(tmp_path / "does-not-exist")})
    assert rc != 0, log
    assert "output_dir" in log and "external data" in log, log
    assert os.listdir(tmp_path) == [], "nothing written on failure"


def test_external_data_failure_leaves_nothing(cli, fixtures_dir, manifest, tmp_path):
    scratch = tmp_path / "tmpdir"
    scratch.mkdir()
    # fails after the weights were streamed: the output directory is missing
    out = tmp_path / "missing-dir" / "m.onnx"
    rc, log = _export(cli, fixtures_dir, manifest, "gpt2_tiny", out, ["--external-data"],
                      {"TMPDIR": str(scratch)})
    assert rc != 0, log
    assert list(scratch.iterdir()) == [], "scratch directory left behind"
    assert sorted(os.listdir(tmp_path)) == ["tmpdir"]

    # a failing export leaves an existing output and its data untouched
    rc, log = _export(cli, fixtures_dir, manifest, "gpt2_tiny", tmp_path / "good.onnx", ["--external-data"])
    assert rc == 0, log
    files = ("good.onnx", "good.onnx.data", "good.hierarchy.json")
    before = {p: (tmp_path / p).read_bytes() for p in files}
    rc, log = _export(cli, fixtures_dir, manifest, "unsupported", tmp_path / "good.onnx", ["--external-data"],
                      {"TMPDIR": str(scratch)})
    assert rc != 0, log
    assert {p: (tmp_path / p).read_bytes() for p in files} == before
    assert list(scratch.iterdir()) == []
    assert sorted(os.listdir(tmp_path)) == sorted(files + ("tmpdir",)), "temporary files left behind"
