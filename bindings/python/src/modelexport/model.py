"""``Model``: an ONNX model in memory plus its module hierarchy (``mx_model``)."""
from __future__ import annotations

import contextlib
import ctypes
import json
import os
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from ._library import Library, library
from .errors import ModelExportError, missing_file_error
from .progress import ProgressCallback
from .tree import ModuleTree, Node, build_nodes, build_tree

PathLike = Union[str, "os.PathLike[str]"]
Json = Dict[str, Any]


def _path(path: PathLike) -> bytes:
    """The path as the C API takes it; a NUL would cut it short there
    ("nul.onnx\\0.evil" would write nul.onnx), so it is refused."""
    encoded = os.fsencode(os.fspath(path))
    if b"\0" in encoded:
        raise ValueError(f"path {os.fspath(path)!r} contains a NUL character")
    return encoded


# The one way a Model is made from a handle: by this package, from a handle
# the SDK just returned (any other integer would be used as a pointer).
_ADOPT = object()


@contextlib.contextmanager
def in_use(*owners: Any) -> Iterator[None]:
    """Marks Models/Registries as used by a native call that may call back
    into Python (progress): a ``close()`` from the callback is then carried
    out when the call returns instead of freeing what the call still uses."""
    for owner in owners:
        owner._uses += 1
    try:
        yield
    finally:
        for owner in owners:
            owner._uses -= 1
            if owner._uses == 0 and owner._close_pending:
                owner._close_pending = False
                owner.close()


@contextlib.contextmanager
def reading(path: PathLike) -> Iterator[None]:
    """Turns the SDK's failure to read a missing ``path`` into a
    :class:`ModelFileNotFoundError` (also a built-in FileNotFoundError)."""
    try:
        yield
    except ModelExportError as failure:
        converted = missing_file_error(failure, os.fspath(path))
        if converted is failure:
            raise
        raise converted from None


def options_json(options: Optional[Mapping[str, Any]] = None, **keywords: Any) -> Optional[bytes]:
    """Merges an options mapping and keyword options (None values dropped) into JSON."""
    merged: Dict[str, Any] = dict(options or {})
    merged.update({k: v for k, v in keywords.items() if v is not None})
    return json.dumps(merged).encode("utf-8") if merged else None


def _loads(data: bytes) -> Any:
    return json.loads(data.decode("utf-8"))


class Model:
    """An ONNX model with its hierarchy. Release it with :meth:`close` or a
    ``with`` block; it is also released when garbage-collected.

    Not thread-safe for mutation: concurrent read-only calls are fine, calls
    that change the model need exclusive access (as the C API documents).
    """

    __slots__ = ("_handle", "_lib", "_uses", "_close_pending", "__weakref__")

    def __init__(self, handle: int, lib: Optional[Library] = None, *, _token: object = None) -> None:
        """Not for direct use: models come from :meth:`load_file`,
        :meth:`load_bytes`, :meth:`Registry.export` and :meth:`extract`
        (a raw integer taken for an ``mx_model*`` would crash the process)."""
        self._handle: Optional[int] = None
        self._uses = 0
        self._close_pending = False
        if _token is not _ADOPT:
            raise TypeError("a Model cannot be made from a handle; use Model.load_file, "
                            "Model.load_bytes or Registry.export")
        if not handle:
            raise ValueError("Model needs a non-NULL mx_model handle")
        self._lib = lib or library()
        self._handle = handle

    @classmethod
    def _adopt(cls, handle: int, lib: Library) -> "Model":
        return cls(handle, lib, _token=_ADOPT)

    # -- construction ---------------------------------------------------------

    @classmethod
    def load_file(cls, path: PathLike) -> "Model":
        """Loads an ONNX file, with any hierarchy it carries (node metadata,
        doc_string records, model metadata, the ``.hierarchy.json`` sidecar)."""
        lib = library()
        out = ctypes.c_void_p()
        with reading(path):
            lib.check(lib.mx_model_load_file(_path(path), ctypes.byref(out)))
        return cls._adopt(out.value, lib)  # type: ignore[arg-type]

    @classmethod
    def load_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "Model":
        """Loads a serialized ONNX ``ModelProto``."""
        lib = library()
        buf = bytes(data)
        out = ctypes.c_void_p()
        lib.check(lib.mx_model_load_bytes(buf, len(buf), ctypes.byref(out)))
        return cls._adopt(out.value, lib)  # type: ignore[arg-type]

    # -- lifetime -------------------------------------------------------------

    @property
    def handle(self) -> int:
        """The raw ``mx_model*``; raises ValueError once closed."""
        if self._handle is None or self._close_pending:
            raise ValueError("the model has been closed")
        return self._handle

    @property
    def closed(self) -> bool:
        return self._handle is None or self._close_pending

    def close(self) -> None:
        """Releases the native model (idempotent). Called while a call on the
        model runs (from its progress callback), the release waits for it."""
        if self._uses:
            self._close_pending = True
            return
        handle, self._handle = self._handle, None
        if handle:
            self._lib.mx_model_release(handle)

    def __enter__(self) -> "Model":
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing sensible to do
            pass

    def __repr__(self) -> str:
        if self.closed:
            return "<modelexport.Model closed>"
        return f"<modelexport.Model nodes={self.node_count} hierarchy={self.has_hierarchy}>"

    # -- saving ---------------------------------------------------------------

    def save_file(self, path: PathLike, *, tag_storage: Optional[str] = None,
                  sidecar: Optional[bool] = None, check: Optional[bool] = None,
                  external_data: Optional[bool] = None,
                  options: Optional[Mapping[str, Any]] = None,
                  progress: Optional[ProgressCallback] = None) -> None:
        """Writes the model (atomically). ``tag_storage``: "metadata" (default),
        "doc_string" or "none"; ``sidecar`` writes the hierarchy next to the model
        (``out.onnx`` -> ``out.hierarchy.json``); ``external_data`` puts
        tensors of 1 KiB or more in ``<file name>.data`` (None: automatic).
        ``progress`` receives :class:`Progress` reports ("check", "write" in
        bytes, "commit"; see :mod:`modelexport.progress`)."""
        opts = options_json(options, tag_storage=tag_storage, sidecar=sidecar, check=check,
                            external_data=external_data)
        with in_use(self):
            self._lib.call_listening(progress, "mx_model_save_file", "mx_model_save_file_with_progress",
                                     self.handle, _path(path), opts)

    def save_bytes(self, *, tag_storage: Optional[str] = None, check: Optional[bool] = None,
                   options: Optional[Mapping[str, Any]] = None) -> bytes:
        """The serialized ONNX ``ModelProto`` with the hierarchy stored as asked."""
        opts = options_json(options, tag_storage=tag_storage, check=check)
        return self._lib.call_buffer(self._lib.mx_model_save_bytes, self.handle, opts)

    # -- graph ----------------------------------------------------------------

    def graph(self) -> Json:
        """The graph view: ir_version, opset_import, inputs, outputs,
        initializers and nodes (name, op_type, domain, inputs, outputs)."""
        return _loads(self._lib.call_buffer(self._lib.mx_model_graph_json, self.handle))

    @property
    def node_count(self) -> int:
        return int(self._lib.mx_model_node_count(self.handle))

    def __len__(self) -> int:
        return self.node_count

    def node(self, index: int) -> Json:
        """One node of the graph view by index."""
        if index < 0:
            index += self.node_count
        if index < 0 or index >= 1 << 64:  # ctypes would wrap what size_t cannot hold
            raise IndexError(f"node index {index} out of range (the graph has {self.node_count} nodes)")
        return _loads(self._lib.call_buffer(self._lib.mx_model_node_json, self.handle, index))

    def check(self) -> None:
        """Runs the libonnx checker (full check, with shape inference)."""
        self._lib.check(self._lib.mx_model_check(self.handle))

    # -- hierarchy ------------------------------------------------------------

    def node_record(self, node_name: str) -> Json:
        """``{"module", "tag", "evidence"}`` of a node (NOT_FOUND if none)."""
        return _loads(self._lib.call_buffer(
            self._lib.mx_model_node_record, self.handle, node_name.encode("utf-8")))

    def set_node_record(self, node_name: str, record: Union[Mapping[str, Any], str]) -> None:
        """Sets a node's record, e.g. ``{"module": "encoder", "evidence": "direct"}``."""
        data = (record if isinstance(record, str) else json.dumps(dict(record))).encode("utf-8")
        self._lib.check(self._lib.mx_model_set_node_record(
            self.handle, node_name.encode("utf-8"), data, len(data)))

    def hierarchy(self) -> Json:
        """The hierarchy document (``"schema": "modelexport.hierarchy/1"``)."""
        return _loads(self._lib.call_buffer(self._lib.mx_model_hierarchy_json, self.handle))

    def set_hierarchy(self, document: Union[Mapping[str, Any], str]) -> None:
        """Replaces the hierarchy; validated against the schema (SCHEMA error)."""
        data = (document if isinstance(document, str) else json.dumps(dict(document))).encode("utf-8")
        self._lib.check(self._lib.mx_model_set_hierarchy_json(self.handle, data, len(data)))

    @property
    def has_hierarchy(self) -> bool:
        """True if the model carries a module tree or any node record."""
        return bool(self._lib.mx_model_has_hierarchy(self.handle))

    # -- modules as functions, extraction, inspection -------------------------

    def to_functions(self, classes: Optional[Sequence[str]] = None, *,
                     modules: Optional[Sequence[str]] = None, min_nodes: Optional[int] = None,
                     include_builtin: Optional[bool] = None,
                     options: Optional[Mapping[str, Any]] = None,
                     progress: Optional[ProgressCallback] = None) -> Json:
        """Rewrites the model so module instances become calls to ONNX local
        functions (domain "modelexport.fn"); structurally identical instances
        share one function. Returns the report: functions, calls,
        definitions, skipped modules. See docs/functions.md. ``progress``
        receives :class:`Progress` reports ("functions", modules done /
        selected; see :mod:`modelexport.progress`)."""
        opts = options_json(options, classes=list(classes) if classes is not None else None,
                            modules=list(modules) if modules is not None else None,
                            min_nodes=min_nodes, include_builtin=include_builtin)
        out, size = ctypes.c_void_p(), ctypes.c_size_t()
        try:
            with in_use(self):
                self._lib.call_listening(
                    progress, "mx_model_to_functions", "mx_model_to_functions_with_progress",
                    self.handle, opts, tail=(ctypes.byref(out), ctypes.byref(size)))
        except BaseException:
            self._lib.take_buffer(out, size)  # frees a report made anyway
            raise
        return _loads(self._lib.take_buffer(out, size))

    def extract(self, module: str, *, include_constants: Optional[bool] = None) -> "Model":
        """The nodes of ``module`` and its descendants as a new standalone
        Model (NOT_FOUND lists the closest module paths)."""
        out = ctypes.c_void_p()
        opts = options_json(None, include_constants=include_constants)
        self._lib.check(self._lib.mx_model_extract(
            self.handle, module.encode("utf-8"), opts, ctypes.byref(out)))
        return Model._adopt(out.value, self._lib)  # type: ignore[arg-type]

    def modules(self) -> Json:
        """Per-module statistics: own/total nodes, parameters, op
        histograms, and the function each module maps to."""
        return _loads(self._lib.call_buffer(self._lib.mx_model_modules_json, self.handle, None))

    def module_tree(self) -> ModuleTree:
        """The module tree as objects: ``tree.root.children``, each module's
        ``class_name``, ``own_nodes`` / ``total_nodes`` and parameters,
        ``tree["encoder.layer.0"]``, ``for module, depth in tree.walk()``.
        Empty (no roots) for a model without a module tree."""
        hierarchy = self.hierarchy()
        statistics = self.modules() if hierarchy.get("modules") else {}
        return build_tree(hierarchy, statistics)

    def nodes(self) -> List[Node]:
        """Every top-level node (index, name, op_type, domain, inputs,
        outputs) with its ``record`` (module, tag, evidence; None when the
        node has none), in graph order."""
        return build_nodes(self.graph(), self.hierarchy())

    def render(self, format: str = "dot") -> str:
        """The graph drawn with nodes nested in modules: "dot" or "graphml"."""
        return self._lib.call_buffer(
            self._lib.mx_model_render, self.handle, format.encode("utf-8"), None).decode("utf-8")


def validate_file(path: PathLike, lib: Optional[Library] = None) -> Json:
    """Validation report of a file: ``{"ok", "checked", "issues": [...]}``.
    Inconsistencies are reported, not raised; unreadable files raise."""
    lib = lib or library()
    with reading(path):
        return _loads(lib.call_buffer(lib.mx_validate_file, _path(path), None))
