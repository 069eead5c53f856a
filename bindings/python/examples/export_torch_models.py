#!/usr/bin/env python3
"""modelexport.export() on real PyTorch models, each checked in ONNX Runtime
against eager PyTorch at two input shapes (the dynamic dimensions changed).

Needs torch 2.x with torch.export (made with 2.15), torchvision,
transformers, onnxruntime and numpy, plus the modelexport package:
`pip install ./bindings/python`, or a build tree through
PYTHONPATH=bindings/python/src, MODELEXPORT_LIBRARY and
MODELEXPORT_PLUGIN_PATH. Usage:

    python bindings/python/examples/export_torch_models.py [OUTDIR]

Cases: torchvision resnet18 with a dynamic batch; a transformers BERT
(small config, random weights) with dynamic batch and sequence, called
with keyword inputs; the same BERT handed over as an ExportedProgram; a
model torch.export refuses (its own error must come through unchanged);
an op the exporter does not lower (our error must name op, node, module).
Prints one line per case; exits with 1 when a check fails.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence

import numpy as np
import onnxruntime as ort
import torch
import torchvision
import transformers

import modelexport as mx

TOLERANCE = 1e-3  # max |onnx - torch| / max(1, max |torch|)


def flat_outputs(value: Any) -> List[np.ndarray]:
    """The outputs in torch.export's flattened order, as numpy."""
    leaves, _ = torch.utils._pytree.tree_flatten(value)
    return [leaf.detach().numpy() for leaf in leaves if isinstance(leaf, torch.Tensor)]


def check_in_ort(path: Path, model: torch.nn.Module, cases: Sequence[Dict[str, torch.Tensor]]
                 ) -> List[float]:
    """The scaled max error of each case, ONNX Runtime vs eager."""
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    errors = []
    for inputs in cases:
        with torch.no_grad():
            expected = flat_outputs(model(**inputs))
        got = session.run(None, {name: inputs[name].numpy() for name in names})
        assert len(got) == len(expected), f"{len(got)} outputs, expected {len(expected)}"
        errors.append(max(float(np.max(np.abs(g - e))) / max(1.0, float(np.max(np.abs(e))))
                          for g, e in zip(got, expected)))
    return errors


def summary(model: mx.Model) -> str:
    records = [node.record for node in model.nodes()]
    missing = sum(r is None for r in records)
    assert missing == 0, f"{missing} of {len(records)} nodes have no module"
    modules = {r.module for r in records}
    return f"{len(records)} nodes in {len(modules)} modules, every node tagged"


def run_case(name: str, export: Callable[[Path], mx.Model], model: torch.nn.Module,
             cases: Sequence[Dict[str, torch.Tensor]], out: Path, failures: List[str]) -> None:
    path = out / f"{name}.onnx"
    try:
        start = time.perf_counter()
        with export(path) as exported:
            seconds = time.perf_counter() - start
            tagged = summary(exported)
        errors = check_in_ort(path, model, cases)
        shapes = ", ".join(" ".join(f"{k}{list(v.shape)}" for k, v in c.items()) for c in cases)
        ok = all(e <= TOLERANCE for e in errors)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: export {seconds:.2f} s, {tagged}; "
              f"max scaled error {', '.join(f'{e:.1e}' for e in errors)} at {shapes}")
        if not ok:
            failures.append(name)
    except Exception as exc:  # reported, and the other cases still run
        print(f"FAIL {name}: {type(exc).__module__}.{type(exc).__name__}: {exc}")
        failures.append(name)


def resnet18(out: Path, failures: List[str]) -> None:
    torch.manual_seed(0)
    model = torchvision.models.resnet18(weights=None).eval()
    batch = torch.export.Dim("batch", min=1, max=64)
    run_case("resnet18",
             lambda f: mx.export(model, (torch.randn(2, 3, 224, 224),), f,
                                 dynamic_shapes={"x": {0: batch}}),
             model, [{"x": torch.randn(2, 3, 224, 224)}, {"x": torch.randn(5, 3, 224, 224)}],
             out, failures)


def bert() -> torch.nn.Module:
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, intermediate_size=96,
                                     max_position_embeddings=64)
    return transformers.BertModel(config).eval()


def bert_inputs(batch: int, seq: int) -> Dict[str, torch.Tensor]:
    mask = torch.ones(batch, seq, dtype=torch.int64)
    mask[0, seq // 2:] = 0  # padding in one row: the mask must matter
    return {"input_ids": torch.randint(0, 128, (batch, seq)), "attention_mask": mask}


def bert_dynamic_shapes() -> Dict[str, Dict[int, Any]]:
    batch = torch.export.Dim("batch", min=1, max=32)
    seq = torch.export.Dim("seq", min=2, max=64)
    return {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}}


def transformers_bert(out: Path, failures: List[str]) -> None:
    model = bert()
    run_case("bert",
             lambda f: mx.export(model, (), f, kwargs=bert_inputs(2, 8),
                                 dynamic_shapes=bert_dynamic_shapes()),
             model, [bert_inputs(2, 8), bert_inputs(3, 13)], out, failures)


def exported_program(out: Path, failures: List[str]) -> None:
    model = bert()
    program = torch.export.export(model, (), kwargs=bert_inputs(2, 8),
                                  dynamic_shapes=bert_dynamic_shapes())
    run_case("bert_exported_program", lambda f: mx.export(program, f=f),
             model, [bert_inputs(2, 8), bert_inputs(4, 5)], out, failures)


class DataDependent(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:  # torch.export cannot trace a branch on data
            return x * 2
        return x


def torch_export_error(out: Path, failures: List[str]) -> None:
    try:
        mx.export(DataDependent(), (torch.randn(3),), out / "refused.onnx")
    except Exception as exc:
        from_torch = type(exc).__module__.startswith("torch")
        written = (out / "refused.onnx").exists()
        ok = from_torch and not written
        print(f"{'ok  ' if ok else 'FAIL'} torch.export error: {type(exc).__module__}."
              f"{type(exc).__name__} raised as is, nothing written: {not written}")
        if not ok:
            failures.append("torch_export_error")
        return
    print("FAIL torch.export error: the data-dependent branch was exported")
    failures.append("torch_export_error")


class Spectrum(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.rfft(x).abs()


class WithSpectrum(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.spectrum = Spectrum()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.spectrum(self.proj(x))


def unsupported_op(out: Path, _failures: List[str]) -> None:
    """Informational: what our error says about an op without a lowering."""
    try:
        mx.export(WithSpectrum(), (torch.randn(2, 8),), out / "spectrum.onnx").close()
        print("info unsupported op: torch.fft.rfft was exported (it has a lowering)")
    except mx.ModelExportError as exc:
        print(f"info unsupported op: {exc}")


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="mx-torch-"))
    out.mkdir(parents=True, exist_ok=True)
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, transformers "
          f"{transformers.__version__}, onnxruntime {ort.__version__}, modelexport "
          f"{mx.version()}; files in {out}")
    failures: List[str] = []
    for case in (resnet18, transformers_bert, exported_program, torch_export_error, unsupported_op):
        case(out, failures)
    print("all checks passed" if not failures else f"FAILED: {', '.join(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
