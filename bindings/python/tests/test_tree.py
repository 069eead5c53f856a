"""Model.module_tree() and Model.nodes(): the tree and the node records as
objects, checked against a hierarchy whose counts are known."""
from __future__ import annotations

from pathlib import Path

import pytest

import modelexport as mx
from test_model import NODES, hierarchy_document


@pytest.fixture()
def tagged(model: mx.Model) -> mx.Model:
    model.set_hierarchy(hierarchy_document())
    return model


def test_tree_shape_classes_and_counts(tagged: mx.Model) -> None:
    tree = tagged.module_tree()
    assert [m.path for m in tree.roots] == [""]
    root = tree.root
    assert root.class_name == "Net"
    assert [c.path for c in root.children] == ["encoder", "head"]
    assert [c.path for c in tree["encoder"].children] == ["encoder.layer.0"]
    layer = tree["encoder.layer.0"]
    assert (layer.class_name, layer.own_nodes, layer.total_nodes) == ("Layer", 2, 2)
    assert (tree["encoder"].own_nodes, tree["encoder"].total_nodes) == (0, 2)
    assert (root.own_nodes, root.total_nodes) == (0, 3)
    assert tree["head"].own_nodes == 1 and tree["head"].ops == {"Add": 1}
    assert layer.parent == "encoder" and root.parent is None
    assert layer.tag and layer.tag.startswith("/Net/")


def test_walk_is_depth_first_with_depths(tagged: mx.Model) -> None:
    tree = tagged.module_tree()
    walked = [(m.path, depth) for m, depth in tree.walk()]
    assert walked == [("", 0), ("encoder", 1), ("encoder.layer.0", 2), ("head", 1)]
    assert [m.path for m in tree] == [p for p, _ in walked]
    assert len(tree) == 4 and "head" in tree and "nope" not in tree
    assert tree.get("nope") is None
    assert [(m.path, d) for m, d in tree["encoder"].walk()] == [("encoder", 0), ("encoder.layer.0", 1)]


def test_nodes_carry_their_records(tagged: mx.Model) -> None:
    nodes = tagged.nodes()
    assert [n.name for n in nodes] == NODES
    assert [n.op_type for n in nodes] == ["MatMul", "Relu", "Add"]
    assert [n.index for n in nodes] == [0, 1, 2]
    assert nodes[0].inputs == ["x", "encoder.layer.0.linear.weight"]
    assert [(n.record.module, n.record.evidence) for n in nodes if n.record] == [
        ("encoder.layer.0", "direct"), ("encoder.layer.0", "propagated"), ("head", "scope")]
    assert nodes[2].record is not None and nodes[2].record.tag == tagged.node_record(NODES[2])["tag"]


def test_untagged_model_has_empty_tree_and_no_records(model: mx.Model) -> None:
    tree = model.module_tree()
    assert tree.roots == [] and len(tree) == 0
    with pytest.raises(LookupError):
        tree.root
    assert [n.record for n in model.nodes()] == [None, None, None]


def test_tree_after_tagging_with_a_strategy(scoped_onnx: Path, plugin_dirs: list) -> None:
    """The scope strategy on scope-named nodes: the walk's own counts add up
    to the node count and each node's record names a module of the tree."""
    with mx.Registry(discover=False, plugin_dirs=plugin_dirs) as registry, \
            mx.Model.load_file(scoped_onnx) as m:
        registry.tag(m, "scope")
        tree = m.module_tree()
        assert sum(module.own_nodes for module in tree) == len(m) == tree.root.total_nodes
        for node in m.nodes():
            assert node.record is not None and node.record.module in tree
        assert tree["encoder.layer.0"].total_nodes == 2
