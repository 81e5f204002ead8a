#!/usr/bin/env bash
# Installs what is missing, builds rlhost, and trains the default config.
# Usage: scripts/quickstart.sh [CONFIG] [rlhost run options...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null
config=${1:-configs/snake_best.cfg}
shift || true
exec build/core/rlhost run "$config" "$@"
