"""``modelexport.export``: the parts that run without PyTorch 2.

The test venv has Debian's torch 1.13, which has no torch.export: these
tests check the error it then gets, that the package does not import torch,
and the native half of export() (export_archive) on a real torch.export
archive written by torch 2.15 (tests/fixtures/pt2), checked in ONNX Runtime.
The torch 2.x half is checked by hand with examples/export_torch_models.py.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

import modelexport as mx
from modelexport import pytorch_export

from conftest import REPO

FIXTURES = REPO / "tests" / "fixtures" / "pt2"


@pytest.fixture()
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary directory export() sees: empty again after each call."""
    directory = tmp_path / "scratch"
    directory.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(directory))
    return directory


def copy_fixture(name: str, seen: List[str]):
    def write(path: str) -> None:
        seen.append(path)
        mode = stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode)
        assert mode == 0o700, f"archive directory mode {mode:o}"
        shutil.copyfile(FIXTURES / name, path)
    return write


def test_package_does_not_import_torch() -> None:
    code = "import sys, modelexport; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_torch_without_torch_export_is_an_import_error(tmp_path: Path, scratch: Path) -> None:
    if importlib.util.find_spec("torch") is None:
        with pytest.raises(ImportError, match="torch is not installed"):
            mx.export(object(), (), tmp_path / "x.onnx")
        return
    import torch

    if importlib.util.find_spec("torch.export") is not None:
        pytest.fail(f"torch {torch.__version__} has torch.export: this test is for the test "
                    "venv's torch 1.13; the torch 2.x path is examples/export_torch_models.py")
    with pytest.raises(ImportError) as info:
        mx.export(torch.nn.Linear(2, 2), (torch.randn(1, 2),), tmp_path / "linear.onnx")
    assert "torch.export" in str(info.value) and torch.__version__ in str(info.value)
    assert not (tmp_path / "linear.onnx").exists()
    assert list(scratch.iterdir()) == []


def test_unknown_keyword_is_a_type_error(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="tag_storgae"):
        mx.export(object(), (), tmp_path / "x.onnx", tag_storgae="none")


def test_export_archive_writes_model_and_removes_archive(tmp_path: Path, scratch: Path) -> None:
    import numpy as np
    import onnxruntime as ort

    seen: List[str] = []
    out = tmp_path / "mlp.onnx"
    stages = set()
    with pytorch_export.export_archive(copy_fixture("tiny_mlp.pt2", seen), out,
                                       progress=lambda p: stages.add(p.stage)) as model:
        records = [n.record for n in model.nodes()]
        assert records and all(r is not None for r in records), "every node has a module"
        assert {"head", "body.0"} <= {r.module for r in records}, "nodes in their modules"
    assert {"write"} <= stages, stages
    assert len(seen) == 1 and not os.path.exists(seen[0])
    assert list(scratch.iterdir()) == [], "the private archive directory was left behind"
    assert out.is_file() and (tmp_path / "mlp.hierarchy.json").is_file()
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    for suffix in ("", "2"):  # batch 2, then 5: the batch stays dynamic
        inputs = dict(np.load(FIXTURES / f"tiny_mlp.inputs{suffix}.npz"))
        expected = np.load(FIXTURES / f"tiny_mlp.outputs{suffix}.npz")["o0"]
        (got,) = session.run(None, inputs)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_export_archive_external_data_past_the_threshold(tmp_path: Path, scratch: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # The default writes <f>.data for a model over EXTERNAL_DATA_OVER (1 MiB;
    # lowered here so the tiny fixture is over it); external_data=False keeps
    # one file.
    import onnxruntime as ort
    monkeypatch.setattr(pytorch_export, "EXTERNAL_DATA_OVER", 64)
    out = tmp_path / "mlp.onnx"
    with pytorch_export.export_archive(copy_fixture("tiny_mlp.pt2", []), out):
        pass
    assert (tmp_path / "mlp.onnx.data").is_file()
    ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    inline = tmp_path / "inline.onnx"
    with pytorch_export.export_archive(copy_fixture("tiny_mlp.pt2", []), inline, external_data=False):
        pass
    assert not (tmp_path / "inline.onnx.data").exists()


def test_export_archive_without_f_writes_nothing(tmp_path: Path, scratch: Path) -> None:
    with pytorch_export.export_archive(copy_fixture("tiny_mlp.pt2", []), None,
                                       tag_storage="none") as model:
        assert len(model) > 0
    assert list(scratch.iterdir()) == []
    assert list(tmp_path.iterdir()) == [scratch]


def test_archive_removed_when_writing_it_fails(tmp_path: Path, scratch: Path) -> None:
    def half_write(path: str) -> None:
        Path(path).write_bytes(b"PK\x03\x04")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        pytorch_export.export_archive(half_write, tmp_path / "x.onnx")
    assert list(scratch.iterdir()) == []
    assert not (tmp_path / "x.onnx").exists()


def test_archive_removed_when_the_native_export_fails(tmp_path: Path, scratch: Path) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        pytorch_export.export_archive(lambda p: Path(p).write_bytes(b"not a zip"), tmp_path / "x.onnx",
                                      source="the program of Net")
    # The message names what the caller handed over, not the private file.
    assert "the program of Net" in info.value.message, info.value.message
    assert str(scratch) not in info.value.message
    assert list(scratch.iterdir()) == []
    assert not (tmp_path / "x.onnx").exists()


def test_archive_removed_when_cancelled(tmp_path: Path, scratch: Path) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        pytorch_export.export_archive(copy_fixture("tiny_mlp.pt2", []), tmp_path / "x.onnx",
                                      progress=lambda p: False)
    assert info.value.code is mx.ErrorCode.CANCELLED
    assert list(scratch.iterdir()) == []
    assert not (tmp_path / "x.onnx").exists()
