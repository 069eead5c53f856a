#!/usr/bin/env bash
# Builds ONNX from its release sources into the prefix the SDK's CMake looks
# in first (<repo>/.deps/onnx-<version>), as static position-independent
# archives in the C++ namespace mx_onnx, linked against Debian's protobuf.
#
# Why from source: Debian 12's libonnx is 1.12 (IR 8, opset <= 17); files
# written by today's exporters (IR 10+, opset 18+) need a current checker
# and current operator schemas. PyPI's wheel has no linkable C++ library,
# so its sdist (pinned below by version and sha256) is built here.
# Why mx_onnx: LibTorch loads Debian's libonnx 1.12 (namespace and protobuf
# package "onnx") into the torchscript plugin's process; a second "onnx"
# package would make protobuf abort on the duplicate descriptor.
#
# Idempotent: a prefix holding the stamp of this exact recipe is kept.
# Environment: MX_ONNX_PREFIX, MX_JOBS, MX_VENV (its cmake >= 3.26 is used:
# ONNX 1.23 needs it and Debian 12 has 3.25), MX_CMAKE_ARGS (its compiler
# launchers, e.g. ccache, are passed on).
set -Eeuo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
mx_trap_errors

ONNX_VERSION=1.23.2
ONNX_SHA256=008cb0467b2bbee41448acc7da8b6f4e704624cb0d327a2d5adafc7ce19bc5b8
ONNX_URL="https://files.pythonhosted.org/packages/3f/62/bc2dfadb63ecf04cb2d65a6b17751863039d36c65de51d6a3128ab35f1e7/onnx-$ONNX_VERSION.tar.gz"
prefix="${MX_ONNX_PREFIX:-$MX_REPO/.deps/onnx-$ONNX_VERSION}"
work="$MX_REPO/.deps/src"
cmake_bin="$MX_VENV/bin/cmake"
[[ -x "$cmake_bin" ]] || cmake_bin="$(command -v cmake)"

# The stamp names everything that changes the archives; a different recipe
# rebuilds.
options=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON
         -DBUILD_SHARED_LIBS=OFF -DONNX_NAMESPACE=mx_onnx -DONNX_ML=ON
         -DONNX_USE_PROTOBUF_SHARED_LIBS=ON -DONNX_BUILD_PYTHON=OFF
         -DONNX_BUILD_TESTS=OFF -DONNX_GEN_PB_TYPE_STUBS=OFF -DONNX_WERROR=OFF)
stamp="onnx $ONNX_VERSION $ONNX_SHA256 ${options[*]}"
if [[ -f "$prefix/.recipe" && "$(cat "$prefix/.recipe")" == "$stamp" ]]; then
  mx_ok "ONNX $ONNX_VERSION already built in $prefix"
  exit 0
fi

launchers=()
for arg in ${MX_CMAKE_ARGS:-}; do
  case "$arg" in -DCMAKE_C*_COMPILER_LAUNCHER=*) launchers+=("$arg") ;; esac
done

mkdir -p "$work"
archive="$work/onnx-$ONNX_VERSION.tar.gz"
if [[ ! -f "$archive" ]] || ! echo "$ONNX_SHA256  $archive" | sha256sum -c --status; then
  mx_info "downloading the ONNX $ONNX_VERSION sources from PyPI"
  curl -fsSL --retry 3 -o "$archive.part" "$ONNX_URL" || mx_die "could not download $ONNX_URL"
  echo "$ONNX_SHA256  $archive.part" | sha256sum -c --status ||
    mx_die "checksum mismatch for $ONNX_URL (want sha256 $ONNX_SHA256)"
  mv "$archive.part" "$archive"
fi
src="$work/onnx-$ONNX_VERSION"
rm -rf "$src" "$work/build-$ONNX_VERSION" "$prefix"
tar -xzf "$archive" -C "$work"
log="$work/build-onnx.log"
mx_info "building ONNX $ONNX_VERSION (static, PIC, namespace mx_onnx; log: $log)"
{
  "$cmake_bin" -S "$src" -B "$work/build-$ONNX_VERSION" -G Ninja "${options[@]}" \
    -DCMAKE_INSTALL_PREFIX="$prefix" "${launchers[@]}" &&
  "$cmake_bin" --build "$work/build-$ONNX_VERSION" -j "$MX_JOBS" &&
  "$cmake_bin" --install "$work/build-$ONNX_VERSION"
} >"$log" 2>&1 || { tail -n 40 "$log" >&2; mx_die "the ONNX $ONNX_VERSION build failed (log: $log)"; }
echo "$stamp" >"$prefix/.recipe"
rm -rf "$src" "$work/build-$ONNX_VERSION"
mx_ok "ONNX $ONNX_VERSION in $prefix"
