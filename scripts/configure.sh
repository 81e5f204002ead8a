#!/usr/bin/env bash
# Configures build/ with meson when it is not configured yet, quietly when
# that works; when it fails, everything meson said reaches stderr (meson
# writes its errors to stdout), with the log's path.  Used by quickstart.sh
# and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/build.ninja ] && exit 0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! meson setup build "$@" >"$log" 2>&1; then
  cat "$log" >&2
  echo "rlhost: configuring build/ failed (meson setup, above; build/meson-logs/meson-log.txt has the whole log)" >&2
  exit 1
fi
