#!/usr/bin/env bash
# Formats the tree's C and C++ with .clang-format (Debian bookworm's
# clang-format 14, which scripts/deps.sh format installs), or with --check
# lists the files that are not formatted and fails, as CI runs it.  The frozen
# ABI headers (tests/fixtures/abi_*) stay byte for byte as they were.
# Usage: scripts/format.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || scripts/deps.sh format packages
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' | grep -v '^tests/fixtures/abi_')
if [ "${1:-}" = --check ]; then
  bad=()
  for f in "${files[@]}"; do
    clang-format --style=file "$f" | cmp -s - "$f" || bad+=("$f")
  done
  if [ ${#bad[@]} != 0 ]; then
    echo "rlhost: not formatted (scripts/format.sh formats them): ${bad[*]}" >&2
    exit 1
  fi
  echo "rlhost: ${#files[@]} files formatted as .clang-format says"
else
  clang-format --style=file -i "${files[@]}"
fi
