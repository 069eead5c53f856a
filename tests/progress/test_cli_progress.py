"""The CLI's progress line: drawn on stderr when it is a terminal (a
pseudo-terminal here, from Python's pty module), never when it is not, and
not with --quiet. Runs `export` on a committed .pt2 fixture (torch_export
frontend, no LibTorch), then `tag` and `functions` on the result."""
import os
import pty
import re
import subprocess

import pytest

CLI = os.environ.get("MODELEXPORT_BIN", "modelexport")
FIXTURES = os.environ["MODELEXPORT_PT2_FIXTURES"]
PT2 = os.path.join(FIXTURES, "tiny_mlp.pt2")


def run_with_terminal(args):
    """Runs the CLI with stderr on a pseudo-terminal; returns (rc, stdout, stderr)."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([CLI, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=slave)
    finally:
        os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    stdout = proc.stdout.read()
    proc.stdout.close()
    # The terminal turns "\n" into "\r\n"; undo it to see what was written.
    return proc.wait(timeout=300), stdout.decode(), seen.decode().replace("\r\n", "\n")


def run_piped(args):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("progress") / "mlp.onnx")
    rc, stdout, stderr = run_with_terminal(["export", PT2, "-o", out])
    assert rc == 0, stderr
    return out, stdout, stderr


def check_one_cleared_line(stderr):
    # Redrawn in place with carriage returns: never a new line, and the
    # line is blank again when the command ends.
    assert "\n" not in stderr
    assert "\r" in stderr
    assert stderr.split("\r")[-1].strip() == ""


def test_export_draws_lowering_and_writing(exported):
    _, stdout, stderr = exported
    assert re.search(r"export: lower \[[#.]{24}\] \d+/\d+ nodes", stderr), stderr
    assert re.search(r"export: write \[[#.]{24}\] [0-9.]+/[0-9.]+ MB", stderr), stderr
    assert re.search(r"export: lower \[#{24}\] (\d+)/\1 nodes", stderr), "the bar ends full"
    check_one_cleared_line(stderr)
    assert stdout.startswith("wrote ")


def test_nothing_when_stderr_is_not_a_terminal(tmp_path):
    rc, stdout, stderr = run_piped(["export", PT2, "-o", str(tmp_path / "m.onnx")])
    assert rc == 0
    assert stderr == ""
    assert stdout.startswith("wrote ")


def test_nothing_with_quiet(tmp_path):
    rc, stdout, stderr = run_with_terminal(["export", PT2, "-o", str(tmp_path / "m.onnx"), "--quiet"])
    assert rc == 0
    assert stderr == ""
    assert stdout.startswith("wrote ")


def test_tag_draws_its_stages(exported, tmp_path):
    rc, _, stderr = run_with_terminal(["tag", exported[0], "-o", str(tmp_path / "t.onnx"),
                                       "--strategy", "scope"])
    assert rc == 0, stderr
    assert re.search(r"tag: tag \[#{24}\] 1/1 strategies", stderr), stderr
    assert "tag: propagate..." in stderr
    assert re.search(r"tag: write \[#{24}\] ([0-9.]+)/\1 MB", stderr), stderr
    check_one_cleared_line(stderr)
    rc, _, stderr = run_with_terminal(["tag", exported[0], "-o", str(tmp_path / "q.onnx"), "-q"])
    assert rc == 0 and stderr == ""


def test_functions_draws_its_stages(exported, tmp_path):
    # tiny_mlp's modules are all torch.nn built-ins: name a class to select some
    rc, stdout, stderr = run_with_terminal(["functions", exported[0], "-o", str(tmp_path / "f.onnx"),
                                            "--classes", "Linear"])
    assert rc == 0, stderr
    assert "functions: load..." in stderr
    assert re.search(r"functions: functions \[#{24}\] ([1-9]\d*)/\1 modules", stderr), stderr
    assert re.search(r"functions: write \[#{24}\]", stderr), stderr
    check_one_cleared_line(stderr)
    assert "functions:" in stdout


def test_an_error_clears_the_line_first(tmp_path):
    rc, _, stderr = run_with_terminal(["export", PT2, "-o", str(tmp_path / "m.onnx"), "--input", "nope:float32[1]"])
    assert rc == 1
    line, _, error = stderr.rpartition("\r")
    assert error.startswith("modelexport: error: "), stderr
