"""Progress reports of long calls (``mx_progress`` in modelexport.h).

``Registry.export``, ``Registry.tag``, ``Model.save_file`` and
``Model.to_functions`` take ``progress=``: a callable that receives a
:class:`Progress` while the call runs, on the calling thread, at most about
ten times a second (the first and last report of each stage always
arrive). It may draw a bar in a notebook::

    def show(p: mx.Progress) -> None:
        print(f"\\r{p.stage}: {p.done}/{p.total} {p.unit}", end="")

    registry.export("model.pt2", progress=show)

Returning ``False`` cancels the call: it then raises ``ModelExportError``
with code ``ErrorCode.CANCELLED`` and leaves no output file behind (a model
being tagged or rewritten stays as it was). An exception raised by the
callback (a ``KeyboardInterrupt`` too) cancels the call the same way, and
the call re-raises that exception.
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .errors import ModelExportError


@dataclass(frozen=True)
class Progress:
    """One report: ``stage`` ("walk", "lower", "write", ...), ``unit`` of
    ``done`` and ``total`` ("ops", "nodes", "bytes", "" when nothing is
    counted); ``total`` is 0 when unknown."""

    stage: str
    unit: str
    done: int
    total: int

    @property
    def fraction(self) -> Optional[float]:
        """``done / total`` in [0, 1], or None when the total is unknown."""
        if self.total == 0:
            return None
        return min(self.done, self.total) / self.total


ProgressCallback = Callable[[Progress], Any]


class _Event(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("stage", ctypes.c_char_p),
                ("unit", ctypes.c_char_p), ("done", ctypes.c_uint64), ("total", ctypes.c_uint64)]


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(_Event), ctypes.c_void_p)


class _Listener(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("callback", _CALLBACK),
                ("user_data", ctypes.c_void_p), ("min_interval_ms", ctypes.c_uint32)]


LISTENER_POINTER = ctypes.POINTER(_Listener)


class Listening:
    """Adapts a Python callable to an ``mx_progress`` for one call and
    keeps what the callable raised, to re-raise after the call."""

    def __init__(self, callback: ProgressCallback) -> None:
        if not callable(callback):
            raise TypeError(f"progress must be callable, not {type(callback).__name__}")
        self._callback = callback
        self.error: Optional[BaseException] = None
        # The ctypes thunk must outlive the call: kept on self.
        self._thunk = _CALLBACK(self._on_event)
        self._listener = _Listener(ctypes.sizeof(_Listener), self._thunk, None, 0)

    def pointer(self) -> Any:
        return ctypes.byref(self._listener)

    def _on_event(self, event: Any, _user_data: Any) -> int:
        # Nothing may escape into C: ctypes would print and carry on.
        try:
            e = event.contents
            report = Progress(stage=(e.stage or b"").decode("utf-8", "replace"),
                              unit=(e.unit or b"").decode("utf-8", "replace"),
                              done=int(e.done), total=int(e.total))
            return 1 if self._callback(report) is False else 0
        except BaseException as exc:  # noqa: B902 - re-raised after the call
            self.error = exc
            return 1

    def raise_callback_error(self, failure: Optional[ModelExportError]) -> None:
        """Re-raises what the callback raised (the SDK's CANCELLED error as
        its context), if it raised."""
        if self.error is not None:
            raise self.error from failure
