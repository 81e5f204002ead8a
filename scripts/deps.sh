#!/usr/bin/env bash
# Installs the Debian packages rlhost needs, only those missing, fetches
# MuJoCo's library (scripts/mujoco.sh) and builds ALE's (scripts/ale.sh).
# Usage: scripts/deps.sh [fuzz] [test] [format] [packages]
#   fuzz: also clang and its libFuzzer runtime
#   test: also PostgreSQL, the server the distributed-tuning test starts,
#     and clang, lld and Chromium, which build the web page
#     (examples/web/) and play it headless
#   format: also clang-format (scripts/format.sh)
#   packages: the Debian packages only; MuJoCo and ALE are not fetched
#     (the unit suite needs neither: their tests skip, saying why)
set -euo pipefail
pkgs=(gcc g++ meson ninja-build pkg-config binutils libopenblas-dev libconfig-dev python3
      python3-venv cmake zlib1g-dev libopenmpi-dev openmpi-bin iproute2 procps)
packages_only=0
for a in "$@"; do
  case "$a" in
    fuzz) pkgs+=(clang libclang-rt-dev) ;;
    test) pkgs+=(postgresql clang lld chromium) ;;
    format) pkgs+=(clang-format) ;;
    packages) packages_only=1 ;;
    *) echo "rlhost: deps.sh: unknown argument '$a' (fuzz, test, format, packages)" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} != 0 ]; then
  echo "rlhost: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
[ $packages_only = 0 ] || exit 0
# MuJoCo's library from its pinned wheel, outside the tree; optional
"$(dirname "$0")/mujoco.sh" >/dev/null ||
  echo "rlhost: MuJoCo could not be fetched: the mujoco env is left out of the build" >&2
# ALE's library from the pinned ale-py source distribution, outside the
# tree; optional
"$(dirname "$0")/ale.sh" >/dev/null ||
  echo "rlhost: ALE could not be built: the atari env is left out of the build" >&2
