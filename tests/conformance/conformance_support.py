"""Where the conformance suite finds its fixtures and the CLI (no torch here)."""
import glob
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
FIXTURES = os.environ.get("MODELEXPORT_OPS_FIXTURES", os.path.join(REPO, "tests", "fixtures", "ops"))


def find_cli():
    """(cli path, plugin dir): MODELEXPORT_BIN, else a build dir's CLI, else PATH."""
    value = os.environ.get("MODELEXPORT_BIN")
    if value:
        path = value if os.path.sep in value else shutil.which(value)
        if path and os.path.exists(path):
            return path, os.environ.get("MODELEXPORT_PLUGIN_PATH", "")
    for build in sorted(glob.glob(os.path.join(REPO, "build*"))):
        cli = os.path.join(build, "sdk", "modelexport")
        if os.path.exists(cli):
            return cli, os.environ.get("MODELEXPORT_PLUGIN_PATH", os.path.join(build, "plugins-out"))
    path = shutil.which("modelexport")
    return (path, os.environ.get("MODELEXPORT_PLUGIN_PATH", "")) if path else None
