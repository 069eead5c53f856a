#!/usr/bin/env bash
# The Rust crates' tests:
#  1. cargo test --workspace (header check, typed options, API tests on
#     examples/tag_and_print_tree/testdata) with MODELEXPORT_LIB_DIR, the
#     build-tree override;
#  2. the README's install path, literally: a fresh `cargo new` project in a
#     scratch directory depending on the crates by path, the library found
#     by pkg-config (no MODELEXPORT_LIB_DIR), run to tag a committed model.
# SDK location: MODELEXPORT_BUILD_DIR (a CMake build tree: library in
# <build>/sdk, plugins in <build>/plugins-out, <build>/pkgconfig/
# modelexport-uninstalled.pc), else MODELEXPORT_PREFIX (default /usr/local).
# MODELEXPORT_LIBRARY (path of libmodelexport.so), when set, wins for the library.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

if [[ -n "${MODELEXPORT_BUILD_DIR:-}" ]]; then
  libdir="${MODELEXPORT_LIBRARY:+$(dirname "$MODELEXPORT_LIBRARY")}"
  libdir="${libdir:-$MODELEXPORT_BUILD_DIR/sdk}"
  pcdir="$MODELEXPORT_BUILD_DIR/pkgconfig"
  export MODELEXPORT_INCLUDE_DIR="$repo/abi/include"
  export MODELEXPORT_PLUGIN_PATH="${MODELEXPORT_PLUGIN_PATH:-$MODELEXPORT_BUILD_DIR/plugins-out}"
else
  prefix="${MODELEXPORT_PREFIX:-/usr/local}"
  pc="$(find "$prefix"/lib* -maxdepth 3 -name modelexport.pc -print -quit 2>/dev/null || true)"
  [[ -n "$pc" ]] || { echo "rust: no modelexport.pc under $prefix (set MODELEXPORT_BUILD_DIR or MODELEXPORT_PREFIX)" >&2; exit 1; }
  pcdir="$(dirname "$pc")"
  libdir="$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir modelexport)"
  export MODELEXPORT_INCLUDE_DIR="${MODELEXPORT_INCLUDE_DIR:-$prefix/include}"
fi
[[ -e "$libdir/libmodelexport.so" ]] || { echo "rust: $libdir/libmodelexport.so not found" >&2; exit 1; }
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}"

echo "rust: library $libdir, pkg-config dir $pcdir, plugins ${MODELEXPORT_PLUGIN_PATH:-<install>}"
rc=0
(cd "$here" && MODELEXPORT_LIB_DIR="$libdir" cargo test --workspace --locked 2>&1) || rc=$?

echo "==> a fresh cargo project depending on the crates, the library found by pkg-config"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# Not `( ... ) || consumer_rc=$?`: bash ignores set -e inside a subshell
# whose status is tested, and a failing step would pass unseen.
set +e
(
  set -e
  unset MODELEXPORT_LIB_DIR
  export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  cd "$scratch"
  cargo new --quiet --bin tagger
  cd tagger
  # As the README says: a path dependency on the checkout's crate.
  cargo add --quiet --path "$repo/bindings/rust/modelexport"
  cp "$here/tests/consumer_main.rs" src/main.rs
  # Shares the workspace's target dir: the crates compile once.
  cargo run --quiet -- "$repo/examples/tag_and_print_tree/testdata/tiny.onnx" "$scratch/out.onnx"
  [[ -f "$scratch/out.hierarchy.json" ]] || { echo "sidecar out.hierarchy.json missing"; exit 1; }
  # The build script's answer came from pkg-config, pointing at $libdir.
  found="$(ls -t "$CARGO_TARGET_DIR"/debug/build/modelexport-sys-*/output | head -1)"
  grep -q '^cargo:rerun-if-env-changed=PKG_CONFIG_PATH$' "$found" &&
    grep -qx "cargo:rustc-link-search=native=$libdir" "$found" ||
    { echo "modelexport-sys did not find $libdir through pkg-config:"; cat "$found"; exit 1; }
  echo "modelexport-sys: $libdir from pkg-config"
)
consumer_rc=$?
set -e
if ((consumer_rc != 0)); then
  echo "consumer: 0 passed, 1 failed"
  exit 1
fi
echo "consumer: 1 passed, 0 failed"
exit "$rc"
