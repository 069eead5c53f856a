"""Errors raised by the modelexport binding."""
from __future__ import annotations

import enum
import errno
import os
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


class ModelFileNotFoundError(ModelExportError, FileNotFoundError):
    """A path handed to the SDK does not exist: both a :class:`ModelExportError`
    (``code`` is the SDK's, ``IO`` or ``NOT_FOUND``) and a built-in
    :class:`FileNotFoundError` (``errno`` ENOENT, ``filename``), so
    ``except FileNotFoundError`` works as it does for ``open()``."""

    def __init__(self, code: Union[int, ErrorCode], message: str, filename: str) -> None:
        ModelExportError.__init__(self, code, message)
        self.errno = errno.ENOENT
        self.strerror = message
        self.filename = filename

    def __str__(self) -> str:
        return ModelExportError.__str__(self)


def missing_file_error(failure: ModelExportError, path: "os.PathLike[str] | str | bytes"
                       ) -> ModelExportError:
    """``failure`` as a :class:`ModelFileNotFoundError` when the SDK could not
    read ``path`` because it does not exist; otherwise ``failure`` itself."""
    if failure.code not in (ErrorCode.IO, ErrorCode.NOT_FOUND) or os.path.lexists(path):
        return failure
    name = os.fsdecode(path)
    return ModelFileNotFoundError(failure.code, failure.message, name)
