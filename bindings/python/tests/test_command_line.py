"""``python -m modelexport`` and the console script run the native CLI.

The CLI is found next to the library test.sh points MODELEXPORT_LIBRARY at
(the build tree's sdk/), as it is next to an installed SDK's library.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import List

import modelexport as mx
from modelexport import command_line

HERE = Path(__file__).resolve().parents[1]


def run(args: List[str], **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(HERE / "src"), **env}
    return subprocess.run([sys.executable, "-m", "modelexport", *args], capture_output=True,
                          text=True, env=environment)


def test_version_is_the_native_cli() -> None:
    p = run(["--version"])
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"modelexport {mx.version()}"


def test_command_help() -> None:
    p = run(["export", "--help"])
    assert p.returncode == 0, p.stderr
    assert "usage: modelexport export" in p.stdout and "example:" in p.stdout


def test_exit_codes_pass_through() -> None:
    p = run(["frobnicate"])
    assert p.returncode == 2
    assert "unknown command 'frobnicate'" in p.stderr
    p = run(["inspect", "/nonexistent/m.onnx"])
    assert p.returncode == 1


def test_tag_through_python_m(scoped_onnx: Path, tmp_path: Path, plugin_dirs: list) -> None:
    out = tmp_path / "tagged.onnx"
    p = run(["tag", str(scoped_onnx), "-o", str(out), "--strategy", "scope", "-q"])
    assert p.returncode == 0, p.stderr
    assert "wrote" in p.stdout
    with mx.Model.load_file(out) as model:
        assert {n.record.module for n in model.nodes()} == {"encoder.layer.0.linear",
                                                           "encoder.layer.0.act", "head"}


def test_explicit_cli_that_is_not_one(tmp_path: Path) -> None:
    fake = tmp_path / "modelexport"
    fake.write_text("#!/bin/sh\necho hi\n")
    fake.chmod(0o755)
    p = run(["--version"], MODELEXPORT_CLI=str(fake))
    assert p.returncode == 1
    assert "MODELEXPORT_CLI" in p.stderr and "not an executable modelexport CLI" in p.stderr


def test_found_cli_is_next_to_the_library(monkeypatch) -> None:
    monkeypatch.delenv("MODELEXPORT_CLI", raising=False)
    cli = Path(command_line.find_cli())
    libdir = Path(os.path.realpath(mx.library().path)).parent
    assert cli.name == "modelexport" and os.access(cli, os.X_OK)
    assert cli.parent in (libdir, libdir.parent / "bin", libdir.parent.parent / "bin"), (cli, libdir)


def test_console_script_entry_point() -> None:
    with open(HERE / "pyproject.toml", "rb") as f:
        scripts = tomllib.load(f)["project"]["scripts"]
    module, _, function = scripts["modelexport"].partition(":")
    code = (f"import sys, {module} as m; sys.argv[0] = 'modelexport'; "
            f"sys.exit(m.{function}(['validate', '--help']))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(HERE / "src")})
    assert p.returncode == 0, p.stderr
    assert "usage: modelexport validate" in p.stdout
