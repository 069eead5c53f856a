"""Shared fixtures for the end-to-end export tests.

The exporter is found, in order, through
  MODELEXPORT_CLI      the `modelexport` CLI (plugins from MODELEXPORT_PLUGIN_PATH)
  MXTS_EXPORT          the torchscript dev tool (plugins/torchscript/tools)
  a build directory    <repo>/build*/sdk/modelexport (+ plugins-out), then
                       <repo>/build*/plugins/torchscript/mxts-export
"""
import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
FIXTURES = os.environ.get("MODELEXPORT_FIXTURES", os.path.join(REPO, "tests", "fixtures", "generated"))


def _find_exporter():
    cli = os.environ.get("MODELEXPORT_CLI")
    if cli and os.path.exists(cli):
        return ("cli", cli, os.environ.get("MODELEXPORT_PLUGIN_PATH", ""))
    tool = os.environ.get("MXTS_EXPORT")
    if tool and os.path.exists(tool):
        return ("tool", tool, "")
    for build in sorted(glob.glob(os.path.join(REPO, "build*"))):
        cli = os.path.join(build, "sdk", "modelexport")
        plugin = glob.glob(os.path.join(build, "plugins-out", "libmodelexport_torchscript*"))
        if os.path.exists(cli) and plugin:
            return ("cli", cli, os.path.join(build, "plugins-out"))
    for build in sorted(glob.glob(os.path.join(REPO, "build*"))):
        tool = os.path.join(build, "plugins", "torchscript", "mxts-export")
        if os.path.exists(tool):
            return ("tool", tool, "")
    return None


class Exporter:
    def __init__(self, kind, path, plugin_dir):
        self.kind, self.path, self.plugin_dir = kind, path, plugin_dir

    def run(self, model, out, specs, extra=()):
        """Exports; returns (returncode, stdout+stderr, hierarchy path)."""
        hier = os.path.splitext(out)[0] + ".hierarchy.json"
        if self.kind == "cli":
            cmd = [self.path, "export", model, "-o", out]
            for s in specs:
                cmd += ["--input", s]
            env = dict(os.environ)
            if self.plugin_dir:
                env["MODELEXPORT_PLUGIN_PATH"] = self.plugin_dir
        else:
            cmd = [self.path, model, out, "--hierarchy", hier]
            for s in specs:
                cmd += ["-i", s]
            env = dict(os.environ)
        cmd += list(extra)
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        return p.returncode, p.stdout + p.stderr, hier


@pytest.fixture(scope="session")
def fixtures_dir():
    script = os.path.join(HERE, "make_fixtures.py")
    subprocess.run([sys.executable, script, FIXTURES], check=True)
    return FIXTURES


@pytest.fixture(scope="session")
def manifest(fixtures_dir):
    with open(os.path.join(fixtures_dir, "manifest.json")) as f:
        return json.load(f)


@pytest.fixture(scope="session")
def exporter():
    found = _find_exporter()
    if not found:
        pytest.skip("no modelexport CLI or mxts-export found (build the torchscript plugin)")
    return Exporter(*found)


@pytest.fixture(scope="session")
def exported(fixtures_dir, manifest, exporter, tmp_path_factory):
    """name -> (onnx path, hierarchy dict); each model exported once."""
    out_dir = tmp_path_factory.mktemp("onnx")
    cache = {}

    def get(name):
        if name not in cache:
            model = os.path.join(fixtures_dir, f"{name}.pt")
            out = str(out_dir / f"{name}.onnx")
            rc, log, hier = exporter.run(model, out, manifest[name]["inputs"])
            assert rc == 0, f"export of {name} failed:\n{log}"
            with open(hier) as f:
                cache[name] = (out, json.load(f))
        return cache[name]

    return get
