"""modelexport — Python bindings over the modelexport C API (ctypes).

Export PyTorch models to ONNX keeping the module hierarchy, and recover that
hierarchy for ONNX files exported elsewhere. From a model and example
inputs (``torch.export`` runs in this process; torch is imported only by
this call)::

    import modelexport as mx

    with mx.export(model, (x,), "model.onnx") as onnx_model:
        print(onnx_model.module_tree())

From a file (a ``torch.export`` archive or TorchScript)::

    with mx.Registry() as registry:
        with registry.export("model.pt", ["x:float32[batch=1,3,224,224]"]) as model:
            model.save_file("model.onnx")
            print(model.hierarchy()["statistics"])

The native library is found through ``MODELEXPORT_LIBRARY``, the ld.so cache,
then the usual install paths (see :mod:`modelexport._library`).
"""
from __future__ import annotations

import ctypes
from typing import Tuple

from ._library import Library, library, load_library
from .errors import ErrorCode, LibraryNotFoundError, ModelExportError, ModelFileNotFoundError
from .model import Model, validate_file
from .progress import Progress, ProgressCallback
from .pytorch_export import export
from .registry import Registry
from .tree import Module, ModuleTree, Node, NodeRecord

__all__ = [
    "ErrorCode",
    "Library",
    "LibraryNotFoundError",
    "Model",
    "Module",
    "ModuleTree",
    "Node",
    "NodeRecord",
    "ModelExportError",
    "ModelFileNotFoundError",
    "Progress",
    "ProgressCallback",
    "Registry",
    "code_name",
    "export",
    "library",
    "load_library",
    "validate_file",
    "version",
    "version_info",
]

__version__ = "0.1.0"  # of this binding; version() is the native library's


def version() -> str:
    """The loaded library's version string, e.g. "0.1.0"."""
    return library().mx_version_string().decode("ascii")


def version_info() -> Tuple[int, int, int]:
    """The loaded library's (major, minor, patch)."""
    major, minor, patch = ctypes.c_uint32(), ctypes.c_uint32(), ctypes.c_uint32()
    library().mx_version(ctypes.byref(major), ctypes.byref(minor), ctypes.byref(patch))
    return major.value, minor.value, patch.value


def code_name(code: int) -> str:
    """The SDK's stable name of an error code ("io", "parse", ...)."""
    return library().mx_code_name(int(code)).decode("ascii")
