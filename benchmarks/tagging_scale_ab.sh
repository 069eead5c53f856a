#!/usr/bin/env bash
# Two builds of the library compared with benchmarks/tagging_scale.cpp the
# way issue 14's rounds were measured: fresh processes, run 1 only (cold),
# A and B alternating so that the machine's drift (its floor moves
# 0.12-0.20 s between processes) hits both alike. Prints each build's
# medians, the spread of its ratios, how many runs were at or below 5x the
# floor, and in how many pairs B's total was the lower.
#
#   benchmarks/tagging_scale_ab.sh BENCH PAIRS A_DIR B_DIR [NODES]
#
# BENCH: the compiled benchmark (see tagging_scale.cpp's header). A_DIR and
# B_DIR each hold a build's sdk/ (libmodelexport.so*) and plugins-out/, e.g.
#   mkdir -p /tmp/a/sdk && cp -a build/sdk/libmodelexport.so* /tmp/a/sdk/ &&
#   cp -a build/plugins-out /tmp/a/
# (LD_LIBRARY_PATH selects the library: the benchmark's rpath is a RUNPATH.)
set -euo pipefail
if [[ $# -lt 4 ]]; then
  sed -n '2,16p' "$0"
  exit 2
fi
bench=$1 pairs=$2 a=$3 b=$4 nodes=${5:-200000}
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
for ((i = 0; i < pairs; i++)); do
  for side in A B; do
    dir=$a
    [[ $side == B ]] && dir=$b
    LD_LIBRARY_PATH="$dir/sdk" "$bench" "$dir/plugins-out" "$nodes" --runs 1 | grep '^run 1' | sed "s/^/$side /" >>"$lines"
  done
done
python3 - "$lines" <<'EOF'
import re, statistics, sys
pattern = re.compile(r'floor ([\d.]+) s.*load ([\d.]+) \+ tag ([\d.]+) \+ save ([\d.]+) = ([\d.]+) s = ([\d.]+)x'
                     r'.*cpu ([\d.]+) / ([\d.]+) s = ([\d.]+)x')
runs = {'A': [], 'B': []}
for line in open(sys.argv[1]):
    runs[line[0]].append([float(x) for x in pattern.search(line).groups()])
floors = statistics.median(r[0] for side in runs for r in runs[side])
for side in 'AB':
    rs = runs[side]
    med = lambda k: statistics.median(r[k] for r in rs)
    ratios = sorted(r[5] for r in rs)
    q = lambda f: ratios[int(f * (len(ratios) - 1))]
    print(f'{side}: floor {med(0):.3f} s; load {med(1):.3f} + tag {med(2):.3f} + save {med(3):.3f} '
          f'= {med(4):.3f} s; ratio median {med(5):.2f}x (quartiles {q(0.25):.1f}-{q(0.75):.1f}x, '
          f'range {ratios[0]:.1f}-{ratios[-1]:.1f}x, {sum(x <= 5.0 for x in ratios)} of {len(rs)} <= 5x); '
          f'total / median floor of both {med(4) / floors:.2f}x; cpu ratio median {med(8):.2f}x')
lower = sum(b[4] < a[4] for a, b in zip(runs['A'], runs['B']))
print(f'B total lower in {lower} of {len(runs["B"])} pairs')
EOF
