#!/usr/bin/env bash
# The Python package (python/rlhost) on this build's librlhost: Gymnasium
# API, bit-identical observations and actions against the rlhost executable,
# zero copy, load() and run().  (TAP; tests/python/binding.py, or SCRIPT
# of tests/python/: gym_vector.py, gym_lifecycle.py, export_configs.py...)
# Usage: binding.sh RLHOST SOURCE_ROOT BUILD_ROOT [SCRIPT]
set -u
RLHOST=$1 SRC=$2 BUILD=$3 SCRIPT=${4:-binding.py}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
need_python "$SRC" gymnasium
case "$SCRIPT" in pettingzoo_bridge.py | c4_quality.py | bridge_hostile.py) need_python "$SRC" pettingzoo ;; esac
case "$SCRIPT" in export_configs.py | export_fuzz.py) need_python "$SRC" onnxruntime ;; esac
export RLHOST_LIB_DIR="$BUILD" PYTHONPATH="$SRC/python"
unset RLHOST_PLUGIN_PATH
sanitizer_env "$BUILD/core/runtime/librlhost.so" # CI's ASan pass (lib.sh)
py_tap "" "$PY" "$SRC/tests/python/$SCRIPT" "$RLHOST" "$SRC"
echo "1..$n"
[ $failed = 0 ]
