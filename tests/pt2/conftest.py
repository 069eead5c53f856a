"""Shared fixtures for the end-to-end tests of the torch.export (.pt2) frontend.

No torch here: the test venv (numpy, onnx, onnxruntime, pytest) reads the
committed fixtures of tests/fixtures/pt2 (made once by make_fixtures.py in a
venv with torch 2.15) and runs the CLI.

The CLI and its plugins are found by tests/support/cli_path.py.
"""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "support"))
from cli_path import find_cli  # noqa: E402

FIXTURES = os.environ.get("MODELEXPORT_PT2_FIXTURES", os.path.join(REPO, "tests", "fixtures", "pt2"))
LEVELS = {"training": "{}.pt2", "core": "{}.core.pt2"}


class Cli:
    def __init__(self, path, plugin_dir):
        self.path, self.plugin_dir = path, plugin_dir

    def export(self, model, out, extra=()):
        """`modelexport export MODEL -o OUT [extra]`; returns (rc, log, sidecar path)."""
        cmd = [self.path, "export", model, "-o", out, *extra]
        env = dict(os.environ)
        if self.plugin_dir:
            env["MODELEXPORT_PLUGIN_PATH"] = self.plugin_dir
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
        lines = (p.stdout + p.stderr).splitlines()
        log = "\n".join(lines if len(lines) <= 40 else ["…"] + lines[-40:])
        return p.returncode, f"$ {' '.join(cmd)}\n{log}", os.path.splitext(out)[0] + ".hierarchy.json"


@pytest.fixture(scope="session")
def fixtures_dir():
    if not os.path.exists(os.path.join(FIXTURES, "manifest.json")):
        pytest.fail(f"no .pt2 fixtures in {FIXTURES} (run tests/fixtures/pt2/make_fixtures.py)")
    return FIXTURES


@pytest.fixture(scope="session")
def manifest(fixtures_dir):
    with open(os.path.join(fixtures_dir, "manifest.json")) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def cli():
    found = find_cli()
    if not found:
        pytest.skip("no modelexport CLI (set MODELEXPORT_BIN)")
    return Cli(*found)


@pytest.fixture(scope="session")
def exported(fixtures_dir, cli, tmp_path_factory):
    """(name, level) -> (onnx path, hierarchy dict or None, log); each exported once."""
    out_dir = tmp_path_factory.mktemp("pt2_onnx")
    cache = {}

    def get(name, level):
        key = (name, level)
        if key not in cache:
            model = os.path.join(fixtures_dir, LEVELS[level].format(name))
            out = str(out_dir / f"{name}.{level}.onnx")
            rc, log, sidecar = cli.export(model, out)
            cache[key] = (rc, out, sidecar, log)
        rc, out, sidecar, log = cache[key]
        assert rc == 0, f"export of {name} ({level}) failed:\n{log}"
        assert os.path.exists(out), f"export of {name} ({level}) wrote no file:\n{log}"
        hier = None
        if os.path.exists(sidecar):
            with open(sidecar) as f:
                hier = json.load(f)
        return out, hier, log

    return get


@pytest.fixture(scope="session")
def expected(fixtures_dir):
    cache = {}

    def get(name):
        if name not in cache:
            with open(os.path.join(fixtures_dir, f"{name}.expected.json")) as f:
                cache[name] = json.load(f)
        return cache[name]

    return get
