#!/bin/sh
# Runs make_torchscript_exports.py with Debian's python3 (torch 1.13), or
# exits 77 (ctest: skipped) when that interpreter cannot export.
# Usage: run_torchscript_exports.sh SCRIPT OUT_DIR
py="${MX_SYSTEM_PYTHON:-/usr/bin/python3}"
if ! "$py" -c 'import torch, torchvision, onnx' >/dev/null 2>&1; then
  echo "skipped: $py lacks torch, torchvision or onnx" >&2
  exit 77
fi
exec "$py" "$1" "$2"
