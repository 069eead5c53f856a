#!/bin/sh
# End-to-end checks of functions / extract / validate / inspect drawings with
# ONNX Runtime as the oracle (tests/functions/check_ort.py).
#   e2e.sh stacknet MODELEXPORT MX_MAKE_STACKNET PYTHON
#   e2e.sh real     MODELEXPORT PLUGIN_DIR PYTHON [MODELS]   (default bert,gpt2,vit,resnet50)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mode=$1 mx=$2 aux=$3 py=$4
work=$(mktemp -d /tmp/mx-fn-e2e-XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"

check_drawings() {  # FILE
  "$mx" inspect "$1" --format dot -o g.dot >/dev/null
  if command -v dot >/dev/null; then dot -Tsvg g.dot -o g.svg; echo "dot renders $(wc -c < g.svg) bytes of SVG"; else echo "graphviz dot not installed: DOT not rendered"; fi
  "$mx" inspect "$1" --format graphml -o g.graphml >/dev/null
  "$py" -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1]); print('GraphML well-formed')" g.graphml
}

if [ "$mode" = stacknet ]; then
  "$aux" stack.onnx
  "$mx" validate stack.onnx
  "$mx" functions stack.onnx -o stack.fn.onnx
  "$mx" validate stack.fn.onnx
  "$py" "$here/check_ort.py" functions stack.onnx stack.fn.onnx random
  "$mx" functions stack.onnx -o stack.fn2.onnx --classes Block,Linear
  "$py" "$here/check_ort.py" functions stack.onnx stack.fn2.onnx random
  "$mx" inspect stack.fn2.onnx | grep -q "blocks.1.fc  Linear" 
  "$mx" extract stack.onnx --module blocks.1 -o b1.onnx
  "$py" "$here/check_ort.py" extract stack.onnx b1.onnx random
  if "$mx" extract stack.onnx --module block.1 -o x.onnx 2> err.txt; then echo "unknown module accepted"; exit 1; fi
  grep -q "closest: 'blocks.1'" err.txt
  check_drawings stack.fn2.onnx
  exit 0
fi

models=${5:-bert,gpt2,vit,resnet50}
export MODELEXPORT_PLUGIN_PATH="$aux"
"$py" "$here/make_models.py" "$work" --only "$models" 2>&1 | grep -v -i warn || true
for name in $(echo "$models" | tr ',' ' '); do
  echo "== $name"
  "$mx" tag "$name.onnx" --strategy scope --hierarchy "$name.tree.json" -o "$name.tagged.onnx" | tail -1
  "$mx" validate "$name.tagged.onnx" | tail -1
  "$mx" functions "$name.tagged.onnx" -o "$name.fn.onnx" | head -1
  "$mx" validate "$name.fn.onnx" | tail -1
  "$py" "$here/check_ort.py" functions "$name.tagged.onnx" "$name.fn.onnx" "$name.inputs.npz"
  echo "size: flat $(wc -c < "$name.tagged.onnx") bytes, functions $(wc -c < "$name.fn.onnx") bytes"
  case $name in
    bert*|vit) module=encoder.layer.0 ;;
    gpt2) module=h.0 ;;
    resnet50) module=layer2.1 ;;
  esac
  "$mx" extract "$name.tagged.onnx" --module "$module" -o "$name.part.onnx" | head -1
  "$py" "$here/check_ort.py" extract "$name.tagged.onnx" "$name.part.onnx" "$name.inputs.npz"
done
check_drawings "bert.tagged.onnx" 2>/dev/null || true
