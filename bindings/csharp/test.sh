#!/usr/bin/env bash
# Builds the C# binding with Debian's mono `mcs` and runs its tests with
# `mono` (see bindings/rust/test.sh for MODELEXPORT_* variables).
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
[[ -e "$libdir/libmodelexport.so" ]] || { echo "csharp: libmodelexport.so not found (set MODELEXPORT_BUILD_DIR or MODELEXPORT_PREFIX)" >&2; exit 1; }
if [[ -n "${MODELEXPORT_BUILD_DIR:-}" ]]; then
  export MODELEXPORT_PLUGIN_PATH="${MODELEXPORT_PLUGIN_PATH:-$MODELEXPORT_BUILD_DIR/plugins-out}"
fi
command -v mcs >/dev/null && command -v mono >/dev/null ||
  { echo "csharp: mono's mcs/mono not installed (apt-get install mono-mcs mono-devel)" >&2; exit 1; }
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

out="$here/build"
mkdir -p "$out"
mcs -nologo -warnaserror -nowarn:1591 -target:library -doc:"$out/ModelExport.xml" -out:"$out/ModelExport.dll" "$here"/src/*.cs
mcs -nologo -warnaserror -out:"$out/tests.exe" -r:"$out/ModelExport.dll" "$here/tests/Tests.cs"
echo "csharp: library $libdir, plugins ${MODELEXPORT_PLUGIN_PATH:-<install>}"
mono --debug "$out/tests.exe" "$repo/examples/tag_and_print_tree/testdata"
