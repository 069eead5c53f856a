#!/usr/bin/env bash
# Builds the regex strategy plugin OUT OF TREE against an installed SDK
# (find_package(modelexport)), plus its deliberately wrong-ABI copy, and
# checks that
#   - the `modelexport plugins` listing shows "regex" loaded and the copy
#     refused with a reason naming the ABI, and the host keeps working;
#   - tagging examples/tag_and_print_tree/testdata/keras_style.onnx with
#     --strategy regex maps model/dense_1/MatMul to module dense_1;
#   - strategy options (a user pattern) are honoured, bad ones reported.
# The SDK: MODELEXPORT_PREFIX (an install, default /usr/local) or, when
# MODELEXPORT_BUILD_DIR is set, that build tree installed into a temporary
# prefix first (so the plugin really sees only the installed headers).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
model="$repo/examples/tag_and_print_tree/testdata/keras_style.onnx"
# A directory we create (it holds an installed SDK, ~190 MB) is ours to
# remove; one the caller names is kept for inspection.
if [[ -n "${MX_PLUGIN_TEST_DIR:-}" ]]; then
  work="$MX_PLUGIN_TEST_DIR"
else
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"

if [[ -n "${MODELEXPORT_BUILD_DIR:-}" ]]; then
  prefix="$work/prefix"
  cmake --install "$MODELEXPORT_BUILD_DIR" --prefix "$prefix" >/dev/null
else
  prefix="${MODELEXPORT_PREFIX:-/usr/local}"
fi
libdir="$(dirname "$(find "$prefix"/lib* -maxdepth 2 -name 'libmodelexport.so' -print -quit)")"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cli="$prefix/bin/modelexport"

failures=0
check() { # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}

echo "==> configure + build out of tree against $prefix"
cmake -S "$here" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >/dev/null
cmake --build "$work/build"
mkdir -p "$work/plugins"
cp "$work/build/libmodelexport_regex.so" "$work/build/libmodelexport_regex_badabi.so" \
  "$work/build/libmodelexport_lowering_mylib.so" "$work/plugins/"
# The plugin must not link the core library.
check "plugin does not link libmodelexport" \
  bash -c "! ldd '$work/plugins/libmodelexport_regex.so' | grep -q libmodelexport.so"

cc -std=c99 -Wall -Wextra -Werror "$here/host_check.c" -I"$prefix/include" -L"$libdir" \
  -Wl,-rpath,"$libdir" -lmodelexport -lcjson -o "$work/host_check"
export MODELEXPORT_PLUGIN_PATH="$work/plugins${MODELEXPORT_PLUGIN_PATH:+:$MODELEXPORT_PLUGIN_PATH}"

echo "==> listing (C API)"
"$work/host_check" > "$work/plugins.json"
python3 - "$work/plugins.json" <<'PY' || failures=$((failures + 1))
import json, sys
doc = json.loads(open(sys.argv[1]).read().splitlines()[0])
by_path = {p.get("path", "").rsplit("/", 1)[-1]: p for p in doc["plugins"]}
good, bad = by_path.get("libmodelexport_regex.so"), by_path.get("libmodelexport_regex_badabi.so")
assert good and good["status"] == "loaded" and good["name"] == "regex" and good["kind"] == "strategy", good
assert bad and bad["status"] == "refused", bad
assert "abi" in bad.get("reason", "").lower() and "99" in bad["reason"], bad
print("ok   regex loaded:", good["description"])
print("ok   regex_badabi refused:", bad["reason"])
low = by_path.get("libmodelexport_lowering_mylib.so")
assert low and low["status"] == "loaded" and low["kind"] == "lowering" and low["name"] == "mylib", low
print("ok   lowering plugin mylib listed:", low["description"])
PY

echo "==> export a .pt2 holding a custom op through the lowering plugin"
if "$cli" export "$repo/tests/fixtures/custom_op/scaled_add.pt2" -o "$work/scaled_add.onnx" > "$work/cli-export.txt" 2>&1; then
  check "custom op lowered in module block" grep -q '"/block/Add"' "$work/scaled_add.hierarchy.json"
else
  echo "FAIL modelexport export scaled_add.pt2:"; cat "$work/cli-export.txt"; failures=$((failures + 1))
fi

echo "==> listing (modelexport plugins)"
if "$cli" plugins > "$work/cli-plugins.txt" 2>&1 && grep -q regex "$work/cli-plugins.txt"; then
  cat "$work/cli-plugins.txt"
  check "CLI lists regex" grep -q 'regex' "$work/cli-plugins.txt"
  check "CLI lists the refusal with its reason" grep -qi 'refused.*abi\|abi.*refused\|regex_badabi.*abi' "$work/cli-plugins.txt"
else
  echo "FAIL \`modelexport plugins\` did not list the plugin:"; cat "$work/cli-plugins.txt"
  failures=$((failures + 1))
fi

echo "==> tag with the default pattern (C API)"
"$work/host_check" "$model" regex | tail -n +2 | tee "$work/records.txt"
check "model/dense_1/MatMul -> dense_1 (scope)" grep -qx 'model/dense_1/MatMul -> dense_1 (scope)' "$work/records.txt"
check "model/dense/Relu -> dense (scope)" grep -qx 'model/dense/Relu -> dense (scope)' "$work/records.txt"
# The graph-output Identity reads dense_1's finished output: propagation's
# data-path rule puts it in dense_1's parent, the root (docs/tagging.md §3).
check "Identity is left to propagation" grep -qx 'Identity ->  (propagated)' "$work/records.txt"

echo "==> tag with a user pattern"
"$work/host_check" "$model" regex \
  '{"strategy_options":{"pattern":"^([a-z]+)/([a-z]+)(_[0-9]+)?/","group":2,"prefix":"keras."}}' \
  | tail -n +2 | tee "$work/records2.txt"
check "user pattern: model/dense_1/BiasAdd -> keras.dense" grep -qx 'model/dense_1/BiasAdd -> keras.dense (scope)' "$work/records2.txt"

echo "==> bad options are reported with the plugin's message"
if "$work/host_check" "$model" regex '{"strategy_options":{"patern":"x"}}' >/dev/null 2>"$work/err.txt"; then
  echo "FAIL misspelt option accepted"; failures=$((failures + 1))
else
  cat "$work/err.txt"; check "unknown option named" grep -q "unknown option 'patern'" "$work/err.txt"
fi
if "$work/host_check" "$model" regex '{"strategy_options":{"pattern":"(["}}' >/dev/null 2>"$work/err.txt"; then
  echo "FAIL invalid regex accepted"; failures=$((failures + 1))
else
  cat "$work/err.txt"; check "invalid pattern reported" grep -q "invalid pattern" "$work/err.txt"
fi

echo "==> modelexport tag --strategy regex"
if "$cli" tag "$model" -o "$work/tagged.onnx" --strategy regex > "$work/cli-tag.txt" 2>&1; then
  cat "$work/cli-tag.txt"
  check "CLI wrote the sidecar" test -s "$work/tagged.hierarchy.json"
  check "CLI tag: model/dense_1/MatMul in dense_1" python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
rec = {n["name"]: n for n in doc["nodes"]}["model/dense_1/MatMul"]
assert rec["module"] == "dense_1" and rec["evidence"] == "scope", rec
assert any(m["path"] == "dense_1" for m in doc["modules"]), doc["modules"]
' "$work/tagged.hierarchy.json"
else
  echo "FAIL modelexport tag --strategy regex:"; cat "$work/cli-tag.txt"; failures=$((failures + 1))
fi

echo
if ((failures == 0)); then echo "1 passed, 0 failed"; else echo "$failures check(s) failed"; echo "0 passed, 1 failed"; exit 1; fi
