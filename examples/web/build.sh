#!/usr/bin/env bash
# Builds the page for a trained run into OUT_DIR: the run's env plugin (its
# own C, through its rlhost_plugin_entry), the policy exported to C
# (rlhost export --format c), and a small host for both (host/web_host.c)
# compiled together to WebAssembly with Debian's clang and lld (no
# emscripten, no C library: libc/ has the few functions they call), beside
# index.html and web.js.  The env plugins that build without a C library:
# snake, gridworld, the SDK's env template, catch, and connect_four, whose
# page is a game against the policy searched by rlhost's own tree search.
# Usage: examples/web/build.sh RUN_DIR OUT_DIR    (serve.sh OUT_DIR serves it)
# RLHOST names the rlhost executable (default: the build tree's, else rlhost);
# BUILD the meson build tree that lists each plugin's sources (default: build/).
set -euo pipefail
[ $# = 2 ] || { echo "usage: examples/web/build.sh RUN_DIR OUT_DIR" >&2; exit 2; }
RUN=$1 OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
RLHOST=${RLHOST:-$SRC/build/core/rlhost}
BUILD=${BUILD:-$SRC/build} # the meson build tree whose plugins the page compiles
[ -x "$RLHOST" ] || RLHOST=rlhost
for tool in clang wasm-ld; do
  command -v $tool >/dev/null || { echo "build.sh: $tool is missing (apt-get install clang lld)" >&2; exit 1; }
done
[ -f "$RUN/config.cfg" ] || { echo "build.sh: $RUN has no config.cfg: not a run directory" >&2; exit 1; }
B=$(mktemp -d)
trap 'rm -rf "$B"' EXIT
python3 "$HERE/host/web_options.py" "$RUN/config.cfg" "$B"
env=$(sed -n 's/^#define WEB_ENV_NAME "\(.*\)"$/\1/p' "$B/web_options.h")
case "$env" in
  snake | gridworld | catch | connect_four) ;;
  *) echo "build.sh: env '$env': the page builds snake, gridworld, catch and connect_four, whose plugins need no C library" >&2
     exit 1 ;;
esac
# a game of seats: the person plays the policy, searched by rlhost's own
# tree search (host/web_versus.c) with the policy's value head
versus=()
if grep -q '^#define WEB_VERSUS 1$' "$B/web_options.h"; then
  versus=("$SRC/core/rlcore/search/mcts.c" "$SRC/core/rlcore/learn/dist.c" "$SRC/core/runtime/search/model.c"
          "$SRC/core/runtime/plugin/env_create.c" "$HERE/host/web_versus.c")
fi
# the plugin's C files, as the build compiles them (meson's record of its targets)
mapfile -t plugin < <(python3 "$HERE/host/plugin_sources.py" "$BUILD" "$env")
[ ${#plugin[@]} -gt 0 ] || exit 1
"$RLHOST" export "$RUN" --format c --name policy -o "$B/policy.c"
if [ ${#versus[@]} -gt 0 ] && ! grep -q '^#define POLICY_HAS_VALUE 1$' "$B/policy.h"; then
  echo "build.sh: $RUN: the game page searches with the policy's value head, and this policy has none" >&2
  exit 1
fi
mkdir -p "$OUT"
W=(--target=wasm32 -nostdlib -ffreestanding -O2 -std=c11 -DRLHOST_NO_LIBM -msimd128 -I"$HERE/libc/include"
   -I"$SRC/include" -I"$B" -I"$HERE/host" -I"$SRC/core/runtime")
clang "${W[@]}" -fno-builtin -c "$HERE/libc/libc.c" -o "$B/libc.o"
for f in "$HERE/host/web_host.c" "$HERE/host/rlcore_web.c" "$SRC/core/rlcore/state_io.c" "$B/policy.c" "${plugin[@]}" \
  "${versus[@]}"; do
  clang "${W[@]}" -c "$f" -o "$B/$(basename "$f" .c).o"
done
exports=(web_open web_error web_begin web_act web_step web_return web_length web_score web_score_name web_env_name
         web_frame web_frame_width web_frame_height web_text)
[ ${#versus[@]} -gt 0 ] && exports+=(web_versus_mover web_versus_new web_versus_actions web_versus_legal web_versus_play
                                     web_versus_reward web_versus_search web_versus_visits web_versus_text)
clang --target=wasm32 -nostdlib -Wl,--no-entry -Wl,--strip-all "${exports[@]/#/-Wl,--export=}" \
  -o "$OUT/policy.wasm" "$B"/*.o
cp "$HERE/index.html" "$HERE/web.js" "$B/config.js" "$OUT/"
echo "build.sh: $env played by the policy of $RUN in $OUT ($(wc -c < "$OUT/policy.wasm") bytes of wasm); " \
  "examples/web/serve.sh $OUT serves it"
