"""The `modelexport` CLI as the benchmark scripts drive it (shared by
tagging_accuracy.py and tagging_foreign.py; they run as scripts, so this
directory is on sys.path)."""
import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile


class Cli:
    def __init__(self, exe, plugin_dir):
        self.exe = exe
        self.env = dict(os.environ)
        if plugin_dir:
            self.env["MODELEXPORT_PLUGIN_PATH"] = str(plugin_dir)

    def run(self, *args):
        """stdout of `modelexport ARGS`; RuntimeError with the tool's message on failure."""
        proc = subprocess.run([self.exe, *map(str, args)], env=self.env,
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, args))} failed ({proc.returncode}): "
                               f"{(proc.stderr.strip() or proc.stdout.strip())[:1000]}")
        return proc.stdout


def sidecar(onnx_path):
    """The hierarchy document written beside OUT.onnx (OUT.hierarchy.json)."""
    path = pathlib.Path(str(onnx_path)[:-len(".onnx")] + ".hierarchy.json")
    return json.loads(path.read_text())


@contextlib.contextmanager
def work_dir(requested, keep, prefix):
    """The scratch directory for models, exports and tagged copies (GBs for
    the zoo). `--work DIR` is the caller's and always kept; without it a
    fresh temporary directory is made and removed at the end unless `--keep`."""
    if requested:
        path = pathlib.Path(requested)
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    path = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        if keep:
            print(f"# work files kept in {path}", file=sys.stderr)
        else:
            shutil.rmtree(path, ignore_errors=True)
