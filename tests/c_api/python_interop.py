"""Checks that an ONNX file written by modelexport (node records in
NodeProto.metadata_props, field 9) is accepted by other ONNX readers.

Run by ctest twice:
  <debian python3> python_interop.py legacy  FILE  -> onnx 1.12 checker passes
  <venv python>    python_interop.py current FILE  -> onnx >= 1.16 reads the
      node metadata_props, full check passes, ONNX Runtime loads and runs it
"""
import sys


def legacy(path):
    import onnx
    model = onnx.load(path)
    onnx.checker.check_model(model)
    onnx.checker.check_model(path)
    print(f"onnx {onnx.__version__}: checker accepts {path}")


def current(path):
    import numpy as np
    import onnx
    import onnxruntime as ort

    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    for node in model.graph.node:
        props = {p.key: p.value for p in node.metadata_props}
        for key in ("modelexport.module", "modelexport.tag", "modelexport.evidence", "namespace"):
            assert key in props, f"node {node.name}: metadata_props lacks {key}: {props}"
    matmul = {p.key: p.value for p in model.graph.node[0].metadata_props}
    assert matmul["modelexport.module"] == "fc", matmul
    assert matmul["modelexport.tag"] == "/TinyNet/Linear", matmul
    model_meta = {p.key: p.value for p in model.metadata_props}
    assert model_meta["modelexport.schema"] == "modelexport.hierarchy/1", model_meta

    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    (y,) = session.run(None, {"X": x})
    weights = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    expected = np.maximum(x @ weights["fc.weight"] + weights["fc.bias"], 0)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
    print(f"onnx {onnx.__version__} + onnxruntime {ort.__version__}: metadata read, model runs")


if __name__ == "__main__":
    mode, path = sys.argv[1], sys.argv[2]
    {"legacy": legacy, "current": current}[mode](path)
