#!/usr/bin/env bash
# The main job on the bundled default model:
#   setup (scripts/setup.sh: only the packages and targets the main job
#   needs — SDK, CLI, plugins; no test-only package, no test target)
#   -> build examples/sample's tiny transformer and
#   trace it (sample.pt) -> `modelexport export` -> `modelexport inspect`
#   -> check the ONNX file against LibTorch with ONNX Runtime;
#   then the same for a committed torch.export archive (.pt2, torch 2.15).
#
# Output goes to <repo>/build/demo (MX_DEMO_DIR overrides).
# MX_SKIP_SETUP=1 skips the setup step (when it has just been run).
set -Eeuo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mx_trap_errors

if [[ "${MX_SKIP_SETUP:-0}" != 1 ]]; then
  "$MX_REPO/scripts/setup.sh"
fi

OUT="${MX_DEMO_DIR:-$MX_BUILD_DIR/demo}"
mkdir -p "$OUT"
# The CLI installed by setup (not whatever else may be on PATH).
MX="$MX_PREFIX/bin/modelexport"
[[ -x "$MX" ]] || mx_die "$MX not found: did scripts/setup.sh run?"
# Input spec of the sample (see examples/sample/make_sample.py): batch and
# seq are named, hence dynamic axes in the ONNX file.
INPUT="input_ids:int64[batch=2,seq=16]"

mx_step "demo 1/6 plugins"
"$MX" plugins

mx_step "demo 2/6 build and trace the sample model (Debian torch, $MX_SYSTEM_PYTHON)"
"$MX_SYSTEM_PYTHON" "$MX_REPO/examples/sample/make_sample.py" --out "$OUT/sample.pt"

mx_step "demo 3/6 export: modelexport export sample.pt -o sample.onnx --input $INPUT"
rm -f "$OUT/sample.onnx" "$OUT/sample.onnx.hierarchy.json" "$OUT/sample.hierarchy.json"
start=$(date +%s%N)
"$MX" export "$OUT/sample.pt" -o "$OUT/sample.onnx" --input "$INPUT"
end=$(date +%s%N)
[[ -s "$OUT/sample.onnx" ]] || mx_die "modelexport export did not write $OUT/sample.onnx"
mx_ok "$OUT/sample.onnx ($(stat -c %s "$OUT/sample.onnx") bytes) in $(( (end - start) / 1000000 )) ms"
ls -1 "$OUT" | sed 's/^/    /'

mx_step "demo 4/6 inspect: module tree, node counts, evidence mix"
"$MX" inspect "$OUT/sample.onnx"

mx_step "demo 5/6 check: ONNX Runtime vs LibTorch on the same inputs"
"$MX_VENV/bin/python" "$MX_REPO/examples/sample/check_export.py" "$OUT/sample.pt" "$OUT/sample.onnx"

mx_step "demo 6/6 today's PyTorch: a torch.export archive (BERT, sdpa attention, torch 2.15) without LibTorch"
PT2="$MX_REPO/tests/fixtures/pt2/bert_tiny.pt2"
"$MX" export "$PT2" -o "$OUT/bert_tiny.onnx"
"$MX" inspect "$OUT/bert_tiny.onnx"
"$MX_VENV/bin/python" "$MX_REPO/examples/sample/check_pt2_export.py" "$PT2" "$OUT/bert_tiny.onnx"

printf '\n%sdemo done%s in %d s (setup included). Files in %s\n' "$_mx_bold" "$_mx_reset" "$SECONDS" "$OUT"
