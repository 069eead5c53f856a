"""`modelexport extract` on native exports with dynamic dims (issue 15: a
Hugging Face-structured BERT with dynamic batch and sequence failed with
"ONNX checker: Field 'shape' of 'type' is required but missing").

The extracted module must pass the ONNX checker and, run by ONNX Runtime
on the values its inputs take inside the full model, produce the values its
outputs take there — at the example shape and at another batch/sequence."""
import os
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest

# (fixture, module): a BERT layer (attention reshapes computed from dynamic
# sizes), its self-attention alone, and a GPT-2 block (causal mask built
# from the dynamic sequence length).
CASES = [("bert_tiny", "encoder.layer.0"), ("bert_tiny", "encoder.layer.1.attention.self"),
         ("gpt2_tiny", "h.0")]


def _cli(exporter):
    if exporter.kind != "cli":
        pytest.skip("extract needs the modelexport CLI")
    env = dict(os.environ)
    if exporter.plugin_dir:
        env["MODELEXPORT_PLUGIN_PATH"] = exporter.plugin_dir
    return exporter.path, env


def _values_in_full_model(full_path, names, feeds, tmp_path):
    """The values `names` take when the full model runs on `feeds`: the
    model is re-saved with them as extra graph outputs."""
    model = onnx.load(full_path)
    have = {o.name for o in model.graph.output}
    for n in names:
        if n not in have:
            model.graph.output.append(onnx.ValueInfoProto(name=n))
    probe = str(tmp_path / "probe.onnx")
    onnx.save(model, probe)
    sess = ort.InferenceSession(probe, providers=["CPUExecutionProvider"])
    return dict(zip(names, sess.run(names, feeds)))


@pytest.mark.parametrize("name,module", CASES)
def test_extract_dynamic_module(name, module, exported, exporter, fixtures_dir, tmp_path):
    cli, env = _cli(exporter)
    full, _ = exported(name)
    part = str(tmp_path / "part.onnx")
    p = subprocess.run([cli, "extract", full, "--module", module, "-o", part],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    extracted = onnx.load(part)
    onnx.checker.check_model(extracted, full_check=True)
    # Dynamic dims stay dynamic: the boundary is typed with the full
    # model's symbols (or unnamed dims), never pinned to the example shape.
    for vi in list(extracted.graph.input) + list(extracted.graph.output):
        assert vi.type.tensor_type.HasField("shape"), vi.name

    ins = [i.name for i in extracted.graph.input]
    outs = [o.name for o in extracted.graph.output]
    sess = ort.InferenceSession(part, providers=["CPUExecutionProvider"])
    for suffix in ("", "2"):  # batch 2, seq 16 / 12 and batch 3, seq 7 / 20
        feeds = dict(np.load(os.path.join(fixtures_dir, f"{name}.inputs{suffix}.npz")))
        values = _values_in_full_model(full, ins + outs, feeds, tmp_path)
        got = sess.run(outs, {n: values[n] for n in ins})
        for n, g in zip(outs, got):
            want = values[n]
            assert g.shape == want.shape, f"{module}{suffix} output {n}: {g.shape} vs {want.shape}"
            np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5, err_msg=f"{module}{suffix} output {n}")
