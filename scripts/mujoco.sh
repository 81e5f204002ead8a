#!/usr/bin/env bash
# MuJoCo's C library and headers, as the pinned `mujoco` wheel on the Python
# package index ships them, unpacked outside the source tree into
#   ${RLHOST_MUJOCO_DIR:-${XDG_CACHE_HOME:-~/.cache}/rlhost/mujoco-VERSION}/{lib,include}
# where meson looks for them (-Dmujoco=auto).  Fetches only when missing;
# prints the directory.  Debian's libmujoco-dev (2.2.2) is older than
# Gymnasium's v5 tasks need, so it is not used.
# Usage: scripts/mujoco.sh [--where]   (--where: print the directory only)
set -euo pipefail
VERSION=3.17.0
dir=${RLHOST_MUJOCO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rlhost/mujoco-$VERSION}
[ "${1:-}" = --where ] && { echo "$dir"; exit 0; }
if [ ! -f "$dir/lib/libmujoco.so.$VERSION" ] || [ ! -f "$dir/include/mujoco/mujoco.h" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "rlhost: fetching MuJoCo $VERSION (the mujoco wheel) into $dir" >&2
  python3 -m venv "$tmp/venv"
  "$tmp/venv/bin/pip" download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    "mujoco==$VERSION" -d "$tmp/wheel"
  "$tmp/venv/bin/python" -m zipfile -e "$tmp"/wheel/mujoco-*.whl "$tmp/x"
  mkdir -p "$dir.new/lib" "$dir.new/include"
  cp "$tmp/x/mujoco/libmujoco.so.$VERSION" "$dir.new/lib/"
  ln -sf "libmujoco.so.$VERSION" "$dir.new/lib/libmujoco.so"
  cp -r "$tmp/x/mujoco/include/mujoco" "$dir.new/include/"
  rm -rf "$dir" && mv "$dir.new" "$dir"
fi
echo "$dir"
