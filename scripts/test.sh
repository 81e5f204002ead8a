#!/usr/bin/env bash
# Installs what is missing, builds rlhost and runs the whole test suite.
# Extra arguments go to `meson test` (e.g. --suite unit).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
scripts/pydeps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build
meson test -C build --print-errorlogs "$@"
