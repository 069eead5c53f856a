#!/usr/bin/env bash
# Runs the Python binding's tests in the project venv against a real
# libmodelexport: MODELEXPORT_LIBRARY if set (scripts/test.sh points it at
# the build tree, and MODELEXPORT_PLUGIN_PATH at the build's plugins),
# otherwise the installed SDK.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
python="${MX_VENV:-$repo/.venv}/bin/python"
[[ -x "$python" ]] || { echo "error: $python missing: run scripts/setup.sh" >&2; exit 1; }
echo "python binding: MODELEXPORT_LIBRARY=${MODELEXPORT_LIBRARY:-<installed>}" \
     "MODELEXPORT_PLUGIN_PATH=${MODELEXPORT_PLUGIN_PATH:-}"
cd "$here"
PYTHONPATH="$here/src${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -m pytest -q -p no:cacheprovider -o tmp_path_retention_policy=failed "${@:-tests}"
