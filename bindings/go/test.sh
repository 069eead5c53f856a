#!/usr/bin/env bash
# The Go module's tests:
#  1. go vet + go test against the SDK, found by pkg-config (the binding
#     links through `#cgo pkg-config: modelexport`);
#  2. the README's install path, literally: a fresh module in a scratch
#     directory with `require` + `replace` to this directory, `go mod tidy`,
#     then `go run` tagging a committed model.
# SDK location: MODELEXPORT_BUILD_DIR (a CMake build tree: <build>/pkgconfig/
# modelexport-uninstalled.pc, plugins in <build>/plugins-out), else
# MODELEXPORT_PREFIX (default /usr/local). MODELEXPORT_LIBRARY (path of
# libmodelexport.so), when set, wins for the run-time library path.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

if [[ -n "${MODELEXPORT_BUILD_DIR:-}" ]]; then
  pcdir="$MODELEXPORT_BUILD_DIR/pkgconfig"
  export MODELEXPORT_PLUGIN_PATH="${MODELEXPORT_PLUGIN_PATH:-$MODELEXPORT_BUILD_DIR/plugins-out}"
else
  prefix="${MODELEXPORT_PREFIX:-/usr/local}"
  pc="$(find "$prefix"/lib* -maxdepth 3 -name modelexport.pc -print -quit 2>/dev/null || true)"
  [[ -n "$pc" ]] || { echo "go: no modelexport.pc under $prefix (set MODELEXPORT_BUILD_DIR or MODELEXPORT_PREFIX)" >&2; exit 1; }
  pcdir="$(dirname "$pc")"
fi
export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
libdir="$(pkg-config --variable=libdir modelexport)"
[[ -n "${MODELEXPORT_LIBRARY:-}" ]] && libdir="$(dirname "$MODELEXPORT_LIBRARY")"
[[ -e "$libdir/libmodelexport.so" ]] || { echo "go: $libdir/libmodelexport.so not found" >&2; exit 1; }
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CGO_ENABLED=1
export GOFLAGS="${GOFLAGS:--count=1}"

echo "go: pkg-config $(pkg-config --cflags --libs modelexport), library $libdir, plugins ${MODELEXPORT_PLUGIN_PATH:-<install>}"
rc=0
(cd "$here" && go vet ./... && go test -v ./... 2>&1) || rc=$?

echo "==> a fresh module: require + replace => $here, go mod tidy"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# Not `( ... ) || consumer_rc=$?`: bash ignores set -e inside a subshell
# whose status is tested, and a failing step would pass unseen.
set +e
(
  set -e
  export GOFLAGS=
  cd "$scratch"
  go mod init example.test/tagger
  go mod edit -require=modelexport.local/modelexport@v0.0.0 -replace=modelexport.local/modelexport="$here"
  cp "$here/testdata/consumer/main.go" .
  go mod tidy
  go run . "$repo/examples/tag_and_print_tree/testdata/tiny.onnx" "$scratch/out.onnx"
  [[ -f "$scratch/out.hierarchy.json" ]] || { echo "sidecar out.hierarchy.json missing"; exit 1; }
)
consumer_rc=$?
set -e
if ((consumer_rc != 0)); then
  echo "consumer: 0 passed, 1 failed"
  exit 1
fi
echo "consumer: 1 passed, 0 failed"
exit "$rc"
