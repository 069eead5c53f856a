"""``modelexport.export``: a PyTorch model and example inputs to ONNX with its
module hierarchy in one call, the way ``torch.onnx.export`` is called.

torch is imported inside :func:`export` only: the package keeps no
dependency on it. ``torch.export`` runs in the caller's process; its
program reaches the native exporter through a private temporary ``.pt2``
(the C API reads archives from a path) in a fresh directory only this user
can read, removed before :func:`export` returns, whatever happens.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from typing import Any, Callable, Dict, Iterator, Mapping, Optional

from .errors import ErrorCode, ModelExportError
from .model import Model, PathLike
from .progress import Progress, ProgressCallback
from .registry import Registry

# **options of export(): which call each one goes to.
_EXPORT_OPTIONS = frozenset({"inputs", "drop_builtin_tags"})
_SAVE_OPTIONS = frozenset({"tag_storage", "sidecar", "check"})
# frontend switches, passed in the export's options JSON
_FRONTEND_OPTIONS = frozenset({"fused_ops", "fold_batch_norms", "upcast_bf16", "state_outputs"})


# A model larger than this is saved with external data unless the caller
# says otherwise (the CLI's threshold).
EXTERNAL_DATA_OVER = 1 << 20


def export(model: Any, args: Any = (), f: Optional[PathLike] = None, *,
           kwargs: Optional[Mapping[str, Any]] = None, dynamic_shapes: Any = None,
           strict: bool = False, opset: Optional[int] = None,
           external_data: Optional[bool] = None,
           progress: Optional[ProgressCallback] = None, **options: Any) -> Model:
    """Exports ``model`` called with ``args`` (and ``kwargs``) to the ONNX
    file ``f`` plus its sidecar ``<f stem>.hierarchy.json``; returns the
    :class:`Model` (module tree, nodes, records), which the caller closes.

    ``model`` is a ``torch.nn.Module``, run through
    ``torch.export.export(model, args, kwargs, dynamic_shapes=…,
    strict=…)``, or an ``ExportedProgram`` (then ``args``, ``kwargs`` and
    ``dynamic_shapes`` must be left out: the program has them). ``args`` is a
    tuple, or a single tensor. Errors of ``torch.export`` propagate as they
    are. ``f=None`` writes nothing.

    ``opset``: 14..28 (default 20); ``fused_ops=False`` keeps Gelu,
    GroupNormalization, Attention and RMSNormalization decomposed;
    ``fold_batch_norms=False`` keeps a BatchNormalization after a Conv as a
    node (default: folded into the Conv); ``upcast_bf16=True`` computes bf16
    ops in float32 between Casts (for ONNX Runtime's CPU provider);
    ``state_outputs=False`` keeps state the program writes (a KV cache
    buffer) as an initializer and drops its ``<name>.updated`` outputs.
    ``external_data=True`` streams weights to
    ``<f>.data`` (None: when the model is over 1 MiB, as the CLI does;
    False: inline up to protobuf's 2 GB). ``progress`` receives
    :class:`Progress` reports: "torch.export", then the native stages
    ("walk", "lower", "write", ...); returning False cancels.
    ``options``: ``inputs`` (specs that rename dims or override sizes) and
    ``drop_builtin_tags`` for the export; ``tag_storage``, ``sidecar`` and
    ``check`` for the save (see :meth:`Model.save_file`).
    """
    unknown = set(options) - _EXPORT_OPTIONS - _SAVE_OPTIONS - _FRONTEND_OPTIONS
    if unknown:
        raise TypeError(f"export() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    torch_export = _torch_export()
    if isinstance(model, torch_export.ExportedProgram):
        if _as_tuple(args) or kwargs or dynamic_shapes is not None:
            raise TypeError("export() of an ExportedProgram takes no args, kwargs or "
                            "dynamic_shapes: the program has them already")
        program = model
    else:
        _report(progress, Progress("torch.export", "", 0, 0))
        program = torch_export.export(model, _as_tuple(args), kwargs=dict(kwargs) if kwargs else None,
                                      dynamic_shapes=dynamic_shapes, strict=strict)
        _report(progress, Progress("torch.export", "", 1, 1))
    source = f"the torch.export program of {type(model).__name__}"
    if program is model:
        source = "the ExportedProgram"
    return export_archive(lambda path: torch_export.save(program, path), f, source=source,
                          opset=opset, external_data=external_data, progress=progress, **options)


def export_archive(write: Callable[[str], None], f: Optional[PathLike] = None, *,
                   source: str = "the exported program", opset: Optional[int] = None,
                   external_data: Optional[bool] = None,
                   progress: Optional[ProgressCallback] = None, **options: Any) -> Model:
    """The native half of :func:`export`: ``write(path)`` saves a ``.pt2``
    archive at a private temporary ``path``, which the ``torch_export``
    frontend reads; the archive is removed before this returns (the model
    keeps no reference to it). Writes ``f`` and its sidecar when given.
    The SDK's errors name ``source`` where they would name the archive,
    a file the caller never saw."""
    export_options = {k: v for k, v in options.items() if k in _EXPORT_OPTIONS}
    save_options = {k: v for k, v in options.items() if k in _SAVE_OPTIONS}
    frontend_options = {k: v for k, v in options.items() if k in _FRONTEND_OPTIONS}
    with private_archive(write) as archive, Registry() as registry:
        try:
            result = registry.export(archive, frontend="torch_export", opset=opset,
                                     external_data=external_data, progress=progress,
                                     options=frontend_options or None, **export_options)
        except ModelExportError as failure:
            if archive not in failure.message:
                raise
            raise ModelExportError(failure.code, failure.message.replace(f"'{archive}'", source)
                                   .replace(archive, source)) from None
    if f is not None:
        try:
            # As the CLI: past 1 MiB the weights go to <f>.data, which ONNX
            # Runtime loads faster than inline ones (docs/lean-graphs.md).
            over = {"external_data_over": EXTERNAL_DATA_OVER} if external_data is None else None
            result.save_file(f, external_data=external_data, options=over, progress=progress, **save_options)
        except BaseException:
            result.close()
            raise
    return result


@contextlib.contextmanager
def private_archive(write: Callable[[str], None]) -> Iterator[str]:
    """The path of a ``.pt2`` that ``write`` fills, in a new directory of
    mode 0700 under the temporary directory; the directory goes on exit,
    also when ``write`` or the body raises."""
    directory = tempfile.mkdtemp(prefix="modelexport-")
    try:
        path = os.path.join(directory, "model.pt2")
        write(path)
        yield path
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _torch_export() -> Any:
    """``torch.export``, imported now; ImportError saying what is missing."""
    try:
        import torch
    except ImportError as missing:
        raise ImportError("modelexport.export() needs PyTorch with torch.export (PyTorch 2); "
                          "torch is not installed") from missing
    try:
        import torch.export as torch_export
    except ImportError as missing:
        raise ImportError(f"modelexport.export() needs torch.export (PyTorch 2); the installed "
                          f"torch {torch.__version__} has none. With this torch, save a "
                          "TorchScript file and use Registry.export") from missing
    return torch_export


def _as_tuple(args: Any) -> tuple:
    if args is None:
        return ()
    return args if isinstance(args, tuple) else (args,)


def _report(progress: Optional[ProgressCallback], report: Progress) -> None:
    """A report of this module's own stage; False cancels, as in the SDK."""
    if progress is not None and progress(report) is False:
        raise ModelExportError(ErrorCode.CANCELLED, f"{report.stage}: cancelled by the progress callback")
