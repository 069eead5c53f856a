"""Registry: creation, plugin refusal, tagging with strategy plugins."""
from __future__ import annotations

from pathlib import Path

import pytest

import modelexport as mx

EVIDENCE = {"direct", "scope", "metadata", "parameter", "propagated", "root"}


@pytest.fixture()
def registry(plugin_dirs: list) -> mx.Registry:
    with mx.Registry(discover=False, plugin_dirs=plugin_dirs) as r:
        yield r


def test_create_without_discovery_lists_nothing() -> None:
    with mx.Registry(discover=False) as r:
        listing = r.plugins()
        assert listing["plugins"] == []
        assert isinstance(listing["plugin_dirs"], list)
    assert r.closed


def test_create_alias_and_unknown_option() -> None:
    mx.Registry.create(discover=False).close()
    with pytest.raises(mx.ModelExportError) as info:
        mx.Registry(options={"no_such_option": True})
    assert info.value.code is mx.ErrorCode.INVALID_ARGUMENT


def test_refused_plugin_raises_and_is_listed(tmp_path: Path) -> None:
    bogus = tmp_path / "libbogus.so"
    bogus.write_bytes(b"this is not a shared library")
    with mx.Registry(discover=False) as r:
        with pytest.raises(mx.ModelExportError) as info:
            r.load_plugin(bogus)
        assert info.value.code is mx.ErrorCode.PLUGIN
        assert info.value.message
        refused = [p for p in r.plugins()["plugins"] if p.get("status") == "refused"]
        assert len(refused) == 1 and refused[0]["reason"]
        assert refused[0]["path"].endswith("libbogus.so")


def test_tag_auto_covers_every_node(registry: mx.Registry, model: mx.Model) -> None:
    assert registry.tag(model) is model
    doc = model.hierarchy()
    assert len(doc["nodes"]) == model.node_count == 3
    assert {n["evidence"] for n in doc["nodes"]} <= EVIDENCE
    assert sum(doc["statistics"]["evidence"].values()) == 3


def test_graph_reader_off_tags_alike(plugin_dirs: list, scoped_onnx: Path) -> None:
    """graph_reader=False sends the strategies JSON text (the 1.0 protocol)
    instead of the host's reader: same tags, and the listing says who reads."""
    docs = []
    for reader in (True, False):
        with mx.Registry(discover=False, plugin_dirs=plugin_dirs, graph_reader=reader) as r, \
                mx.Model.load_file(scoped_onnx) as m:
            assert all(p["graph_reader"] for p in r.plugins()["plugins"] if p["kind"] == "strategy")
            r.tag(m)
            docs.append(m.hierarchy())
    assert docs[0] == docs[1]


def test_tag_unknown_strategy(registry: mx.Registry, model: mx.Model) -> None:
    with pytest.raises(mx.ModelExportError) as info:
        registry.tag(model, "no-such-strategy")
    assert info.value.code is mx.ErrorCode.NOT_FOUND


def test_plugin_listing_has_strategies(registry: mx.Registry) -> None:
    strategies = registry.plugin_names("strategy")
    assert {"scope", "usage", "metadata"} <= set(strategies)
    for plugin in registry.plugins()["plugins"]:
        assert plugin["status"] == "loaded"
        assert plugin["abi"].startswith("1.") and plugin["path"]


def test_tag_scope_strategy(registry: mx.Registry, model: mx.Model) -> None:
    registry.tag(model, "scope")
    records = {n["name"]: n for n in model.hierarchy()["nodes"]}
    assert records["/encoder/layer.0/linear/MatMul"]["module"] == "encoder.layer.0.linear"
    assert records["/head/Add"]["module"] == "head"
    assert {r["evidence"] for r in records.values()} == {"scope"}


def test_tag_usage_strategy_uses_parameters(registry: mx.Registry, model: mx.Model) -> None:
    registry.tag(model, "usage")
    records = {n["name"]: n for n in model.hierarchy()["nodes"]}
    matmul = records["/encoder/layer.0/linear/MatMul"]
    assert matmul["module"] == "encoder.layer.0.linear" and matmul["evidence"] == "parameter"
    assert records["/encoder/layer.0/act/Relu"]["evidence"] == "propagated"


def test_tag_with_supplied_hierarchy_gives_class_tags(registry: mx.Registry, model: mx.Model) -> None:
    modules = [
        {"path": "", "class": "Net"},
        {"path": "encoder", "class": "Encoder", "parent": ""},
        {"path": "encoder.layer", "class": "ModuleList", "parent": "encoder"},
        {"path": "encoder.layer.0", "class": "Layer", "parent": "encoder.layer"},
        {"path": "encoder.layer.0.linear", "class": "Linear", "parent": "encoder.layer.0"},
        {"path": "encoder.layer.0.act", "class": "ReLU", "parent": "encoder.layer.0"},
        {"path": "head", "class": "Linear", "parent": ""},
    ]
    registry.tag(model, "scope", hierarchy={"schema": "modelexport.hierarchy/1",
                                            "modules": modules, "nodes": []})
    assert model.node_record("/encoder/layer.0/linear/MatMul")["tag"] == "/Net/Encoder/Layer.0/Linear"
    assert model.node_record("/head/Add")["tag"] == "/Net/Linear"


def test_tagged_model_round_trips_through_a_file(registry: mx.Registry, model: mx.Model,
                                                 tmp_path: Path) -> None:
    registry.tag(model)
    out = tmp_path / "tagged.onnx"
    model.save_file(out)
    keys = ("module", "tag", "evidence")  # the documented record; extra keys may differ
    with mx.Model.load_file(out) as again:
        for node in ("/encoder/layer.0/linear/MatMul", "/encoder/layer.0/act/Relu", "/head/Add"):
            saved, loaded = model.node_record(node), again.node_record(node)
            assert {k: loaded[k] for k in keys} == {k: saved[k] for k in keys}
