"""Where the `modelexport` CLI is, for the zoo and the anchor benchmark
(torch-free, so the driver processes stay small): MODELEXPORT_BIN or
MODELEXPORT_CLI, else <repo>/build*/sdk/modelexport, else PATH."""
import glob
import os
import shutil

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def find_cli():
    for var in ("MODELEXPORT_BIN", "MODELEXPORT_CLI"):
        value = os.environ.get(var)
        if value:
            path = value if os.path.sep in value else shutil.which(value)
            if path and os.path.exists(path):
                return path
    for build in sorted(glob.glob(os.path.join(REPO, "build*"))):
        cli = os.path.join(build, "sdk", "modelexport")
        if os.path.exists(cli):
            return cli
    return shutil.which("modelexport")
