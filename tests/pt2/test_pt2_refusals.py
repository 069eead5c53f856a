"""Bad .pt2 input gets a clear error naming the problem, nothing is written,
never a crash (issue 12). Inputs: the pt2_archive fuzz seeds
(fuzz/corpus/pt2_archive/, made by fuzz/corpus/make_pt2_seeds.py from a
small torch 2.15 program), one per defect, exported through the CLI."""
import os
import re
import subprocess

import pytest

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "fuzz", "corpus", "pt2_archive")
MX = os.environ.get("MODELEXPORT_BIN", "modelexport")
ENV = dict(os.environ)

CASES = [
    ("not_a_zip.pt2", "not a zip file"),
    ("truncated.pt2", r"no zip central directory \(truncated file\?\)|overruns the file"),
    ("compressed.pt2", r"is compressed \(method 8\); torch.export.save writes stored entries only"),
    ("dotdot_name.pt2", r"is absolute or climbs out with '\.\.'"),
    ("schema_major_7.pt2", r"schema version 7\.3; this frontend reads major version 8"),
    ("bad_format.pt2", r"archive_format is 'pt3', expected 'pt2'"),
    ("weight_overruns.pt2", r"tensor 'conv.weight': sizes/strides/offset overrun its data file"),
    ("undefined_value.pt2", r"reads value 'nowhere', which nothing defines"),
    ("uncomputed_output.pt2", r"reads value 'relu_extra', which is output 1 of node '\w+' \(aten\.relu\.default\), "
                              r"an output its lowering does not compute"),
    ("unknown_op.pt2", r"1 op\(s\) of the program have no ONNX lowering:\n  aten\.no_such_op\.default \(node '\w+' in module '\w*'\)"),
]


@pytest.mark.parametrize("name,message", CASES, ids=[c[0] for c in CASES])
def test_refused_clearly_nothing_written(tmp_path, name, message):
    out = tmp_path / "out.onnx"
    r = subprocess.run([MX, "export", os.path.join(CORPUS, name), "-o", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0, r.stdout
    assert r.returncode < 128, f"killed by a signal: {r.stderr}"
    assert re.search(message, r.stderr), r.stderr
    assert "internal error" not in r.stderr
    assert list(tmp_path.iterdir()) == [], "a refused export left files behind"


def test_every_unsupported_op_listed_at_once(tmp_path):
    """Two unknown ops: both in one message, each with its node and module."""
    r = subprocess.run([MX, "export", os.path.join(CORPUS, "two_unknown_ops.pt2"), "-o", str(tmp_path / "o.onnx")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "2 op(s) of the program have no ONNX lowering" in r.stderr, r.stderr
    assert "aten.no_such_op.default" in r.stderr and "aten.other_missing_op.default" in r.stderr


def test_newer_torchscript_names_the_op_and_the_pt2_route(tmp_path):
    """A TorchScript file torch 2.15 wrote with scaled_dot_product_attention:
    LibTorch 1.13 cannot load it; the message names the op and the .pt2 way
    (tests/fixtures/torchscript_newer/make_fixture.py)."""
    model = os.path.join(os.path.dirname(__file__), "..", "fixtures", "torchscript_newer", "sdpa_torch2.pt")
    r = subprocess.run([MX, "export", model, "-o", str(tmp_path / "o.onnx"), "--input", "x:float32[1,5,8]"],
                       capture_output=True, text=True, timeout=120)
    loaded = re.search(r"frontends: ([^)]*)\)", r.stderr)  # the file's own path says "torchscript"
    if "no frontend reads" in r.stderr and loaded and "torchscript" not in loaded.group(1).split(", "):
        pytest.skip("the torchscript frontend is not built")
    assert r.returncode != 0
    assert "scaled_dot_product_attention" in r.stderr, r.stderr
    assert "torch.export" in r.stderr and ".pt2" in r.stderr, r.stderr
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------- input specs
BERT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "pt2", "bert_tiny.pt2")


def _export_bert(tmp_path, *specs):
    args = [MX, "export", BERT, "-o", str(tmp_path / "b.onnx")]
    for s in specs:
        args += ["--input", s]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("spec,message", [
    ("input_ids:int64[batch=2,seq=65]", r"input 'input_ids' dim 1 = 65 is outside the range the program allows for s\d+: \[2, 64\]"),
    ("input_ids:float32[batch=2,seq=8]", r"input 'input_ids' .* has dtype float32 but the program's input 'input_ids' is int64"),
    ("input_ids:int64[2,8,1]", r"has rank 3 but the program expects rank 2"),
    ("token_ids:int64[2,8]", r"unknown input 'token_ids' .*the program's inputs are: input_ids, attention_mask"),
    ("input_ids:int64[batch=0,seq=8]", r"dim 'batch=0' must be at least 1"),
])
def test_input_spec_checked_against_the_program(tmp_path, spec, message):
    r = _export_bert(tmp_path, spec)
    assert r.returncode != 0
    assert re.search(message, r.stderr), r.stderr
    assert list(tmp_path.iterdir()) == []


def test_input_spec_names_the_dims_of_every_input_sharing_them(tmp_path):
    """A spec for input_ids names batch/seq; attention_mask shares the
    program's symbols, so its dims get the same names."""
    onnx = pytest.importorskip("onnx")
    r = _export_bert(tmp_path, "input_ids:int64[batch=2,seq=8]")
    assert r.returncode == 0, r.stderr
    m = onnx.load(str(tmp_path / "b.onnx"))
    dims = {i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim] for i in m.graph.input}
    assert dims == {"input_ids": ["batch", "seq"], "attention_mask": ["batch", "seq"]}, dims


# ------------------------------------------------------------- as_strided
STRIDED = os.path.join(os.path.dirname(__file__), "..", "fixtures", "pt2", "strided.pt2")


def _rewrite_model_json(src, dst, edit):
    """Copies a .pt2 with models/model.json edited (entries stay stored)."""
    import json
    import zipfile
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                model = json.loads(data)
                edit(model)
                data = json.dumps(model).encode()
            zout.writestr(info.filename, data, compress_type=zipfile.ZIP_STORED)


def test_as_strided_reading_outside_its_input_is_refused(tmp_path):
    """as_strided over a column slice (sizes [6, 4], strides [6, 1], offset 1)
    moved to storage offset 0 reads column 0, which the slice does not hold
    (the graph never had the parameter's other columns there): refused,
    naming the node, both layouts and the storage element."""
    def edit(model):
        node = next(n for n in model["graph_module"]["graph"]["nodes"]
                    if n["outputs"][0].get("as_tensor", {}).get("name") == "as_strided_1")
        offset = next(i for i in node["inputs"] if i["name"] == "storage_offset")
        offset["arg"] = {"as_int": 0}
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    bad = tmp_path / "in" / "strided_outside.pt2"
    _rewrite_model_json(STRIDED, bad, edit)
    r = subprocess.run([MX, "export", str(bad), "-o", str(tmp_path / "out" / "o.onnx")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and r.returncode < 128, r.stderr
    assert re.search(r"as_strided view \(sizes \[4, 4\], strides \[6, 1\], storage offset 0\) reads storage "
                     r"element 0, which is not an element of its input \(sizes \[6, 4\], strides \[6, 1\], "
                     r"storage offset 1\).* node 'as_strided_1' \(aten\.as_strided\.default\)", r.stderr), r.stderr
    assert list((tmp_path / "out").iterdir()) == [], "a refused export left files behind"
