#!/usr/bin/env bash
# The Python binding's tests:
#  1. pytest in the project venv against a real libmodelexport:
#     MODELEXPORT_LIBRARY if set (scripts/test.sh points it at the build
#     tree, and MODELEXPORT_PLUGIN_PATH at the build's plugins), otherwise
#     the installed SDK.
#  2. the README's portable wheel: build_wheel.sh (scikit-build-core, then
#     auditwheel repair: libmodelexport, the CLI and the LibTorch-free
#     plugins with libonnx/protobuf/Boost vendored, a manylinux tag) into a
#     fresh venv in a scratch directory; then, with every MODELEXPORT_*
#     variable unset and the system's ONNX/protobuf/Boost libraries hidden
#     (tests/install/without_system_libs.sh: a mount namespace, as root),
#     tag a committed ONNX file and export a committed .pt2 through Python
#     and the CLI; the files are then checked in ONNX Runtime against the
#     fixture's PyTorch outputs. MX_SKIP_WHEEL=1 skips it.
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

echo "==> the manylinux wheel in a fresh venv, system ONNX/protobuf/Boost hidden"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
start=$SECONDS
# Not `( ... ) || wheel_rc=$?`: bash ignores set -e inside a subshell
# whose status is tested, and a failing check would pass unseen.
set +e
(
  set -e
  cd "$scratch"
  # The interpreter the README names; no MODELEXPORT_* anywhere from here on.
  for v in $(compgen -e | grep '^MODELEXPORT_' || true); do unset "$v"; done
  # With ccache the wheel's objects are the ones scripts/setup.sh's build
  # already compiled: same build type, same depth below the repository
  # (pyproject.toml's build-dir) and, named by build_wheel.sh, the same
  # compiler driver (scikit-build-core would otherwise pick Python's
  # x86_64-linux-gnu-g++, another ccache key).
  wheel="$("$here/build_wheel.sh" dist)"
  echo "wheel built and repaired in $((SECONDS - start)) s: ${wheel##*/}"
  /usr/bin/python3 -m venv venv
  venv/bin/pip install --quiet --disable-pip-version-check --no-index "$wheel"
  mkdir out
  "$here/tests/install/without_system_libs.sh" venv/bin/python \
    "$here/tests/install/check_installed.py" \
    "$repo/examples/tag_and_print_tree/testdata/tiny.onnx" \
    "$repo/tests/fixtures/pt2/bert_tiny.pt2" out
  "$python" "$here/tests/install/check_in_onnxruntime.py" out \
    "$repo/tests/fixtures/pt2" bert_tiny
  echo "wheel checked in $((SECONDS - start)) s"
)
wheel_rc=$?
set -e
if ((wheel_rc != 0)); then
  echo "FAIL: the manylinux wheel (exit $wheel_rc)"
  echo "wheel: 0 passed, 1 failed"
  exit 1
fi
echo "wheel: 1 passed, 0 failed"
exit "$rc"
