#!/usr/bin/env bash
# Setup + the whole test suite:
#   1. ctest       every test group under tests/ (doctest, C ABI, plugin host,
#                  end-to-end pytest in tests/export), against the build tree
#      sanitizers  scripts/test-sanitizers.sh: the core's C/C++ groups again
#                  in an ASan+UBSan+LSan build (build-asan/)
#   2. bindings    each bindings/<lang>/test.sh (adding a binding = adding
#                  that file), against the build tree's library and plugins
#   3. examples    each examples/<name>/test.sh, against the build tree
#   4. consumer    examples/consumer_cmake built against the INSTALLED SDK,
#                  once with find_package(modelexport), once with pkg-config
# Every stage runs even when an earlier one failed; the exit status is
# non-zero if any failed, and a summary closes the output.
#
# MX_SKIP_SETUP=1 skips `scripts/setup.sh --with-tests` (when it has just been run);
# MX_SKIP_SANITIZERS=1 skips the sanitizer build (quick local runs only).
set -Eeuo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [[ "${MX_SKIP_SETUP:-0}" != 1 ]]; then
  # The test-only packages (scripts/deps/*-test.txt) and the test targets
  # come on top of what the demo needs.
  "$MX_REPO/scripts/setup.sh" --with-tests
fi
grep -q '^MODELEXPORT_BUILD_TESTS:BOOL=ON$' "$MX_BUILD_DIR/CMakeCache.txt" 2>/dev/null ||
  mx_die "$MX_BUILD_DIR has no test targets: run scripts/setup.sh --with-tests (MX_SKIP_SETUP=1 skipped it)"

# The sanitizer build (~2 GB) and the tests' scratch files (exports,
# pytest's temporary directories: ~1 GB).
mx_require_space "$MX_REPO" 3 "the test suite (sanitizer build)"
mx_require_space "${TMPDIR:-/tmp}" 2 "the test suite (temporary exports)"

# Tests see the venv first (pytest, onnxruntime, onnx; Debian torch through
# --system-site-packages), the build tree's library and plugins.
export PATH="$MX_VENV/bin:$PATH"
export MODELEXPORT_BUILD_DIR="$MX_BUILD_DIR"
export MODELEXPORT_PYTHON="$MX_VENV/bin/python"

names=()
results=()
record() { names+=("$1"); results+=("$2"); }

# Runs one stage: `stage NAME command...`; records pass/fail, never exits.
stage() {
  local name="$1"; shift
  mx_step "test: $name"
  local rc=0
  "$@" || rc=$?
  if ((rc == 0)); then record "$name" PASS; else record "$name" "FAIL (exit $rc)"; fi
  return 0
}

# ---------------------------------------------------------------------------
stage "ctest (all test groups)" \
  ctest --test-dir "$MX_BUILD_DIR" --output-on-failure -j2 --no-tests=error

# ---------------------------------------------------------------------------
# A second build of the core under AddressSanitizer + UndefinedBehaviorSanitizer
# + LeakSanitizer running the core's C/C++ test groups (issue 8).
# MX_SKIP_SANITIZERS=1 skips it for quick local runs; CI never sets it.
if [[ "${MX_SKIP_SANITIZERS:-0}" != 1 ]]; then
  stage "sanitizers (ASan+UBSan+LSan build)" "$MX_REPO/scripts/test-sanitizers.sh"
fi

# ---------------------------------------------------------------------------
binding_tests=()
for t in "$MX_REPO"/bindings/*/test.sh; do
  [[ -e "$t" ]] && binding_tests+=("$t")
done
for d in "$MX_REPO"/bindings/*/; do
  [[ -e "$d/test.sh" ]] || printf '    note: %s has no test.sh: its tests are not run\n' "${d%/}"
done
if ((${#binding_tests[@]} == 0)); then
  record "bindings" "FAIL (no bindings/*/test.sh found)"
fi
lib="$(find "$MX_BUILD_DIR" -name 'libmodelexport.so' -not -path '*/CMakeFiles/*' -print -quit)"
for t in "${binding_tests[@]}"; do
  binding="$(basename "$(dirname "$t")")"
  stage "binding: $binding" env \
    MODELEXPORT_LIBRARY="$lib" \
    MODELEXPORT_PLUGIN_PATH="$MX_BUILD_DIR/plugins-out" \
    bash "$t"
done

# ---------------------------------------------------------------------------
for t in "$MX_REPO"/examples/*/test.sh; do
  [[ -e "$t" ]] || continue
  stage "example: $(basename "$(dirname "$t")")" bash "$t"
done

# ---------------------------------------------------------------------------
consumer_cmake() {
  local dir="$MX_BUILD_DIR/consumer-cmake"
  rm -rf "$dir"
  # Only the installed SDK: no package registry, the prefix as a hint.
  cmake -S "$MX_REPO/examples/consumer_cmake" -B "$dir" -G Ninja \
    -DCMAKE_PREFIX_PATH="$MX_PREFIX" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF &&
    cmake --build "$dir" &&
    "$dir/consumer"
}
consumer_pkgconfig() {
  local dir="$MX_BUILD_DIR/consumer-pkgconfig" flags
  mkdir -p "$dir"
  flags="$(PKG_CONFIG_PATH="$MX_PREFIX/lib/pkgconfig:${PKG_CONFIG_PATH:-}" pkg-config --cflags --libs modelexport)" || return 1
  echo "pkg-config --cflags --libs modelexport: $flags"
  # shellcheck disable=SC2086
  cc -std=c99 -Wall -Wextra -Werror "$MX_REPO/examples/consumer_cmake/main.c" $flags -o "$dir/consumer" &&
    "$dir/consumer"
}
stage "consumer: find_package(modelexport)" consumer_cmake
stage "consumer: pkg-config modelexport" consumer_pkgconfig

# ---------------------------------------------------------------------------
mx_step "summary"
passed=0; failed=0
for i in "${!names[@]}"; do
  printf '  %-40s %s\n' "${names[$i]}" "${results[$i]}"
  if [[ "${results[$i]}" == PASS ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo
echo "stages: $passed passed, $failed failed"
((failed == 0))
