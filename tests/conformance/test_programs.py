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

The StaticCache decoder (transformers' ExecuTorch recipe,
convert_and_export_with_cache) keeps its caches in buffers the program
writes in place: the ONNX file takes each as a graph input named by the
buffer (its initializer is the saved, empty cache) and gives its new value
as "<buffer>.updated", at both IR levels and from a non-strict export. ONNX Runtime feeds the prompt
one token per call from the file's own initial state, then decodes 8
tokens feeding the caches back, and must pick eager PyTorch's tokens.

Small stateful modules check the state interface itself: state written
directly and through views is carried call after call, a write through a
view that cannot be written back is refused by name, and
--no-state-outputs drops the state from the interface.
"""
import json
import os
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conformance_support import REPO, run_export

PROGRAMS = os.path.join(REPO, "tests", "fixtures", "programs")
LEVELS = {"training": "{}.pt2", "core": "{}.core.pt2"}


def _export(cli, name, level, out, opset, *extra):
    model = os.path.join(PROGRAMS, LEVELS[level].format(name))
    rc, log = run_export(cli, [model, "-o", out, "--opset", str(opset), *extra])
    assert rc == 0, log


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


STATE = [f"{kind}_{layer}" for layer in range(2) for kind in ("key_cache", "value_cache", "cumulative_length")]


@pytest.mark.parametrize("opset", [20, 23])
@pytest.mark.parametrize("name,level", [("llama_static", "training"), ("llama_static", "core"),
                                        ("llama_static_nonstrict", "training")])
def test_static_cache_decode_matches_eager(name, level, opset, cli, tmp_path):
    """strict=False (torch.export's default) lifts the caches as constants
    beside the buffers they are: the file names them after the buffers."""
    out = str(tmp_path / f"{name}.onnx")
    _export(cli, name, level, out, opset)
    ref = np.load(os.path.join(PROGRAMS, f"{name}.npz"))
    graph = onnx.load(out).graph
    inputs, outputs = [i.name for i in graph.input], [o.name for o in graph.output]
    assert inputs[:2] == ["input_ids", "cache_position"] and sorted(inputs[2:]) == sorted(STATE), inputs
    assert outputs == ["output"] + [f"{n}.updated" for n in inputs[2:]], outputs
    assert {t.name for t in graph.initializer} >= set(STATE), "a state input lost its initial value"
    sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    # ONNX Runtime lists an input with an initializer as an overridable initializer
    assert [i.name for i in sess.get_inputs()] == inputs[:2]
    assert sorted(i.name for i in sess.get_overridable_initializers()) == sorted(STATE)
    state = {}  # the first call runs from the initializers: the caches as saved (empty)

    def step(token, pos):
        nonlocal state
        logits, *new = sess.run(None, {"input_ids": token, "cache_position": np.array([pos], np.int64), **state})
        state = dict(zip(inputs[2:], new))
        return logits

    prompt = ref["prompt"]
    for pos in range(prompt.shape[1]):
        logits = step(prompt[:, pos:pos + 1], pos)
    token = logits[:, -1:].argmax(-1).astype(np.int64)
    assert token.tolist() == ref["first_token"].tolist()
    tokens = []
    for k in range(len(ref["tokens"])):
        logits = step(token, prompt.shape[1] + k)
        token = logits[:, -1:].argmax(-1).astype(np.int64)
        tokens.append(int(token))
    assert tokens == ref["tokens"].tolist()
    used = prompt.shape[1] + len(tokens)
    assert int(state["cumulative_length_0"]) == used
    written = np.abs(state["key_cache_0"]).sum(axis=(0, 1, 3))  # per cache position
    assert (written[:used] > 0).all() and not written[used:].any(), written
    err = np.abs(logits - ref["last_logits"]).max() / max(1.0, np.abs(ref["last_logits"]).max())
    assert err < 1e-4, f"last logits differ by {err:.3g} (relative)"


@pytest.mark.parametrize("level", LEVELS)
def test_written_buffers_and_inputs_are_carried_between_calls(level, cli, tmp_path):
    """Both IR levels give the same interface: the core program names its
    writes in the signature, the TRAINING one writes in place."""
    out = str(tmp_path / "stateful.onnx")
    _export(cli, "stateful", level, out, 20)
    ref = np.load(os.path.join(PROGRAMS, "stateful.npz"))
    graph = onnx.load(out).graph
    assert [i.name for i in graph.input] == ["x", "pos", "total", "steps", "ring"]
    assert [o.name for o in graph.output] == ["output", "steps.updated", "ring.updated", "total.updated"]
    sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    total, state = np.zeros((), np.float32), {}  # steps and ring start from their initializers
    for k, x in enumerate(ref["x"]):
        got, steps, ring, total = sess.run(None, {"x": x, "pos": np.array([k % 4], np.int64), "total": total,
                                                  **state})
        state = {"steps": steps, "ring": ring}
        np.testing.assert_allclose(got, ref["out"][k], rtol=1e-5, atol=1e-6, err_msg=f"call {k}")
    assert int(state["steps"]) == int(ref["steps"])
    np.testing.assert_allclose(state["ring"], ref["ring"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(total, ref["total"], rtol=1e-5)


VIEW_STATE = ["flat", "cache", "sq", "perm", "nar", "uns", "parts"]


@pytest.mark.parametrize("level", LEVELS)
def test_state_written_through_views_is_carried_between_calls(level, cli, tmp_path):
    """Buffers and a user input written through view, select, slice, t,
    permute, narrow, unsqueeze, split, unbind, reshape and transpose: each
    write reaches its state's "<name>.updated"; `frozen`, only detach_ed,
    is not state."""
    out = str(tmp_path / "stateful_views.onnx")
    _export(cli, "stateful_views", level, out, 20)
    ref = np.load(os.path.join(PROGRAMS, "stateful_views.npz"))
    graph = onnx.load(out).graph
    assert [i.name for i in graph.input] == ["x", "idx", "pos", "k", "u"] + VIEW_STATE
    assert [o.name for o in graph.output] == ["output"] + [f"{s}.updated" for s in VIEW_STATE] + ["u.updated"]
    sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    u, state = ref["u0"], {}  # the buffers start from their initializers
    for c, x in enumerate(ref["x"]):
        got, *new, u = sess.run(None, {"x": x, "idx": ref["idx"][c], "pos": np.array(c % 4, np.int64),
                                       "k": ref["k"][c], "u": u, **state})
        state = dict(zip(VIEW_STATE, new))
        np.testing.assert_allclose(got, ref["out"][c], rtol=1e-6, atol=1e-6, err_msg=f"call {c}")
    for s in VIEW_STATE:
        np.testing.assert_allclose(state[s], ref[s], rtol=1e-6, atol=1e-6, err_msg=s)
    np.testing.assert_allclose(u, ref["u"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("how", ["diagonal", "no_grad"])
def test_state_written_through_a_diagonal_or_in_a_region(how, cli, tmp_path):
    """`sq.diagonal().add_(x)` on a buffer: the diagonal is scattered back
    into `sq`; `sq[0].add_(x)` under torch.no_grad() (a nested graph of
    the TRAINING program): the write reaches `sq`. The program returns
    `sq` doubled."""
    path, plugin_dir = cli
    env = dict(os.environ, MODELEXPORT_PLUGIN_PATH=plugin_dir) if plugin_dir else None
    out = str(tmp_path / "m.onnx")
    p = subprocess.run([path, "export", os.path.join(PROGRAMS, f"view_write_{how}.pt2"), "-o", out],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    assert [i.name for i in onnx.load(out).graph.input] == ["x", "sq"]  # sq: an overridable initializer
    sq = np.arange(9, dtype=np.float32).reshape(3, 3)
    x = np.array([1.5, -2.0, 4.0], np.float32)
    got, updated = sess.run(None, {"x": x, "sq": sq})
    want = sq + np.diag(x) if how == "diagonal" else sq + np.eye(3, 1, dtype=np.float32) @ x[None]
    np.testing.assert_allclose(updated, want)
    np.testing.assert_allclose(got, want * 2)


@pytest.mark.parametrize("how,view,why", [
    ("strided", "as_strided", "its base is not provably contiguous, so its storage positions are not the base's"),
    ("reshape", "reshape", "its input is not provably contiguous, so torch may have copied it")])
def test_write_through_a_view_not_written_back_is_refused(how, view, why, cli, tmp_path):
    path, plugin_dir = cli
    env = dict(os.environ, MODELEXPORT_PLUGIN_PATH=plugin_dir) if plugin_dir else None
    p = subprocess.run([path, "export", os.path.join(PROGRAMS, f"view_write_{how}.pt2"), "-o",
                        str(tmp_path / "m.onnx")], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode != 0
    assert f"through the '{view}' view (node '{view}')" in p.stderr, p.stderr
    assert "which is state 'sq'" in p.stderr and why in p.stderr, p.stderr


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("state_outputs", [True, False])
def test_state_outputs_option(level, state_outputs, cli, tmp_path):
    """--no-state-outputs keeps written state as initializers (a written
    user input a plain input) and drops the writes, saying so on stderr and
    in the sidecar: each call runs from the saved state."""
    path, plugin_dir = cli
    env = dict(os.environ, MODELEXPORT_PLUGIN_PATH=plugin_dir) if plugin_dir else None
    out = str(tmp_path / "stateful.onnx")
    model = os.path.join(PROGRAMS, LEVELS[level].format("stateful"))
    p = subprocess.run([path, "export", model, "-o", out] + ([] if state_outputs else ["--no-state-outputs"]),
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    written = [("steps", "buffer"), ("ring", "buffer"), ("total", "input")]
    with open(str(tmp_path / "stateful.hierarchy.json")) as f:
        state = json.load(f)["state"]
    assert state == {"outputs": state_outputs, "written": [
        {"name": n, "kind": k, "updated": f"{n}.updated" if state_outputs else None} for n, k in written]}
    graph = onnx.load(out).graph
    if state_outputs:
        assert "drops those writes" not in p.stderr
        assert [o.name for o in graph.output] == ["output", "steps.updated", "ring.updated", "total.updated"]
        return
    assert "buffer 'steps', buffer 'ring', input 'total'" in p.stderr and "drops those writes" in p.stderr, p.stderr
    assert [i.name for i in graph.input] == ["x", "pos", "total"]
    assert [o.name for o in graph.output] == ["output"]
    assert {t.name for t in graph.initializer} >= {"steps", "ring"}
    ref = np.load(os.path.join(PROGRAMS, "stateful.npz"))
    sess = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    feed = {"x": ref["x"][0], "pos": np.array([0], np.int64), "total": np.zeros((), np.float32)}
    for _ in range(2):  # the same call twice: nothing is carried over
        got, = sess.run(None, feed)
        np.testing.assert_allclose(got, ref["out"][0], rtol=1e-5, atol=1e-6)


def test_view_read_after_a_write_to_its_base_is_refused(cli, tmp_path):
    """row = sq[0]; sq.add_(x); row * 2: PyTorch's row sees the write."""
    path, plugin_dir = cli
    env = dict(os.environ, MODELEXPORT_PLUGIN_PATH=plugin_dir) if plugin_dir else None
    p = subprocess.run([path, "export", os.path.join(PROGRAMS, "view_write_stale.pt2"), "-o",
                        str(tmp_path / "m.onnx")], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode != 0
    assert "'select' (node 'select') views 'b_sq' from before this in-place write" in p.stderr, p.stderr
