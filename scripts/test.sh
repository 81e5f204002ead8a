#!/usr/bin/env bash
# Installs what is missing, builds rlhost and runs the whole test suite.
# Extra arguments go to `meson test` (e.g. --suite unit).  The unit suite
# alone (--suite unit) needs neither PostgreSQL nor the Python packages of
# .venv, so it installs neither: the contributor's loop stays short.
set -euo pipefail
cd "$(dirname "$0")/.."
only_unit=0
[ "$*" = "--suite unit" ] && only_unit=1
if [ $only_unit = 1 ]; then
  scripts/deps.sh packages
else
  scripts/deps.sh test
  scripts/pydeps.sh
fi
scripts/configure.sh
ninja -C build
meson test -C build --print-errorlogs "$@"
