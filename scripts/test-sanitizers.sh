#!/usr/bin/env bash
# Second build of the core and its C/C++ tests under AddressSanitizer +
# UndefinedBehaviorSanitizer (-fno-sanitize-recover=all: any UB fails the
# test), with LeakSanitizer on (detect_leaks=1), then the test groups that
# exercise the core directly:
#   hierarchy, model, util, extract, tagging, c_api (C99 + C++ wrapper),
#   plugin_host (bad plugins: a failing call, malformed JSON, out-of-range
#   answers, create() failing), hostile (catalogue + fuzz corpus replay),
#   concurrency.
# Python-driven tests are excluded: an ASan library cannot be loaded into an
# uninstrumented interpreter without LD_PRELOAD games.
#
#   scripts/test-sanitizers.sh            # build-asan next to the sources
#   MX_ASAN_BUILD=/tmp/b scripts/test-sanitizers.sh
#   scripts/test-sanitizers.sh --tsan     # ThreadSanitizer build (build-tsan)
#                                         # of the core + strategies, running
#                                         # tests/concurrency only
#
# The exporter (LibTorch) is not built here: LibTorch is not instrumented,
# and its own allocations would drown the report (see tests/concurrency/
# README.md for the same reason with ThreadSanitizer).
set -Eeuo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MX_ASAN_BUILD:-$repo/build-asan}"
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

if [[ "${1:-}" == --tsan ]]; then
  build="${MX_TSAN_BUILD:-$repo/build-tsan}"
  tsan="-fsanitize=thread -fno-omit-frame-pointer"
  start=$(date +%s)
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DMODELEXPORT_BUILD_TORCHSCRIPT=OFF \
    -DCMAKE_C_FLAGS="$tsan" -DCMAKE_CXX_FLAGS="$tsan" \
    -DCMAKE_EXE_LINKER_FLAGS="$tsan" -DCMAKE_SHARED_LINKER_FLAGS="$tsan" \
    -DCMAKE_MODULE_LINKER_FLAGS="$tsan" >/dev/null
  cmake --build "$build" -j"${MX_JOBS:-2}" --target modelexport modelexport_strategy_scope \
    modelexport_strategy_metadata modelexport_strategy_usage test_concurrency
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:${TSAN_OPTIONS:-}"
  # The torchscript case is not run under TSan (tests/concurrency/README.md).
  ctest --test-dir "$build" --output-on-failure --no-tests=error -R '^concurrency$' \
    -E torchscript
  echo "tsan: total $(($(date +%s) - start)) s"
  exit 0
fi

start=$(date +%s)
cmake -S "$repo" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Debug \
  -DMODELEXPORT_BUILD_TORCHSCRIPT=OFF \
  -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" -DCMAKE_SHARED_LINKER_FLAGS="$san" \
  -DCMAKE_MODULE_LINKER_FLAGS="$san" >/dev/null
# Only what the selected tests need (the CLI and the binding/example
# helpers are not run here).
targets=(modelexport modelexport_strategy_scope modelexport_strategy_metadata
         modelexport_strategy_usage test_hierarchy test_model test_util test_extract mx_make_fixture test_tagging
         mx_c_api_test mx_cpp_wrapper_test test_plugin_host test_hostile test_concurrency
         replay_onnx_model replay_hierarchy_json replay_strategy_response replay_input_spec
         replay_dynamo_metadata replay_supplied_hierarchy replay_usage_request
         replay_save_destination replay_pt2_archive replay_pt2_program aten_onnx_tests)
cmake --build "$build" -j"${MX_JOBS:-2}" --target "${targets[@]}"
built=$(date +%s)

# Plugins are dlopen()ed by the instrumented host and built with the same
# flags. No LeakSanitizer suppressions: every leak fails its test.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:fast_unwind_on_malloc=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export MODELEXPORT_PLUGIN_PATH="$build/plugins-out"

ctest --test-dir "$build" --output-on-failure -j"${MX_JOBS:-2}" --no-tests=error \
  -R '^(hierarchy|model|util|extract|aten_onnx|tagging|c_api_fixture|c_api_c99|c_api_cpp_wrapper|plugin_host|hostile|fuzz_replay_.*|concurrency.*)$'
end=$(date +%s)
echo "sanitizers: build $((built - start)) s, tests $((end - built)) s, total $((end - start)) s"
