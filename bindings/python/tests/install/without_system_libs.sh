#!/usr/bin/env bash
# Runs COMMAND with the system's ONNX, protobuf and Boost libraries (and an
# installed modelexport SDK) out of reach, as on a machine without them:
#
#   without_system_libs.sh COMMAND [ARG...]
#
# In a private mount namespace (unshare -m, so nothing outside sees it) an
# empty file (/dev/null) is bind-mounted over every such shared object in
# the linker's directories: ld.so and dlopen still find the names, through
# the ld.so cache too, and fail on them ("file too short"). Only the
# wheel's own copies can then load. Needs root (CAP_SYS_ADMIN for unshare).
set -euo pipefail
if [[ "${MX_SYSTEM_LIBS_HIDDEN:-}" != 1 ]]; then
  ((EUID == 0)) || { echo "error: $0 needs root (unshare -m, mount --bind)" >&2; exit 1; }
  MX_SYSTEM_LIBS_HIDDEN=1 exec unshare --mount --propagation private -- "$0" "$@"
fi

dirs=(/usr/lib/x86_64-linux-gnu /usr/local/lib)
mapfile -t hidden < <(find "${dirs[@]}" -maxdepth 3 -type f -regextype posix-extended \
  -regex '.*/lib(onnx|protobuf|protoc|boost_|modelexport)[^/]*\.so(\.[0-9.]+)?' | sort)
# Each family must have been there to hide, else this hides nothing and the
# run proves nothing.
for family in libonnx libprotobuf libboost_filesystem; do
  printf '%s\n' "${hidden[@]}" | grep -q "/$family[^/]*\.so" ||
    { echo "error: no system $family found to hide under ${dirs[*]}" >&2; exit 1; }
done
for lib in "${hidden[@]}"; do
  mount --bind /dev/null "$lib"
done
echo "hidden: ${#hidden[@]} system libraries ($(printf '%s\n' "${hidden[@]##*/}" |
  sed -E 's/\.so.*//' | sort -u | paste -sd' ')): empty files in this mount namespace"
exec "$@"
