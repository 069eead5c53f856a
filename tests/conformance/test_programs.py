"""Real programs: 8 greedy decode steps of small LLMs in ONNX Runtime.

The fixtures (tests/fixtures/programs/make_programs.py, torch 2.15 with
transformers 5) are single decode steps through transformers' DynamicCache
with a dynamic past length: a LLaMA-style decoder and a mixture-of-experts
decoder (Mixtral). Each is exported at both IR levels; ONNX Runtime then
decodes 8 tokens from a prompt's cache, feeding the new caches back (the
past grows from 5 to 13), and must pick eager PyTorch's tokens. At opset
23 the LLaMA decoder's RMSNorms are RMSNormalization nodes and, as saved
(training IR), its attention is one ONNX Attention node per layer, each in
its module.
"""
import os
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conformance_support import REPO

PROGRAMS = os.path.join(REPO, "tests", "fixtures", "programs")
LEVELS = {"training": "{}.pt2", "core": "{}.core.pt2"}


def _export(cli, name, level, out, opset):
    path, plugin_dir = cli
    env = dict(os.environ, MODELEXPORT_PLUGIN_PATH=plugin_dir) if plugin_dir else None
    model = os.path.join(PROGRAMS, LEVELS[level].format(name))
    p = subprocess.run([path, "export", model, "-o", out, "--opset", str(opset)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.parametrize("opset", [20, 23])
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", ["llama_decode", "mixtral_decode"])
def test_greedy_decode_matches_eager(name, level, opset, cli, tmp_path):
    out = str(tmp_path / f"{name}.onnx")
    _export(cli, name, level, out, opset)
    ref = np.load(os.path.join(PROGRAMS, f"{name}.npz"))
    sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    assert names[0] == "input_ids" and len(names) == 5, names
    cache = [ref[f"past.{k}"] for k in range(4)]
    token = ref["first_token"]
    tokens = []
    for _ in range(len(ref["tokens"])):
        logits, *cache = sess.run(None, dict(zip(names, [token, *cache])))
        token = logits[:, -1:].argmax(-1).astype(np.int64)
        tokens.append(int(token))
    assert tokens == ref["tokens"].tolist()
    assert cache[0].shape[2] == 5 + len(tokens), "the cache did not grow by one per step"
    err = np.abs(logits - ref["last_logits"]).max() / max(1.0, np.abs(ref["last_logits"]).max())
    assert err < 1e-4, f"last logits differ by {err:.3g} (relative)"


def _module(node):
    return {p.key: p.value for p in node.metadata_props}.get("modelexport.module")


@pytest.mark.parametrize("level", LEVELS)
def test_llama_fused_attention_and_rms_norm_at_opset_23(level, cli, tmp_path):
    out = str(tmp_path / "llama.onnx")
    _export(cli, "llama_decode", level, out, 23)
    nodes = onnx.load(out).graph.node
    attention = [_module(n) for n in nodes if n.op_type == "Attention"]
    norms = [_module(n) for n in nodes if n.op_type == "RMSNormalization"]
    # the decode step wraps the LlamaForCausalLM as `model`. The core IR
    # holds attention decomposed (bmm, softmax, masks): not re-fused.
    want = ["model.model.layers.0.self_attn", "model.model.layers.1.self_attn"] if level == "training" else []
    assert attention == want, attention
    assert sorted(norms) == sorted(f"model.model.{m}" for m in (
        "layers.0.input_layernorm", "layers.0.post_attention_layernorm",
        "layers.1.input_layernorm", "layers.1.post_attention_layernorm", "norm")), norms
    assert not [n.op_type for n in nodes if n.op_type in ("Sqrt", "Reciprocal")]
    if level == "training":
        assert not [n for n in nodes if n.op_type == "Softmax"]
    assert all(_module(n) is not None for n in nodes)
