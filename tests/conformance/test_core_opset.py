"""Every forward core ATen overload of torch 2.15 (core_aten_ops.txt, made by
core_aten_ops.py) has a registered lowering in the .pt2 frontend: lowered,
or refused by design with its reason (lower/refused.cpp and the opset-18
refusals, which name the opset). No third state: an op missing here fails."""
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def _core_ops():
    with open(os.path.join(HERE, "core_aten_ops.txt")) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def test_every_core_aten_overload_is_registered():
    tool = os.environ.get("MXTE_EXPORT")
    if not tool or not os.path.exists(tool):
        pytest.fail("MXTE_EXPORT (the mxte-export tool) is not set: the ctest harness sets it")
    p = subprocess.run([tool, "--lowerings"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    names = {line.split("\t")[1] for line in p.stdout.splitlines()}
    ops = _core_ops()
    assert len(ops) == 181
    missing = [op for op in ops if op not in names and op.rsplit(".", 1)[0] not in names]
    assert not missing, f"{len(missing)} core ATen overloads without a lowering: {missing}"
