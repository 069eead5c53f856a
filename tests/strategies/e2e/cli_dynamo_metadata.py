#!/usr/bin/python3
"""`modelexport tag IN.onnx -o OUT.onnx --strategy metadata` on the committed
dynamo fixtures: OUT.hierarchy.json must give every node that carries
pkg.torch.onnx.name_scopes exactly the module those scopes name
(<fixture>.expected.json, decoded by Python's ast at generation time).

Usage: cli_dynamo_metadata.py MODELEXPORT_EXE PLUGIN_DIR FIXTURE_DIR OUT_DIR
The fixtures are what torch.onnx writes today (IR 10, opset 18-20); the
tagged files are checked by the SDK's ONNX checker on save.
"""
import json
import os
import pathlib
import subprocess
import sys

FIXTURES = ["tiny_mlp", "small_cnn", "mini_transformer"]


def main(exe, plugin_dir, fixture_dir, out_dir):
    fixture_dir, out_dir = pathlib.Path(fixture_dir), pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, MODELEXPORT_PLUGIN_PATH=plugin_dir)
    failures = 0
    for name in FIXTURES:
        out = out_dir / f"{name}.tagged.onnx"
        proc = subprocess.run([exe, "tag", str(fixture_dir / f"{name}.onnx"), "-o", str(out),
                               "--strategy", "metadata"], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{name}: modelexport tag failed: {proc.stderr.strip()}")
            return 1
        sidecar = pathlib.Path(str(out)[:-len(".onnx")] + ".hierarchy.json")
        got = json.loads(sidecar.read_text())["nodes"]
        want = json.loads((fixture_dir / f"{name}.expected.json").read_text())["nodes"]
        checked = wrong = 0
        for w in want:
            if w["module"] is None:
                continue
            checked += 1
            g = got[w["index"]]
            if g["module"] != w["module"] or g["evidence"] != "metadata":
                wrong += 1
                print(f"{name}: node {w['name']}: got {g['module']!r} ({g['evidence']}), "
                      f"name_scopes say {w['module']!r}")
        print(f"{name}: {checked - wrong}/{checked} nodes with name_scopes match")
        failures += wrong
    print(f"{len(FIXTURES) - (1 if failures else 0)} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
