#!/usr/bin/env python3
"""One lowering per ATen op: the TorchScript frontend must not shadow a
shared lowering.

The walker (plugins/torchscript/src/walker.cpp) takes the frontend's own
lowering of a node kind (MXTS_LOWER(fn, "aten::foo", ...), every overload)
before the shared one of aten_onnx/src/lower (MX_ATEN_LOWER(fn, "aten.foo"
or "aten.foo.overload")); an in-place kind "aten::foo_" falls back to the
shared "aten.foo". So an own registration of an op the shared layer lowers
hides the shared lowering from TorchScript, and the two copies drift.

Fails when an MXTS_LOWER name shadows a shared name and is not in
OVERRIDES below (each entry says why TorchScript needs its own), and when
an OVERRIDES entry is stale (no longer registered, or no longer shadowing).

Usage: check_torchscript_shadows.py REPO_ROOT [--print]   (--print lists
every shadowed name, allowed or not.)
"""
import pathlib
import re
import sys

SHARED = re.compile(r"MX_ATEN_LOWER\(\s*\w+\s*,(.*?)\);", re.S)
OWN = re.compile(r"^MXTS_LOWER\(\s*\w+\s*,(.*?)\);", re.M | re.S)

# TorchScript's own lowerings of names the shared layer lowers too, with
# the reason the shared lowering cannot serve TorchScript. Keep it short:
# a reason that is a gap of the shared lowering is better fixed there.
OVERRIDES = {
}


def shared_ops(root):
    """The op names (no namespace, no overload) of every shared lowering."""
    ops = set()
    for path in sorted((root / "aten_onnx/src/lower").glob("*.cpp")):
        for names in SHARED.findall(path.read_text(encoding="utf-8")):
            for name in re.findall(r'"([^"]+)"', names):
                parts = name.split(".")
                if parts[0] == "aten" and len(parts) >= 2:
                    ops.add(parts[1])
    return ops


def own_registrations(root):
    """(kind, file) of every MXTS_LOWER under plugins/torchscript/src/lower."""
    rows = []
    for path in sorted((root / "plugins/torchscript/src/lower").glob("*.cpp")):
        for names in OWN.findall(path.read_text(encoding="utf-8")):
            for kind in re.findall(r'"([^"]+)"', names):
                rows.append((kind, f"plugins/torchscript/src/lower/{path.name}"))
    return rows


def shadows(kind, shared):
    if not kind.startswith("aten::"):
        return False
    op = kind[len("aten::"):]
    functional = op[:-1] if op.endswith("_") and not op.startswith("__") else op
    return op in shared or functional in shared


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    shared = shared_ops(root)
    own = own_registrations(root)
    if not shared or not own:
        print("no MX_ATEN_LOWER or no MXTS_LOWER registration found: wrong REPO_ROOT?")
        return 1
    shadowed = [(k, f) for k, f in own if shadows(k, shared)]
    if "--print" in sys.argv:
        for kind, file in shadowed:
            print(f"{kind}\t{file}\t{'allowed' if kind in OVERRIDES else 'SHADOWS'}")
    problems = []
    for kind, file in shadowed:
        if kind not in OVERRIDES:
            problems.append(f"{kind} ({file}) shadows the shared lowering of aten_onnx/src/lower: "
                            f"delete the TorchScript copy, or add it to OVERRIDES in {pathlib.Path(__file__).name} "
                            f"with the reason TorchScript needs its own")
    registered = {k for k, _ in own}
    for kind, reason in OVERRIDES.items():
        if not reason.strip():
            problems.append(f"OVERRIDES entry {kind} has no reason")
        if kind not in registered:
            problems.append(f"OVERRIDES entry {kind} is not registered by any MXTS_LOWER: remove it")
        elif not shadows(kind, shared):
            problems.append(f"OVERRIDES entry {kind} no longer shadows a shared lowering: remove it")
    for p in problems:
        print(p)
    print(f"{len(own)} TorchScript registrations, {len(shadowed)} shadow a shared name "
          f"({len(OVERRIDES)} allowed), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
