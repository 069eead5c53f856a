#!/usr/bin/env bash
# Builds and tests the Go module against the SDK (see bindings/rust/test.sh
# for how MODELEXPORT_BUILD_DIR / MODELEXPORT_PREFIX / MODELEXPORT_LIBRARY are used).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

if [[ -n "${MODELEXPORT_LIBRARY:-}" ]]; then
  libdir="$(dirname "$MODELEXPORT_LIBRARY")"
elif [[ -n "${MODELEXPORT_BUILD_DIR:-}" ]]; then
  libdir="$MODELEXPORT_BUILD_DIR/sdk"
else
  prefix="${MODELEXPORT_PREFIX:-/usr/local}"
  libdir="$(dirname "$(find "$prefix"/lib* -maxdepth 2 -name 'libmodelexport.so' -print -quit 2>/dev/null || true)")"
fi
[[ -e "$libdir/libmodelexport.so" ]] || { echo "go: libmodelexport.so not found (set MODELEXPORT_BUILD_DIR or MODELEXPORT_PREFIX)" >&2; exit 1; }
if [[ -n "${MODELEXPORT_BUILD_DIR:-}" ]]; then
  incdir="$repo/abi/include"
  export MODELEXPORT_PLUGIN_PATH="${MODELEXPORT_PLUGIN_PATH:-$MODELEXPORT_BUILD_DIR/plugins-out}"
else
  incdir="${MODELEXPORT_PREFIX:-/usr/local}/include"
fi
export CGO_ENABLED=1
export CGO_CFLAGS="-I$incdir ${CGO_CFLAGS:-}"
export CGO_LDFLAGS="-L$libdir -Wl,-rpath,$libdir ${CGO_LDFLAGS:-}"
export GOFLAGS="${GOFLAGS:--count=1}"

echo "go: library $libdir, plugins ${MODELEXPORT_PLUGIN_PATH:-<install>}"
cd "$here"
go vet ./...
go test -v ./... 2>&1
