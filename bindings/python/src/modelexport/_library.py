"""Finding and loading libmodelexport, and the ctypes prototypes of its C API.

The library is looked up, in order:
  1. the path in the environment variable ``MODELEXPORT_LIBRARY`` (an
     explicit choice: final, no fallback);
  2. the library bundled in the wheel (``modelexport/_native/lib``, put there
     by ``pip install ./bindings/python``), which finds the plugins bundled
     next to it (``_native/lib/modelexport/plugins``) by itself;
  3. ``ctypes.util.find_library("modelexport")`` (the ld.so cache, so an
     installed SDK after ``ldconfig``);
  4. the usual install locations (``/usr/local/lib``, ``/usr/lib/<multiarch>``,
     ``/usr/lib``).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import threading
from typing import Any, Callable, Dict, List, Optional, Tuple

from .errors import ErrorCode, LibraryNotFoundError, ModelExportError
from .progress import LISTENER_POINTER, Listening

_c_status_p = ctypes.c_void_p  # mx_status* (NULL = success)
_c_handle_p = ctypes.c_void_p  # mx_model*, mx_registry*
_c_size_p = ctypes.POINTER(ctypes.c_size_t)
_c_out_p = ctypes.POINTER(ctypes.c_void_p)
_c_u32_p = ctypes.POINTER(ctypes.c_uint32)

# name -> (restype, argtypes), transcribed from abi/include/modelexport/modelexport.h
_PROTOTYPES: Dict[str, Tuple[Any, List[Any]]] = {
    "mx_version": (None, [_c_u32_p, _c_u32_p, _c_u32_p]),
    "mx_version_string": (ctypes.c_char_p, []),
    "mx_status_code": (ctypes.c_int, [_c_status_p]),
    "mx_status_message": (ctypes.c_char_p, [_c_status_p]),
    "mx_status_release": (None, [_c_status_p]),
    "mx_code_name": (ctypes.c_char_p, [ctypes.c_int]),
    "mx_free": (None, [ctypes.c_void_p]),
    "mx_model_load_file": (_c_status_p, [ctypes.c_char_p, _c_out_p]),
    "mx_model_load_bytes": (_c_status_p, [ctypes.c_void_p, ctypes.c_size_t, _c_out_p]),
    "mx_model_release": (None, [_c_handle_p]),
    "mx_model_save_file": (_c_status_p, [_c_handle_p, ctypes.c_char_p, ctypes.c_char_p]),
    "mx_model_save_file_with_progress": (
        _c_status_p, [_c_handle_p, ctypes.c_char_p, ctypes.c_char_p, LISTENER_POINTER]),
    "mx_model_save_bytes": (_c_status_p, [_c_handle_p, ctypes.c_char_p, _c_out_p, _c_size_p]),
    "mx_model_graph_json": (_c_status_p, [_c_handle_p, _c_out_p, _c_size_p]),
    "mx_model_node_count": (ctypes.c_size_t, [_c_handle_p]),
    "mx_model_node_json": (_c_status_p, [_c_handle_p, ctypes.c_size_t, _c_out_p, _c_size_p]),
    "mx_model_check": (_c_status_p, [_c_handle_p]),
    "mx_model_node_record": (_c_status_p, [_c_handle_p, ctypes.c_char_p, _c_out_p, _c_size_p]),
    "mx_model_set_node_record": (
        _c_status_p, [_c_handle_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
    "mx_model_hierarchy_json": (_c_status_p, [_c_handle_p, _c_out_p, _c_size_p]),
    "mx_model_set_hierarchy_json": (_c_status_p, [_c_handle_p, ctypes.c_char_p, ctypes.c_size_t]),
    "mx_model_has_hierarchy": (ctypes.c_int, [_c_handle_p]),
    "mx_model_to_functions": (_c_status_p, [_c_handle_p, ctypes.c_char_p, _c_out_p, _c_size_p]),
    "mx_model_to_functions_with_progress": (
        _c_status_p, [_c_handle_p, ctypes.c_char_p, LISTENER_POINTER, _c_out_p, _c_size_p]),
    "mx_model_extract": (_c_status_p, [_c_handle_p, ctypes.c_char_p, ctypes.c_char_p, _c_out_p]),
    "mx_model_modules_json": (_c_status_p, [_c_handle_p, ctypes.c_char_p, _c_out_p, _c_size_p]),
    "mx_model_render": (
        _c_status_p, [_c_handle_p, ctypes.c_char_p, ctypes.c_char_p, _c_out_p, _c_size_p]),
    "mx_validate_file": (_c_status_p, [ctypes.c_char_p, ctypes.c_char_p, _c_out_p, _c_size_p]),
    "mx_registry_create": (_c_status_p, [ctypes.c_char_p, _c_out_p]),
    "mx_registry_release": (None, [_c_handle_p]),
    "mx_registry_load_plugin": (_c_status_p, [_c_handle_p, ctypes.c_char_p]),
    "mx_registry_plugins_json": (_c_status_p, [_c_handle_p, _c_out_p, _c_size_p]),
    "mx_registry_tag": (_c_status_p, [_c_handle_p, ctypes.c_char_p, _c_handle_p, ctypes.c_char_p]),
    "mx_registry_tag_with_progress": (
        _c_status_p, [_c_handle_p, ctypes.c_char_p, _c_handle_p, ctypes.c_char_p, LISTENER_POINTER]),
    "mx_registry_export": (
        _c_status_p, [_c_handle_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, _c_out_p]),
    "mx_registry_export_with_progress": (
        _c_status_p, [_c_handle_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                      LISTENER_POINTER, _c_out_p]),
    "mx_registry_module_tree": (
        _c_status_p, [_c_handle_p, ctypes.c_char_p, ctypes.c_char_p, _c_out_p, _c_size_p]),
}


# Where the wheel's CMake install puts the native runtime (pyproject.toml:
# wheel.install-dir); absent in a source checkout.
BUNDLED_PREFIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_native")


def bundled_libraries() -> List[str]:
    """The wheel's own libmodelexport (SONAME file first), or []."""
    libdir = os.path.join(BUNDLED_PREFIX, "lib")
    # Wheels cannot hold symlinks: libmodelexport.so.0.1 (the SONAME) and
    # .so.0.1.0 are two copies of one file; the shorter name is tried first.
    return sorted(glob.glob(os.path.join(libdir, "libmodelexport.so*")), key=len)


def _candidates() -> List[str]:
    found: List[str] = []
    env = os.environ.get("MODELEXPORT_LIBRARY")
    if env:
        # An explicit choice is final: do not fall back silently.
        return [env]
    found.extend(bundled_libraries())
    name = ctypes.util.find_library("modelexport")
    if name:
        found.append(name)
    for pattern in ("/usr/local/lib/libmodelexport.so*",
                    "/usr/local/lib/*-linux-gnu/libmodelexport.so*",
                    "/usr/lib/*-linux-gnu/libmodelexport.so*",
                    "/usr/lib/libmodelexport.so*"):
        found.extend(sorted(glob.glob(pattern)))
    return found


class Library:
    """The loaded shared library with typed C functions as attributes."""

    def __init__(self, path: Optional[str] = None) -> None:
        candidates = [path] if path else _candidates()
        errors: List[str] = []
        self.cdll: Optional[ctypes.CDLL] = None
        for candidate in candidates:
            try:
                self.cdll = ctypes.CDLL(candidate)
                self.path = candidate
                break
            except OSError as exc:
                errors.append(f"{candidate}: {exc}")
        if self.cdll is None:
            tried = "; ".join(errors) if errors else "no candidate found"
            raise LibraryNotFoundError(
                "cannot load libmodelexport (" + tried + "). Install the SDK "
                "(scripts/setup.sh) or set MODELEXPORT_LIBRARY to the path of libmodelexport.so")
        self._functions: Dict[str, Callable[..., Any]] = {}

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if not name.startswith("mx_"):
            raise AttributeError(name)
        fn = self._functions.get(name)
        if fn is None:
            fn = self._bind(name)
            self._functions[name] = fn
        return fn

    def _bind(self, name: str) -> Callable[..., Any]:
        restype, argtypes = _PROTOTYPES[name]
        assert self.cdll is not None
        try:
            fn = getattr(self.cdll, name)
        except AttributeError:
            path = self.path

            def missing(*_args: Any) -> Any:
                raise ModelExportError(
                    ErrorCode.UNSUPPORTED,
                    f"{path} does not export {name} (library older than this binding?)")
            return missing
        fn.restype = restype
        fn.argtypes = argtypes
        return fn

    # -- helpers shared by Model and Registry ---------------------------------

    def check(self, status: Optional[int]) -> None:
        """Raises ModelExportError for a non-NULL status (and releases it)."""
        if not status:
            return
        try:
            code = int(self.mx_status_code(status))
            message = (self.mx_status_message(status) or b"").decode("utf-8", "replace")
        finally:
            self.mx_status_release(status)
        raise ModelExportError(code, message)

    def call_listening(self, progress: Optional[Callable[..., Any]], plain: str,
                       with_progress: str, *args: Any, tail: Tuple[Any, ...] = ()) -> None:
        """Calls ``plain(*args, *tail)`` without ``progress``, else
        ``with_progress(*args, listener, *tail)``; raises what the callback
        raised, else the SDK's error."""
        if progress is None:
            self.check(getattr(self, plain)(*args, *tail))
            return
        listening = Listening(progress)
        status = getattr(self, with_progress)(*args, listening.pointer(), *tail)
        try:
            self.check(status)
        except ModelExportError as failure:
            listening.raise_callback_error(failure)
            raise
        listening.raise_callback_error(None)

    def take_buffer(self, pointer: ctypes.c_void_p, size: ctypes.c_size_t) -> bytes:
        """Copies an SDK-owned buffer and frees it with mx_free."""
        if not pointer.value:
            return b""
        try:
            return ctypes.string_at(pointer.value, size.value)
        finally:
            self.mx_free(pointer)

    def call_buffer(self, fn: Callable[..., Any], *args: Any) -> bytes:
        """Calls ``fn(*args, &out, &size)`` and returns the buffer's bytes."""
        out = ctypes.c_void_p()
        size = ctypes.c_size_t()
        self.check(fn(*args, ctypes.byref(out), ctypes.byref(size)))
        return self.take_buffer(out, size)


_lock = threading.Lock()
_library: Optional[Library] = None


def library() -> Library:
    """The process-wide libmodelexport, loaded on first use."""
    global _library
    with _lock:
        if _library is None:
            _library = Library()
        return _library


def load_library(path: str) -> Library:
    """Loads libmodelexport from an explicit path (before any other use)."""
    global _library
    with _lock:
        _library = Library(path)
        return _library
