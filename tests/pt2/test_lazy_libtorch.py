"""Nothing loads LibTorch unless it exports a TorchScript file (issue 14):
the torchscript plugin the host discovers is a small entry that opens its
LibTorch part on first use (plugins/torchscript/src/lazy/). The dynamic
loader's own log (LD_DEBUG=files) says which libraries a process opened.
"""
import os
import subprocess

import pytest

from conftest import LEVELS

HERE = os.path.dirname(os.path.abspath(__file__))
NEWER_TS = os.path.join(HERE, "..", "fixtures", "torchscript_newer", "sdpa_torch2.pt")


def _loaded(cli, *args):
    env = dict(os.environ, LD_DEBUG="files")
    if cli.plugin_dir:
        env["MODELEXPORT_PLUGIN_PATH"] = cli.plugin_dir
    p = subprocess.run([cli.path, *args], capture_output=True, text=True, env=env, timeout=300)
    opened = [line for line in p.stderr.splitlines() if "file=" in line and "[0]" in line]
    return p, [line.split("file=", 1)[1].split()[0] for line in opened]


def _has_libtorch(libs):
    return any("libtorch" in lib or "libc10" in lib for lib in libs)


def test_listing_tagging_and_pt2_export_do_not_load_libtorch(cli, fixtures_dir, tmp_path):
    out = str(tmp_path / "m.onnx")
    p, libs = _loaded(cli, "export", os.path.join(fixtures_dir, LEVELS["training"].format("tiny_mlp")), "-o", out)
    assert p.returncode == 0, p.stderr[-2000:]
    assert not _has_libtorch(libs), "a .pt2 export loaded LibTorch"
    p, libs = _loaded(cli, "tag", out, "-o", str(tmp_path / "t.onnx"))
    assert p.returncode == 0, p.stderr[-2000:]
    assert not _has_libtorch(libs), "tag loaded LibTorch"
    p, libs = _loaded(cli, "plugins", "--json")
    assert p.returncode == 0 and '"torchscript"' in p.stdout, p.stdout
    assert not _has_libtorch(libs), "listing the plugins loaded LibTorch"


def test_a_torchscript_export_does_load_it(cli, tmp_path):
    """The control: the same probe of the loader sees LibTorch when a
    TorchScript file is exported (this one fails inside LibTorch: newer op)."""
    if not os.path.exists(NEWER_TS):
        pytest.skip("no TorchScript fixture")
    p, libs = _loaded(cli, "export", NEWER_TS, "-o", str(tmp_path / "s.onnx"))
    if "no frontend" in p.stderr and "torchscript" not in p.stderr:
        pytest.skip("this build has no torchscript plugin")
    assert "scaled_dot_product_attention" in p.stderr
    assert _has_libtorch(libs)
