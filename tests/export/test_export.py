"""End-to-end: TorchScript fixtures -> ONNX via the torchscript frontend,
checked against LibTorch with ONNX Runtime at two shapes, plus hierarchy and
error-message checks."""
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest

PARITY = ["test_transformer", "complex_model", "bert_tiny", "gpt2_tiny", "transformer_encoder", "vit_b_16",
          "ops_elementwise", "ops_index", "ops_vision", "ops_recurrent"]
# vit_b_16 is big: one export and one shape is enough.
SECOND_SHAPE = {n: n != "vit_b_16" for n in PARITY}


def _compare(sess, fixtures_dir, name, suffix):
    inputs = dict(np.load(os.path.join(fixtures_dir, f"{name}.inputs{suffix}.npz")))
    ref = np.load(os.path.join(fixtures_dir, f"{name}.outputs{suffix}.npz"))
    outs = sess.run(None, inputs)
    assert len(outs) == len(ref.files)
    worst = 0.0
    for i, got in enumerate(outs):
        want = ref[f"o{i}"]
        assert got.shape == want.shape, f"{name} output {i}: {got.shape} vs {want.shape}"
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        tol = 1e-4 * np.maximum(1.0, np.abs(want.astype(np.float64)))
        assert np.all(diff <= tol), f"{name}{suffix} output {i}: max abs diff {diff.max()}"
        worst = max(worst, float(diff.max()) if diff.size else 0.0)
    return worst


@pytest.mark.parametrize("name", PARITY)
def test_parity(name, exported, fixtures_dir):
    path, hier = exported(name)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    d1 = _compare(sess, fixtures_dir, name, "")
    d2 = _compare(sess, fixtures_dir, name, "2") if SECOND_SHAPE[name] else float("nan")
    ev = hier["statistics"]["evidence"]
    n = len(model.graph.node)
    print(f"\nPARITY {name}: nodes={n} diff1={d1:.3g} diff2={d2:.3g} evidence={ev}")
    # every node has exactly one record
    names = [nd.name for nd in model.graph.node]
    assert len(set(names)) == len(names)
    recs = {r["name"]: r for r in hier["nodes"]}
    assert set(names) == set(recs)
    # every node is captured while lowering, from the module whose forward ran
    # it (the root's own forward included): no fallback, no propagation
    assert ev["root"] == 0 and ev["propagated"] == 0, ev
    assert hier["statistics"]["at_root"] == sum(1 for r in hier["nodes"] if r["module"] == "")
    # initializers are parameter/buffer paths of modules in the tree, or
    # constants the graph passes made initializers (named by the value of
    # the node they replace: "/scope/Constant_output_0")
    paths = {m["path"] for m in hier["modules"]}
    for init in model.graph.initializer:
        if init.name.startswith("/"):
            continue
        owner = init.name.rsplit(".", 1)[0] if "." in init.name else ""
        assert owner in paths, f"initializer {init.name} is not a parameter path"


def _records(hier, module):
    return [r for r in hier["nodes"] if r["module"] == module]


def test_bert_hierarchy(exported):
    path, hier = exported("bert_tiny")
    q = _records(hier, "encoder.layer.0.attention.self.query")
    assert q, "no node recorded for encoder.layer.0.attention.self.query"
    assert {r["tag"] for r in q} == {"/BertModel/BertEncoder/BertLayer.0/BertAttention/BertSelfAttention/Linear"}
    assert all(r["evidence"] == "direct" for r in q)
    assert any(r["name"] == "/encoder/layer.0/attention/self/query/MatMul" for r in q)
    mods = {m["path"]: m for m in hier["modules"]}
    assert mods[""]["class"] == "BertModel" and mods[""]["execution_order"] == 0
    assert mods["encoder.layer"]["class"] == "ModuleList" and not mods["encoder.layer"]["executed"]
    assert mods["encoder.layer.1"]["executed"]
    assert mods["encoder.layer.0.attention.self"]["qualified_class"] == \
        "transformers.models.bert.modeling_bert.BertSelfAttention"
    inits = {i.name for i in onnx.load(path).graph.initializer}
    assert "encoder.layer.0.attention.self.query.weight" in inits


def test_test_transformer_hierarchy(exported):
    _, hier = exported("test_transformer")
    recs = _records(hier, "layers.1.attention.query")
    assert recs and recs[0]["tag"] == "/TestTransformer/TransformerBlock.1/AttentionHead/Linear"
    mods = {m["path"]: m for m in hier["modules"]}
    assert mods["layers.0"]["parent"] == "layers"
    assert mods["layers"]["children"] == ["layers.0", "layers.1"]
    assert mods[""]["parameters"] == sum(m["own_parameters"] for m in hier["modules"])


def test_gpt2_tied_weights(exported):
    path, hier = exported("gpt2_tiny")
    model = onnx.load(path)
    inits = [i.name for i in model.graph.initializer]
    vocab_sized = [i for i in model.graph.initializer if list(i.dims) == [500, 64]]
    assert len(vocab_sized) == 1, inits  # wte and lm_head share one initializer
    assert _records(hier, "h.0.attn.c_attn")


@pytest.mark.parametrize("name", ["gpt2_tiny", "bert_tiny"])
def test_no_shape_read_of_a_static_dim(name, exported):
    """`x.size(d)` of a dim that does not follow a named input dim is a
    static value (lowering of aten::size), and the graph passes fold what
    reads it: no Shape slice, nor Gather of a Shape, reads a dim shape
    inference knows as a number."""
    path, _ = exported(name)
    model = onnx.shape_inference.infer_shapes(onnx.load(path))
    dims = {}
    for vi in list(model.graph.input) + list(model.graph.value_info):
        if vi.type.tensor_type.HasField("shape"):
            dims[vi.name] = [d.dim_value if d.HasField("dim_value") else None
                             for d in vi.type.tensor_type.shape.dim]
    consts = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Constant":
            consts[n.output[0]] = onnx.numpy_helper.to_array(n.attribute[0].t)
    read = {}  # Shape output -> the dims of its input it holds
    for n in model.graph.node:
        if n.op_type == "Shape" and n.input[0] in dims:
            x = dims[n.input[0]]
            a = {at.name: at.i for at in n.attribute}
            read[n.output[0]] = x[slice(a.get("start", 0), a.get("end", len(x)))]
            if "start" in a or "end" in a:
                assert None in read[n.output[0]], f"{n.name} reads static dims of {n.input[0]}"
    gathers = [n for n in model.graph.node if n.op_type == "Gather" and n.input[0] in read]
    for n in gathers:
        if n.input[1] in consts:
            for i in np.atleast_1d(consts[n.input[1]]):
                assert read[n.input[0]][int(i)] is None, f"{n.name} reads a static dim"
    assert read, "no Shape read at all: the fixture lost its dynamic dims"


def test_fast_path_modules(exported):
    _, hier = exported("transformer_encoder")
    assert _records(hier, "layers.0") and _records(hier, "layers.1")
    _, hier = exported("complex_model")
    assert _records(hier, "attention")
    assert _records(hier, "feature_extractor.0")


# ------------------------------------------------------------ errors
def _fail(exporter, fixtures_dir, tmp_path, model, specs):
    out = str(tmp_path / "bad.onnx")
    rc, log, _ = exporter.run(os.path.join(fixtures_dir, model), out, specs)
    assert rc != 0, log
    assert not os.path.exists(out), "no output file on failure"
    return log


def test_unknown_input(exporter, fixtures_dir, tmp_path):
    log = _fail(exporter, fixtures_dir, tmp_path, "test_transformer.pt", ["ids:int64[batch=2,seq=16]"])
    assert "unknown input 'ids'" in log and "input_ids" in log


def test_missing_input(exporter, fixtures_dir, tmp_path):
    log = _fail(exporter, fixtures_dir, tmp_path, "bert_tiny.pt", ["input_ids:int64[batch=2,seq=16]"])
    assert "missing input 'attention_mask'" in log


def test_wrong_dtype(exporter, fixtures_dir, tmp_path):
    log = _fail(exporter, fixtures_dir, tmp_path, "test_transformer.pt", ["input_ids:float32[batch=2,seq=16]"])
    assert "input_ids" in log and "float32" in log


def test_wrong_rank(exporter, fixtures_dir, tmp_path):
    specs = ["input_ids:int64[2,16,4]", "attention_mask:int64[2,16]", "token_type_ids:int64[2,16]"]
    log = _fail(exporter, fixtures_dir, tmp_path, "bert_tiny.pt", specs)
    assert "input specs" in log or "rank" in log
    # The failing op names the model inputs it reads; the wrong one is among them.
    assert "it reads the model input(s)" in log and "'input_ids'" in log, log
    assert "'attention_mask'" not in log.split("it reads the model input(s)")[1].split(")")[0], log


def test_bad_spec(exporter, fixtures_dir, tmp_path):
    log = _fail(exporter, fixtures_dir, tmp_path, "test_transformer.pt", ["input_ids:int99[2,16]"])
    assert "int99" in log


def test_not_torchscript(exporter, fixtures_dir, tmp_path):
    log = _fail(exporter, fixtures_dir, tmp_path, "not_torchscript.pt", ["x:float32[2]"])
    assert "not_torchscript.pt" in log and "TorchScript" in log


def test_an_output_the_export_does_not_compute_is_named(exporter, fixtures_dir, tmp_path):
    log = _fail(exporter, fixtures_dir, tmp_path, "pool_indices.pt", ["x:float32[1,2,4,4]"])
    assert "output 1 of aten::adaptive_max_pool2d" in log, log
    assert "does not compute" in log and "internal" not in log, log


def test_unsupported_op(exporter, fixtures_dir, tmp_path):
    log = _fail(exporter, fixtures_dir, tmp_path, "unsupported.pt", ["x:float32[2,8]"])
    assert "aten::linalg_pinv" in log and "inner" in log and "InverseBlock" in log
    assert "make_fixtures.py" in log
