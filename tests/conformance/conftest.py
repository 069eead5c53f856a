"""The CLI every conformance test exports with (tests/support/cli_path.py)."""
import os
import sys

import pytest

from conformance_support import REPO

sys.path.insert(0, os.path.join(REPO, "tests", "support"))
from cli_path import find_cli  # noqa: E402


@pytest.fixture(scope="session")
def cli():
    """(CLI path, plugin directory or "")."""
    found = find_cli()
    if not found:
        pytest.fail("no modelexport CLI: set MODELEXPORT_BIN or build into <repo>/build")
    return found
