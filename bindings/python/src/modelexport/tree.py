"""The module tree and the graph's nodes with their records, as objects.

Built from two SDK answers so callers never re-walk JSON lists themselves:
the hierarchy document (parent/children order, classes, node records) and
``mx_model_modules_json`` (node and parameter counts, function calls
expanded — the numbers ``modelexport inspect`` prints).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple


@dataclass
class NodeRecord:
    """Where a node belongs: module path ("" is the root), tag, evidence
    ("direct", "scope", "metadata", "parameter", "propagated", "root")."""

    module: str
    tag: Optional[str]
    evidence: str


@dataclass
class Node:
    """One top-level graph node and its record (None when it has none)."""

    index: int
    name: str
    op_type: str
    domain: str
    inputs: List[str]
    outputs: List[str]
    record: Optional[NodeRecord]


@dataclass
class Module:
    """A module of the tree with its statistics; ``children`` in the order
    the hierarchy lists them."""

    path: str
    class_name: str
    tag: Optional[str]
    parent: Optional[str]
    own_nodes: int = 0
    total_nodes: int = 0
    own_parameters: int = 0
    parameters: int = 0
    ops: Dict[str, int] = field(default_factory=dict)
    children: List["Module"] = field(default_factory=list)

    def walk(self, depth: int = 0) -> Iterator[Tuple["Module", int]]:
        """This module and its descendants, depth first (pre-order), each
        with its depth below this one."""
        yield self, depth
        for child in self.children:
            yield from child.walk(depth + 1)


class ModuleTree:
    """The module tree: ``roots`` (normally one, path ""), lookup by path,
    iteration over every module depth first."""

    def __init__(self, modules: Mapping[str, Module], roots: Sequence[Module]) -> None:
        self._modules = dict(modules)
        self.roots: List[Module] = list(roots)

    @property
    def root(self) -> Module:
        """The root module (path ""); the first root if the tree has several."""
        if not self.roots:
            raise LookupError("the model has no module tree")
        return self._modules.get("", self.roots[0])

    def walk(self) -> Iterator[Tuple[Module, int]]:
        """Every module with its depth (roots at 0), depth first."""
        for root in self.roots:
            yield from root.walk()

    def __getitem__(self, path: str) -> Module:
        return self._modules[path]

    def get(self, path: str) -> Optional[Module]:
        return self._modules.get(path)

    def __contains__(self, path: object) -> bool:
        return path in self._modules

    def __iter__(self) -> Iterator[Module]:
        return (module for module, _ in self.walk())

    def __len__(self) -> int:
        return len(self._modules)


def build_tree(hierarchy: Mapping[str, Any], statistics: Mapping[str, Any]) -> ModuleTree:
    """Joins the hierarchy document's modules with ``modules_json`` counts."""
    stats = {m.get("path", ""): m for m in statistics.get("modules", [])}
    modules: Dict[str, Module] = {}
    order: List[Tuple[Module, List[str]]] = []
    for entry in hierarchy.get("modules", []):
        path = entry.get("path", "")
        s = stats.get(path, {})
        module = Module(path=path, class_name=entry.get("class", ""),
                        tag=entry.get("tag", s.get("tag")), parent=entry.get("parent"),
                        own_nodes=int(s.get("own_nodes", 0)),
                        total_nodes=int(s.get("total_nodes", 0)),
                        own_parameters=int(s.get("own_parameters", 0)),
                        parameters=int(s.get("parameters", 0)), ops=dict(s.get("ops", {})))
        modules[path] = module
        order.append((module, list(entry.get("children", []))))
    roots: List[Module] = []
    for module, children in order:
        module.children = [modules[c] for c in children if c in modules]
        if module.parent is None or module.parent not in modules:
            roots.append(module)
    return ModuleTree(modules, roots)


def build_nodes(graph: Mapping[str, Any], hierarchy: Mapping[str, Any]) -> List[Node]:
    """The graph view's nodes, each with its record from the hierarchy
    document (matched by ``index``, or by a unique name when a record has
    no index)."""
    tags = {m.get("path", ""): m.get("tag") for m in hierarchy.get("modules", [])}
    nodes = graph.get("nodes", [])
    by_index: Dict[int, Mapping[str, Any]] = {}
    by_name: Dict[str, Mapping[str, Any]] = {}
    for record in hierarchy.get("nodes", []):
        index = record.get("index")
        if isinstance(index, int) and 0 <= index < len(nodes) \
                and nodes[index].get("name", "") == record.get("name", ""):
            by_index[index] = record
        elif record.get("name"):
            by_name[record["name"]] = record
    out: List[Node] = []
    for i, n in enumerate(nodes):
        raw = by_index.get(i) or by_name.get(n.get("name", ""))
        record = None
        if raw is not None:
            module = raw.get("module", "")
            record = NodeRecord(module=module, tag=raw.get("tag", tags.get(module)),
                                evidence=raw.get("evidence", ""))
        out.append(Node(index=i, name=n.get("name", ""), op_type=n.get("op_type", ""),
                        domain=n.get("domain", ""), inputs=list(n.get("inputs", [])),
                        outputs=list(n.get("outputs", [])), record=record))
    return out
