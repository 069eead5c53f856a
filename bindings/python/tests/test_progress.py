"""``progress=`` on the long calls: reports arrive as :class:`mx.Progress`,
the last of a counted stage has done == total, returning False cancels
(ErrorCode.CANCELLED, nothing written, the model unchanged) and an
exception raised by the callback comes back out of the call."""
from __future__ import annotations

from pathlib import Path
from typing import List

import pytest

import modelexport as mx

REPO = Path(__file__).resolve().parents[3]
PT2 = REPO / "tests" / "fixtures" / "pt2" / "tiny_mlp.pt2"


@pytest.fixture()
def registry(plugin_dirs: list) -> mx.Registry:
    with mx.Registry(discover=False, plugin_dirs=plugin_dirs) as r:
        yield r


def stages(reports: List[mx.Progress]) -> List[str]:
    out: List[str] = []
    for r in reports:
        if not out or out[-1] != r.stage:
            out.append(r.stage)
    return out


def last_of(reports: List[mx.Progress], stage: str) -> mx.Progress:
    return [r for r in reports if r.stage == stage][-1]


def test_export_pt2_reports_lowering(registry: mx.Registry) -> None:
    reports: List[mx.Progress] = []
    with registry.export(PT2, progress=reports.append) as model:
        assert model.node_count > 0
    assert stages(reports) == ["export", "lower", "load"]
    lower = last_of(reports, "lower")
    assert lower.unit == "nodes" and lower.total > 0 and lower.done == lower.total
    assert lower.fraction == 1.0
    assert reports[0].fraction is None  # "export" counts nothing


def test_export_torchscript_reports_the_walk(registry: mx.Registry, tiny_pt: Path) -> None:
    reports: List[mx.Progress] = []
    with registry.export(tiny_pt, ["x:float32[batch=2,4]"], progress=reports.append):
        pass
    walk = [r for r in reports if r.stage == "walk"]
    assert walk and walk[0].done == 0
    assert walk[-1].unit == "ops" and walk[-1].done == walk[-1].total > 0


def test_save_reports_bytes_written(model: mx.Model, tmp_path: Path) -> None:
    reports: List[mx.Progress] = []
    out = tmp_path / "out.onnx"
    model.save_file(out, progress=reports.append)
    assert stages(reports) == ["check", "write", "commit"]
    write = last_of(reports, "write")
    assert write.unit == "bytes" and write.done == write.total == out.stat().st_size


def test_tag_reports(registry: mx.Registry, model: mx.Model) -> None:
    tagged: List[mx.Progress] = []
    registry.tag(model, "scope", progress=tagged.append)
    assert stages(tagged) == ["tag", "propagate"]
    assert last_of(tagged, "tag").done == last_of(tagged, "tag").total == 1


def test_functions_report(registry: mx.Registry) -> None:
    with registry.export(PT2) as model:
        rewritten: List[mx.Progress] = []
        report = model.to_functions(["Linear"], progress=rewritten.append)
    functions = last_of(rewritten, "functions")
    assert functions.unit == "modules"
    assert functions.done == functions.total == report["calls"] + len(report["skipped"]) > 0


def test_returning_false_cancels_and_writes_nothing(model: mx.Model, tmp_path: Path) -> None:
    out = tmp_path / "out.onnx"
    with pytest.raises(mx.ModelExportError) as info:
        model.save_file(out, progress=lambda p: p.stage != "write")
    assert info.value.code == mx.ErrorCode.CANCELLED
    assert info.value.code_name == "cancelled"
    assert list(tmp_path.iterdir()) == [tmp_path / "tiny.onnx"]  # only the input


def test_cancelled_export_returns_no_model(registry: mx.Registry) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        registry.export(PT2, progress=lambda p: not (p.stage == "lower" and p.done >= 1))
    assert info.value.code == mx.ErrorCode.CANCELLED


def test_a_raising_callback_cancels_and_its_exception_comes_out(registry: mx.Registry,
                                                                model: mx.Model) -> None:
    before = model.hierarchy()

    class Stop(Exception):
        pass

    def stop(p: mx.Progress) -> None:
        if p.stage == "propagate":
            raise Stop("enough")

    with pytest.raises(Stop) as info:
        registry.tag(model, "scope", progress=stop)
    assert isinstance(info.value.__cause__, mx.ModelExportError)
    assert info.value.__cause__.code == mx.ErrorCode.CANCELLED
    assert model.hierarchy() == before  # tagging left the model as it was


def test_progress_must_be_callable(model: mx.Model, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="progress must be callable"):
        model.save_file(tmp_path / "x.onnx", progress=42)  # type: ignore[arg-type]
    assert not (tmp_path / "x.onnx").exists()
