#!/usr/bin/env bash
# The Arcade Learning Environment's C++ library, built from the pinned
# `ale-py` source distribution on the Python package index (its CMake
# project, with SDL, Python and the vector env off: it needs only zlib),
# installed outside the source tree into
#   ${RLHOST_ALE_DIR:-${XDG_CACHE_HOME:-~/.cache}/rlhost/ale-VERSION}/{lib,include}
# where meson looks for it (-Dale=auto).  Builds only when it is missing;
# prints the directory.  No ROM is fetched here: the atari env finds them in
# an installed ale-py package, ALE_ROM_DIR or env.rom (docs/envs.md).
# Every build rewrites DIR/fetched, which meson reads at configure time, so
# a build/ configured before ALE arrived reconfigures at the next ninja.
# Usage: scripts/ale.sh [--where]   (--where: print the directory only)
set -euo pipefail
VERSION=0.12.1
SHA256=c503d574c5983e1063b451201ccb779d935919c0f6bf116fb0f4f8aa4c86d249
URL=https://files.pythonhosted.org/packages/3e/e8/e69da8a5fb5feafa9fffb32ed8c2b306b7571b77faf779f61e4eb53304ec/ale_py-$VERSION.tar.gz
dir=${RLHOST_ALE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rlhost/ale-$VERSION}
if [ "${1:-}" = --where ]; then
  mkdir -p "$dir" && { [ -f "$dir/fetched" ] || : >"$dir/fetched"; }
  echo "$dir"; exit 0
fi
if [ -f "$dir/lib/libale.so" ] && [ -f "$dir/include/ale/ale_interface.hpp" ]; then
  echo "$dir"; exit 0
fi
for tool in cmake c++; do
  command -v $tool >/dev/null || { echo "rlhost: ale.sh: $tool is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "rlhost: building ALE $VERSION (the ale-py source distribution) into $dir" >&2
python3 - "$URL" "$tmp/ale.tar.gz" <<'EOF'
import sys, urllib.request
urllib.request.urlretrieve(sys.argv[1], sys.argv[2])
EOF
echo "$SHA256  $tmp/ale.tar.gz" | sha256sum -c --quiet - ||
  { echo "rlhost: ale.sh: the ale-py $VERSION download does not match its pinned SHA-256" >&2; exit 1; }
tar xzf "$tmp/ale.tar.gz" -C "$tmp"
cmake -S "$tmp/ale_py-$VERSION" -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_PYTHON_LIB=OFF \
  -DBUILD_CPP_LIB=ON -DSDL_SUPPORT=OFF -DBUILD_SHARED_LIBS=ON -DCMAKE_INSTALL_PREFIX="$dir.new" \
  -DCMAKE_INSTALL_LIBDIR=lib >"$tmp/cmake.log" 2>&1 ||
  { tail -20 "$tmp/cmake.log" >&2; echo "rlhost: ale.sh: ALE's cmake configure failed" >&2; exit 1; }
cmake --build "$tmp/build" -j "$(nproc)" >"$tmp/build.log" 2>&1 ||
  { tail -20 "$tmp/build.log" >&2; echo "rlhost: ale.sh: ALE's build failed" >&2; exit 1; }
rm -rf "$dir.new"
cmake --install "$tmp/build" >/dev/null
cp "$tmp/ale_py-$VERSION/LICENSE.md" "$dir.new/LICENSE.md"
rm -rf "$dir" && mv "$dir.new" "$dir"
date -u +%FT%TZ >"$dir/fetched"
echo "$dir"
