"""Loading the library, version, error codes."""
from __future__ import annotations

import re

import pytest

import modelexport as mx
from conftest import REPO


def header_version() -> str:
    header = (REPO / "abi/include/modelexport/modelexport.h").read_text()
    parts = [re.search(rf"#define MX_VERSION_{p} (\d+)", header).group(1)  # type: ignore[union-attr]
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def test_version_matches_header() -> None:
    assert mx.version() == header_version()
    assert ".".join(map(str, mx.version_info())) == mx.version()


def test_code_names_match_enum() -> None:
    for code in mx.ErrorCode:
        if code is mx.ErrorCode.OK:
            continue
        assert mx.code_name(code) == code.name.lower()
        assert mx.ModelExportError(code, "m").code_name == code.name.lower()


def test_error_carries_code_and_message() -> None:
    err = mx.ModelExportError(mx.ErrorCode.IO, "cannot open x")
    assert err.code is mx.ErrorCode.IO and err.message == "cannot open x"
    assert str(err) == "[io] cannot open x"
    assert mx.ModelExportError(42, "future").code == 42


def test_library_path_is_reported() -> None:
    lib = mx.library()
    assert lib.path
    assert mx.library() is lib  # loaded once per process


def test_missing_library_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(mx.LibraryNotFoundError, match="MODELEXPORT_LIBRARY"):
        mx.Library(str(tmp_path / "libnothing.so"))
