"""``python -m modelexport …`` and the ``modelexport`` console script: both
run the native ``modelexport`` CLI with the same arguments.

The CLI is looked up, in order:
  1. the path in ``MODELEXPORT_CLI`` (an explicit choice: final);
  2. the CLI bundled in the wheel (``modelexport/_native/bin``);
  3. next to the library this package loads (a build tree keeps both in
     ``sdk/``; an install puts the CLI in ``<prefix>/bin`` and the library
     in ``<prefix>/lib[/<multiarch>]``);
  4. ``modelexport`` on ``PATH``, if it is a native executable (the
     console script of this package is Python and would call itself).
"""
from __future__ import annotations

import os
import shutil
import sys
from typing import Iterator, List, Optional, Sequence

from ._library import BUNDLED_PREFIX

_ELF_MAGIC = b"\x7fELF"


def _is_native_executable(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == _ELF_MAGIC and os.access(path, os.X_OK)
    except OSError:
        return False


def _near_library() -> Iterator[str]:
    """Where the CLI sits relative to the library that would be loaded,
    without loading it (the CLI does not need this process to)."""
    from ._library import _candidates  # the same search order as library()

    for library in _candidates():
        if not os.path.isabs(library):
            continue  # a bare soname from the ld.so cache says nothing about bin/
        libdir = os.path.dirname(os.path.realpath(library))
        yield os.path.join(libdir, "modelexport")
        prefix = libdir
        for _ in range(2):  # <prefix>/lib or <prefix>/lib/<multiarch>
            prefix = os.path.dirname(prefix)
            yield os.path.join(prefix, "bin", "modelexport")


def find_cli() -> str:
    """The path of the native ``modelexport`` CLI; FileNotFoundError naming
    the places searched when there is none."""
    explicit = os.environ.get("MODELEXPORT_CLI")
    if explicit:
        if _is_native_executable(explicit):
            return explicit
        raise FileNotFoundError(f"MODELEXPORT_CLI={explicit} is not an executable modelexport CLI")
    searched: List[str] = []
    candidates = [os.path.join(BUNDLED_PREFIX, "bin", "modelexport"), *_near_library()]
    on_path = shutil.which("modelexport")
    if on_path:
        candidates.append(on_path)
    for candidate in candidates:
        if _is_native_executable(candidate):
            return candidate
        searched.append(candidate)
    raise FileNotFoundError(
        "the native modelexport CLI was not found (searched: " + ", ".join(searched) +
        "); install the SDK (scripts/setup.sh) or set MODELEXPORT_CLI to its path")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Replaces this process with the CLI (exit code, signals and the
    terminal's progress line are then the CLI's own). Returns only when the
    CLI cannot be found or started: 1, with the reason on stderr."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        cli = find_cli()
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(cli, ["modelexport", *args])
    except OSError as exc:
        print(f"modelexport: error: {exc}", file=sys.stderr)
    return 1
