#!/usr/bin/env bash
# MuJoCo's C library and headers, as the pinned `mujoco` wheel on the Python
# package index ships them, and the v5 tasks' models, as the pinned
# `gymnasium` wheel ships them, unpacked outside the source tree into
#   ${RLHOST_MUJOCO_DIR:-${XDG_CACHE_HOME:-~/.cache}/rlhost/mujoco-VERSION}/{lib,include,models}
# where meson looks for them (-Dmujoco=auto).  Fetches only what is
# missing; prints the directory.  The models come from this fetch, never
# from whichever Python configured the build, so the env is whole on a
# fresh machine whatever ran first.  Debian's libmujoco-dev (2.2.2) is
# older than Gymnasium's v5 tasks need, so it is not used.
# Every fetch rewrites DIR/fetched, a file meson reads at configure time:
# a build/ configured before a fetch reconfigures itself at the next ninja.
# Usage: scripts/mujoco.sh [--where]   (--where: print the directory only)
set -euo pipefail
VERSION=3.17.0
GYMNASIUM=1.4.0 # the version tests/data's recordings were made with
MODELS=(half_cheetah.xml hopper.xml walker2d_v5.xml ant.xml)
dir=${RLHOST_MUJOCO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rlhost/mujoco-$VERSION}
if [ "${1:-}" = --where ]; then
  mkdir -p "$dir" && { [ -f "$dir/fetched" ] || : >"$dir/fetched"; }
  echo "$dir"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# wheel NAME==VERSION: downloads and unpacks it into $tmp/NAME
wheel() {
  [ -x "$tmp/venv/bin/python" ] || python3 -m venv "$tmp/venv"
  "$tmp/venv/bin/pip" download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    "$1" -d "$tmp/wheel-${1%%=*}"
  "$tmp/venv/bin/python" -m zipfile -e "$tmp/wheel-${1%%=*}"/*.whl "$tmp/${1%%=*}"
}
if [ ! -f "$dir/lib/libmujoco.so.$VERSION" ] || [ ! -f "$dir/include/mujoco/mujoco.h" ]; then
  echo "rlhost: fetching MuJoCo $VERSION (the mujoco wheel) into $dir" >&2
  wheel "mujoco==$VERSION"
  rm -rf "$dir.new" && mkdir -p "$dir.new/lib" "$dir.new/include"
  cp "$tmp/mujoco/mujoco/libmujoco.so.$VERSION" "$dir.new/lib/"
  ln -sf "libmujoco.so.$VERSION" "$dir.new/lib/libmujoco.so"
  cp -r "$tmp/mujoco/mujoco/include/mujoco" "$dir.new/include/"
  rm -rf "$dir" && mv "$dir.new" "$dir"
  date -u +%FT%TZ >"$dir/fetched"
fi
have=1
for m in "${MODELS[@]}"; do [ -f "$dir/models/$m" ] || have=0; done
if [ $have = 0 ]; then
  echo "rlhost: fetching the MuJoCo tasks' models (the gymnasium $GYMNASIUM wheel) into $dir/models" >&2
  wheel "gymnasium==$GYMNASIUM"
  rm -rf "$dir/models.new" && mkdir -p "$dir/models.new"
  for m in "${MODELS[@]}"; do cp "$tmp/gymnasium/gymnasium/envs/mujoco/assets/$m" "$dir/models.new/"; done
  rm -rf "$dir/models" && mv "$dir/models.new" "$dir/models"
  date -u +%FT%TZ >"$dir/fetched"
fi
echo "$dir"
