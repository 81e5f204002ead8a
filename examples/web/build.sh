#!/usr/bin/env bash
# Builds the snake page for a trained snake run into OUT_DIR: the policy
# exported to C (rlhost export --format c), the snake plugin's rules and
# observations, and a small glue (snake/snake_web.c) compiled together to
# WebAssembly with Debian's clang and lld (no emscripten, no C library:
# libc/ has the few functions it calls), beside index.html and snake.js.
# Usage: examples/web/build.sh RUN_DIR OUT_DIR    (serve.sh OUT_DIR serves it)
# RLHOST names the rlhost executable (default: the build tree's, else rlhost).
set -euo pipefail
[ $# = 2 ] || { echo "usage: examples/web/build.sh RUN_DIR OUT_DIR" >&2; exit 2; }
RUN=$1 OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
RLHOST=${RLHOST:-$SRC/build/core/rlhost}
[ -x "$RLHOST" ] || RLHOST=rlhost
for tool in clang wasm-ld; do
  command -v $tool >/dev/null || { echo "build.sh: $tool is missing (apt-get install clang lld)" >&2; exit 1; }
done
[ -f "$RUN/config.cfg" ] || { echo "build.sh: $RUN has no config.cfg: not a run directory" >&2; exit 1; }
mkdir -p "$OUT"
B=$(mktemp -d)
trap 'rm -rf "$B"' EXIT
python3 "$HERE/snake/env_config.py" "$RUN/config.cfg" "$B"
"$RLHOST" export "$RUN" --format c --name policy -o "$B/policy.c"
W=(--target=wasm32 -nostdlib -ffreestanding -O2 -std=c11 -DRLHOST_NO_LIBM -msimd128 -I"$HERE/libc/include" -I"$SRC/include"
   -I"$SRC/envs/snake" -I"$B")
clang "${W[@]}" -fno-builtin -c "$HERE/libc/libc.c" -o "$B/libc.o"
for f in "$HERE/snake/snake_web.c" "$SRC/envs/snake/snake_rules.c" "$SRC/envs/snake/snake_obs.c" "$B/policy.c"; do
  clang "${W[@]}" -c "$f" -o "$B/$(basename "$f" .c).o"
done
exports=(snake_seed snake_act snake_step snake_next snake_score snake_return snake_length snake_width snake_height
         snake_cell snake_body snake_body_length)
clang --target=wasm32 -nostdlib -Wl,--no-entry -Wl,--strip-all ${exports[@]/#/-Wl,--export=} \
  -o "$OUT/snake.wasm" "$B"/*.o
cp "$HERE/snake/index.html" "$HERE/snake/snake.js" "$B/config.js" "$OUT/"
echo "build.sh: the page is in $OUT (policy $(wc -c < "$OUT/snake.wasm") bytes of wasm); examples/web/serve.sh $OUT serves it"
