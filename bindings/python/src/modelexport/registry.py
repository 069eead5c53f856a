"""``Registry``: the plugin host (``mx_registry``): export, tag, module trees."""
from __future__ import annotations

import ctypes
import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from ._library import Library, library
from .model import Json, Model, PathLike, _loads, _path, in_use, options_json, reading
from .progress import ProgressCallback


class Registry:
    """Discovers and runs plugins. Safe to share between threads once created.

    ``discover`` scans the install's plugin directory and every directory of
    ``MODELEXPORT_PLUGIN_PATH``; ``plugin_dirs`` are scanned after those.
    ``graph_reader=False`` sends every strategy the graph as JSON text
    instead of letting those that can (plugin ABI 1.2) read it through the
    host; results are the same. Refused plugins do not raise: they are
    listed by :meth:`plugins`.
    """

    __slots__ = ("_handle", "_lib", "_uses", "_close_pending", "__weakref__")

    def __init__(self, *, discover: Optional[bool] = None,
                 plugin_dirs: Optional[Iterable[PathLike]] = None,
                 graph_reader: Optional[bool] = None,
                 options: Optional[Mapping[str, Any]] = None) -> None:
        self._handle: Optional[int] = None
        self._uses = 0
        self._close_pending = False
        self._lib: Library = library()
        dirs = [os.fspath(d) for d in plugin_dirs] if plugin_dirs is not None else None
        opts = options_json(options, discover=discover, plugin_dirs=dirs, graph_reader=graph_reader)
        out = ctypes.c_void_p()
        self._lib.check(self._lib.mx_registry_create(opts, ctypes.byref(out)))
        self._handle = out.value

    @classmethod
    def create(cls, *, discover: Optional[bool] = None,
               plugin_dirs: Optional[Iterable[PathLike]] = None,
               graph_reader: Optional[bool] = None,
               options: Optional[Mapping[str, Any]] = None) -> "Registry":
        """Same as the constructor (mirrors mx_registry_create)."""
        return cls(discover=discover, plugin_dirs=plugin_dirs, graph_reader=graph_reader,
                   options=options)

    # -- lifetime -------------------------------------------------------------

    @property
    def handle(self) -> int:
        if self._handle is None or self._close_pending:
            raise ValueError("the registry has been closed")
        return self._handle

    @property
    def closed(self) -> bool:
        return self._handle is None or self._close_pending

    def close(self) -> None:
        """Releases the plugins (idempotent); from a progress callback, once
        the running call returns."""
        if self._uses:
            self._close_pending = True
            return
        handle, self._handle = self._handle, None
        if handle:
            self._lib.mx_registry_release(handle)

    def __enter__(self) -> "Registry":
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return "<modelexport.Registry closed>" if self.closed else "<modelexport.Registry>"

    # -- plugins --------------------------------------------------------------

    def plugins(self) -> Json:
        """``{"plugin_dirs": [...], "plugins": [{"name", "kind", "status", ...}]}``;
        refused plugins carry ``"status": "refused"`` and a ``"reason"``."""
        return _loads(self._lib.call_buffer(self._lib.mx_registry_plugins_json, self.handle))

    def plugin_names(self, kind: Optional[str] = None) -> Sequence[str]:
        """Names of the loaded plugins, optionally of one kind ("frontend", "strategy")."""
        return [p["name"] for p in self.plugins().get("plugins", [])
                if p.get("status") == "loaded" and (kind is None or p.get("kind") == kind)]

    def load_plugin(self, path: PathLike) -> None:
        """Loads one plugin library; a refusal raises ModelExportError (PLUGIN)."""
        with reading(path):
            self._lib.check(self._lib.mx_registry_load_plugin(self.handle, _path(path)))

    # -- running plugins ------------------------------------------------------

    def tag(self, model: Model, strategy: str = "auto", *,
            hierarchy: Union[Mapping[str, Any], str, None] = None,
            strategy_options: Optional[Mapping[str, Any]] = None,
            options: Optional[Mapping[str, Any]] = None,
            progress: Optional[ProgressCallback] = None) -> Model:
        """Runs a strategy (or "auto") and the core's propagation on ``model``,
        replacing its hierarchy. ``hierarchy`` (document or path) supplies
        class names. ``progress`` receives :class:`Progress` reports
        ("tag", "propagate"; see :mod:`modelexport.progress`). Returns
        ``model``."""
        hier = dict(hierarchy) if isinstance(hierarchy, Mapping) else hierarchy
        opts = options_json(options, hierarchy=hier,
                            strategy_options=dict(strategy_options) if strategy_options else None)
        with in_use(self, model):
            self._lib.call_listening(progress, "mx_registry_tag", "mx_registry_tag_with_progress",
                                     self.handle, strategy.encode("utf-8"), model.handle, opts)
        return model

    def export(self, model_path: PathLike, inputs: Sequence[str] = (), *,
               frontend: str = "auto", opset: Optional[int] = None,
               drop_builtin_tags: Optional[bool] = None,
               external_data: Optional[bool] = None,
               options: Optional[Mapping[str, Any]] = None,
               progress: Optional[ProgressCallback] = None) -> Model:
        """Exports a source model through a frontend: a ``torch.export``
        archive (``.pt2``) or a TorchScript ``.pt``; ``frontend="auto"`` lets
        the file's content choose.

        ``inputs`` are specs such as ``"input_ids:int64[batch=2,seq=16]"``
        (a named dimension is dynamic): required for TorchScript, optional
        for ``.pt2`` (the program knows its inputs; a spec overrides sizes and
        names dims). ``external_data=True`` streams weights to a data file
        instead of memory (None: only past protobuf's 2 GB). ``progress`` receives :class:`Progress` reports ("walk"
        or "lower" with ops done / total; see :mod:`modelexport.progress`).
        Save the result with :meth:`Model.save_file`."""
        if isinstance(inputs, str):
            inputs = [inputs]
        opts = options_json(options, inputs=list(inputs), opset=opset,
                            drop_builtin_tags=drop_builtin_tags, external_data=external_data)
        out = ctypes.c_void_p()
        try:
            with reading(model_path), in_use(self):
                self._lib.call_listening(
                    progress, "mx_registry_export", "mx_registry_export_with_progress",
                    self.handle, frontend.encode("utf-8"), _path(model_path), opts,
                    tail=(ctypes.byref(out),))
        except BaseException:
            if out.value:  # a model made before the callback's exception surfaced
                self._lib.mx_model_release(out.value)
            raise
        return Model._adopt(out.value, self._lib)  # type: ignore[arg-type]

    def module_tree(self, model_path: PathLike, frontend: str = "auto") -> Json:
        """The module tree of a source model, as a hierarchy document without node records."""
        with reading(model_path):
            return _loads(self._lib.call_buffer(
                self._lib.mx_registry_module_tree, self.handle, frontend.encode("utf-8"),
                _path(model_path)))
