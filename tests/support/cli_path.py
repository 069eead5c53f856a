"""Where the `modelexport` CLI and its plugins are, for the Python test
groups, the zoos and the benchmarks (torch-free, so their processes stay
small).

The CLI: MODELEXPORT_BIN or MODELEXPORT_CLI (a path, or a name on PATH),
else <repo>/build*/sdk/modelexport, else `modelexport` on PATH. Its plugins:
MODELEXPORT_PLUGIN_PATH (the ctest harness sets it), else the plugins-out of
the build directory the CLI was found in, else "" (the CLI's own default).
"""
import glob
import os
import shutil

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def find_cli():
    """(CLI path, plugin directory or ""), or None when there is no CLI."""
    plugins = os.environ.get("MODELEXPORT_PLUGIN_PATH", "")
    for var in ("MODELEXPORT_BIN", "MODELEXPORT_CLI"):
        value = os.environ.get(var)
        if value:
            path = value if os.path.sep in value else shutil.which(value)
            if path and os.path.exists(path):
                return path, plugins
    for build in sorted(glob.glob(os.path.join(REPO, "build*"))):
        cli = os.path.join(build, "sdk", "modelexport")
        if os.path.exists(cli):
            return cli, plugins or os.path.join(build, "plugins-out")
    path = shutil.which("modelexport")
    return (path, plugins) if path else None
