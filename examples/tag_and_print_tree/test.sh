#!/usr/bin/env bash
# Builds tag_and_print_tree in C, C++, Python, Rust, Go and C#, runs the six
# on real exported models and diffs their outputs (stdout, and stderr for the
# failure cases). Exits non-zero on any difference or failure.
#
# SDK: MODELEXPORT_BUILD_DIR (build tree: <build>/sdk, <build>/plugins-out),
# else MODELEXPORT_PREFIX (install, default /usr/local).
# MX_EXAMPLES_ONLY="c rust" restricts the languages (for debugging).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
data="$here/testdata"

if [[ -n "${MODELEXPORT_BUILD_DIR:-}" ]]; then
  libdir="$MODELEXPORT_BUILD_DIR/sdk"
  incdir="$repo/abi/include"
  pcdir="$MODELEXPORT_BUILD_DIR/pkgconfig"
  export MODELEXPORT_PLUGIN_PATH="${MODELEXPORT_PLUGIN_PATH:-$MODELEXPORT_BUILD_DIR/plugins-out}"
else
  prefix="${MODELEXPORT_PREFIX:-/usr/local}"
  libdir="$(dirname "$(find "$prefix"/lib* -maxdepth 2 -name 'libmodelexport.so' -print -quit 2>/dev/null || true)")"
  incdir="$prefix/include"
  pcdir="$libdir/pkgconfig"
fi
[[ -e "$libdir/libmodelexport.so" ]] || { echo "examples: libmodelexport.so not found (set MODELEXPORT_BUILD_DIR or MODELEXPORT_PREFIX)" >&2; exit 1; }
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export MODELEXPORT_LIBRARY="$libdir/libmodelexport.so"
python="${MODELEXPORT_PYTHON:-python3}"

# A directory we create is ours to remove; one the caller names is kept.
if [[ -n "${MX_EXAMPLES_OUT:-}" ]]; then
  out="$MX_EXAMPLES_OUT"
else
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
langs=(${MX_EXAMPLES_ONLY:-c cpp python rust go csharp})
declare -A run

step() { printf '\n==> %s\n' "$*"; }

for lang in "${langs[@]}"; do
  step "build: $lang"
  case "$lang" in
    c)
      cc -std=c99 -Wall -Wextra -Werror "$here/c/main.c" -I"$incdir" \
        -L"$libdir" -Wl,-rpath,"$libdir" -lmodelexport -lcjson -o "$out/tapt_c"
      run[c]="$out/tapt_c" ;;
    cpp)
      c++ -std=c++17 -Wall -Wextra -Werror "$here/cpp/main.cpp" -I"$incdir" \
        -L"$libdir" -Wl,-rpath,"$libdir" -lmodelexport -o "$out/tapt_cpp"
      run[cpp]="$out/tapt_cpp" ;;
    python)
      "$python" -c 'import sys; assert sys.version_info >= (3, 8)'
      run[python]="env PYTHONPATH=$repo/bindings/python/src${PYTHONPATH:+:$PYTHONPATH} $python $here/python/tag_and_print_tree.py" ;;
    rust)
      (cd "$here/rust" && MODELEXPORT_LIB_DIR="$libdir" cargo build --quiet --release)
      run[rust]="$here/rust/target/release/tag_and_print_tree" ;;
    go)
      # The binding links through `#cgo pkg-config: modelexport`.
      (cd "$here/go" && PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
        CGO_LDFLAGS="-Wl,-rpath,$libdir" go build -o "$out/tapt_go" .)
      run[go]="$out/tapt_go" ;;
    csharp)
      mcs -nologo -warnaserror -nowarn:1591 -target:library -out:"$out/ModelExport.dll" "$repo"/bindings/csharp/src/*.cs
      mcs -nologo -warnaserror -out:"$out/tapt_cs.exe" -r:"$out/ModelExport.dll" "$here/csharp/TagAndPrintTree.cs"
      run[csharp]="mono $out/tapt_cs.exe" ;;
    *) echo "unknown language $lang" >&2; exit 2 ;;
  esac
done

failures=0
# compare NAME EXPECTED_STATUS ARGS... : runs every language, diffs against the first.
compare() {
  local name="$1" want="$2"; shift 2
  step "run: $name"
  local first="" rc
  for lang in "${langs[@]}"; do
    rc=0
    ${run[$lang]} "$@" >"$out/$name.$lang.out" 2>"$out/$name.$lang.err" || rc=$?
    if [[ "$rc" != "$want" ]]; then
      echo "FAIL $name/$lang: exit $rc, expected $want"; cat "$out/$name.$lang.err"
      failures=$((failures + 1)); continue
    fi
    if [[ -z "$first" ]]; then
      first="$lang"
      if [[ "$want" == 0 ]]; then cat "$out/$name.$lang.out"; else cat "$out/$name.$lang.err"; fi
      continue
    fi
    for stream in out err; do
      if ! diff -u "$out/$name.$first.$stream" "$out/$name.$lang.$stream"; then
        echo "FAIL $name: $lang std$stream differs from $first"
        failures=$((failures + 1))
      fi
    done
  done
  if [[ "$want" == 0 && -n "$first" && ! -s "$out/$name.$first.out" ]]; then
    echo "FAIL $name: empty output"; failures=$((failures + 1))
  fi
}

# A model exported by torch.onnx.export (PyTorch-scoped node names).
compare tiny_scope 0 "$data/tiny.onnx" scope
grep -q '^      layers.0.fc \[' "$out/tiny_scope.${langs[0]}.out" ||
  { echo "FAIL tiny_scope: layers.0.fc not nested at depth 3"; failures=$((failures + 1)); }
compare tiny_auto 0 "$data/tiny.onnx" auto

# A model exported by modelexport itself, when the frontend plugin is there.
if PYTHONPATH="$repo/bindings/python/src" "$python" - "$data/tiny.pt" "$out/exported.onnx" <<'PY'
import sys, modelexport as mx
reg = mx.Registry()
if not any(p.get("name") == "torchscript" and p.get("status") == "loaded" for p in reg.plugins()["plugins"]):
    print("torchscript frontend not loaded: skipping the exported-model run"); sys.exit(3)
with reg.export(sys.argv[1], ["x:float32[batch=2,4]"]) as m:
    m.save_file(sys.argv[2])
PY
then
  compare exported_scope 0 "$out/exported.onnx" scope
fi

# Failures carry the SDK's message, identically in every language.
compare missing_file 1 "$out/no-such-model.onnx" scope
grep -q 'no-such-model.onnx' "$out/missing_file.${langs[0]}.err" ||
  { echo "FAIL missing_file: message does not name the file"; failures=$((failures + 1)); }
compare unknown_strategy 1 "$data/tiny.onnx" no-such-strategy
grep -q 'no-such-strategy' "$out/unknown_strategy.${langs[0]}.err" ||
  { echo "FAIL unknown_strategy: message does not name the strategy"; failures=$((failures + 1)); }

echo
if ((failures == 0)); then
  echo "examples: ${#langs[@]} languages agree (${langs[*]})"
  echo "1 passed, 0 failed"
else
  echo "examples: $failures failure(s)"
  echo "0 passed, 1 failed"
  exit 1
fi
