#!/usr/bin/env bash
# Formats the tree's C and C++ with .clang-format (Debian bookworm's
# clang-format 14, which scripts/deps.sh format installs) and its Python with
# ruff (pyproject.toml's [tool.ruff]; the pinned ruff into .venv/), or with
# --check lists the files that are not formatted, and ruff's lint findings,
# and fails, as CI runs it.  The frozen ABI headers (tests/fixtures/abi_*)
# stay byte for byte as they were.
# Usage: scripts/format.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || scripts/deps.sh format packages
ruff_version=0.17.6 # the same formatting on every machine
if [ "$(.venv/bin/ruff --version 2>/dev/null)" != "ruff $ruff_version" ]; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check "ruff==$ruff_version"
fi
mapfile -t py < <(git ls-files '*.py')
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' | grep -v '^tests/fixtures/abi_')
if [ "${1:-}" = --check ]; then
  bad=()
  for f in "${files[@]}"; do
    clang-format --style=file "$f" | cmp -s - "$f" || bad+=("$f")
  done
  mapfile -t pybad < <(.venv/bin/ruff format --check --output-format concise "${py[@]}" 2>&1 |
    sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: unformatted: .*/\1/p')
  bad+=("${pybad[@]}")
  if [ ${#bad[@]} != 0 ]; then
    echo "rlhost: not formatted (scripts/format.sh formats them): ${bad[*]}" >&2
    exit 1
  fi
  echo "rlhost: ${#files[@]} files formatted as .clang-format says, ${#py[@]} as ruff format does"
  .venv/bin/ruff check --quiet "${py[@]}" || { echo "rlhost: ruff check found the above" >&2; exit 1; }
else
  clang-format --style=file -i "${files[@]}"
  .venv/bin/ruff format --quiet "${py[@]}"
fi
