#!/usr/bin/env bash
# The Python binding's tests:
#  1. pytest in the project venv against a real libmodelexport:
#     MODELEXPORT_LIBRARY if set (scripts/test.sh points it at the build
#     tree, and MODELEXPORT_PLUGIN_PATH at the build's plugins), otherwise
#     the installed SDK.
#  2. the README's install path, literally: a fresh venv in a scratch
#     directory, `pip install ./bindings/python` (a wheel built by
#     scikit-build-core: libmodelexport and the LibTorch-free plugins
#     inside), then tag a committed ONNX file and export a committed .pt2
#     with every MODELEXPORT_* variable unset. MX_SKIP_WHEEL=1 skips it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
python="${MX_VENV:-$repo/.venv}/bin/python"
[[ -x "$python" ]] || { echo "error: $python missing: run scripts/setup.sh" >&2; exit 1; }
echo "python binding: MODELEXPORT_LIBRARY=${MODELEXPORT_LIBRARY:-<installed>}" \
     "MODELEXPORT_PLUGIN_PATH=${MODELEXPORT_PLUGIN_PATH:-}"
rc=0
(cd "$here" && PYTHONPATH="$here/src${PYTHONPATH:+:$PYTHONPATH}" "$python" -m pytest -q \
   -p no:cacheprovider -o tmp_path_retention_policy=failed "${@:-tests}") || rc=$?
[[ "${MX_SKIP_WHEEL:-0}" == 1 ]] && exit "$rc"

echo "==> pip install ./bindings/python into a fresh venv"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
start=$SECONDS
wheel_rc=0
(
  set -e
  cd "$scratch"
  # The interpreter the README names; no MODELEXPORT_* anywhere from here on.
  for v in $(compgen -e | grep '^MODELEXPORT_' || true); do unset "$v"; done
  /usr/bin/python3 -m venv venv
  # With ccache the wheel's objects are the ones scripts/setup.sh's build
  # already compiled: same build type, same depth below the repository
  # (pyproject.toml's build-dir) and, named here, the same compiler driver
  # (scikit-build-core would otherwise pick Python's x86_64-linux-gnu-g++,
  # another ccache key). CMAKE_ARGS is scikit-build-core's documented way
  # to pass CMake arguments.
  if command -v ccache >/dev/null; then
    export CMAKE_ARGS="-DCMAKE_C_COMPILER=cc -DCMAKE_CXX_COMPILER=c++ -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
  fi
  venv/bin/pip install --quiet --disable-pip-version-check "$repo/bindings/python"
  echo "wheel built and installed in $((SECONDS - start)) s"
  mkdir out
  venv/bin/python "$here/tests/install/check_installed.py" \
    "$repo/examples/tag_and_print_tree/testdata/tiny.onnx" \
    "$repo/tests/fixtures/pt2/bert_tiny.pt2" out
) || wheel_rc=$?
if ((wheel_rc != 0)); then
  echo "FAIL: the pip-installed package (exit $wheel_rc)"
  echo "wheel: 0 passed, 1 failed"
  exit 1
fi
echo "wheel: 1 passed, 0 failed"
exit "$rc"
