# Shared helpers for scripts/*.sh — sourced, never executed.
# shellcheck shell=bash

# Repository root: the parent of the directory holding this file.
MX_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Overridable locations (defaults are what README documents).
MX_BUILD_DIR="${MX_BUILD_DIR:-$MX_REPO/build}"
MX_VENV="${MX_VENV:-$MX_REPO/.venv}"
MX_PREFIX="${MX_PREFIX:-/usr/local}"
MX_BUILD_TYPE="${MX_BUILD_TYPE:-RelWithDebInfo}"
MX_JOBS="${MX_JOBS:-$(nproc)}"
# Debian's interpreter: the only one that sees Debian's torch 1.13.
MX_SYSTEM_PYTHON="${MX_SYSTEM_PYTHON:-/usr/bin/python3}"

if [[ -t 1 ]]; then
  _mx_bold=$'\e[1m'; _mx_red=$'\e[31m'; _mx_green=$'\e[32m'; _mx_reset=$'\e[0m'
else
  _mx_bold=''; _mx_red=''; _mx_green=''; _mx_reset=''
fi

mx_step() { printf '\n%s==> %s%s\n' "$_mx_bold" "$*" "$_mx_reset"; }
mx_info() { printf '    %s\n' "$*"; }
mx_ok()   { printf '    %sok%s %s\n' "$_mx_green" "$_mx_reset" "$*"; }
mx_die()  { printf '\n%serror:%s %s\n' "$_mx_red" "$_mx_reset" "$*" >&2; exit 1; }

# Runs a command as root: directly when we are root, through sudo otherwise.
mx_as_root() {
  if [[ "$(id -u)" -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    mx_die "'$*' needs root and sudo is not installed: run this script as root"
  fi
}

# Non-comment, non-blank lines of a list file.
mx_read_list() { sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1"; }

# Reports the error location when a command fails under `set -e`.
mx_trap_errors() {
  trap 'rc=$?; printf "\n%serror:%s %s failed (exit %s) at line %s: %s\n" "$_mx_red" "$_mx_reset" "$(basename "$0")" "$rc" "$LINENO" "$BASH_COMMAND" >&2' ERR
}

# Fails early, with the numbers, when a directory's file system has less
# than NEED_GB free: a build that runs out of space midway fails with a
# compiler's "No space left on device" on whatever file it was writing.
# `mx_require_space DIR NEED_GB WHAT`.
mx_require_space() {
  local dir="$1" need="$2" what="$3" avail
  while [[ ! -d "$dir" ]]; do dir="$(dirname "$dir")"; done
  avail="$(df -Pk "$dir" | awk 'NR == 2 { print int($4 / 1048576) }')"
  if ((avail < need)); then
    mx_die "$what needs about ${need} GB free on the file system of $dir; ${avail} GB are free (df -h $dir). Free some space and re-run."
  fi
}
