#!/usr/bin/env python3
"""tag_and_print_tree in Python: load an ONNX file, tag it with a strategy
plugin, print the module tree with node counts (format: ../README.md)."""
import json
import sys
from collections import Counter, defaultdict

import modelexport as mx


def is_root(m: dict) -> bool:
    return m.get("path", "") == "" or not isinstance(m.get("parent"), str)


def main(argv: list) -> int:
    if not 3 <= len(argv) <= 4:
        print("usage: tag_and_print_tree MODEL.onnx STRATEGY [OPTIONS_JSON]", file=sys.stderr)
        return 2
    options = json.loads(argv[3]) if len(argv) == 4 else None
    try:
        with mx.Model.load_file(argv[1]) as model, mx.Registry() as registry:
            registry.tag(model, argv[2], options=options)
            doc = model.hierarchy()
    except mx.ModelExportError as e:
        print(f"tag_and_print_tree: {e.code_name} error: {e.message}", file=sys.stderr)
        return 1

    modules, nodes = doc["modules"], doc["nodes"]
    own = Counter(n["module"] for n in nodes)
    children = defaultdict(list)
    for m in modules:
        if not is_root(m):
            children[m["parent"]].append(m)

    def total(path: str) -> int:
        return own[path] + sum(total(k["path"]) for k in children[path])

    def show(m: dict, depth: int) -> None:
        path = m.get("path", "")
        print(f"{'  ' * depth}{path or '(root)'} [{m.get('class', '')}] nodes={own[path]} total={total(path)}")
        for k in children[path]:
            show(k, depth + 1)

    print(f"modules={len(modules)} nodes={len(nodes)}")
    for m in modules:
        if is_root(m):
            show(m, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
