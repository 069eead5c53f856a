"""Run by test.sh in a fresh venv after `pip install ./bindings/python`,
from a scratch directory, with no MODELEXPORT_* variable set: the wheel's
own library and plugins must be enough to tag an ONNX file and to export a
torch.export archive (.pt2); its console script and `python -m modelexport`
run its own CLI. Every ONNX, protobuf or Boost library mapped into this
process must be the repaired wheel's vendored copy (modelexport.libs/);
test.sh runs this with the system's copies hidden too
(without_system_libs.sh). Usage: check_installed.py TINY.onnx MODEL.pt2 OUTDIR
"""
import re
import os
import subprocess
import sys
from pathlib import Path

import modelexport as mx
from modelexport.command_line import find_cli

onnx_file, pt2_file, out = (Path(a) for a in sys.argv[1:4])
assert not [k for k in os.environ if k.startswith("MODELEXPORT_")], "environment not clean"
package = Path(mx.__file__).resolve().parent
library = Path(mx.library().path).resolve()
assert package in library.parents, f"loaded {library}, not the wheel's library under {package}"
print(f"library: {library.relative_to(package.parent)} ({mx.version()})")

with mx.Registry() as registry:
    loaded = {p["name"]: p for p in registry.plugins()["plugins"] if p["status"] == "loaded"}
    print("plugins:", ", ".join(f"{n} ({p['kind']})" for n, p in sorted(loaded.items())))
    for name in ("scope", "usage", "metadata", "torch_export"):
        assert name in loaded, f"plugin {name} not bundled: {sorted(loaded)}"
        assert package in Path(loaded[name]["path"]).resolve().parents, loaded[name]["path"]

    with mx.Model.load_file(onnx_file) as model:
        registry.tag(model, "scope")
        tree = model.module_tree()
        assert tree.root.total_nodes == len(model) > 0
        for module, depth in tree.walk():
            print(f"{'  ' * depth}{module.path or '(root)'} [{module.class_name}] "
                  f"nodes={module.own_nodes} total={module.total_nodes}")
        model.save_file(out / "tiny.tagged.onnx")

    with registry.export(pt2_file) as exported:
        records = [n.record for n in exported.nodes()]
        assert records and all(r is not None for r in records)
        tree = exported.module_tree()
        assert len(tree) > 1 and tree.root.total_nodes == len(exported), "a module tree with counts"
        assert {r.module for r in records} <= {m.path for m in tree}
        exported.save_file(out / "exported.onnx")
        print(f"exported {pt2_file.name}: {len(exported)} nodes, "
              f"{len(exported.module_tree())} modules")

for name in ("tiny.tagged.onnx", "tiny.tagged.hierarchy.json", "exported.onnx",
             "exported.hierarchy.json"):
    assert (out / name).is_file(), f"{name} not written"
try:
    mx.Model.load_file(out / "absent.onnx")
except FileNotFoundError as missing:
    print(f"missing file: FileNotFoundError ({missing})")
else:
    raise AssertionError("loading a missing file did not fail")

# The libraries the export and the tagging used, as the loader mapped them.
vendored = package.parent / "modelexport.libs"
mapped = {Path(line.split(maxsplit=5)[5].strip()) for line in open("/proc/self/maps")
          if len(line.split(maxsplit=5)) == 6}
foreign = sorted(str(p) for p in mapped
                 if re.match(r"lib(onnx|protobuf|boost_)", p.name) and p.parent != vendored)
assert not foreign, f"system libraries loaded instead of the wheel's: {foreign}"
used = sorted(p.name for p in mapped if p.parent == vendored)
# The ONNX library is the project's own libmodelexport_onnx (ONNX built
# from source in a private namespace), installed in the package, not
# vendored by auditwheel.
own_onnx = sorted(p for p in mapped if p.name.startswith("libmodelexport_onnx"))
assert own_onnx, "the wheel's ONNX library (libmodelexport_onnx) is not mapped"
assert all(package in p.resolve().parents for p in own_onnx), f"ONNX library from outside the wheel: {own_onnx}"
print("vendored:", ", ".join(used), "| ONNX:", ", ".join(p.name for p in own_onnx))

# The wheel's CLI, through the console script and `python -m modelexport`:
# its own RPATH and the plugins' must reach the vendored libraries.
assert package in Path(find_cli()).resolve().parents, f"{find_cli()} is not the wheel's CLI"
script = Path(sys.executable).parent / "modelexport"
for command in ([str(script), "--version"], [sys.executable, "-m", "modelexport", "tag", "--help"],
                [str(script), "export", "-q", str(pt2_file), "-o", str(out / "cli.onnx")],
                [str(script), "tag", "-q", str(onnx_file), "-o", str(out / "cli.tagged.onnx")]):
    run = subprocess.run(command, capture_output=True, text=True)
    assert run.returncode == 0, (command, run.stdout, run.stderr)
    first = (run.stdout or run.stderr or "(no output)").splitlines()[0]
    print(f"{Path(command[0]).name} {' '.join(command[1:])}: {first}")
    assert "--help" not in command or "usage: modelexport tag" in run.stdout, run.stdout
assert (out / "cli.onnx").is_file() and (out / "cli.tagged.onnx").is_file(), "the CLI wrote nothing"
print("installed package: OK")
