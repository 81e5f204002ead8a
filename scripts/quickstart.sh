#!/usr/bin/env bash
# Installs what is missing, builds rlhost, and trains the default config.
# Usage: scripts/quickstart.sh [CONFIG] [rlhost run options...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/configure.sh
# quiet when it works; ninja writes a compiler's errors to stdout, so they
# reach stderr when it fails
log=$(mktemp)
ninja -C build >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; echo "rlhost: building failed (ninja -C build, above)" >&2; exit 1; }
rm -f "$log"
config=${1:-configs/snake_best.cfg}
shift || true
exec build/core/rlhost run "$config" "$@"
