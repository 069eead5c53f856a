#!/usr/bin/env bash
# The CLI's `tag` against the library path (docs/performance.md: within
# 2x) for one build or two alternating, with benchmarks/tagging_scale.cpp
# --cli: each invocation measures the library's load + tag + save (run 1,
# cold) and RUNS fresh `modelexport tag` processes on the same graph, in one
# process, so that both see the same machine. Prints a Markdown row per
# invocation (load average, library wall / CPU, CLI median wall / CPU, the
# ratios) and each build's medians over its invocations.
#
#   benchmarks/tagging_scale_cli_ab.sh BENCH ROUNDS RUNS A_DIR [B_DIR] [NODES]
#
# BENCH: the compiled benchmark (see tagging_scale.cpp's header). A_DIR and
# B_DIR each hold a build's sdk/ (libmodelexport.so*, libmodelexport_onnx.so*
# and the modelexport CLI) and plugins-out/, e.g.
#   mkdir -p /tmp/a/sdk && cp -a build/sdk/libmodelexport.so* build/sdk/modelexport \
#     build/common/onnx/libmodelexport_onnx.so* /tmp/a/sdk/ && cp -a build/plugins-out /tmp/a/
# (LD_LIBRARY_PATH selects the libraries of both the benchmark and the CLI:
# their rpaths are RUNPATHs.)
set -euo pipefail
if [[ $# -lt 4 ]]; then
  sed -n '2,18p' "$0"
  exit 2
fi
bench=$1 rounds=$2 runs=$3 a=$4 b=${5:-} nodes=${6:-200000}
sides=(A)
[[ -n $b ]] && sides=(A B)
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
for ((i = 0; i < rounds; i++)); do
  for side in "${sides[@]}"; do
    dir=$a
    [[ $side == B ]] && dir=$b
    LD_LIBRARY_PATH="$dir/sdk" "$bench" "$dir/plugins-out" "$nodes" --runs "$runs" --cli "$dir/sdk/modelexport" |
      grep -E '^(tag     load|cpu     tag|cli )' | tr '\n' ' ' | sed "s/^/$side /" >>"$lines"
    echo >>"$lines"
  done
done
python3 - "$lines" <<'EOF'
import re, statistics, sys
pattern = re.compile(r'save [\d.]+ s = ([\d.]+) s.*process CPU time: ([\d.]+) s.*'
                     r'load average \(1 min\) ([\d.]+) before the runs, ([\d.]+) after.*'
                     r'wall first [\d.]+ s, median ([\d.]+) s.*cpu median ([\d.]+) s.*'
                     r'wall median / run 1 ([\d.]+)x.*cpu median / run 1 ([\d.]+)x')
rows = {'A': [], 'B': []}
print('| build | load avg (before / after) | library run 1 (wall / CPU) | CLI median (wall / CPU) '
      '| CLI ÷ library (wall / CPU) |')
print('|---|---|---|---|---|')
for line in open(sys.argv[1]):
    m = pattern.search(line)
    if not m:
        continue
    lib, lib_cpu, load0, load1, cli, cli_cpu, ratio, ratio_cpu = map(float, m.groups())
    rows[line[0]].append((ratio, ratio_cpu, lib, lib_cpu, cli, cli_cpu))
    print(f'| {line[0]} | {load0:.2f} / {load1:.2f} | {lib:.2f} s / {lib_cpu:.2f} s | '
          f'{cli:.2f} s / {cli_cpu:.2f} s | {ratio:.2f}x / {ratio_cpu:.2f}x |')
for side, rs in rows.items():
    if not rs:
        continue
    med = lambda k: statistics.median(r[k] for r in rs)
    print(f'{side}: medians of {len(rs)} invocations: library {med(2):.3f} s / {med(3):.3f} s CPU, '
          f'CLI {med(4):.3f} s / {med(5):.3f} s CPU; CLI / library {med(0):.2f}x wall '
          f'(range {min(r[0] for r in rs):.2f}-{max(r[0] for r in rs):.2f}x), {med(1):.2f}x CPU')
EOF
