#!/usr/bin/env bash
# Sets up a Debian 12 machine for modelexport, builds it and installs it.
# Idempotent: every step is skipped quickly when it is already done.
#
#   scripts/setup.sh               what the main job needs (scripts/demo.sh):
#                                  the SDK, the CLI and the plugins
#   scripts/setup.sh --with-tests  + the test-only packages and the tests,
#                                  fuzz-corpus replays and dev tools
#                                  (scripts/test.sh)
#
#   1. Debian packages   scripts/deps/apt-packages.txt      (apt-get, as root)
#                        [+ apt-packages-test.txt]
#   2. Python venv       <repo>/.venv, --system-site-packages (Debian torch 1.13)
#   3. PyPI packages     scripts/deps/python-requirements.txt [+ python-requirements-test.txt]
#                        -c python-constraints.txt
#   4. ONNX 1.23.2       scripts/deps/build-onnx.sh: its release sources from
#                        PyPI (pinned sha256), static, into <repo>/.deps
#   5. configure         CMake + Ninja -> <repo>/build (RelWithDebInfo),
#                        MODELEXPORT_BUILD_TESTS=OFF|ON
#   6. build             cmake --build -j$(nproc)
#   7. install           cmake --install -> /usr/local (as root), ldconfig
#
# A build dir already configured with the tests keeps them: a demo run after
# a test run does not take the test targets away.
#
# Run as root or as a user with sudo (sudo is only used when not root).
# Environment overrides: MX_BUILD_DIR, MX_VENV, MX_PREFIX, MX_BUILD_TYPE,
# MX_JOBS, MX_CMAKE_ARGS (extra configure arguments, word-split).
set -Eeuo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mx_trap_errors

DEPS="$MX_REPO/scripts/deps"
with_tests=0
for arg in "$@"; do
  case "$arg" in
    --with-tests) with_tests=1 ;;
    -h|--help) sed -n '2,/^set -E/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) mx_die "unknown argument '$arg' (expected: --with-tests)" ;;
  esac
done
cache="$MX_BUILD_DIR/CMakeCache.txt"
if ((!with_tests)) && [[ -f "$cache" ]] && grep -q '^MODELEXPORT_BUILD_TESTS:BOOL=ON$' "$cache"; then
  with_tests=1
fi
apt_lists=("$DEPS/apt-packages.txt")
pip_lists=("$DEPS/python-requirements.txt")
if ((with_tests)); then
  apt_lists+=("$DEPS/apt-packages-test.txt")
  pip_lists+=("$DEPS/python-requirements-test.txt")
fi
[[ -r /etc/debian_version ]] || mx_die "this script targets Debian 12 (no /etc/debian_version)"
# Build tree ~2 GB, venv ~0.3 GB, fixtures and test scratch ~1 GB; the test
# script's sanitizer build adds ~1.5 GB (checked there).
mx_require_space "$MX_BUILD_DIR" 4 "setup (build tree, venv, fixtures)"

# ---------------------------------------------------------------------------
mx_step "1/7 Debian packages (${apt_lists[*]#"$DEPS/"})"
mapfile -t apt_packages < <(for list in "${apt_lists[@]}"; do mx_read_list "$list"; done)
missing=()
for pkg in "${apt_packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
if ((${#missing[@]} == 0)); then
  mx_ok "all ${#apt_packages[@]} packages already installed"
else
  mx_info "installing: ${missing[*]}"
  mx_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  mx_as_root env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
  mx_ok "installed ${#missing[@]} packages"
fi

# ---------------------------------------------------------------------------
mx_step "2/7 Python venv ($MX_VENV)"
venv_ok=0
if [[ -x "$MX_VENV/bin/python" && -r "$MX_VENV/pyvenv.cfg" ]] &&
   grep -Eq '^include-system-site-packages *= *true' "$MX_VENV/pyvenv.cfg" &&
   [[ "$("$MX_VENV/bin/python" -c 'import sys; print(sys.base_prefix)' 2>/dev/null)" == \
      "$("$MX_SYSTEM_PYTHON" -c 'import sys; print(sys.base_prefix)')" ]] &&
   "$MX_VENV/bin/python" -c 'import torch' >/dev/null 2>&1; then
  venv_ok=1
fi
if ((venv_ok)); then
  mx_ok "venv exists, sees Debian torch $("$MX_VENV/bin/python" -c 'import torch; print(torch.__version__)')"
else
  if [[ -e "$MX_VENV" ]]; then
    mx_info "existing $MX_VENV is not a --system-site-packages venv of $MX_SYSTEM_PYTHON: recreating"
    rm -rf "$MX_VENV"
  fi
  "$MX_SYSTEM_PYTHON" -m venv --system-site-packages "$MX_VENV"
  "$MX_VENV/bin/python" -c 'import torch' ||
    mx_die "the venv does not see Debian's torch (python3-torch missing?)"
  mx_ok "created"
fi

# ---------------------------------------------------------------------------
mx_step "3/7 PyPI packages (${pip_lists[*]#"$DEPS/"}, constraints python-constraints.txt)"
# Satisfied when every requirement is installed and every installed one
# matches its constraint; pip's own vendored `packaging` does the matching.
check_requirements() {
  "$MX_VENV/bin/python" - "$DEPS/python-constraints.txt" "${pip_lists[@]}" <<'EOF'
import sys
from importlib import metadata
from pip._vendor.packaging.requirements import Requirement

def read(path):
    out = []
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(Requirement(line))
    return out

cons = read(sys.argv[1])
reqs = [r for path in sys.argv[2:] for r in read(path)]
pins = {c.name.lower().replace("_", "-"): c for c in cons}
bad = []
for r in reqs:
    key = r.name.lower().replace("_", "-")
    try:
        have = metadata.version(r.name)
    except metadata.PackageNotFoundError:
        bad.append(f"{r.name} (missing)")
        continue
    for spec in (r, pins.get(key)):
        if spec is not None and spec.specifier and not spec.specifier.contains(have, prereleases=True):
            bad.append(f"{r.name} {have} (want {spec.specifier})")
# Constraints also hold for packages that are not requirements (numpy).
for key, c in pins.items():
    try:
        have = metadata.version(c.name)
    except metadata.PackageNotFoundError:
        continue
    if c.specifier and not c.specifier.contains(have, prereleases=True):
        bad.append(f"{c.name} {have} (want {c.specifier})")
if bad:
    print("    not satisfied: " + ", ".join(sorted(set(bad))))
    sys.exit(1)
EOF
}
if check_requirements; then
  mx_ok "all requirements satisfied"
else
  "$MX_VENV/bin/python" -m pip install --disable-pip-version-check -q \
    "${pip_lists[@]/#/-r}" -c "$DEPS/python-constraints.txt"
  check_requirements || mx_die "pip finished but the requirements are still not satisfied"
  mx_ok "installed"
fi
numpy_version="$("$MX_VENV/bin/python" -c 'import numpy; print(numpy.__version__)')"
[[ "$numpy_version" == 1.* ]] ||
  mx_die "the venv has NumPy $numpy_version; Debian's torch 1.13 needs the system NumPy 1.x"

# ---------------------------------------------------------------------------
mx_step "4/7 ONNX library (scripts/deps/build-onnx.sh)"
MX_VENV="$MX_VENV" MX_JOBS="$MX_JOBS" "$MX_REPO/scripts/deps/build-onnx.sh"

# ---------------------------------------------------------------------------
tests_flag=$( ((with_tests)) && echo ON || echo OFF)
mx_step "5/7 configure ($MX_BUILD_DIR, $MX_BUILD_TYPE, prefix $MX_PREFIX, tests $tests_flag)"
if [[ -f "$cache" ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; then
  mx_info "existing build dir was not configured with Ninja: starting afresh"
  rm -rf "$MX_BUILD_DIR"
fi
mkdir -p "$MX_BUILD_DIR"
configure_log="$MX_BUILD_DIR/configure.log"
# shellcheck disable=SC2086
cmake -S "$MX_REPO" -B "$MX_BUILD_DIR" -G Ninja \
  -DCMAKE_BUILD_TYPE="$MX_BUILD_TYPE" \
  -DCMAKE_INSTALL_PREFIX="$MX_PREFIX" \
  -DPython3_EXECUTABLE="$MX_VENV/bin/python" \
  -DMODELEXPORT_BUILD_TESTS="$tests_flag" \
  --no-warn-unused-cli ${MX_CMAKE_ARGS:-} >"$configure_log" 2>&1 || {
    cat "$configure_log" >&2
    mx_die "CMake configure failed (log: $configure_log)"
  }
mx_ok "configured (log: $configure_log)"

# ---------------------------------------------------------------------------
mx_step "6/7 build (-j$MX_JOBS)"
cmake --build "$MX_BUILD_DIR" -j "$MX_JOBS" || mx_die "build failed"
mx_ok "built"

# ---------------------------------------------------------------------------
mx_step "7/7 install to $MX_PREFIX"
mx_as_root cmake --install "$MX_BUILD_DIR" >"$MX_BUILD_DIR/install.log" ||
  { cat "$MX_BUILD_DIR/install.log" >&2; mx_die "install failed"; }
mx_as_root ldconfig
libdir="$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$cache")"
[[ "$libdir" == /* ]] || libdir="$MX_PREFIX/$libdir"
plugin_dir="$libdir/modelexport/plugins"
for f in "$MX_PREFIX/bin/modelexport" \
         "$MX_PREFIX/include/modelexport/modelexport.h" \
         "$libdir/cmake/modelexport/modelexportConfig.cmake" \
         "$libdir/pkgconfig/modelexport.pc"; do
  [[ -e "$f" ]] || mx_die "install is missing $f"
done
ls "$libdir"/libmodelexport.so* >/dev/null 2>&1 || mx_die "install is missing $libdir/libmodelexport.so"
case ":$PATH:" in
  *":$MX_PREFIX/bin:"*) ;;
  *) mx_info "note: $MX_PREFIX/bin is not on PATH in this shell" ;;
esac
plugins=()
if [[ -d "$plugin_dir" ]]; then
  mapfile -t plugins < <(find "$plugin_dir" -maxdepth 1 -name '*.so' -printf '%f\n' | sort)
fi
mx_ok "library, CLI, headers, CMake package and pkg-config file in $MX_PREFIX"
mx_info "plugin directory: $plugin_dir (${#plugins[@]} plugin(s): ${plugins[*]:-none})"
printf '\n%ssetup done%s in %d s. modelexport %s installed.\n' "$_mx_bold" "$_mx_reset" "$SECONDS" \
  "$(sed -n 's/^Version: //p' "$libdir/pkgconfig/modelexport.pc")"
