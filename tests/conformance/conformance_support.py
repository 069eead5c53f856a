"""Where the conformance suite finds its fixtures (no torch here); the CLI
is the `cli` fixture of conftest.py."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
FIXTURES = os.environ.get("MODELEXPORT_OPS_FIXTURES", os.path.join(REPO, "tests", "fixtures", "ops"))
