"""End-to-end: torch.export archives (.pt2, both IR levels) -> ONNX through
`modelexport export`, checked with ONNX Runtime against eager PyTorch 2.15 at
two input shapes, plus the hierarchy records against the programs'
nn_module_stack (tests/fixtures/pt2/<name>.expected.json).

Reads the archives themselves only with zipfile + json (no torch here).
"""
import collections
import json
import os
import zipfile

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from conftest import FIXTURES, LEVELS


def _names():
    try:
        with open(os.path.join(FIXTURES, "manifest.json")) as f:
            return list(json.load(f))
    except OSError:
        return ["<no manifest.json>"]


CASES = [(n, lvl) for n in _names() for lvl in LEVELS]
IDS = [f"{n}-{lvl}" for n, lvl in CASES]
RTOL = 1e-4
PLACEHOLDER = "_empty_nn_module_stack_from_metadata_hook"
RECORD_KEYS = ("modelexport.module", "modelexport.tag", "modelexport.evidence", "namespace")
# metadata keys by which an ONNX node may name the FX node it was lowered from
SOURCE_KEYS = ("modelexport.fx_node", "modelexport.source_node", "modelexport.source", "pkg.torch.onnx.fx_node")
# targets that may legitimately lower to no ONNX node (or only to nodes that an
# exporter folds away); a module whose nodes are all of these need not appear
NO_NODE_OPS = {
    "_assert_tensor_metadata", "_assert_scalar", "sym_constrain_range_for_size", "sym_constrain_range",
    "dropout", "alias", "detach", "clone", "contiguous", "lift_fresh_copy", "_to_copy", "to",
    "view", "reshape", "_unsafe_view", "permute", "transpose", "t", "expand", "unsqueeze", "squeeze",
    "slice", "select", "flatten", "sym_size", "getitem", "mul", "add", "sub", "floordiv", "truediv",
    "mod", "eq", "ne", "ge", "gt", "le", "lt", "sym_numel", "sym_stride", "sym_storage_offset",
}


def _opname(target):
    """'torch.ops.aten.conv2d.default' -> 'conv2d'; '_operator.mul' -> 'mul'."""
    parts = target.split(".")
    if target.startswith("torch.ops.") and len(parts) >= 4:
        return parts[3]
    return parts[-1]


def _archive_json(path, entry):
    with zipfile.ZipFile(path) as z:
        name = next(n for n in z.namelist() if n.endswith(entry))
        return json.loads(z.read(name))


def _props(node):
    return {p.key: p.value for p in node.metadata_props}


def _feed(sess, inputs):
    names = [i.name for i in sess.get_inputs()]
    assert set(names) == set(inputs), \
        f"ONNX inputs {names} are not the program's user inputs {sorted(inputs)}"
    return {n: inputs[n] for n in names}


def _compare(sess, fixtures_dir, name, suffix):
    inputs = dict(np.load(os.path.join(fixtures_dir, f"{name}.inputs{suffix}.npz")))
    ref = np.load(os.path.join(fixtures_dir, f"{name}.outputs{suffix}.npz"))
    outs = sess.run(None, _feed(sess, inputs))
    assert len(outs) == len(ref.files), f"{name}{suffix}: {len(outs)} outputs, reference has {len(ref.files)}"
    worst = 0.0
    for i, got in enumerate(outs):
        want = ref[f"o{i}"]
        assert got.shape == want.shape, f"{name}{suffix} output {i}: shape {got.shape} vs {want.shape}"
        if want.dtype.kind in "biu":
            assert got.dtype == want.dtype, f"{name}{suffix} output {i}: dtype {got.dtype} vs {want.dtype}"
            assert np.array_equal(got, want), f"{name}{suffix} output {i}: integers differ"
            continue
        g, w = got.astype(np.float64), want.astype(np.float64)
        rel = np.abs(g - w) / np.maximum(1.0, np.abs(w))
        err = float(rel.max()) if rel.size else 0.0
        assert err <= RTOL, f"{name}{suffix} output {i}: max relative error {err:.3g} > {RTOL}"
        worst = max(worst, err)
    return worst


# ------------------------------------------------------------------ parity
@pytest.mark.parametrize("name,level", CASES, ids=IDS)
def test_parity(name, level, exported, fixtures_dir):
    path, hier, log = exported(name, level)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    d1 = _compare(sess, fixtures_dir, name, "")
    d2 = _compare(sess, fixtures_dir, name, "2")
    ev = hier["statistics"]["evidence"] if hier else "no sidecar"
    print(f"\nPT2 {name} [{level}]: nodes={len(model.graph.node)} err1={d1:.3g} err2={d2:.3g} evidence={ev}")


# ------------------------------------------------------------------ signature
@pytest.mark.parametrize("name,level", CASES, ids=IDS)
def test_inputs_and_dynamic_dims(name, level, exported, expected):
    """ONNX inputs are the program's user inputs, in order, with symbolic dims
    exactly on the dynamic axes; axes the program ties together share a name."""
    path, _, _ = exported(name, level)
    exp = expected(name)
    graph = onnx.load(path).graph
    inits = {i.name for i in graph.initializer}
    real_inputs = [i for i in graph.input if i.name not in inits]
    assert [i.name for i in real_inputs] == [i["name"] for i in exp["inputs"]]
    dim_names = {}
    for vi, spec in zip(real_inputs, exp["inputs"]):
        dims = vi.type.tensor_type.shape.dim
        assert len(dims) == len(spec["shape"]), f"{vi.name}: rank {len(dims)} vs {len(spec['shape'])}"
        for axis, (d, size) in enumerate(zip(dims, spec["shape"])):
            dyn = spec["dynamic_axes"].get(str(axis))
            if dyn:
                assert d.dim_param and not d.HasField("dim_value"), \
                    f"{vi.name} axis {axis} ({dyn}) should be symbolic: {d}"
                dim_names.setdefault(dyn, set()).add(d.dim_param)
            else:
                assert d.dim_value == size, f"{vi.name} axis {axis} should be {size}: {d}"
    for dyn, params in dim_names.items():
        assert len(params) == 1, f"dim {dyn} has several ONNX names {params}"
    names = [next(iter(p)) for p in dim_names.values()]
    assert len(set(names)) == len(names), f"different dims share an ONNX name: {dim_names}"


@pytest.mark.parametrize("name,level", CASES, ids=IDS)
def test_weights(name, level, exported, fixtures_dir):
    """Every parameter and persistent buffer the graph reads becomes an
    initializer named by its path, with the archive's bytes (gathered by
    sizes, strides and storage offset; tied weights may appear under either
    name). Non-persistent buffers (saved as constants) and lifted constants
    are checked only when they appear as initializers under their name. A
    weight the sidecar's graph_passes.stored_permuted names is stored
    permuted (a Linear's weight pre-transposed): its bytes are the archive's
    tensor transposed by that perm; a permuted_copies initializer holds the
    bytes of the weight it copies, permuted; a Conv weight with a
    BatchNormalization folded in (folded_batch_norms) holds the archive's
    weight scaled per output channel, its bias the folded bias, and the BN's
    parameters are gone; a weight graph_passes.weight_constants names was
    moved into the constants computed from it, and so were those
    folded_channel_affines names (the Conv weight scaled, its bias
    rewritten)."""
    path, hier, _ = exported(name, level)
    passes = (hier or {}).get("graph_passes", {})
    permuted = passes.get("stored_permuted", {})
    folded_bns = passes.get("folded_batch_norms", {})
    folded_away = {p for bn in folded_bns.values() for p in bn["parameters"]}
    # weights moved into constants at export (a recurrent layer's gates reordered)
    folded_away |= {w for ws in passes.get("weight_constants", {}).values() for w in ws}
    # a per-channel `* s + t` computed from weights, folded into the Conv before it
    affines = passes.get("folded_channel_affines", {})
    folded_away |= {w for a in affines.values() for w in a["scale_from"] + a["shift_from"]}
    rewritten = set(folded_bns) | {bn["bias"] for bn in folded_bns.values()}
    rewritten |= set(affines) | {a["bias"] for a in affines.values() if a["bias"]}
    pt2 = os.path.join(fixtures_dir, LEVELS[level].format(name))
    mj = _archive_json(pt2, "models/model.json")
    used = set()
    for node in mj["graph_module"]["graph"]["nodes"]:
        for inp in node["inputs"]:
            arg = inp["arg"]
            if "as_tensor" in arg:
                used.add(arg["as_tensor"]["name"])
            for t in arg.get("as_tensors", []):
                used.add(t["name"])
    names = {}
    for spec in mj["graph_module"]["signature"]["input_specs"]:
        kind, body = next(iter(spec.items()))
        target = body.get("parameter_name") or body.get("buffer_name") or body.get("tensor_constant_name")
        if target and body["arg"]["name"] in used:
            # parameters and persistent buffers must be initializers; a
            # non-persistent buffer or lifted constant may be folded
            strict = kind == "parameter" or (kind == "buffer" and body.get("persistent", True))
            names[target] = (kind, strict)
    configs = {}
    for entry, folder in (("data/weights/model_weights_config.json", "data/weights/"),
                          ("data/constants/model_constants_config.json", "data/constants/")):
        for key, cfg in _archive_json(pt2, entry)["config"].items():
            configs[key] = (folder, cfg)
    model = onnx.load(path)
    inits = {i.name: i for i in model.graph.initializer}
    by_storage = {}
    for key, (folder, cfg) in configs.items():
        by_storage.setdefault(folder + cfg["path_name"], []).append(key)
    source = {}
    with zipfile.ZipFile(pt2) as z:
        prefix = next(n for n in z.namelist() if n.endswith("/archive_format")).rsplit("/", 1)[0] + "/"
        for target in sorted(names):
            folder, cfg = configs[target]
            source[target] = _decode(z.read(prefix + folder + cfg["path_name"]), cfg["tensor_meta"])
            twins = by_storage[folder + cfg["path_name"]]
            present = [t for t in twins if t in inits]
            kind, strict = names[target]
            if not present and (not strict or target in folded_away):
                continue
            assert present, f"{target} ({kind}) is no initializer; initializers: {sorted(inits)[:20]}…"
            got = onnx.numpy_helper.to_array(inits[present[0]])
            want = source[target]
            if present[0] in permuted:
                want = np.transpose(want, permuted[present[0]])
            if got.shape == want.shape and present[0] == target and target not in rewritten:
                assert np.array_equal(got, want), f"{target}: initializer bytes differ from the archive's"
    for weight, bn in folded_bns.items():  # conv weight * s, bias (b - mean) * s + beta; s = gamma / sqrt(var + eps)
        gamma, beta, mean, var = (source[p].astype(np.float64) for p in bn["parameters"])
        s = gamma / np.sqrt(var + bn["epsilon"])
        w = source[weight].astype(np.float64)
        b = source[bn["bias"]].astype(np.float64) if bn["bias"] not in bn["parameters"] else np.zeros_like(s)
        got_w = onnx.numpy_helper.to_array(inits[weight])
        got_b = onnx.numpy_helper.to_array(inits[bn["bias"]])
        np.testing.assert_allclose(got_w, w * s.reshape((-1,) + (1,) * (w.ndim - 1)), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(got_b, (b - mean) * s + beta, rtol=1e-5, atol=1e-6)
    for copy, spec in (hier or {}).get("graph_passes", {}).get("permuted_copies", {}).items():
        source = onnx.numpy_helper.to_array(inits[spec["of"]])
        got = onnx.numpy_helper.to_array(inits[copy])
        assert np.array_equal(got, np.transpose(source, spec["perm"])), f"{copy}: not {spec['of']} permuted"


_DTYPES = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64, 6: np.float16,
           7: np.float32, 8: np.float64, 12: np.bool_}


def _decode(raw, meta):
    dtype = np.dtype(_DTYPES[meta["dtype"]]).newbyteorder("<")
    flat = np.frombuffer(raw, dtype=dtype)
    sizes = [s["as_int"] for s in meta["sizes"]]
    strides = [s["as_int"] * dtype.itemsize for s in meta["strides"]]
    offset = meta["storage_offset"]["as_int"]
    return np.lib.stride_tricks.as_strided(flat[offset:], shape=sizes, strides=strides).copy()


# ------------------------------------------------------------------ hierarchy
@pytest.mark.parametrize("name,level", CASES, ids=IDS)
def test_every_node_has_a_record(name, level, exported, expected):
    path, hier, _ = exported(name, level)
    model = onnx.load(path)
    modules = set(expected(name)["modules"]) | {""}
    names = [n.name for n in model.graph.node]
    assert len(set(names)) == len(names), "node names are not unique"
    for node in model.graph.node:
        props = _props(node)
        missing = [k for k in RECORD_KEYS if k not in props]
        assert not missing, f"node {node.name} ({node.op_type}) lacks {missing}: {props}"
        assert props["modelexport.module"] in modules, \
            f"node {node.name}: module {props['modelexport.module']!r} is not in the program's module tree"
        assert props["modelexport.evidence"] in ("direct", "root"), \
            f"node {node.name}: evidence {props['modelexport.evidence']} (nn_module_stack gives direct capture)"
    if hier is not None:
        assert {r["name"] for r in hier["nodes"]} == set(names)
        tree = {m["path"]: m for m in hier["modules"]}
        for path_, cls in expected(name)["modules"].items():
            assert path_ in tree, f"module {path_!r} missing from the hierarchy document"
            assert tree[path_].get("qualified_class", cls) == cls, (path_, tree[path_])


@pytest.mark.parametrize("name,level", CASES, ids=IDS)
def test_modules_covered(name, level, exported, expected):
    """Each module that runs a computing op in the program owns ONNX nodes,
    or is a BatchNormalization the sidecar says was folded into its Conv."""
    path, hier, _ = exported(name, level)
    exp = expected(name)["levels"][level]
    have = {_props(n).get("modelexport.module") for n in onnx.load(path).graph.node}
    folded = {bn["module"] for bn in (hier or {}).get("graph_passes", {}).get("folded_batch_norms", {}).values()}
    need = {r["module"] for r in exp["nodes"] if _opname(r["target"]) not in NO_NODE_OPS}
    missing = sorted(need - have - folded)
    assert not missing, f"modules with computing ops but no ONNX node: {missing}"


@pytest.mark.parametrize("name,level", CASES, ids=IDS)
def test_node_modules_match_stack(name, level, exported, expected):
    """Where an ONNX node names the FX node it came from, its module is that
    node's innermost nn_module_stack path (root for nodes without a stack).
    Also prints the share of agreement with the dynamo exporter's name_scopes."""
    path, hier, _ = exported(name, level)
    exp = expected(name)
    fx = {r["name"]: r for r in exp["levels"][level]["nodes"]}
    # the sidecar's records name the FX node each ONNX node was lowered from
    # (docs/hierarchy-schema.md, source_node)
    source_of = {r["name"]: r.get("source_node") for r in (hier or {}).get("nodes", [])}
    mapped, wrong = 0, []
    for node in onnx.load(path).graph.node:
        props = _props(node)
        src = source_of.get(node.name) or next((props[k] for k in SOURCE_KEYS if k in props), None)
        if src is None or src not in fx:
            continue
        mapped += 1
        if props.get("modelexport.module") != fx[src]["module"]:
            wrong.append((node.name, src, props.get("modelexport.module"), fx[src]["module"]))
    if not mapped:
        pytest.skip(f"no ONNX node names its FX node (metadata keys {SOURCE_KEYS})")
    assert not wrong, f"{len(wrong)}/{mapped} nodes on another module than nn_module_stack says: {wrong[:10]}"
    # only at the core level do dynamo's FX node names (it decomposes the
    # program again) match the archive's; at the TRAINING level they do not
    dyn = exp.get("dynamo", {}).get(level, {}) if level == "core" else {}
    # torch.onnx copies the placeholder stack of torch.export's own nodes
    # (sym_size) as a module named _empty_nn_module_stack_from_metadata_hook: root
    dyn_module = {r["fx_node"]: ("" if r["module"] == PLACEHOLDER else r["module"])
                  for r in dyn.get("nodes", []) if r.get("fx_node")}
    both = [r for r in fx.values() if r["name"] in dyn_module]
    if both:
        agree = sum(1 for r in both if dyn_module[r["name"]] == r["module"])
        print(f"\nPT2 {name} [{level}]: FX nodes in dynamo's name_scopes: {len(both)}, "
              f"same module: {agree / len(both):.1%}")


@pytest.mark.parametrize("name,level", CASES, ids=IDS)
def test_root_evidence_is_where_the_program_places_no_module(name, level, exported, expected):
    """Evidence `root` (docs/hierarchy-schema.md: the fallback of a node
    with no evidence) is on exactly the nodes lowered from FX nodes the
    program places in no module: the input size reads torch.export hoists to
    the top of the graph (insert_deferred_runtime_asserts; their
    nn_module_stack is the placeholder, and the sizes are read in whichever
    modules use them). The root's own ops carry the root's stack entry and
    are `direct` (issue 28)."""
    path, hier, _ = exported(name, level)
    if not hier:
        pytest.skip("no hierarchy sidecar")
    fx = {r["name"]: r for r in expected(name)["levels"][level]["nodes"]}
    wrong, checked = [], 0
    for rec in hier["nodes"]:
        src = fx.get(rec.get("source_node"))
        if src is None:
            continue
        checked += 1
        want = "root" if src.get("no_stack") else "direct"
        if rec["evidence"] != want:
            wrong.append((rec["name"], src["name"], rec["evidence"], want))
    assert checked, "no record names its FX node"
    assert not wrong, f"{len(wrong)} records with other evidence than the program's stack gives: {wrong[:10]}"


def test_module_called_twice(exported, expected, manifest):
    """reuse: `shared` runs twice; both calls' nodes are on `shared`/`shared.lin`,
    and each record says which call emitted it (`call`: the @N of the node's
    innermost nn_module_stack key; absent for a first call)."""
    if "reuse" not in manifest:
        pytest.skip("no reuse fixture")
    for level in LEVELS:
        exp = expected("reuse")["levels"][level]
        calls = {r["call"] for r in exp["nodes"] if r["module"] == "shared.lin"}
        assert calls == {0, 1}, calls  # the fixture itself
        path, hier, _ = exported("reuse", level)
        nodes = [n for n in onnx.load(path).graph.node
                 if _props(n).get("modelexport.module") == "shared.lin"
                 and n.op_type in ("MatMul", "Gemm")]
        assert len(nodes) >= 2, f"[{level}] shared.lin should own one MatMul/Gemm per call: {[n.name for n in nodes]}"
        assert hier, f"[{level}] no hierarchy sidecar"
        call_of_fx = {r["name"]: r["call"] for r in exp["nodes"]}
        wrong, seen = [], collections.defaultdict(set)
        for rec in hier["nodes"]:
            src = rec.get("source_node")
            if src not in call_of_fx:
                continue
            got = rec.get("call", 0)
            assert isinstance(got, int) and got >= 0, f"[{level}] {rec['name']}: call {got!r}"
            if "call" in rec:
                assert got > 0, f"[{level}] {rec['name']}: a first call is written as an absent `call`"
            if got != call_of_fx[src]:
                wrong.append((rec["name"], src, got, call_of_fx[src]))
            seen[rec["module"]].add(got)
        assert not wrong, f"[{level}] records with another call than their FX node's stack key: {wrong[:10]}"
        for module in ("shared", "shared.lin"):
            assert seen[module] == {0, 1}, f"[{level}] {module}: calls recorded {sorted(seen[module])}, want [0, 1]"
        assert seen["emb"] == {0} and seen["head"] == {0}, f"[{level}] modules called once: {dict(seen)}"