#!/usr/bin/env bash
# The Python package (python/rlhost) on this build's librlhost: Gymnasium
# API, bit-identical observations and actions against the rlhost executable,
# zero copy, load() and run().  (TAP; tests/python/binding.py, or SCRIPT
# of tests/python/: gym_vector.py, gym_lifecycle.py)
# Usage: binding.sh RLHOST SOURCE_ROOT BUILD_ROOT [SCRIPT]
set -u
RLHOST=$1 SRC=$2 BUILD=$3 SCRIPT=${4:-binding.py}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"
need_python "$SRC" gymnasium
export RLHOST_LIB_DIR="$BUILD" PYTHONPATH="$SRC/python"
unset RLHOST_PLUGIN_PATH
# A sanitizer build (CI's ASan pass): Python itself is not instrumented, so
# the runtimes go first and leaks (Python's own, at exit) are not reported.
lib="$BUILD/core/runtime/librlhost.so"
asan=$(ldd "$lib" | awk '/libasan/ { print $3 }') ubsan=$(ldd "$lib" | awk '/libubsan/ { print $3 }')
if [ -n "$asan" ]; then
  # A small quarantine: gym_lifecycle.py bounds the memory of 300 envs made
  # and dropped, which ASan's default 256 MB of held-back frees would hide.
  export LD_PRELOAD="$asan${ubsan:+ $ubsan}"
  export ASAN_OPTIONS="detect_leaks=0:quarantine_size_mb=4${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi
py_tap "" "$PY" "$SRC/tests/python/$SCRIPT" "$RLHOST" "$SRC"
echo "1..$n"
[ $failed = 0 ]
