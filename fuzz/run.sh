#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan+UBSan) and runs each for
# SECONDS (default 60), at most JOBS (default 2) at a time.
#
#   fuzz/run.sh [SECONDS] [TARGET...]      e.g. fuzz/run.sh 600 onnx_model
#
# Environment: MX_FUZZ_BUILD (default <repo>/build-fuzz), JOBS.
# Each target starts from fuzz/corpus/<target>/ (the committed seeds and
# regression inputs) and writes what it finds to <build>/corpus/<target>/,
# so the repository corpus only changes when you copy inputs back (see
# fuzz/README.md: `-merge=1` keeps the small interesting set). Crashes land
# in <build>/findings/<target>/; the script exits non-zero if any target
# found something. Logs: <build>/logs/<target>.log.
set -Eeuo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
build="${MX_FUZZ_BUILD:-$repo/build-fuzz}"
seconds="${1:-60}"
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(onnx_model hierarchy_json strategy_response input_spec dynamo_metadata supplied_hierarchy
           usage_request)
fi
jobs="${JOBS:-2}"

cc="${CC:-clang-14}" cxx="${CXX:-clang++-14}"
command -v "$cxx" >/dev/null || { echo "fuzz: $cxx not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }
if [[ ! -f "$build/build.ninja" ]]; then
  CC="$cc" CXX="$cxx" cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" --target $(printf 'fuzz_%s ' "${targets[@]}")

mkdir -p "$build/logs"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

run_one() {
  local t="$1"
  mkdir -p "$build/corpus/$t" "$build/findings/$t"
  # -rss_limit_mb: a parser that balloons on a small input is a finding too.
  local dict=()
  [[ -f "$here/dict/$t.dict" ]] && dict=(-dict="$here/dict/$t.dict")
  "$build/fuzz_$t" "$build/corpus/$t" "$here/corpus/$t" "${dict[@]}" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 -max_len=65536 \
    -artifact_prefix="$build/findings/$t/" -print_final_stats=1 \
    >"$build/logs/$t.log" 2>&1
}

status=0
pids=()
names=()
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs)); do sleep 1; done
  echo "fuzz: $t for ${seconds}s (log $build/logs/$t.log)"
  run_one "$t" &
  pids+=($!)
  names+=("$t")
done
for i in "${!pids[@]}"; do
  t="${names[$i]}"
  if wait "${pids[$i]}"; then
    execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/logs/$t.log" | grep -o '[0-9]*$' || true)"
    echo "fuzz: $t: no finding (${execs:-?} execs)"
  else
    echo "fuzz: $t: FINDING — see $build/logs/$t.log and $build/findings/$t/" >&2
    status=1
  fi
done
exit $status
