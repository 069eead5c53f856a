#!/usr/bin/env bash
# Builds and tests the Rust crates against the SDK.
# SDK location: MODELEXPORT_BUILD_DIR (a CMake build tree: library in
# <build>/sdk, plugins in <build>/plugins-out), else MODELEXPORT_PREFIX
# (default /usr/local). MODELEXPORT_LIBRARY (path of libmodelexport.so), when
# set, wins for the library.
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
[[ -e "$libdir/libmodelexport.so" ]] || { echo "rust: libmodelexport.so not found (set MODELEXPORT_BUILD_DIR or MODELEXPORT_PREFIX)" >&2; exit 1; }
if [[ -n "${MODELEXPORT_BUILD_DIR:-}" ]]; then
  export MODELEXPORT_INCLUDE_DIR="$repo/abi/include"
  export MODELEXPORT_PLUGIN_PATH="${MODELEXPORT_PLUGIN_PATH:-$MODELEXPORT_BUILD_DIR/plugins-out}"
else
  export MODELEXPORT_INCLUDE_DIR="${MODELEXPORT_INCLUDE_DIR:-${MODELEXPORT_PREFIX:-/usr/local}/include}"
fi
export MODELEXPORT_LIB_DIR="$libdir"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}"

echo "rust: library $libdir, plugins ${MODELEXPORT_PLUGIN_PATH:-<install>}"
cd "$here"
cargo test --workspace --locked 2>&1
