"""Errors raised by the modelexport binding."""
from __future__ import annotations

import enum
from typing import Union


class ErrorCode(enum.IntEnum):
    """``mx_code`` from modelexport.h."""

    OK = 0
    INVALID_ARGUMENT = 1
    IO = 2
    PARSE = 3
    SCHEMA = 4
    NOT_FOUND = 5
    UNSUPPORTED = 6
    PLUGIN = 7
    SECURITY = 8
    INTERNAL = 9
    CANCELLED = 10


class ModelExportError(Exception):
    """A failed SDK call: ``code`` (an :class:`ErrorCode`) and the SDK's message."""

    def __init__(self, code: Union[int, ErrorCode], message: str) -> None:
        try:
            self.code: Union[ErrorCode, int] = ErrorCode(code)
        except ValueError:  # a code newer than this binding
            self.code = int(code)
        self.message = message
        super().__init__(code, message)

    @property
    def code_name(self) -> str:
        """Stable lower-case name, as mx_code_name(): "io", "parse", ..."""
        if isinstance(self.code, ErrorCode):
            return self.code.name.lower()
        return f"code_{self.code}"

    def __str__(self) -> str:
        return f"[{self.code_name}] {self.message}"


class LibraryNotFoundError(OSError):
    """libmodelexport could not be found or loaded."""
